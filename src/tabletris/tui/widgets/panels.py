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
from tabletris.tui.texts import _, engine_text, ngettext, pad, pgettext, styled
from tabletris.tui.widgets.pieces import format_cells_short, shape_letter
from tabletris.tui.widgets.tower import achievement_name, achievements_text

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
        text.append("✔ " + _("fits"), f"bold {palette.GHOST_OK}")
        if rows:
            completes = ngettext("completes {n} row", "completes {n} rows", rows).format(n=rows)
            text.append(" · " + completes, f"bold {palette.HIGHLIGHT}")
        text.append("  ⏎ " + (_("place") if key == "place" else _("drop")), "dim")
    else:
        text.append("✘ " + engine_text(reason), f"bold {palette.GHOST_BAD}")
    return text


class DicePlayers(Static):
    """Each seat's mark, name (⚙ for a bot) and points; ▶ at the player to move."""

    def on_mount(self) -> None:
        self.border_title = _("players")

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
        text = Text(_("supply") + " ", "dim")
        if not game.rules.limited_supply:
            text.append(_("unlimited"), "dim")
        else:
            for shape, left in game.supply.items():
                text.append_text(shape_letter(shape))
                text.append(f"{left:<3} ", "bold" if left else f"bold {palette.BAD}")
        if any(game.tokens):
            text.append("\n" + _("tokens") + " ", "dim")
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
            self.update(Text(_("Game over."), "bold"))
            return
        name = game.player_name
        colour = palette.seat_colour(game.to_move)
        if phase == "rolling":
            text.append(_("{name} rolls the die…").format(name=name), colour)
        elif phase == "bot":
            text.append(_("{name} is thinking…").format(name=name), colour)
        elif phase in ("place", "reward") and ghost.shape is not None:
            shape = (ghost.shape.value, palette.shape_style(ghost.shape))
            text.append_text(styled(_("{name} places {shape}"), name=(name, f"bold {colour}"), shape=shape))
            if game.roll_face == CHOICE:
                text.append("  " + _("(★: c changes shape)"), "dim")
            if ghost.take is not None:
                taking = _("taking the {shape} at {cells}").format(shape=ghost.shape.value, cells=format_cells_short(ghost.take.cells))
                text.append("\n" + taking, palette.HIGHLIGHT)
                if len(game.take_options(ghost.shape)) > 1:
                    text.append(" " + _("(t: another)"), "dim")
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
            text.append(pad(game.players[move.player], 10) + " ", palette.seat_colour(move.player))
            text.append_text(shape_letter(move.roll))
            if move.shape is not None:
                text.append("→")
                text.append_text(shape_letter(move.shape))
            if move.place is None:
                text.append("  " + _("cannot be placed: game over"), f"bold {palette.BAD}")
                continue
            if move.take is not None:
                text.append(" " + _("took") + " ", palette.HIGHLIGHT)
            text.append(f" {format_cells_short(move.place)}", "dim")
            pts = points[i] if i < len(points) else 0
            if pts:
                text.append(f"  +{pts}", f"bold {palette.HIGHLIGHT}")
            removed = sum(1 for r in move.rewards or () if r != "point")
            if removed:
                text.append("  " + _("removed {n}").format(n=removed), "#ff9f43")
        if not game.moves:
            text.append(_("no moves yet"), "dim")
        self.update(text)


class DeckInfo(Static):
    """Round, cards left in the deck, minos left in the box."""

    def update_from(self, game: TowerGame) -> None:
        text = Text()
        text.append(_("round {number}").format(number=game.round) + "\n", "bold")
        text.append(_("deck {cards}").format(cards=game.deck_left) + "\n")
        text.append(ngettext("box {n} mino", "box {n} minos", game.supply).format(n=game.supply), "dim")
        self.update(text)


class TowerInfo(Static):
    """The shown seat's minos (less those planned), hold and score breakdown."""

    def update_from(self, game: TowerGame, seat: int | None, planned: list[int]) -> None:
        text = Text()
        if seat is not None:
            t = game.towers[seat]
            s = game.score(seat)
            text.append(_("minos {n}").format(n=t.minos - len(planned)), "bold")
            if planned:
                text.append(" " + _("(planned: columns {columns})").format(columns=" ".join(map(str, planned))), palette.HIGHLIGHT)
            text.append("   " + pgettext("tower panel", "hold") + " ")
            if t.held is None:
                text.append(_("free") if not t.out else "—", palette.GOOD)
            else:
                text.append_text(shape_letter(t.held))
            score = _("score {total}: {rows} rows ×2, {bonus} bonus").format(total=s["total"], rows=s["lines"], bonus=s["bonus"])
            text.append("\n" + score, "dim")
            if s["achievements"]:
                text.append(", " + ", ".join(f"{achievement_name(k)} {v}" for k, v in s["achievements"].items()), "dim")
        self.update(text)


class TowerStatus(Static):
    """Whom the round waits for, or what the planning seat drops and whether it fits."""

    def update_from(self, game: TowerGame, seat: int | None, mino_mode: bool, reason: str | None) -> None:
        text = Text()
        if game.over:
            text.append(_("Game over."), "bold")
        elif seat is None:
            waiting = [game.players[s] for s in game.waiting_for()]
            who = _("Waiting for {names}…").format(names=", ".join(waiting)) if waiting else _("Waiting for the round…")
            text.append(who, "dim")
        else:
            name = (game.players[seat], f"bold {palette.seat_colour(seat)}")
            if mino_mode:
                text.append_text(styled(_("{name} drops a mino {shape}"), name=name, shape=("M", palette.shape_style(Shape.M))))
                text.append("  " + _("(m: back to the piece)"), "dim")
            else:
                card = game.play_card
                shape = (card.value, palette.shape_style(card)) if card is not None else ""
                text.append_text(styled(_("{name} drops {shape}"), name=name, shape=shape))
            text.append("\n")
            text.append_text(fits_line(reason, key="drop"))
        self.update(text)


class AchievementsPanel(Static):
    """The achievement cards, their spaces and who holds them."""

    def update_from(self, game: TowerGame) -> None:
        self.update(achievements_text(game))
