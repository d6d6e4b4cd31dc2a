"""``simulate`` plays random and full-strength greedy dice seats in the dice kernel: every game,
result and record is the one the engine plays (``run_game(task, kernel=False)``)."""

from __future__ import annotations

import pytest

from tabletris.bots.greedy import GreedyBot
from tabletris.bots.random_bot import RandomBot
from tabletris.engine import board as board_mod
from tabletris.lab.dice_playout import kernel_policies
from tabletris.lab.tasks import SimConfig, make_tasks, parse_seat_bots, run_game

pytestmark = pytest.mark.skipif(not board_mod.native_available(), reason="the compiled core is not built here")


@pytest.mark.parametrize(
    "seats",
    [("random", "random"), ("greedy", "random", "random"), ("greedy", "greedy", "random", "greedy")],
)
def test_kernel_games_are_the_engine_games(seats: tuple[str, ...]) -> None:
    config = SimConfig(
        "dice",
        parse_seat_bots(",".join(seats)),
        games=6,
        seed=19,
        presets=("standard", "must-close", "clear-stones", "classic", "garbage", "penalty"),
        swap=True,
        save_records=True,
    )
    for task in make_tasks(config):
        fast = run_game(task)
        engine = run_game(task, kernel=False)
        assert fast == engine
        assert fast.record == engine.record


def test_which_seats_the_kernel_plays() -> None:
    assert kernel_policies([RandomBot(1), GreedyBot(2)]) == ["random", "greedy"]
    assert kernel_policies([RandomBot(1), GreedyBot(2, strength=0.5)]) is None  # draws its own mix
    from tabletris.bots.registry import make_bot

    assert kernel_policies([RandomBot(1), make_bot("expert", seed=1, strength=0.5)]) is None
