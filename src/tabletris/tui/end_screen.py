"""The end of a game: the final position, each player's score broken down, rematch and save.

The numbers come from the engine; the drawings are the widgets' (``widgets.dice``,
``widgets.tower``); saving is the app's (numbered files, never over another record).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, HorizontalScroll, Vertical, VerticalScroll
from textual.screen import Screen
from textual.widgets import Footer, Static

from tabletris.engine.dice import DiceGame
from tabletris.tui.setup import Setup
from tabletris.tui.texts import N_, TranslatedBindings, _
from tabletris.tui.widgets.board import BoardView
from tabletris.tui.widgets.dice import dice_breakdown, dice_ending
from tabletris.tui.widgets.panels import MessageLine
from tabletris.tui.widgets.tower import tower_breakdown, tower_ending, tower_reveal


class EndScreen(TranslatedBindings, Screen[None]):
    """Final position and breakdown; ``r`` rematch, ``s`` save the record, ``n`` new game."""

    BINDINGS = [
        Binding("r", "rematch", N_("Rematch")),
        Binding("s", "save", N_("Save record")),
        Binding("n", "app.new_game", N_("New game")),
        Binding("question_mark", "app.help", N_("Help")),
        Binding("q", "app.quit", N_("Quit")),
    ]

    def __init__(self, setup: Setup, game: Any) -> None:
        super().__init__()
        self.setup = setup
        self.game = game
        self.saved: Path | None = None

    def compose(self) -> ComposeResult:
        if isinstance(self.game, DiceGame):
            with Horizontal(id="end-main"):
                yield BoardView(self.game.board, id="end-board")
                with VerticalScroll(id="end-side"):
                    yield Static(dice_ending(self.game), id="end-result")
                    yield Static(dice_breakdown(self.game), id="breakdown")
                    yield MessageLine(id="end-message")
        else:
            with Vertical(id="end-main"):
                with HorizontalScroll(id="reveal"):
                    yield from tower_reveal(self.game)
                with VerticalScroll(id="end-side"):
                    yield Static(tower_ending(self.game), id="end-result")
                    yield Static(tower_breakdown(self.game), id="breakdown")
                    yield MessageLine(id="end-message")
        yield Footer()

    def on_mount(self) -> None:
        for board in self.query(BoardView):
            board.border_title = board.border_title or _("final board")
        if self.setup.save is not None:
            self.action_save()

    def action_save(self) -> None:
        message = self.query_one("#end-message", MessageLine)
        try:
            path, written = self.app.save_game()  # type: ignore[attr-defined]
        except OSError as e:
            message.say(_("Could not save the record: {error}").format(error=e), error=True)
            return
        self.saved = path
        saved = _("Record saved to {path}") if written else _("Already saved to {path}")
        message.say(saved.format(path=path))

    def action_rematch(self) -> None:
        self.app.rematch(self.setup)  # type: ignore[attr-defined]
