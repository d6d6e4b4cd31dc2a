"""The tower game at the terminal: each person plans a private drop, bots plan in a worker.

The turn protocol is the table driver's (``Table.to_act`` says who still submits this round,
``bot_action`` asks a bot, ``act`` submits); each person's plan is a ``tui.ghost.TowerGhost``, whose
"why not here?" is the engine's ``drop_error``. This screen keeps each plan private behind a
"pass to NAME" curtain in hot-seat play and shows the towers side by side once a round is revealed.
``UI`` is what the app's shared screens show of the game (``tui.game_ui``).
"""

from __future__ import annotations

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.widgets import Footer, Static

from tabletris.engine.errors import IllegalMove
from tabletris.engine.tower import TowerAction, TowerGame
from tabletris.table.driver import Table
from tabletris.table.positions import shown
from tabletris.tui import palette
from tabletris.tui.game_screen import GameScreen
from tabletris.tui.game_ui import GameUI, board_and_panel
from tabletris.tui.ghost import TowerGhost
from tabletris.tui.setup import Setup
from tabletris.tui.texts import N_, _, engine_text, pgettext, styled
from tabletris.tui.tower_views import SEAT_TOWERS, TOWER_KEYS, TowerReplay, tower_end_position
from tabletris.tui.widgets.board import BoardView
from tabletris.tui.widgets.dialogs import CurtainScreen, RevealScreen
from tabletris.tui.widgets.panels import MessageLine
from tabletris.tui.widgets.tower import (
    AchievementsPanel,
    DeckInfo,
    OtherTowers,
    TowerInfo,
    TowerStatus,
    card_face,
    describe,
    tower_breakdown,
    tower_ending,
    tower_overlays,
    tower_title,
    tower_view,
)


class TowerScreen(GameScreen[TowerGame]):
    """One tower game: the seat's tower with a ghost, cards, minos, hold, achievements, others."""

    BINDINGS = [
        Binding("left", "steer('move', -1)", "←", show=False),
        Binding("right", "steer('move', 1)", "→", show=False),
        Binding("r", "steer('rotate', 1)", N_("Rotate")),
        Binding("e", "steer('rotate', -1)", N_("Rotate back"), show=False),
        Binding("m", "steer('toggle_mino')", N_("Mino")),
        Binding("backspace", "unmino", N_("Undo mino"), show=False),
        Binding("h", "hold", N_("Hold")),
        Binding("enter", "drop", N_("Drop")),
        *GameScreen.TABLE_BINDINGS,
    ]

    def __init__(self, setup: Setup, table: Table) -> None:
        assert isinstance(table.game, TowerGame)
        super().__init__(setup, table, table.game)
        self.humans = table.humans()
        self.plan: TowerGhost | None = None
        """The plan of the person at the table now; None while waiting (bots, curtain, reveal)."""
        self.round_log: list[Text] = []
        self._rounds_seen = len(self.game.rounds)

    def compose(self) -> ComposeResult:
        first = self.humans[0] if self.humans else 0
        with Horizontal(id="tower-main"):
            yield tower_view(self.game.towers[first], pgettext("game", "tower"), id="board")
            with Vertical(id="tower-side"):
                with Horizontal(id="cards"):
                    yield Static(classes="card", id="play-card")
                    yield Static(classes="card", id="next-card")
                    yield DeckInfo(id="deck-info")
                yield TowerInfo(id="tower-info")
                yield TowerStatus(id="status")
                yield MessageLine(id="message")
                yield AchievementsPanel(id="achievements")
            yield OtherTowers(id="others")
        yield Footer()

    @property
    def seat(self) -> int | None:
        return None if self.plan is None else self.plan.seat

    # ------------------------------------------------------------ round flow

    def next_turn(self) -> None:
        """A round starts (or the game ends): the bots think in a worker, the people plan in turn."""
        if self.game.over:
            self.plan = None
            return self.end()
        self._token += 1
        bots = self.table.bots_to_act()
        if bots:
            # Each bot decides on a table of its own (its seat's view), so the thread never reads
            # the game while people submit on this one.
            jobs = [(s, Table(self.game if self.bots[s].sees_deck else self.game.view(s), {s: self.bots[s]})) for s in bots]
            self.think(self._token, jobs)
        self.next_human()

    def next_human(self) -> None:
        """Hand the table to the next person who still has to choose, or wait for the bots."""
        waiting = self.table.humans_to_act()
        self.plan = None
        if not waiting:
            self.phase = "waiting"
            self.refresh_all()
            return
        seat = waiting[0]
        if len(self.humans) > 1:
            self.phase = "curtain"
            self.refresh_all()
            text = Text(justify="center")
            text.append(_("Round {number}").format(number=self.game.round) + "\n\n", "bold")
            name = (self.game.players[seat], f"bold {palette.seat_colour(seat)}")
            text.append_text(styled(_("Pass the table to {name}."), name=name))
            text.append("\n\n" + _("Press space or Enter, or click, when only they are looking."), "dim")
            self.app.push_screen(CurtainScreen(text), lambda _: self.begin_plan(seat))
        else:
            self.begin_plan(seat)

    def begin_plan(self, seat: int) -> None:
        self.plan = TowerGhost(self.game, seat)
        self.plan.reset()
        self.phase = "plan"
        self.say("")
        self.refresh_all()

    def submit(self, seat: int, action: TowerAction) -> None:
        """Submit through the driver; ``IllegalMove`` passes up to the caller untouched."""
        self.table.act(seat, action)
        if len(self.game.rounds) > self._rounds_seen:
            self.round_done()
        elif self.seat is None or self.seat not in self.game.waiting_for():
            self.next_human()

    def round_done(self) -> None:
        game = self.game
        summary = Text()
        for r in range(self._rounds_seen, len(game.rounds)):
            summary.append(_("Round {number}:").format(number=r + 1) + " ", "bold")
            for seat, action in enumerate(game.rounds[r]):
                summary.append(game.players[seat], palette.seat_colour(seat))
                summary.append(f" {describe(action)}  ")
            summary.append("\n")
            self.round_log.append(summary.copy())
        self._rounds_seen = len(game.rounds)
        if len(self.humans) > 1:
            self.phase = "reveal"
            self.plan = None
            self.refresh_all()
            # The next round starts once the reveal is gone: a fast bot's round must not meet it still there.
            self.app.push_screen(RevealScreen(game, summary), self.after_reveal)
        else:
            self.next_turn()

    def after_reveal(self, _: None) -> None:
        self.call_after_refresh(self.next_turn)

    # ------------------------------------------------------------ bots

    def bots_decided(self, token: int, results: list[tuple[int, TowerAction | Exception]]) -> None:
        if token != self._token:
            return
        game = self.game
        before = len(game.rounds)
        for seat, action in results:
            if len(game.rounds) > before:
                break
            if isinstance(action, Exception):
                return self.say(self.bot_fault(seat, action), error=True)
            try:
                self.table.act(seat, action)
            except IllegalMove as e:
                return self.say(self.bot_fault(seat, e, illegal=True), error=True)
        if len(game.rounds) > self._rounds_seen:
            self.round_done()
        else:
            self.refresh_all()

    # ------------------------------------------------------------ planning

    def action_steer(self, what: str, *args: int) -> None:
        """← → (move), r e (rotate), m (mino mode): the plan's ghost changes or says why not."""
        if self.phase == "plan" and self.plan is not None and self.plan.orient is not None:
            complaint = getattr(self.plan, what)(*args)
            self.say(engine_text(complaint) if complaint else "", error=complaint is not None)
            self.refresh_all()

    def action_unmino(self) -> None:
        if self.phase == "plan" and self.plan is not None:
            column = self.plan.unmino()
            if column is not None:
                self.say(_("Took back the mino planned in column {column}.").format(column=shown(column)))
                self.refresh_all()

    def action_hold(self) -> None:
        if self.phase == "plan" and self.seat is not None:
            try:
                self.submit(self.seat, TowerAction.holding())
            except IllegalMove as e:
                self.say(engine_text(e), error=True)

    def action_drop(self) -> None:
        if self.phase != "plan" or self.plan is None or self.plan.orient is None:
            return
        outcome = self.plan.drop()
        if isinstance(outcome, str):
            self.say(engine_text(outcome), error=True)
        elif outcome is None:
            self.say("")
            self.refresh_all()
        else:
            try:
                self.submit(self.plan.seat, outcome)
            except IllegalMove as e:
                self.say(engine_text(e), error=True)

    @on(BoardView.CellClicked, "#board")
    def clicked(self, event: BoardView.CellClicked) -> None:
        """Click a column to move the ghost there; click the ghost itself to drop it."""
        if self.phase != "plan" or self.plan is None or self.plan.orient is None:
            return
        if self.plan.click(event.cell):
            self.action_drop()
        else:
            self.refresh_all()

    # ------------------------------------------------------------ drawing

    def refresh_all(self) -> None:
        if not self.is_mounted:
            return
        game, plan = self.game, self.plan
        board = self.query_one("#board", BoardView)
        shown = self.seat if self.seat is not None else (self.humans[0] if len(self.humans) == 1 else None)
        reason: str | None = None
        board.display = shown is not None
        if shown is not None:
            tower = plan.planned_tower() if plan is not None else game.towers[shown]
            cells: tuple[tuple[int, int], ...] = ()
            if self.phase == "plan" and plan is not None:
                cells, reason = plan.cells_and_reason()
            board.overlays = tower_overlays(tower)
            board.border_title = tower_title(game, shown)
            spec = game.layout_specs[shown]
            board.border_subtitle = _("layout {name}").format(name=spec) if isinstance(spec, str) else _("custom layout")
            board.show(tower.board, ghost=cells, ghost_ok=reason is None)
        self.query_one("#play-card", Static).update(card_face(_("PLAY"), game.play_card))
        self.query_one("#next-card", Static).update(card_face(_("NEXT"), game.next_card))
        self.query_one(DeckInfo).update_from(game)
        self.query_one(TowerInfo).update_from(game, shown, plan.minos if plan else [])
        planning = self.phase == "plan" and plan is not None
        self.query_one(TowerStatus).update_from(game, self.seat if planning else None, bool(plan and plan.mino_mode), reason)
        self.query_one(AchievementsPanel).update_from(game)
        self.query_one(OtherTowers).update_from(game, shown)


UI = GameUI(
    label=lambda: pgettext("game", "tower"),
    screen=TowerScreen,
    needed_size=lambda game: board_and_panel(game, boards=len(game.players)),
    end_layout=Vertical,
    end_position=tower_end_position,
    end_result=tower_ending,
    end_breakdown=tower_breakdown,
    replay_view=TowerReplay,
    replay_steps="rounds",
    replay_step=N_("round {k}/{n}"),
    keys=TOWER_KEYS,
    seat_options=(SEAT_TOWERS,),
    tutorial="tabletris.tui.tower_tutorial",
)
"""The tower game as the app's shared screens show it (``GameSpec.front_end("tui")``)."""
