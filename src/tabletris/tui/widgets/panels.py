"""Side panels of the game screens. Each is a ``Static`` with ``update_from(...)``: the screen hands
it the game (and the ghost when there is one) and the panel lays the engine's numbers out."""

from __future__ import annotations

from collections.abc import Container
from typing import TYPE_CHECKING

from rich.text import Text
from textual.content import Content
from textual.widgets import Static

from tabletris.engine.dice import CHOICE, DiceGame
from tabletris.engine.shapes import Shape
from tabletris.engine.tower import TowerGame
from tabletris.tui import palette
from tabletris.tui.widgets.pieces import format_cells_short, shape_letter
from tabletris.tui.widgets.tower import achievements_text

if TYPE_CHECKING:
    from tabletris.tui.ghost import DiceGhost


class MessageLine(Static):
    """The last thing the app had to tell the player (an error in the theme's error colour)."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.text = ""
        self.error = False

    def say(self, text: str, error: bool = False) -> None:
        self.text, self.error = text, error
        style = "b $text-error" if error else "$text-accent"
        self.update(Content.styled(text, style) if text else "")

    def clear(self) -> None:
        self.say("")

    def __str__(self) -> str:
        return self.text


def fits_line(reason: str | None, rows: int = 0, key: str = "place") -> Text:
    """"✔ fits" (with the rows it completes) or "✘ why not", the reason being the engine's."""
    text = Text()
    if reason is None:
        text.append("✔ fits", f"bold {palette.GHOST_OK}")
        if rows:
            text.append(f" · completes {rows} row{'s' if rows > 1 else ''}", f"bold {palette.HIGHLIGHT}")
        text.append(f"  ⏎ {key}", "dim")
    else:
        text.append(f"✘ {reason}", f"bold {palette.GHOST_BAD}")
    return text


class DicePlayers(Static):
    """Each seat's mark, name (⚙ for a bot) and points; ▶ at the player to move."""

    BORDER_TITLE = "players"

    def update_from(self, game: DiceGame, bots: Container[int]) -> None:
        text = Text(no_wrap=True, overflow="ellipsis")
        for seat, name in enumerate(game.players):
            turn = seat == game.to_move and not game.over
            colour = palette.seat_colour(seat)
            text.append("▶ " if turn else "  ", "bold")
            text.append(f"{palette.seat_mark(seat)} ", f"bold {colour}")
            who = " ⚙" if seat in bots else ""
            text.append(f"{name}{who}", f"bold {colour}" if turn else colour)
            text.append(f"  {game.scores[seat]:>3}", "bold")
            if seat < len(game.players) - 1:
                text.append("\n")
        self.update(text)


class DiceSupply(Static):
    """Stones left of each shape (or "unlimited"), and the point tokens that left the supply."""

    def update_from(self, game: DiceGame) -> None:
        text = Text("supply ", "dim")
        if not game.rules.limited_supply:
            text.append("unlimited", "dim")
        else:
            for shape, left in game.supply.items():
                text.append_text(shape_letter(shape))
                text.append(f"{left:<3} ", "bold" if left else f"bold {palette.BAD}")
        if any(game.tokens):
            text.append("\ntokens ", "dim")
            for seat, held in enumerate(game.tokens):
                if held:
                    text.append(f"{game.players[seat]} ", palette.seat_colour(seat))
                    text.append(" ".join(t.value for t in held) + "  ", "bold")
        self.update(text)


class DiceStatus(Static):
    """Who does what now; while placing, the piece, the stone taken and whether the ghost fits."""

    def update_from(self, game: DiceGame, phase: str, ghost: DiceGhost, reason: str | None) -> None:
        text = Text()
        if game.over:
            self.update(Text("Game over.", "bold"))
            return
        name = game.player_name
        colour = palette.seat_colour(game.to_move)
        if phase == "rolling":
            text.append(f"{name} rolls the die…", colour)
        elif phase == "bot":
            text.append(f"{name} is thinking…", colour)
        elif phase in ("place", "reward") and ghost.shape is not None:
            text.append(f"{name}", f"bold {colour}")
            text.append(" places ")
            text.append_text(shape_letter(ghost.shape))
            if game.roll_face == CHOICE:
                text.append("  (★: c changes shape)", "dim")
            if ghost.take is not None:
                text.append(f"\ntaking the {ghost.shape.value} at {format_cells_short(ghost.take.cells)}", palette.HIGHLIGHT)
                if len(game.take_options(ghost.shape)) > 1:
                    text.append(" (t: another)", "dim")
            text.append("\n")
            text.append_text(fits_line(reason, len(ghost.scoring_rows()) if reason is None else 0))
        self.update(text)


class DiceLog(Static):
    """The moves so far, with the points each scored."""

    def update_from(self, game: DiceGame, points: list[int]) -> None:
        text = Text(no_wrap=True, overflow="ellipsis")
        for i, move in enumerate(game.moves):
            if i:
                text.append("\n")
            text.append(f"{i + 1:>3} ", "dim")
            text.append(f"{game.players[move.player]:<10.10} ", palette.seat_colour(move.player))
            text.append_text(shape_letter(move.roll))
            if move.shape is not None:
                text.append("→")
                text.append_text(shape_letter(move.shape))
            if move.place is None:
                text.append("  cannot be placed: game over", f"bold {palette.BAD}")
                continue
            if move.take is not None:
                text.append(" took ", palette.HIGHLIGHT)
            text.append(f" {format_cells_short(move.place)}", "dim")
            pts = points[i] if i < len(points) else 0
            if pts:
                text.append(f"  +{pts}", f"bold {palette.HIGHLIGHT}")
            removed = sum(1 for r in move.rewards or () if r != "point")
            if removed:
                text.append(f"  removed {removed}", "#ff9f43")
        if not game.moves:
            text.append("no moves yet", "dim")
        self.update(text)


class DeckInfo(Static):
    """Round, cards left in the deck, minos left in the box."""

    def update_from(self, game: TowerGame) -> None:
        text = Text()
        text.append(f"round {game.round}\n", "bold")
        text.append(f"deck {game.deck_left}\n")
        text.append(f"box {game.supply} minos", "dim")
        self.update(text)


class TowerInfo(Static):
    """The shown seat's minos (less those planned), hold and score breakdown."""

    def update_from(self, game: TowerGame, seat: int | None, planned: list[int]) -> None:
        text = Text()
        if seat is not None:
            t = game.towers[seat]
            s = game.score(seat)
            text.append(f"minos {t.minos - len(planned)}", "bold")
            if planned:
                text.append(f" (planned: columns {' '.join(map(str, planned))})", palette.HIGHLIGHT)
            text.append("   hold ")
            if t.held is None:
                text.append("free" if not t.out else "—", palette.GOOD)
            else:
                text.append_text(shape_letter(t.held))
            text.append(f"\nscore {s['total']}: {s['lines']} rows ×2, {s['bonus']} bonus", "dim")
            if s["achievements"]:
                text.append(", " + ", ".join(f"{k} {v}" for k, v in s["achievements"].items()), "dim")
        self.update(text)


class TowerStatus(Static):
    """Whom the round waits for, or what the planning seat drops and whether it fits."""

    def update_from(self, game: TowerGame, seat: int | None, mino_mode: bool, reason: str | None) -> None:
        text = Text()
        if game.over:
            text.append("Game over.", "bold")
        elif seat is None:
            waiting = [game.players[s] for s in game.waiting_for()]
            text.append("Waiting for " + (", ".join(waiting) or "the round") + "…", "dim")
        else:
            text.append(game.players[seat], f"bold {palette.seat_colour(seat)}")
            if mino_mode:
                text.append(" drops a mino ")
                text.append("M", palette.shape_style(Shape.M))
                text.append("  (m: back to the piece)", "dim")
            else:
                text.append(" drops ")
                if game.play_card is not None:
                    text.append_text(shape_letter(game.play_card))
            text.append("\n")
            text.append_text(fits_line(reason, key="drop"))
        self.update(text)


class AchievementsPanel(Static):
    """The achievement cards, their spaces and who holds them."""

    def update_from(self, game: TowerGame) -> None:
        self.update(achievements_text(game))
