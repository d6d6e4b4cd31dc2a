"""The dice game at the terminal: roll, steer a ghost piece, place; bots play by themselves.

The turn protocol is the table driver's (``Table.to_act`` rolls and says who acts, ``bot_action``
asks a bot, ``act`` plays); the ghost (``tui.ghost.DiceGhost``) asks the engine where a piece may
go and why not. This screen keeps what is its own: the die's tumble, the bot's pause, keys,
clicks and drawing; ``UI`` is what the app's shared screens show of the game (``tui.game_ui``).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widgets import Footer

from tabletris.engine.dice import DiceAction, DiceGame
from tabletris.engine.errors import IllegalMove
from tabletris.table.driver import Table
from tabletris.tui.dice_views import DICE_KEYS, DICE_NOTE, DiceReplay, dice_end_position
from tabletris.tui.game_screen import GameScreen
from tabletris.tui.game_ui import GameUI, board_and_panel
from tabletris.tui.ghost import DiceGhost
from tabletris.tui.setup import Setup
from tabletris.tui.texts import N_, _, engine_text, pgettext
from tabletris.tui.widgets.board import BoardView
from tabletris.tui.widgets.dialogs import RewardScreen, TokenScreen
from tabletris.tui.widgets.dice import (
    DiceLog,
    DicePlayers,
    DiceStatus,
    DiceSupply,
    dice_breakdown,
    dice_ending,
)
from tabletris.tui.widgets.die import DieView
from tabletris.tui.widgets.panels import MessageLine


class DiceScreen(GameScreen[DiceGame]):
    """One dice game: board, die, players and scores, supply, move log, and the ghost piece; its
    ``phase`` is ``rolling``, ``place`` (a person steers the ghost), ``bot`` or ``reward``."""

    BINDINGS = [
        Binding("left", "move(-1, 0)", "←", show=False),
        Binding("right", "move(1, 0)", "→", show=False),
        Binding("up", "move(0, 1)", "↑", show=False),
        Binding("down", "move(0, -1)", "↓", show=False),
        Binding("r", "steer('rotate', 1)", N_("Rotate")),
        Binding("e", "steer('rotate', -1)", N_("Rotate back"), show=False),
        Binding("f", "steer('flip')", N_("Flip")),
        Binding("space", "steer('drop')", N_("Drop")),
        Binding("enter", "place", N_("Place")),
        Binding("c", "steer('cycle_shape')", N_("Shape"), show=False),
        Binding("t", "steer('cycle_take')", N_("Take another"), show=False),
        Binding("right_square_bracket", "steer('cycle_legal', 1)", N_("Next fit"), show=False),
        Binding("left_square_bracket", "steer('cycle_legal', -1)", N_("Prev fit"), show=False),
        Binding("u", "undo", N_("Undo")),
        *GameScreen.TABLE_BINDINGS,
    ]

    def __init__(self, setup: Setup, table: Table) -> None:
        assert isinstance(table.game, DiceGame)
        super().__init__(setup, table, table.game)
        self.ghost = DiceGhost(self.game)
        self.points: list[int] = []

    def compose(self) -> ComposeResult:
        with Horizontal(id="dice-main"):
            with VerticalScroll(id="board-scroll"):
                yield BoardView(self.game.board, id="board")
            with Vertical(id="side"):
                with Horizontal(id="side-top"):
                    yield DieView(id="die")
                    yield DicePlayers(id="players")
                yield DiceSupply(id="supply")
                yield DiceStatus(id="status")
                yield MessageLine(id="message")
                with VerticalScroll(id="log-box"):
                    yield DiceLog(id="log")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#log-box").border_title = _("moves")
        self.refresh_all()  # then GameScreen.on_mount starts the first turn

    def stall(self, text: str) -> None:  # a bot failed: say why; the game is untouched
        self.say(text, error=True)
        self.phase = "idle"
        self.refresh_all()

    # ------------------------------------------------------------ turn flow

    def next_turn(self) -> None:
        """Start whatever comes next: the end, a roll, a bot's move or a person's ghost."""
        if self.game.over:
            return self.end()
        if self.game.roll_face is None:
            self.table.to_act()  # the driver rolls; the animation below only shows it
            self.animate_roll()
            return
        self.after_roll()

    def animate_roll(self) -> None:
        self.phase = "rolling"
        self.refresh_all()
        token = self._token
        frames = max(0, int(getattr(self.app, "roll_frames", 8)))
        self.query_one(DieView).tumble(self.game.rules.die, frames, lambda: self.after_roll(token))

    def after_roll(self, token: int | None = None) -> None:
        if token is not None and token != self._token:
            return  # an undo came between the roll and its end
        self.query_one(DieView).show_face(self.game.roll_face)
        seats = self.table.to_act()
        if not seats:  # the roll could not be placed: the engine ended the game
            self.next_turn()
        elif self.table.is_bot(seats[0]):
            self.start_bot(seats[0])
        else:
            self.phase = "place"
            self.ghost.start()
            self.refresh_all()

    # ------------------------------------------------------------ bots

    def start_bot(self, seat: int) -> None:
        self.phase = "bot"
        self.refresh_all()
        self._token += 1
        self.think(self._token, [(seat, Table(self.game.view(), {seat: self.bots[seat]}))])

    def bots_decided(self, token: int, results: list[tuple[int, DiceAction | Exception]]) -> None:
        if token != self._token or self.phase != "bot":
            return
        [(seat, decision)] = results
        if isinstance(decision, Exception):
            return self.stall(self.bot_fault(seat, decision))
        lifted = decision.take.cells if decision.take else ()
        self.query_one("#board", BoardView).show(ghost=decision.placement.cells, ghost_ok=True, lifted=lifted)

        def apply() -> None:
            if token != self._token:
                return
            try:
                self.commit(decision)
            except IllegalMove as e:
                self.stall(self.bot_fault(seat, e, illegal=True))

        pause = float(getattr(self.app, "bot_pause", 0.5))
        self.set_timer(pause, apply) if pause > 0 else apply()

    # ------------------------------------------------------------ moves

    def commit(self, action: DiceAction) -> None:
        """Play through the driver; on success log the points and go on, else ``IllegalMove``."""
        game = self.game
        seat = game.to_move
        before = game.scores[seat]
        self.table.act(seat, action)
        self.points = self.points[: len(game.moves) - 1] + [game.scores[seat] - before]
        self.message.clear()
        self.moved()
        self.phase = "idle"
        self.next_turn()
        self.refresh_all()

    def moved(self) -> None:
        """A move went in, before the next turn starts (the tutorial checks its step here)."""

    def action_place(self) -> None:
        if self.phase != "place" or self.ghost.orient is None:
            return
        reason = self.ghost.reason()
        if reason is not None:
            self.say(engine_text(reason), error=True)
            return
        if self.game.rules.row_reward == "choose":
            rows = self.ghost.scoring_rows()
            board, stones = self.ghost.reward_candidates(len(rows)) if rows else (None, [])
            if board is not None and stones:
                dialog = RewardScreen(len(rows), board, stones, self.game.players)
                return self.ask(dialog, self.ghost.action(), "rewards")
        self.try_commit(self.ghost.action())

    def ask(self, dialog: RewardScreen | TokenScreen, action: DiceAction, field: str) -> None:
        """A person's choice the move still needs (rewards, then tokens); escape takes it back."""
        self.phase = "reward"

        def chosen(value: tuple[Any, ...] | None) -> None:
            self.phase = "place"
            if value is None:
                missing = _("Rewards not chosen") if field == "rewards" else _("Tokens not chosen")
                self.say(_("{missing}: the piece is not placed yet.").format(missing=missing))
                return self.refresh_all()
            self.try_commit(replace(action, rewards=value) if field == "rewards" else replace(action, tokens=value))

        self.app.push_screen(dialog, chosen)

    def try_commit(self, action: DiceAction) -> None:
        dialog = TokenScreen.for_action(self.game, action)
        if dialog is not None:
            return self.ask(dialog, action, "tokens")
        try:
            self.commit(action)
        except IllegalMove as e:
            self.say(engine_text(e), error=True)
            self.refresh_all()

    def action_undo(self) -> None:
        game = self.game
        if self.phase in ("reward", "rolling"):
            return
        if not any(m.place is not None and m.player not in self.bots for m in game.moves):
            self.say(_("Nothing to undo: no person has placed a piece yet."), error=True)
            return
        self._token += 1  # forget any bot decision in flight
        self.workers.cancel_group(self, "bot")
        while True:
            move = game.undo()
            if move.player not in self.bots:
                break
        del self.points[len(game.moves) :]
        self.say(_("Took back {name}'s {piece}.").format(name=game.players[move.player], piece=move.shape or move.roll))
        self.phase = "idle"
        self.next_turn()
        self.refresh_all()

    # ------------------------------------------------------------ steering the ghost

    def action_steer(self, what: str, *args: int) -> None:
        """A ghost key (rotate, flip, drop, cycle_*): the ghost moves or says why it cannot."""
        if self.phase == "place" and self.ghost.orient is not None:
            self.steer(getattr(self.ghost, what)(*args))

    def steer(self, complaint: str | None) -> None:
        if complaint is None:
            self.message.clear()
        else:
            self.say(engine_text(complaint), error=True)
        self.refresh_all()

    def action_move(self, dx: int, dy: int) -> None:
        if self.phase == "place" and self.ghost.orient is not None:
            self.ghost.move(dx, dy)
            self.steer(None)

    @on(BoardView.CellClicked, "#board")
    def clicked(self, event: BoardView.CellClicked) -> None:
        """Click a candidate stone to take it, a cell to move the ghost there, the legal ghost to place it."""
        if self.phase != "place" or self.ghost.orient is None:
            return
        self.action_place() if self.ghost.click(event.cell) == "place" else self.steer(None)

    # ------------------------------------------------------------ drawing

    def refresh_all(self) -> None:
        if not self.is_mounted:
            return
        game, ghost = self.game, self.ghost
        board = self.query_one("#board", BoardView)
        board.border_title = _("dice {width}×{height}").format(width=game.rules.width, height=game.rules.height)
        board.border_subtitle = _("seed {seed}").format(seed=game.seed)
        placing = self.phase == "place" and ghost.orient is not None and ghost.shape is not None
        reason = ghost.reason() if placing else None
        board.show(
            game.board,
            ghost=ghost.cells if placing else (),
            ghost_ok=reason is None,
            highlight=[c for t in ghost.candidates() for c in t.cells] if placing else (),
            lifted=ghost.take.cells if placing and ghost.take is not None else (),
        )
        if placing:  # a tall board in a short terminal scrolls to keep the ghost in sight
            top = game.rules.height - 1 - max(y for _, y in ghost.cells)
            self.query_one("#board-scroll", VerticalScroll).scroll_to(y=max(0, top - 2), animate=False)
        if self.phase != "rolling":
            self.query_one(DieView).show_face(game.roll_face)
        self.query_one(DicePlayers).update_from(game, self.bots)
        self.query_one(DiceSupply).update_from(game)
        self.query_one(DiceStatus).update_from(game, self.phase, ghost, reason)
        self.query_one(DiceLog).update_from(game, self.points)
        self.query_one("#log-box", VerticalScroll).scroll_end(animate=False)


UI = GameUI(
    label=lambda: pgettext("game", "dice"),
    screen=DiceScreen,
    needed_size=board_and_panel,
    end_layout=Horizontal,
    end_position=dice_end_position,
    end_result=dice_ending,
    end_breakdown=dice_breakdown,
    replay_view=DiceReplay,
    replay_steps="moves",
    replay_step=N_("move {k}/{n}"),
    keys=DICE_KEYS,
    keys_note=DICE_NOTE,
    tutorial="tabletris.tui.dice_tutorial",
)
"""The dice game as the app's shared screens show it (``GameSpec.front_end("tui")``)."""
