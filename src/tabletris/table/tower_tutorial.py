"""The tower game's guided first game (issue 26 item 4): one tower, 4 wide and 6 high, a set deck.

The script is the rules below (a small tower with its own icons: an O bonus icon and a diamond
at the bottom left, the "2 rows with an O" achievement card) and the deck's order (O, O, T, I,
then the rest), so each step meets the card it teaches: the first O covers the icons, the
second completes two rows beside it and wins the card, the T comes after a mino, the I is held;
then the tower fills and goes out, which ends a one-player game. Every path a player can take
through the steps reaches the end within a few rounds (tests/test_tutorial_scripts.py). Each
step reads the engine's state after the round: the bonus it counted, the minos it gave, the card
it awarded, the action it resolved, the end it declared.
"""

from __future__ import annotations

from typing import Any

from tabletris.engine.texts import N_
from tabletris.engine.tower import TowerGame
from tabletris.table.tutorial import Script, Step

LAYOUT: dict[str, Any] = {
    "bonus": [{"cell": [0, 0], "shape": "O"}, {"cell": [2, 3], "shape": "T"}],
    "diamonds": [[1, 1], [3, 4]],
}
"""The tower's icons: the first O covers the O icon and the diamond together at the left wall."""
RULES: dict[str, Any] = {"width": 4, "height": 6, "achievements": ["two-rows"], "towers": [LAYOUT]}
"""The standard game's rules on a tower small enough to fill in a few rounds, with one card."""
DECK = "OOTILJSZTILJSZOTILJSZOTILJS"
"""The 27 cards in play order (four of each shape but one Z, removed unseen)."""
SEED = 26


def capture(game: TowerGame) -> dict[str, Any]:
    """What a step compares with after the round: the seat's bonus, minos and rounds."""
    tower = game.towers[0]
    return {"bonus": tower.bonus, "minos": tower.minos, "rounds": len(game.rounds)}


def _mine(game: TowerGame, before: dict[str, Any]) -> Any:
    """The seat's action in the round just resolved, or None."""
    return game.rounds[-1][0] if len(game.rounds) > before["rounds"] else None


def _icons(game: TowerGame, before: dict[str, Any]) -> bool:
    tower = game.towers[0]
    return tower.bonus > before["bonus"] and tower.minos > before["minos"]


def _card(game: TowerGame, before: dict[str, Any]) -> bool:
    return any(card.space_of(0) is not None for card in game.achievements)


def _minos(game: TowerGame, before: dict[str, Any]) -> bool:
    action = _mine(game, before)
    return bool(action is not None and action.minos)


def _hold(game: TowerGame, before: dict[str, Any]) -> bool:
    action = _mine(game, before)
    return bool(action is not None and action.hold)


def _over(game: TowerGame, _before: dict[str, Any]) -> bool:
    return bool(game.over)


STEPS = (
    Step(
        "icons",
        N_("Each round the PLAY card names the piece everybody drops into their own tower; NEXT shows "
           "the card after it. A bonus icon scores a point when a piece of its shape covers it, and a "
           "diamond earns a mino. Drop the O over the O icon and the diamond."),
        _icons,
        retry=N_("The O icon or the diamond is still uncovered, so the drop is taken back: drop the O at the left wall."),
        praise=N_("A bonus point, and the diamond earned you a mino."),
    ),
    Step(
        "card",
        N_("An achievement card scores for whoever meets it first. This one asks for an O that "
           "completes two rows: drop this O beside the first to fill both bottom rows."),
        _card,
        retry=N_("The card was not won, so the drop is taken back: fill the two bottom rows with this O."),
        praise=N_("Two complete rows, 2 points each, and the card's points!"),
    ),
    Step(
        "minos",
        N_("Before the piece you may drop minos, one cell each, falling to the top of the column you "
           "choose. Drop a mino, then the T."),
        _minos,
        retry=N_("No mino was dropped, so the move is taken back: drop a mino before the T."),
        praise=N_("Minos fill the gaps your pieces leave."),
    ),
    Step(
        "hold",
        N_("Once per game you may hold: skip the PLAY card and drop nothing this round. Hold this card."),
        _hold,
        retry=N_("That was not a hold, so it is taken back: hold this card."),
        praise=N_("Held: your hold is used for this game."),
    ),
    Step(
        "end",
        N_("Keep dropping. When no piece fits and your hold is used, your tower is out; when every "
           "tower is out, the game ends."),
        _over,
    ),
)

SCRIPT = Script(
    game="tower",
    rules=RULES,
    seed=SEED,
    steps=STEPS,
    capture=capture,
    ending=N_("{result} You have finished the tutorial."),
    setup={"deck": list(DECK)},
)
"""The tower game's guided first game (``GameSpec.front_ends["tutorial"]``)."""
