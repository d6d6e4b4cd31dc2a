"""What every game screen shares: the table it plays at, the keys to leave, bots in a worker thread,
and how a game ends (``GameScreen.Ended``, a message the app answers with the end screen).

A game's screen (``DiceScreen``, ``TowerScreen``) keeps its own turn flow, keys and drawing; it
says ``next_turn`` where a turn (or round) starts, ``refresh_all`` where it draws, and
``bots_decided`` where the bots' actions come back from ``think``.
"""

from __future__ import annotations

from typing import Any, ClassVar, Generic, TypeVar

from textual import work
from textual.binding import Binding, BindingType
from textual.message import Message
from textual.screen import Screen
from textual.worker import get_current_worker

from tabletris.engine.games import Game
from tabletris.table.driver import Table
from tabletris.tui.setup import Setup
from tabletris.tui.texts import N_, TranslatedBindings, _, engine_text
from tabletris.tui.widgets.panels import MessageLine

G = TypeVar("G", bound=Game)


class GameScreen(TranslatedBindings, Screen[None], Generic[G]):
    """One game at the table: ``phase`` is the screen's own state (``idle`` at first, ``over`` at
    the end; each game has its own in between), ``_token`` counts the bots' turns so a decision
    that comes back after an undo or a new round is dropped."""

    TABLE_BINDINGS: ClassVar[list[BindingType]] = [
        Binding("question_mark", "app.help", N_("Help")),
        Binding("n", "app.leave_game('new')", N_("New"), show=False),
        Binding("q", "app.leave_game('quit')", N_("Quit")),
    ]
    """The keys every game screen ends its ``BINDINGS`` with (the footer lists a base class's
    bindings first, so each screen splices these in after its own)."""

    class Ended(Message):
        """The game on the screen is over: the app shows its end."""

        def __init__(self, setup: Setup, game: Any) -> None:
            super().__init__()
            self.setup = setup
            self.game = game

    def __init__(self, setup: Setup, table: Table, game: G) -> None:
        super().__init__()
        self.setup = setup
        self.table = table
        self.game: G = game
        self.bots = table.bots
        self.phase = "idle"
        self._token = 0

    def on_mount(self) -> None:
        self.call_after_refresh(self.next_turn)

    def next_turn(self) -> None:
        """Start whatever comes next: the end, a turn or a round."""
        raise NotImplementedError

    def refresh_all(self) -> None:
        """Draw the whole screen from the game (and what the person at the table is planning)."""
        raise NotImplementedError

    @property
    def message(self) -> MessageLine:
        return self.query_one("#message", MessageLine)

    def say(self, text: str, error: bool = False) -> None:
        if self.is_mounted:
            self.message.say(text, error)

    def end(self) -> None:
        """The game is over: draw it so, and let the app show its end."""
        self.phase = "over"
        self.refresh_all()
        self.post_message(self.Ended(self.setup, self.game))

    # ------------------------------------------------------------ bots

    @work(thread=True, exclusive=True, group="bot")
    def think(self, token: int, jobs: list[tuple[int, Table]]) -> None:
        """Each bot decides on a table of its own (its seat's view of a copy), so the thread never
        reads the game the screen plays on; ``bots_decided`` gets each seat's action, or the
        exception its bot raised (a broken bot must not kill the table)."""
        results: list[tuple[int, Any]] = []
        for seat, table in jobs:
            try:
                results.append((seat, table.bot_action(seat)))
            except Exception as e:
                results.append((seat, e))
        if not get_current_worker().is_cancelled:
            self.app.call_from_thread(self.bots_decided, token, results)

    def bots_decided(self, token: int, results: list[tuple[int, Any]]) -> None:
        raise NotImplementedError

    def bot_fault(self, seat: int, error: Exception, *, illegal: bool = False) -> str:
        """Why a bot's seat did not move, for the message line: its bot failed, or its action
        broke a rule (``illegal``)."""
        template = _("{name} (bot) made an illegal move: {error}") if illegal else _("{name} (bot) failed: {error}")
        return template.format(name=self.game.players[seat], error=engine_text(error))


__all__ = ["GameScreen"]
