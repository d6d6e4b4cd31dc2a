"""Drawings of the tower game shared by the game, end and replay screens: towers with their
icons, the reveal row, cards, score lines and tables, achievement cards, the game screen's side
panels. Numbers are the engine's."""

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
from textual.widgets import Static

from tabletris.engine.achievements import ACHIEVEMENTS
from tabletris.engine.shapes import Shape
from tabletris.engine.tower import Tower, TowerAction, TowerGame
from tabletris.i18n import DEFAULT, current_language
from tabletris.table.positions import numbers
from tabletris.tui import palette
from tabletris.tui.texts import _, engine_text, ngettext, pgettext, styled
from tabletris.tui.widgets.board import BoardView, Overlay
from tabletris.tui.widgets.panels import fits_line
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
    title = _("{name} {points} out") if t.out else _("{name} {points}")
    return title.format(name=game.players[seat], points=game.score(seat)["total"])


def tower_reveal(game: TowerGame) -> Iterator[Widget]:
    """Every tower side by side, each with its owner, score, minos and hold."""
    for seat in range(len(game.players)):
        t = game.towers[seat]
        view = tower_view(t, tower_title(game, seat), classes="tower-column")
        view.border_subtitle = _("minos {n}").format(n=t.minos) + (" · " + _("held") if t.hold_used else "")
        yield view


def tower_score_line(game: TowerGame) -> Text:
    text = Text()
    winners = set(game.winners())
    for seat, name in enumerate(game.players):
        s = game.score(seat)
        text.append(f"{name}", f"bold {palette.seat_colour(seat)}")
        text.append(f" {s['total']}", "bold")
        text.append(" " + _("({rows} rows, {bonus} bonus)").format(rows=s["lines"], bonus=s["bonus"]), "dim")
        if seat in winners:
            text.append(" ★", f"bold {palette.HIGHLIGHT}")
        text.append("   ")
    return text


def tower_breakdown(game: TowerGame) -> Table:
    """Rows (2 points each), bonus icons, each achievement card and the total, per player."""
    table = Table(title=_("Final score"), header_style="bold", title_style="bold")
    table.add_column("", no_wrap=True)
    table.add_column(pgettext("score table", "player"), no_wrap=True)
    table.add_column(_("rows"), justify="right")
    table.add_column(_("row pts"), justify="right")
    table.add_column(_("bonus"), justify="right")
    for card in game.achievements:
        table.add_column(card_name(card), justify="right")
    table.add_column(_("total"), justify="right", style="bold")
    winners = set(game.winners())
    for seat, name in enumerate(game.players):
        s = game.score(seat)
        cells: list[Text | str] = [
            Text("★ " + _("winner") if seat in winners else "", f"bold {palette.HIGHLIGHT}"),
            Text(_("{name} (out)").format(name=name) if game.towers[seat].out else name, f"bold {palette.seat_colour(seat)}"),
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
        ending = _("Shared win: {names} (same total, same number of rows).").format(names=names)
    elif len(tied) > 1:
        ending = ngettext(
            "{name} wins on the tie-break: more complete rows at {n} point.",
            "{name} wins on the tie-break: more complete rows at {n} points.",
            best,
        ).format(name=names, n=best)
    else:
        ending = ngettext("{name} wins with {n} point.", "{name} wins with {n} points.", best).format(name=names, n=best)
    text.append(ending, f"bold {palette.HIGHLIGHT}")
    return text


def achievements_text(game: TowerGame) -> Text:
    text = Text()
    for card in game.achievements:
        text.append(card_name(card), f"bold {palette.HIGHLIGHT}")
        text.append(f"  {engine_text(card.spec.text)}\n", "dim")
        for space, points in enumerate(card.points):
            holders = card.holders[space]
            unused = len(game.players) == 2 and space == 0
            text.append(f"  {points:>2} ", "bold")
            if holders:
                for seat in holders:
                    text.append(f"{game.players[seat]} ", palette.seat_colour(seat))
            elif unused:
                text.append("— " + _("(2 players)"), "dim")
            elif space < card.next_space:
                text.append(_("passed"), "dim")
            else:
                text.append(_("open"), palette.GOOD)
            text.append("\n")
    if not game.achievements:
        text.append(_("no achievement cards"), "dim")
    return text


def card_name(card: Any) -> str:
    """An achievement card's name as a player reads it: the engine's name (after the rulebook) in
    the player's language. English keeps the card's id, as the app always showed it."""
    return achievement_name(str(card.id))


def achievement_name(card_id: str) -> str:
    spec = ACHIEVEMENTS.get(card_id)
    if current_language() == DEFAULT or spec is None or not spec.name:
        return card_id
    return engine_text(spec.name)


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
        return _("is out")
    if action.hold:
        return _("held")
    minos = ngettext("+{n} mino", "+{n} minos", len(action.minos)).format(n=len(action.minos)) + " " if action.minos else ""
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
            view.border_subtitle = f"{'✔' if game.submitted(seat) else '…'} " + _("minos {n}").format(n=tower.minos)
            view.show(tower.board)


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
                text.append(" " + _("(planned: columns {columns})").format(columns=numbers(planned)), palette.HIGHLIGHT)
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
