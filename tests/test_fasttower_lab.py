"""``simulate tower`` plays random, greedy and expert seats in the tower core: every game, result
and record is the one the engine plays with the Python bots (``run_game(task, kernel=False)``
with their compiled decisions off)."""

from __future__ import annotations

from typing import Any

import pytest

from tabletris.bots.expert import ExpertBot
from tabletris.bots.greedy import GreedyBot
from tabletris.bots.random_bot import RandomBot
from tabletris.engine import fasttower
from tabletris.engine.games import spec
from tabletris.engine.tower import TowerGame
from tabletris.lab import tower_playout
from tabletris.lab.tasks import SimConfig, make_tasks, parse_seat_bots, run_game

pytestmark = pytest.mark.skipif(fasttower.core_module() is None, reason="the compiled tower core is not in use here")



def test_the_tower_spec_names_the_core_playout() -> None:
    assert spec("tower").front_ends["lab"] == "tabletris.lab.tower_playout"
    assert spec("tower").front_end("lab") is tower_playout


def test_run_game_plays_tower_seats_in_the_core(monkeypatch: pytest.MonkeyPatch) -> None:
    """``simulate tower`` (``run_game``) asks the spec's lab module, which plays in the core."""
    calls: list[int] = []
    real = fasttower.playout

    def counted(*args: Any, **kwargs: Any) -> Any:
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(fasttower, "playout", counted)
    config = SimConfig("tower", parse_seat_bots("expert,greedy"), games=2, seed=5)
    for task in make_tasks(config):
        assert run_game(task).scores
    assert len(calls) == 2


@pytest.mark.parametrize(
    "seats",
    [("random",), ("greedy", "random"), ("expert", "greedy", "random"), ("expert", "expert"), ("random",) * 4],
)
def test_core_games_are_the_engine_games(seats: tuple[str, ...], monkeypatch: pytest.MonkeyPatch) -> None:
    config = SimConfig(
        "tower", parse_seat_bots(",".join(seats)), games=3, seed=29, presets=("standard", "advanced"),
        swap=True, save_records=True,
    )
    for task in make_tasks(config):
        fast = run_game(task)
        with monkeypatch.context() as python:
            python.setattr(ExpertBot, "fast_path", False)
            python.setattr(GreedyBot, "fast_path", False)
            engine = run_game(task, kernel=False)
        assert fast == engine
        assert fast.record == engine.record


def test_which_seats_the_core_plays() -> None:
    from tabletris.bots.registry import make_bot

    seats = tower_playout.core_seats([RandomBot(1), GreedyBot(2), ExpertBot(3)])
    assert seats is not None and seats[0] == ["random", "greedy", "expert"]
    assert tower_playout.core_seats([RandomBot(1), GreedyBot(2, strength=0.5)]) is None  # draws its own mix
    assert tower_playout.core_seats([make_bot("expert", seed=1, budget=0.1)]) is None
    assert tower_playout.core_seats([make_bot("oracle", seed=1)]) is None


def test_a_game_the_core_does_not_play_is_left_alone() -> None:
    game = TowerGame(["a"], seed=1)
    bots: list[Any] = [make_oracle()]
    assert not tower_playout.fast_playout(game, bots)
    assert game.rounds == [] and not game.over


def make_oracle() -> Any:
    from tabletris.bots.registry import make_bot

    return make_bot("oracle", seed=1)
