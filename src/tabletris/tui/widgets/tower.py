"""Drawings of the tower game shared by the game, end and replay screens: towers with their
icons, the reveal row, cards, score lines and tables, achievement cards. Numbers are the engine's."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from rich.align import Align
from rich.console import Group
from rich.style import Style
from rich.table import Table
from rich.text import Text
from textual.containers import HorizontalScroll
from textual.widget import Widget

from tabletris.engine.shapes import Shape
from tabletris.engine.tower import Tower, TowerAction, TowerGame
from tabletris.tui import palette
from tabletris.tui.widgets.board import BoardView, Overlay
from tabletris.tui.widgets.pieces import format_cells_short, piece_picture, shape_letter


def tower_overlays(tower: Tower) -> dict[tuple[int, int], Overlay]:
    """Bonus icons (the shape's letter in its colour) and diamonds, with marks once covered.

    A ★ marks only an icon that scores: the engine says which (``Tower.covered_bonus_cells``);
    an icon under a piece of another shape keeps no mark, as it earns nothing.
    """
    overlays: dict[tuple[int, int], Overlay] = {}
    scoring = set(tower.covered_bonus_cells())
    for cell, shape in tower.layout.bonus.items():
        overlays[cell] = Overlay(f"{shape.value}◆", Style(color=palette.shape_hex(shape), bold=True), "★" if cell in scoring else "")
    for cell in tower.layout.diamonds:
        overlays[cell] = Overlay("◇ ", Style(color=palette.INK, bold=True), "◆")
    return overlays


def tower_view(tower: Tower, title: str, id: str | None = None, classes: str | None = None) -> BoardView:
    view = BoardView(tower.board, show_owner=False, id=id, classes=classes)
    view.overlays = tower_overlays(tower)
    view.border_title = title
    return view


def tower_title(game: TowerGame, seat: int) -> str:
    t = game.towers[seat]
    state = " out" if t.out else ""
    return f"{game.players[seat]} {game.score(seat)['total']}{state}"


def tower_reveal(game: TowerGame) -> Iterator[Widget]:
    """Every tower side by side, each with its owner, score, minos and hold."""
    for seat in range(len(game.players)):
        t = game.towers[seat]
        view = tower_view(t, tower_title(game, seat), classes="tower-column")
        view.border_subtitle = f"minos {t.minos}" + (" · held" if t.hold_used else "")
        yield view


def tower_score_line(game: TowerGame) -> Text:
    text = Text()
    winners = set(game.winners())
    for seat, name in enumerate(game.players):
        s = game.score(seat)
        text.append(f"{name}", f"bold {palette.seat_colour(seat)}")
        text.append(f" {s['total']}", "bold")
        text.append(f" ({s['lines']} rows, {s['bonus']} bonus)", "dim")
        if seat in winners:
            text.append(" ★", f"bold {palette.HIGHLIGHT}")
        text.append("   ")
    return text


def tower_breakdown(game: TowerGame) -> Table:
    """Rows (2 points each), bonus icons, each achievement card and the total, per player."""
    table = Table(title="Final score", header_style="bold", title_style="bold")
    table.add_column("", no_wrap=True)
    table.add_column("player", no_wrap=True)
    table.add_column("rows", justify="right")
    table.add_column("row pts", justify="right")
    table.add_column("bonus", justify="right")
    for card in game.achievements:
        table.add_column(card.id, justify="right")
    table.add_column("total", justify="right", style="bold")
    winners = set(game.winners())
    for seat, name in enumerate(game.players):
        s = game.score(seat)
        cells: list[Text | str] = [
            Text("★ winner" if seat in winners else "", f"bold {palette.HIGHLIGHT}"),
            Text(name + (" (out)" if game.towers[seat].out else ""), f"bold {palette.seat_colour(seat)}"),
            str(s["lines"]),
            str(s["line_points"]),
            str(s["bonus"]),
        ]
        cells += [str(s["achievements"].get(card.id, "")) for card in game.achievements]
        cells.append(str(s["total"]))
        table.add_row(*cells)
    return table


def tower_ending(game: TowerGame) -> Text:
    text = Text()
    scores = [game.score(i) for i in range(len(game.players))]
    winners = game.winners()
    names = ", ".join(game.players[i] for i in winners)
    best = max(s["total"] for s in scores)
    tied = [i for i, s in enumerate(scores) if s["total"] == best]
    if len(winners) > 1:
        text.append(f"Shared win: {names} (same total, same number of rows).", f"bold {palette.HIGHLIGHT}")
    elif len(tied) > 1:
        text.append(f"{names} wins on the tie-break: more complete rows at {best} points.", f"bold {palette.HIGHLIGHT}")
    else:
        text.append(f"{names} wins with {best} points.", f"bold {palette.HIGHLIGHT}")
    return text


def achievements_text(game: TowerGame) -> Text:
    text = Text()
    for card in game.achievements:
        text.append(f"{card.id}", f"bold {palette.HIGHLIGHT}")
        text.append(f"  {card.spec.text}\n", "dim")
        for space, points in enumerate(card.points):
            holders = card.holders[space]
            unused = len(game.players) == 2 and space == 0
            text.append(f"  {points:>2} ", "bold")
            if holders:
                for seat in holders:
                    text.append(f"{game.players[seat]} ", palette.seat_colour(seat))
            elif unused:
                text.append("— (2 players)", "dim")
            elif space < card.next_space:
                text.append("passed", "dim")
            else:
                text.append("open", palette.GOOD)
            text.append("\n")
    if not game.achievements:
        text.append("no achievement cards", "dim")
    return text


def card_face(title: str, shape: Shape | None) -> Group:
    parts: list[Any] = [Text(title, "dim")]
    if shape is None:
        parts.append(Text("—", "dim"))
    else:
        parts.append(shape_letter(shape))
        parts.append(piece_picture(shape))
    return Group(*(Align.center(p) for p in parts))


def describe(action: TowerAction | None) -> str:
    """One player's part of a round for the reveal's summary."""
    if action is None:
        return "is out"
    if action.hold:
        return "held"
    minos = f"+{len(action.minos)} mino " if action.minos else ""
    return f"{minos}{format_cells_short(action.place)}"


class OtherTowers(HorizontalScroll):
    """The other seats' towers, as public as the table: resolved rounds only, never a pending
    plan; ✔ once a seat has submitted this round."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.seats: list[int] = []
        self.views: list[BoardView] = []

    def update_from(self, game: TowerGame, shown_seat: int | None) -> None:
        seats = [s for s in range(len(game.players)) if s != shown_seat]
        if seats != self.seats:
            for old in self.views:
                old.remove()
            self.views = [tower_view(game.towers[s], "", classes="tower-column") for s in seats]
            self.seats = seats
            self.mount_all(self.views)
        for view, seat in zip(self.views, seats, strict=True):
            tower = game.towers[seat]
            view.overlays = tower_overlays(tower)
            view.border_title = tower_title(game, seat)
            view.border_subtitle = f"{'✔' if game.submitted(seat) else '…'} minos {tower.minos}"
            view.show(tower.board)
