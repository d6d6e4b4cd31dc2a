"""The tower game at the terminal: each person plans a private drop, bots plan in a worker.

The engine decides everything: where a drop lands (``TowerGame.legal_drops``), where a mino lands
(``Tower.mino_placement``), whether an action is legal and why not (``TowerGame.submit`` /
``preview``), forced holds and outs, minos earned, achievements and scores. The screen moves a
ghost, keeps each person's plan private behind a "pass to NAME" curtain in hot-seat play, and
shows the towers side by side once a round is revealed.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from rich.align import Align
from rich.console import Group
from rich.style import Style
from rich.table import Table
from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, HorizontalScroll, Vertical
from textual.screen import ModalScreen, Screen
from textual.widget import Widget
from textual.widgets import Footer, Static
from textual.worker import get_current_worker

from tabletris.bots.base import Bot
from tabletris.engine.board import Placement
from tabletris.engine.errors import IllegalMove
from tabletris.engine.shapes import Orientation, Shape, normalise
from tabletris.engine.tower import Tower, TowerAction, TowerGame
from tabletris.tui import palette
from tabletris.tui.board_view import BoardView, Overlay
from tabletris.tui.pieces import format_cells_short, piece_picture, shape_letter
from tabletris.tui.setup import Setup

# ----------------------------------------------------------------- drawing helpers


def tower_overlays(tower: Tower) -> dict[tuple[int, int], Overlay]:
    """Bonus icons (the shape's letter in its colour) and diamonds, with marks once covered."""
    overlays: dict[tuple[int, int], Overlay] = {}
    for cell, shape in tower.layout.bonus.items():
        overlays[cell] = Overlay(f"{shape.value}◆", Style(color=palette.shape_hex(shape), bold=True), "★")
    for cell in tower.layout.diamonds:
        overlays[cell] = Overlay("◇ ", Style(color="#e8f6ff", bold=True), "◆")
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
            text.append(" ★", "bold #feca57")
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
            Text("★ winner" if seat in winners else "", "bold #feca57"),
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
        text.append(f"Shared win: {names} (same total, same number of rows).", "bold #feca57")
    elif len(tied) > 1:
        text.append(f"{names} wins on the tie-break: more complete rows at {best} points.", "bold #feca57")
    else:
        text.append(f"{names} wins with {best} points.", "bold #feca57")
    return text


def achievements_text(game: TowerGame) -> Text:
    text = Text()
    for card in game.achievements:
        text.append(f"{card.id}", "bold #feca57")
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
                text.append("open", "#1dd1a1")
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


# ----------------------------------------------------------------- modal screens


class CurtainScreen(ModalScreen[None]):
    """Hot-seat privacy: covers the table until the named player is the one looking."""

    BINDINGS = [Binding("space", "go", "I am here"), Binding("enter", "go", "I am here", show=False)]

    def __init__(self, text: Text) -> None:
        super().__init__(classes="curtain-screen")
        self.text = text

    def compose(self) -> ComposeResult:
        with Vertical(id="curtain"):
            yield Static(self.text, id="curtain-text")
        yield Footer()

    def action_go(self) -> None:
        self.dismiss(None)


class RevealScreen(ModalScreen[None]):
    """After a hot-seat round: all towers side by side, and what each player did."""

    BINDINGS = [Binding("space", "go", "Continue"), Binding("enter", "go", "Continue", show=False)]

    def __init__(self, game: TowerGame, summary: Text) -> None:
        super().__init__(classes="reveal-screen")
        self.game = game
        self.summary = summary

    def compose(self) -> ComposeResult:
        with Vertical(id="curtain"):
            with HorizontalScroll(id="reveal"):
                yield from tower_reveal(self.game)
            yield Static(self.summary, id="reveal-summary")
        yield Footer()

    def action_go(self) -> None:
        self.dismiss(None)


# ----------------------------------------------------------------- the game screen


class TowerScreen(Screen[None]):
    """One tower game: the seat's tower with a ghost, cards, minos, hold, achievements, others."""

    BINDINGS = [
        Binding("left", "move(-1)", "←", show=False),
        Binding("right", "move(1)", "→", show=False),
        Binding("r", "rotate(1)", "Rotate"),
        Binding("e", "rotate(-1)", "Rotate back", show=False),
        Binding("m", "mino_mode", "Mino"),
        Binding("backspace", "unmino", "Undo mino", show=False),
        Binding("h", "hold", "Hold"),
        Binding("enter", "drop", "Drop"),
        Binding("question_mark", "app.help", "Help"),
        Binding("n", "app.new_game", "New", show=False),
        Binding("q", "app.quit", "Quit"),
    ]

    def __init__(self, setup: Setup, game: TowerGame, bots: dict[int, Bot]) -> None:
        super().__init__()
        self.setup = setup
        self.game = game
        self.bots = bots
        self.humans = [i for i in range(len(game.players)) if i not in bots]
        self.seat: int | None = None
        """The person planning now, or None while waiting (bots, curtain, reveal)."""
        self.phase = "idle"
        self.minos: list[int] = []
        self.mino_mode = False
        self.orient: Orientation | None = None
        self.gx = 0
        self.message = Text()
        self.round_log: list[Text] = []
        self._token = 0
        self._rounds_seen = len(game.rounds)
        self._bots_done = False
        self._other_seats: list[int] = []
        self._other_views: list[BoardView] = []

    def compose(self) -> ComposeResult:
        first = self.humans[0] if self.humans else 0
        with Horizontal(id="tower-main"):
            yield tower_view(self.game.towers[first], "tower", id="board")
            with Vertical(id="tower-side"):
                with Horizontal(id="cards"):
                    yield Static(classes="card", id="play-card")
                    yield Static(classes="card", id="next-card")
                    yield Static(id="deck-info")
                yield Static(id="tower-info")
                yield Static(id="status")
                yield Static(id="message")
                yield Static(id="achievements")
            yield HorizontalScroll(id="others")
        yield Footer()

    def on_mount(self) -> None:
        self.call_after_refresh(self.start_round)

    # ------------------------------------------------------------ round flow

    def start_round(self) -> None:
        game = self.game
        if game.over:
            self.phase = "over"
            self.seat = None
            self.refresh_all()
            self.app.call_later(self.app.show_end, self.setup, game)  # type: ignore[attr-defined]
            return
        self._token += 1
        self._bots_done = False
        waiting_bots = [s for s in game.waiting_for() if s in self.bots]
        if waiting_bots:
            self.think(self._token, [(s, self.bots[s], game.view(s)) for s in waiting_bots])
        else:
            self._bots_done = True
        self.next_human()

    def next_human(self) -> None:
        """Hand the table to the next person who still has to choose, or wait for the bots."""
        game = self.game
        waiting = [s for s in game.waiting_for() if s in self.humans]
        self.seat = None
        if not waiting:
            self.phase = "waiting"
            self.refresh_all()
            return
        seat = waiting[0]
        if len(self.humans) > 1:
            self.phase = "curtain"
            self.refresh_all()
            text = Text(justify="center")
            text.append(f"Round {game.round}\n\n", "bold")
            text.append("Pass the table to ")
            text.append(game.players[seat], f"bold {palette.seat_colour(seat)}")
            text.append(".\n\nPress space when only they are looking.", "dim")
            self.app.push_screen(CurtainScreen(text), lambda _: self.begin_plan(seat))
        else:
            self.begin_plan(seat)

    def begin_plan(self, seat: int) -> None:
        self.seat = seat
        self.phase = "plan"
        self.minos = []
        self.mino_mode = False
        self.message = Text()
        self.reset_ghost()
        self.refresh_all()

    def reset_ghost(self) -> None:
        game = self.game
        if game.play_card is None or self.seat is None:
            return
        forms = game.play_card.orientations("rotate")
        drops = game.legal_drops(self.seat, self.minos)
        width = game.rules.width
        if drops:
            best = min(drops, key=lambda p: (p.orientation.index, abs(p.x + p.orientation.width / 2 - width / 2)))
            self.orient, self.gx = best.orientation, best.x
        else:
            self.orient = forms[0]
            self.gx = (width - self.orient.width) // 2

    def submitted(self, seat: int, action: TowerAction) -> None:
        """Submit through the engine; IllegalMove passes up to the caller untouched."""
        self.game.submit(seat, action)
        self.after_submit()

    def after_submit(self) -> None:
        game = self.game
        if len(game.rounds) > self._rounds_seen:
            self.round_done()
        elif self.seat is None or self.seat not in game.waiting_for():
            self.next_human()

    def round_done(self) -> None:
        game = self.game
        summary = Text()
        for r in range(self._rounds_seen, len(game.rounds)):
            actions = game.rounds[r]
            summary.append(f"Round {r + 1}: ", "bold")
            for seat, action in enumerate(actions):
                summary.append(game.players[seat], palette.seat_colour(seat))
                summary.append(f" {self.describe(action)}  ")
            summary.append("\n")
            self.round_log.append(summary.copy())
        self._rounds_seen = len(game.rounds)
        if len(self.humans) > 1:
            self.phase = "reveal"
            self.seat = None
            self.refresh_all()
            # The next round starts once the reveal is gone: a fast bot's round must not meet it still there.
            self.app.push_screen(RevealScreen(game, summary), lambda _: self.call_after_refresh(self.start_round))
        else:
            self.start_round()

    @staticmethod
    def describe(action: TowerAction | None) -> str:
        if action is None:
            return "is out"
        if action.hold:
            return "held"
        minos = f"+{len(action.minos)} mino " if action.minos else ""
        return f"{minos}{format_cells_short(action.place)}"

    # ------------------------------------------------------------ bots

    @work(thread=True, exclusive=True, group="bot")
    def think(self, token: int, jobs: list[tuple[int, Bot, TowerGame]]) -> None:
        """Each bot chooses on its own seat's view, off the UI thread."""
        results: list[tuple[int, TowerAction | Exception]] = []
        for seat, bot, view in jobs:
            try:
                results.append((seat, bot.choose_tower(view)))
            except Exception as e:  # a broken bot must not kill the table
                results.append((seat, e))
        if not get_current_worker().is_cancelled:
            self.app.call_from_thread(self.bots_decided, token, results)

    def bots_decided(self, token: int, results: list[tuple[int, TowerAction | Exception]]) -> None:
        if token != self._token:
            return
        self._bots_done = True
        game = self.game
        before = len(game.rounds)
        for seat, action in results:
            if len(game.rounds) > before:
                break
            if isinstance(action, Exception):
                self.say(f"{game.players[seat]} (bot) failed: {action}", error=True)
                return
            try:
                game.submit(seat, action)
            except IllegalMove as e:
                self.say(f"{game.players[seat]} (bot) made an illegal move: {e}", error=True)
                return
        if len(game.rounds) > self._rounds_seen:
            self.round_done()
        else:
            self.refresh_all()

    # ------------------------------------------------------------ planning

    def planned_tower(self) -> Tower | None:
        """The seat's tower with the minos planned so far dropped into a copy."""
        if self.seat is None:
            return None
        tower = self.game.towers[self.seat].copy()
        for column in self.minos:
            tower.board.push(tower.mino_placement(column))
        return tower

    def ghost(self) -> tuple[tuple[tuple[int, int], ...], str | None]:
        """The ghost's cells and why it cannot go there (None when it can)."""
        game = self.game
        tower = self.planned_tower()
        if tower is None or self.seat is None or game.play_card is None or self.orient is None:
            return (), None
        if self.mino_mode:
            if len(self.minos) >= game.towers[self.seat].minos:
                return (), f"{game.players[self.seat]} has no mino left to drop"
            try:
                p = tower.mino_placement(self.gx)
            except IllegalMove as e:
                return ((self.gx, tower.board.height - 1),), str(e)
            return p.cells, None
        for p in game.legal_drops(self.seat, self.minos):
            if p.orientation is self.orient and p.x == self.gx:
                return p.cells, None
        top = self.orient.at(self.gx, tower.board.height - self.orient.height)
        return top, f"{game.play_card.value} cannot be dropped in this column this way up: it would end above the skyline"

    def action_move(self, dx: int) -> None:
        if self.phase != "plan" or self.orient is None:
            return
        width = self.game.rules.width
        span = 1 if self.mino_mode else self.orient.width
        self.gx = max(0, min(width - span, self.gx + dx))
        self.message = Text()
        self.refresh_all()

    def action_rotate(self, turns: int) -> None:
        if self.phase != "plan" or self.orient is None or self.game.play_card is None or self.mino_mode:
            return
        cells = self.orient.cells
        for _ in range(turns % 4):
            cells = normalise([(y, -x) for x, y in cells])
        forms = self.game.play_card.orientations("rotate")
        found = next((o for o in forms if o.cells == normalise(cells)), None)
        if found is None:
            return
        self.gx += (self.orient.width - found.width) // 2
        self.orient = found
        self.gx = max(0, min(self.game.rules.width - found.width, self.gx))
        self.message = Text()
        self.refresh_all()

    def action_mino_mode(self) -> None:
        if self.phase != "plan" or self.seat is None:
            return
        if not self.mino_mode and len(self.minos) >= self.game.towers[self.seat].minos:
            self.say("No mino left to drop this round.", error=True)
            return
        self.mino_mode = not self.mino_mode
        self.message = Text()
        self.refresh_all()

    def action_unmino(self) -> None:
        if self.phase != "plan" or not self.minos:
            return
        column = self.minos.pop()
        self.say(f"Took back the mino planned in column {column}.")
        self.refresh_all()

    def action_hold(self) -> None:
        if self.phase != "plan" or self.seat is None:
            return
        try:
            self.submitted(self.seat, TowerAction.holding())
        except IllegalMove as e:
            self.say(str(e), error=True)

    def action_drop(self) -> None:
        if self.phase != "plan" or self.seat is None or self.orient is None or self.game.play_card is None:
            return
        cells, reason = self.ghost()
        if reason is not None:
            self.say(reason, error=True)
            return
        if self.mino_mode:
            self.minos.append(self.gx)
            if len(self.minos) >= self.game.towers[self.seat].minos:
                self.mino_mode = False
            self.message = Text()
            self.refresh_all()
            return
        placement = Placement(self.game.play_card, self.orient, self.gx, min(y for _, y in cells))
        try:
            self.submitted(self.seat, TowerAction.drop(placement, self.minos))
        except IllegalMove as e:
            self.say(str(e), error=True)

    @on(BoardView.CellClicked, "#board")
    def clicked(self, event: BoardView.CellClicked) -> None:
        """Click a column to move the ghost there; click the ghost itself to drop it."""
        if self.phase != "plan" or self.orient is None:
            return
        cells, reason = self.ghost()
        if event.cell in cells and reason is None:
            self.action_drop()
            return
        span = 1 if self.mino_mode else self.orient.width
        self.gx = max(0, min(self.game.rules.width - span, event.cell[0] - span // 2))
        self.refresh_all()

    # ------------------------------------------------------------ drawing

    def say(self, text: str, error: bool = False) -> None:
        self.message = Text(text, style="bold #ff6b6b" if error else "#9fd3ff")
        if self.is_mounted:
            self.query_one("#message", Static).update(self.message)

    def refresh_all(self) -> None:
        if not self.is_mounted:
            return
        game = self.game
        board = self.query_one("#board", BoardView)
        shown_seat = self.seat if self.seat is not None else (self.humans[0] if len(self.humans) == 1 else None)
        reason: str | None = None
        if shown_seat is None:
            board.display = False
        else:
            board.display = True
            tower = self.planned_tower() if self.seat is not None else game.towers[shown_seat]
            assert tower is not None
            board.overlays = tower_overlays(tower)
            cells: tuple[tuple[int, int], ...] = ()
            if self.phase == "plan":
                cells, reason = self.ghost()
            board.border_title = tower_title(game, shown_seat)
            board.border_subtitle = f"layout {game.layout_specs[shown_seat]}" if isinstance(game.layout_specs[shown_seat], str) else "custom layout"
            board.show(tower.board, ghost=cells, ghost_ok=reason is None)
        self.query_one("#play-card", Static).update(card_face("PLAY", game.play_card))
        self.query_one("#next-card", Static).update(card_face("NEXT", game.next_card))
        deck = Text()
        deck.append(f"round {game.round}\n", "bold")
        deck.append(f"deck {game.deck_left}\n")
        deck.append(f"box {game.supply} minos", "dim")
        self.query_one("#deck-info", Static).update(deck)
        self.query_one("#tower-info", Static).update(self.info_text(shown_seat))
        self.query_one("#status", Static).update(self.status_text(reason))
        self.query_one("#message", Static).update(self.message)
        self.query_one("#achievements", Static).update(achievements_text(game))
        self.refresh_others(shown_seat)

    def refresh_others(self, shown_seat: int | None) -> None:
        """The other towers, as public as the table: resolved rounds only, never a pending plan."""
        others = self.query_one("#others", HorizontalScroll)
        seats = [s for s in range(len(self.game.players)) if s != shown_seat]
        if seats != self._other_seats:
            for old in self._other_views:
                old.remove()
            self._other_views = [tower_view(self.game.towers[s], "", classes="tower-column") for s in seats]
            self._other_seats = seats
            others.mount_all(self._other_views)
        for view, seat in zip(self._other_views, seats, strict=True):
            tower = self.game.towers[seat]
            view.overlays = tower_overlays(tower)
            view.border_title = tower_title(self.game, seat)
            done = "✔" if self.game.submitted(seat) else "…"
            view.border_subtitle = f"{done} minos {tower.minos}"
            view.show(tower.board)

    def info_text(self, seat: int | None) -> Text:
        text = Text()
        if seat is None:
            return text
        t = self.game.towers[seat]
        s = self.game.score(seat)
        text.append(f"minos {t.minos - len(self.minos)}", "bold")
        if self.minos:
            text.append(f" (planned: columns {' '.join(map(str, self.minos))})", "#feca57")
        text.append("   hold ")
        if t.held is None:
            text.append("free" if not t.out else "—", "#1dd1a1")
        else:
            text.append_text(shape_letter(t.held))
        text.append(f"\nscore {s['total']}: {s['lines']} rows ×2, {s['bonus']} bonus", "dim")
        if s["achievements"]:
            text.append(", " + ", ".join(f"{k} {v}" for k, v in s["achievements"].items()), "dim")
        return text

    def status_text(self, reason: str | None) -> Text:
        game = self.game
        text = Text()
        if game.over:
            text.append("Game over.", "bold")
            return text
        if self.phase in ("waiting", "curtain", "reveal", "idle") or self.seat is None:
            waiting = [game.players[s] for s in game.waiting_for()]
            text.append("Waiting for " + (", ".join(waiting) or "the round") + "…", "dim")
            return text
        name = game.players[self.seat]
        text.append(name, f"bold {palette.seat_colour(self.seat)}")
        if self.mino_mode:
            text.append(" drops a mino ", "")
            text.append("M", palette.shape_style(Shape.M))
            text.append("  (m: back to the piece)", "dim")
        else:
            text.append(" drops ")
            if game.play_card is not None:
                text.append_text(shape_letter(game.play_card))
        text.append("\n")
        if reason is None:
            text.append("✔ fits", f"bold {palette.GHOST_OK}")
            text.append("  ⏎ drop", "dim")
        else:
            text.append(f"✘ {reason}", f"bold {palette.GHOST_BAD}")
        return text
