"""The replay viewer: step through a record move by move (dice) or round by round (tower).

Position k is the record's first k steps (its game's ``GameUI.replay_steps``) replayed through
``records.replay`` into a fresh game, so what is shown is exactly what the engine makes of the
record. The head line is the viewer's; the rest is the game's ``replay_view``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rich.text import Text
from textual import events, on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Footer, Static

from tabletris.engine import records
from tabletris.engine.errors import RecordError
from tabletris.tui import palette
from tabletris.tui.game_ui import ui_of
from tabletris.tui.texts import N_, TranslatedBindings, _, engine_text


class ReplayLog(Static):
    """A game's move list, one line a move (in its ``replay_view``); a click on a line says which
    move it was, and the viewer shows the position after it."""

    class MoveClicked(Message):
        def __init__(self, index: int) -> None:
            super().__init__()
            self.index = index

    def on_click(self, event: events.Click) -> None:
        offset = event.get_content_offset(self)
        if offset is not None:
            event.stop()
            self.post_message(self.MoveClicked(offset.y))


class ReplayScreen(TranslatedBindings, Screen[None]):
    """← → step, home/end jump, q quits; the final position is ``records.replay`` of the record."""

    # priority: a focused scroll box (the move list) would take these keys for scrolling
    BINDINGS = [
        Binding("left", "step(-1)", N_("Back"), priority=True),
        Binding("right", "step(1)", N_("Forward"), priority=True),
        Binding("pageup", "step(-10)", "−10", priority=True),
        Binding("pagedown", "step(10)", "+10", priority=True),
        Binding("home", "jump(0)", N_("Start"), priority=True),
        Binding("end", "jump(-1)", N_("End"), priority=True),
        Binding("question_mark", "app.help", N_("Help")),
        Binding("q", "app.quit", N_("Quit")),
    ]

    def __init__(self, doc: dict[str, Any], path: Path | None = None) -> None:
        super().__init__()
        self.doc = doc
        self.path = path
        self.kind = str(doc.get("game"))
        self.final = records.replay(doc)  # raises RecordError for a record that breaks a rule
        self.ui = ui_of(self.kind)
        self.key = self.ui.replay_steps
        self.steps: list[Any] = list(doc.get(self.key, []))
        self.view = self.ui.replay_view(self.final, self.steps)
        self.position = len(self.steps)
        self._cache: dict[int, Any] = {len(self.steps): self.final}

    @classmethod
    def from_path(cls, path: Path) -> ReplayScreen:
        """A viewer for the record at ``path``; RecordError (naming the fault) if it cannot replay."""
        doc = records.load(Path(path))
        records.check_common(doc)
        return cls(doc, Path(path))

    def game_at(self, k: int) -> Any:
        """The game after the first ``k`` steps of the record."""
        if k not in self._cache:
            self._cache[k] = records.replay({**self.doc, self.key: self.steps[:k]})
        return self._cache[k]

    def compose(self) -> ComposeResult:
        yield self.view
        yield Footer()

    def on_mount(self) -> None:
        self.show_position()

    @on(ReplayLog.MoveClicked)
    def move_clicked(self, event: ReplayLog.MoveClicked) -> None:
        """A click on move k of the list shows the position after it."""
        self.action_jump(min(event.index + 1, len(self.steps)))

    def action_step(self, delta: int) -> None:
        self.position = max(0, min(len(self.steps), self.position + delta))
        self.show_position()

    def action_jump(self, where: int) -> None:
        self.position = len(self.steps) if where < 0 else max(0, min(where, len(self.steps)))
        self.show_position()

    def show_position(self) -> None:
        try:
            game = self.game_at(self.position)
        except RecordError as e:  # cannot happen for a record that replays in full; say so if it does
            self.query_one("#replay-head", Static).update(Text(_("error: {error}").format(error=engine_text(e)), "bold red"))
            return
        name = self.path.name if self.path else _("record")
        head = Text()
        head.append(f"{name}", "bold")
        step = _(self.ui.replay_step)
        head.append(f"  {self.ui.label()} · " + step.format(k=self.position, n=len(self.steps)))
        if game.over:
            head.append("  · " + _("game over"), f"bold {palette.HIGHLIGHT}")
        self.query_one("#replay-head", Static).update(head)
        self.view.show(game, self.position)
