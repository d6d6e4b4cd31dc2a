"""The dice game's guided first game at the terminal: the shared script (``table.dice_tutorial``)
on the dice game's own screen (``DiceScreen``), with the guide's panel above it and each step's
keys. A move that misses a step that asks for it is taken back with the engine's undo, and the
same roll comes again.
"""

from __future__ import annotations

from textual.app import ComposeResult

from tabletris.engine.dice import DiceAction
from tabletris.table.dice_tutorial import SCRIPT
from tabletris.table.driver import Table
from tabletris.table.tutorial import Guide
from tabletris.tui.dice_screen import DiceScreen
from tabletris.tui.setup import Setup
from tabletris.tui.texts import N_, engine_text
from tabletris.tui.tutorial import Tutorial, TutorialPanel
from tabletris.tui.widgets.dice import dice_ending

KEYS = {
    "place": N_("Steer the ghost with the arrow keys (r turns it, f flips it); it is green where it may go. Enter places it."),
    "row": N_("r turns the piece; Enter places it. Then choose the token's shape, or press Enter for the default."),
    "take": N_("The stone to take is highlighted; t picks another."),
}
"""Each step's keys at the terminal (the script's words name none)."""


class DiceTutorialScreen(DiceScreen):
    """The dice game's screen with the guide: its panel above, its check after each move."""

    def __init__(self, setup: Setup, table: Table, tutorial: Tutorial) -> None:
        super().__init__(setup, table)
        self.tutorial = tutorial
        self.guide = Guide(tutorial.script)
        self._before = tutorial.script.capture(self.game)
        self._result = ""

    def compose(self) -> ComposeResult:
        yield TutorialPanel(id="tutorial")
        yield from super().compose()

    def commit(self, action: DiceAction) -> None:
        self._before = self.tutorial.script.capture(self.game)
        super().commit(action)

    def moved(self) -> None:
        if self.guide.judge(self.game, self._before, len(self.game.moves)):
            return
        self.game.undo()  # the engine's undo: the same turn, the same roll
        del self.points[len(self.game.moves) :]
        self.say(engine_text(self.guide.note), error=True)

    def action_undo(self) -> None:
        super().action_undo()
        self.guide.rewind(len(self.game.moves))
        self.refresh_all()

    def end(self) -> None:
        """The engine ended the game: the guide says so; Enter goes on to the scores."""
        self.guide.finish()
        self._result = dice_ending(self.game).plain.splitlines()[0]
        self.phase = "over"
        self.refresh_all()

    def action_place(self) -> None:
        if self.phase == "over":
            self.post_message(self.Ended(self.setup, self.game))
            return
        super().action_place()

    def refresh_all(self) -> None:
        super().refresh_all()
        if self.is_mounted:
            self.query_one(TutorialPanel).show(self.guide, self.tutorial, self._result)


TUTORIAL = Tutorial(
    script=SCRIPT,
    screen=DiceTutorialScreen,
    keys=KEYS,
    last_word=N_("Press Enter for the scores, then n for a game of your own."),
)
"""The dice game's guided first game (``dice_screen.UI.tutorial``)."""
