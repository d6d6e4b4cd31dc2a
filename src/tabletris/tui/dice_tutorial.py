"""The dice game's guided first game (issue 26 item 4): one seat, a small board, a seeded die.

The script is the seed and the rules below (a 4×5 board, a die of O and I, two stones of each
shape in the supply); every path a player can take through its steps reaches a take from the
lowest rows and the end within a few moves (checked by tests/test_tui_tutorial.py). Each step
reads the engine's state after the move: the rows the engine counted, the tokens it took, the
stone it lifted, the end it declared. The screen is the dice game's own (``DiceScreen``), with
the guide's panel above it; a move that misses a step that asks for it is taken back with the
engine's undo, and the same roll comes again.
"""

from __future__ import annotations

from typing import Any

from textual.app import ComposeResult

from tabletris.engine.dice import DiceAction, DiceGame
from tabletris.table.driver import Table
from tabletris.table.seats import SeatSpec
from tabletris.tui.dice_screen import DiceScreen
from tabletris.tui.setup import Setup
from tabletris.tui.texts import N_, _
from tabletris.tui.tutorial import Guide, Step, Tutorial, TutorialPanel
from tabletris.tui.widgets.dice import dice_ending

RULES: dict[str, Any] = {"width": 4, "height": 5, "die": ["O", "I"], "supply": 2}
"""The tutorial's rules: the standard game's, on a board small enough to end in a few moves."""
SEED = 21
"""The die's seed: an O, then an I, then the supply runs short."""


def tutorial_setup() -> Setup:
    return Setup("dice", [SeatSpec("human", _("You"))], dict(RULES), SEED)


def capture(game: DiceGame) -> dict[str, Any]:
    """What a step compares with after the move: the mover's rows and tokens, and the moves."""
    seat = game.to_move
    return {"seat": seat, "rows": game.rows_completed[seat], "tokens": len(game.tokens[seat]), "moves": len(game.moves)}


def _placed(game: DiceGame, before: dict[str, Any]) -> bool:
    return len(game.moves) > before["moves"] and game.moves[-1].place is not None


def _row(game: DiceGame, before: dict[str, Any]) -> bool:
    return game.rows_completed[before["seat"]] > before["rows"]


def _took(game: DiceGame, before: dict[str, Any]) -> bool:
    return _placed(game, before) and game.moves[-1].take is not None


def _over(game: DiceGame, _before: dict[str, Any]) -> bool:
    return game.over


STEPS = (
    Step(
        N_("The die names the piece you place. Steer its ghost with the arrow keys (r turns it, "
           "f flips it); it is green where it may go. Press Enter to place it."),
        _placed,
        praise=N_("Placed. Each turn the die is rolled again."),
    ),
    Step(
        N_("Complete a row: turn the I flat with r and place it so that a whole row is filled. "
           "A completed row scores a point, and the point takes a stone out of the supply as its "
           "token (choose its shape or press Enter)."),
        _row,
        retry=N_("No row was completed, so the move is taken back: lay the piece flat across a row."),
        praise=N_("A point! Your token came out of the supply: see the supply shrink in the panel."),
    ),
    Step(
        N_("Keep placing. When the supply has no stone of the rolled shape, you take one off the "
           "board from the lowest rows (it is highlighted; t picks another) and place it again."),
        _took,
        praise=N_("You moved a stone from the lowest rows: the supply had none left of that shape."),
    ),
    Step(
        N_("Keep placing until the rolled piece fits nowhere: then the game ends."),
        _over,
    ),
)


class DiceTutorialScreen(DiceScreen):
    """The dice game's screen with the guide: its panel above, its check after each move."""

    def __init__(self, setup: Setup, table: Table, tutorial: Tutorial) -> None:
        super().__init__(setup, table)
        self.guide = Guide(tutorial)
        self._before = tutorial.capture(self.game)

    def compose(self) -> ComposeResult:
        yield TutorialPanel(id="tutorial")
        yield from super().compose()

    def commit(self, action: DiceAction) -> None:
        self._before = self.guide.tutorial.capture(self.game)
        super().commit(action)

    def moved(self) -> None:
        if self.guide.judge(self.game, self._before, len(self.game.moves)):
            return
        self.game.undo()  # the engine's undo: the same turn, the same roll
        del self.points[len(self.game.moves) :]
        self.say(self.guide.note, error=True)

    def action_undo(self) -> None:
        super().action_undo()
        self.guide.rewind(len(self.game.moves))
        self.refresh_all()

    def end(self) -> None:
        """The engine ended the game: the guide says so; Enter goes on to the scores."""
        self.guide.finish(dice_ending(self.game).plain.splitlines()[0])
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
            self.query_one(TutorialPanel).show(self.guide)


TUTORIAL = Tutorial(
    setup=tutorial_setup,
    steps=STEPS,
    capture=capture,
    screen=DiceTutorialScreen,
    ending=N_("{result} You have finished the tutorial: press Enter for the scores, then n for a game of your own."),
)
"""The dice game's guided first game (``dice_screen.UI.tutorial``)."""
