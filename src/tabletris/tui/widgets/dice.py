"""The dice game's drawings: the game screen's side panels, and the end's who won and why and each
player's score broken down (engine numbers)."""

from __future__ import annotations

from collections.abc import Container
from typing import TYPE_CHECKING, Any

from rich.table import Table
from rich.text import Text
from textual.widgets import Static

from tabletris.engine.dice import CHOICE, DiceGame
from tabletris.tui import palette
from tabletris.tui.texts import _, ngettext, pad, pgettext, styled
from tabletris.tui.widgets.panels import fits_line
from tabletris.tui.widgets.pieces import format_cells_short, shape_letter

if TYPE_CHECKING:
    from tabletris.tui.ghost import DiceGhost


def dice_breakdown_rows(game: Any) -> list[dict[str, Any]]:
    """Per player: rows completed, the stuck penalty, the total and whether they won."""
    winners = set(game.winners())
    return [
        {
            "name": name,
            "rows": game.rows_completed[seat],
            "penalty": -1 if game.rules.stuck_penalty and game.stuck == seat else 0,
            "total": game.scores[seat],
            "winner": seat in winners,
        }
        for seat, name in enumerate(game.players)
    ]


def dice_breakdown(game: Any) -> Table:
    """Rows completed, the stuck penalty and the total per player of a dice game."""
    table = Table(title=_("Final score"), expand=False, header_style="bold", title_style="bold")
    table.add_column("", no_wrap=True)
    table.add_column(pgettext("score table", "player"), no_wrap=True)
    table.add_column(_("rows"), justify="right")
    table.add_column(_("penalty"), justify="right")
    table.add_column(_("total"), justify="right", style="bold")
    for seat, row in enumerate(dice_breakdown_rows(game)):
        table.add_row(
            Text("★ " + _("winner") if row["winner"] else "", f"bold {palette.HIGHLIGHT}"),
            Text(row["name"], f"bold {palette.seat_colour(seat)}"),
            str(row["rows"]),
            str(row["penalty"]) if row["penalty"] else "",
            str(row["total"]),
        )
    return table


def dice_ending(game: Any) -> Text:
    text = Text()
    if game.stuck is not None:
        stuck = _("{name} rolled {face}, which fits nowhere: the game ends.")
        text.append(stuck.format(name=game.players[game.stuck], face=game.moves[-1].roll) + "\n")
    elif game.rules.clear_rows:
        target = game.rules.target
        reached = ngettext("A player reached the target of {n} point.", "A player reached the target of {n} points.", target)
        text.append(reached.format(n=target) + "\n")
    winners = game.winners()
    names = ", ".join(game.players[i] for i in winners)
    if len(winners) > 1:
        text.append(_("Shared win: {names} (equal points share the win).").format(names=names), f"bold {palette.HIGHLIGHT}")
    else:
        text.append(_("{name} wins.").format(name=names), f"bold {palette.HIGHLIGHT}")
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
