"""The dice game's end: who won and why, and each player's score broken down (engine numbers)."""

from __future__ import annotations

from typing import Any

from rich.table import Table
from rich.text import Text

from tabletris.tui import palette
from tabletris.tui.texts import _, ngettext, pgettext


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
