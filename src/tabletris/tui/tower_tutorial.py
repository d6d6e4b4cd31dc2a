"""The tower game's guided first game at the terminal: the shared script (``table.tower_tutorial``)
on the tower game's own screen (``TowerScreen``), with the guide's panel above it and each step's
keys. A drop that misses a step that asks for it is tried on a copy first (``Lesson.play``) and
never reaches the tower: the same card waits for another try.
"""

from __future__ import annotations

from textual.app import ComposeResult

from tabletris.engine.tower import TowerAction
from tabletris.table.driver import Table
from tabletris.table.tower_tutorial import SCRIPT
from tabletris.table.tutorial import Lesson
from tabletris.tui.setup import Setup
from tabletris.tui.texts import N_, engine_text
from tabletris.tui.tower_screen import TowerScreen
from tabletris.tui.tutorial import Tutorial, TutorialPanel
from tabletris.tui.widgets.tower import tower_ending

KEYS = {
    "icons": N_("← → move the piece, r turns it; Enter drops it."),
    "card": N_("← → move the piece; Enter drops it."),
    "minos": N_("m, then ← → and Enter drop a mino; m again goes back to the piece, and Enter drops it (backspace takes a mino back)."),
    "hold": N_("h holds the card."),
}
"""Each step's keys at the terminal (the script's words name none)."""


class TowerTutorialScreen(TowerScreen):
    """The tower game's screen with the guide: its panel above, each drop checked first."""

    def __init__(self, setup: Setup, table: Table, tutorial: Tutorial) -> None:
        super().__init__(setup, table)
        self.tutorial = tutorial
        self.lesson = Lesson(tutorial.script, setup.seats[0].name, table)
        self.guide = self.lesson.guide
        self._result = ""

    def compose(self) -> ComposeResult:
        yield TutorialPanel(id="tutorial")
        yield from super().compose()

    def submit(self, seat: int, action: TowerAction) -> None:
        """The drop goes in only when the step keeps it; ``IllegalMove`` passes up untouched."""
        if not self.lesson.play(seat, action):
            self.begin_plan(seat)  # a fresh plan: the minos planned for the move are back too
            self.say(engine_text(self.guide.note), error=True)
            return
        if len(self.game.rounds) > self._rounds_seen:
            self.round_done()
        elif self.seat is None or self.seat not in self.game.waiting_for():
            self.next_human()

    def end(self) -> None:
        """The engine ended the game: the guide says so; Enter goes on to the scores."""
        self.guide.finish()
        self._result = tower_ending(self.game).plain.splitlines()[0]
        self.phase = "over"
        self.refresh_all()

    def action_drop(self) -> None:
        if self.phase == "over":
            self.post_message(self.Ended(self.setup, self.game))
            return
        super().action_drop()

    def refresh_all(self) -> None:
        super().refresh_all()
        if self.is_mounted:
            self.query_one(TutorialPanel).show(self.guide, self.tutorial, self._result)


TUTORIAL = Tutorial(
    script=SCRIPT,
    screen=TowerTutorialScreen,
    keys=KEYS,
    last_word=N_("Press Enter for the scores, then n for a game of your own."),
)
"""The tower game's guided first game (``tower_screen.UI.tutorial``)."""
