"""The end of a game: the final position, each player's score broken down, rematch and save.

The numbers come from the engine; the drawings are the game's (its ``GameUI``: the final
position, who won, the breakdown); saving and the rematch are the app's, handed in (numbered
files, never over another record).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widgets import Footer, Static

from tabletris.tui.game_ui import ui_of_game
from tabletris.tui.setup import Setup
from tabletris.tui.texts import N_, TranslatedBindings, _
from tabletris.tui.widgets.board import BoardView
from tabletris.tui.widgets.panels import MessageLine


class EndScreen(TranslatedBindings, Screen[None]):
    """Final position and breakdown; ``r`` rematch, ``s`` save the record, ``n`` new game."""

    BINDINGS = [
        Binding("r", "rematch", N_("Rematch")),
        Binding("s", "save", N_("Save record")),
        Binding("n", "app.new_game", N_("New game")),
        Binding("question_mark", "app.help", N_("Help")),
        Binding("q", "app.quit", N_("Quit")),
    ]

    def __init__(
        self,
        setup: Setup,
        game: Any,
        *,
        save: Callable[[], tuple[Path, bool]],
        rematch: Callable[[Setup], None],
    ) -> None:
        """``save`` writes the record (its path, and whether it was written now: ``App.save_game``);
        ``rematch`` starts the table's next game (``App.rematch``)."""
        super().__init__()
        self.setup = setup
        self.game = game
        self.save_record = save
        self.start_rematch = rematch
        self.saved: Path | None = None

    def compose(self) -> ComposeResult:
        ui = ui_of_game(self.game)
        with ui.end_layout(id="end-main"):
            yield ui.end_position(self.game)
            with VerticalScroll(id="end-side"):
                yield Static(ui.end_result(self.game), id="end-result")
                yield Static(ui.end_breakdown(self.game), id="breakdown")
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
            path, written = self.save_record()
        except OSError as e:
            message.say(_("Could not save the record: {error}").format(error=e), error=True)
            return
        self.saved = path
        saved = _("Record saved to {path}") if written else _("Already saved to {path}")
        message.say(saved.format(path=path))

    def action_rematch(self) -> None:
        self.start_rematch(self.setup)
