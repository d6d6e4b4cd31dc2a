"""The bots decide the same on both engines: the compiled core is speed, never a change of play."""

from __future__ import annotations

import pytest

from helpers import play_dice_turn
from tabletris.bots.registry import make_bot
from tabletris.engine import board as board_module
from tabletris.engine.dice import DiceGame
from tabletris.engine.tower import TowerGame

if not board_module.native_available():
    pytest.skip(f"only one engine here: {board_module.engine_name()}", allow_module_level=True)

RULES = [
    {"preset": "standard"},
    {"preset": "clear-rows"},
    {"clear_rows": "stones", "target": 8},
    {"preset": "choose"},
    {"preset": "classic"},
    {"preset": "garbage"},
    {"access": "free", "take": "any", "supply": 1},
    {"width": 7, "height": 12, "stuck_penalty": True},
]


def _decide(bot: str, game: DiceGame, native: bool) -> object:
    board_module.use_native(native)
    try:
        return make_bot(bot, seed=5).choose_dice(game.view())
    finally:
        board_module.use_native(True)


@pytest.mark.parametrize("rules", RULES, ids=lambda r: "-".join(f"{k}={v}" for k, v in r.items()))
@pytest.mark.parametrize("bot", ["expert", "greedy"])
def test_dice_decisions_identical_on_both_engines(bot: str, rules: dict[str, object]) -> None:
    """Every position of a whole game (greedy vs random, the bot's choice at each turn)."""
    game = DiceGame(["A", "B", "C"], rules, seed=len(str(rules)))
    players = [make_bot("greedy", seed=1), make_bot("random", seed=2), make_bot("greedy", seed=3)]
    positions = 0
    while not game.over and positions < 25:
        if game.roll_face is None:
            game.roll()
        if game.over:
            break
        assert _decide(bot, game, True) == _decide(bot, game, False), (game.turn, rules)
        positions += 1
        play_dice_turn(game, players[game.to_move])
    assert positions > 5


@pytest.mark.parametrize("bot", ["expert", "greedy"])
def test_tower_decisions_identical_on_both_engines(bot: str) -> None:
    game = TowerGame(["A", "B"], {"preset": "advanced"}, seed=8)
    bots = [make_bot(bot, seed=1), make_bot("random", seed=2)]
    rounds = 0
    while not game.over and rounds < 12:
        for seat in game.waiting_for():
            board_module.use_native(False)
            try:
                slow = bots[seat].choose_tower(game.view(seat))
            finally:
                board_module.use_native(True)
            fast = bots[seat].choose_tower(game.view(seat))
            if seat == 0:
                assert fast == slow, game.round
            game.submit(seat, fast)
        rounds += 1
    assert rounds > 3
