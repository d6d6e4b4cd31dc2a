"""``simulate`` plays full-strength expert seats in the dice kernel: every game, result and record
is the one the engine plays with the Python expert (the reference: ``ExpertBot.fast_path`` off)."""

from __future__ import annotations

import pytest

from tabletris.bots.expert import DiceParams, ExpertBot
from tabletris.bots.greedy import GreedyBot
from tabletris.bots.random_bot import RandomBot
from tabletris.engine import board as board_mod
from tabletris.lab.dice_playout import kernel_policies
from tabletris.lab.tasks import SimConfig, make_tasks, parse_seat_bots, run_game

pytestmark = pytest.mark.skipif(not board_mod.native_available(), reason="the compiled core is not built here")


@pytest.mark.parametrize("seats", [("expert", "greedy"), ("expert", "random", "greedy"), ("expert", "expert")])
def test_kernel_expert_games_are_the_python_experts_games(seats: tuple[str, ...], monkeypatch: pytest.MonkeyPatch) -> None:
    config = SimConfig(
        "dice",
        parse_seat_bots(",".join(seats)),
        games=len(seats),
        seed=19,
        presets=("standard", "must-close", "clear-stones", "clear-rows", "garbage", "penalty"),
        swap=True,
        save_records=True,
    )
    tasks = make_tasks(config)
    fast = [run_game(task) for task in tasks]
    monkeypatch.setattr(ExpertBot, "fast_path", False)
    assert kernel_policies([ExpertBot(1)]) is None
    for task, got in zip(tasks, fast, strict=True):
        reference = run_game(task, kernel=False)
        assert got == reference
        assert got.record == reference.record


def test_which_expert_seats_the_kernel_plays() -> None:
    assert kernel_policies([ExpertBot(1), GreedyBot(2), RandomBot(3)]) == ["expert", "greedy", "random"]
    assert kernel_policies([ExpertBot(1, strength=0.9), GreedyBot(2)]) is None  # draws its own mix
    assert kernel_policies([ExpertBot(1, budget=0.5), GreedyBot(2)]) is None  # its decisions may depend on the clock

    class Tuned(ExpertBot):
        params = DiceParams(win_bonus=2.0)

    assert kernel_policies([Tuned(1), GreedyBot(2)]) is None  # another class: the Python turn
    tuned = ExpertBot(1)
    tuned.params = DiceParams(threat=2.0)
    assert kernel_policies([tuned, GreedyBot(2)]) is None  # the kernel's playout takes the default tuning
