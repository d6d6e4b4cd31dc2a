"""The dice game's guided first game (issue 26 item 4): one seat, a small board, a seeded die.

The script is the seed and the rules below (a 4×5 board, a die of O and I, two stones of each
shape in the supply); every path a player can take through its steps reaches a take from the
lowest rows and the end within a few moves (tests/test_tutorial_scripts.py). Each step reads
the engine's state after the move: the rows the engine counted, the tokens it took, the stone it
lifted, the end it declared.
"""

from __future__ import annotations

from typing import Any

from tabletris.engine.dice import DiceGame
from tabletris.engine.texts import N_
from tabletris.table.tutorial import Script, Step

RULES: dict[str, Any] = {"width": 4, "height": 5, "die": ["O", "I"], "supply": 2}
"""The tutorial's rules: the standard game's, on a board small enough to end in a few moves."""
SEED = 21
"""The die's seed: an O, then an I, then the supply runs short."""


def capture(game: DiceGame) -> dict[str, Any]:
    """What a step compares with after the move: the mover's rows and tokens, and the moves."""
    seat = game.to_move
    return {"seat": seat, "rows": game.rows_completed[seat], "tokens": len(game.tokens[seat]), "moves": len(game.moves)}


def _placed(game: DiceGame, before: dict[str, Any]) -> bool:
    return len(game.moves) > before["moves"] and game.moves[-1].place is not None


def _row(game: DiceGame, before: dict[str, Any]) -> bool:
    return bool(game.rows_completed[before["seat"]] > before["rows"])


def _took(game: DiceGame, before: dict[str, Any]) -> bool:
    return _placed(game, before) and game.moves[-1].take is not None


def _over(game: DiceGame, _before: dict[str, Any]) -> bool:
    return bool(game.over)


STEPS = (
    Step(
        "place",
        N_("The die names the piece you place. The board shows where it may go: place it."),
        _placed,
        praise=N_("Placed. Each turn the die is rolled again."),
    ),
    Step(
        "row",
        N_("Complete a row: lay the I flat so that a whole row is filled. A completed row scores a "
           "point, and the point takes a stone out of the supply as its token."),
        _row,
        retry=N_("No row was completed, so the move is taken back: lay the piece flat across a row."),
        praise=N_("A point! Your token came out of the supply: see the supply shrink."),
    ),
    Step(
        "take",
        N_("Keep placing. When the supply has no stone of the rolled shape, you take one off the "
           "board from the lowest rows and place it again."),
        _took,
        praise=N_("You moved a stone from the lowest rows: the supply had none left of that shape."),
    ),
    Step(
        "end",
        N_("Keep placing until the rolled piece fits nowhere: then the game ends."),
        _over,
    ),
)

SCRIPT = Script(
    game="dice",
    rules=RULES,
    seed=SEED,
    steps=STEPS,
    capture=capture,
    ending=N_("{result} You have finished the tutorial."),
)
"""The dice game's guided first game (``GameSpec.front_ends["tutorial"]``)."""
