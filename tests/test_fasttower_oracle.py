"""The oracle's plan in the compiled tower core against the Python oracle (issue 29).

``OracleBot.plan`` asks ``engine.fasttower.oracle_plan`` (a beam over the known deck in
``bots/_tower_bots.c``) and ``python_plan`` is the reference: the same actions, card for card,
from any position (every rule option, 1-4 players, minos, holds, outs, cards in play), and the
same whole games through the table. The core is forced on, so under ``TABLETRIS_PURE=1`` the
reference is the whole pure-Python engine.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tabletris.bots import tower_eval as te
from tabletris.bots.oracle import OracleBot
from tabletris.engine import fasttower as ft
from tabletris.engine.records import dumps, record_of
from tabletris.engine.tower import TowerGame
from tower_reference import make_bots, play_python, tower_rules

pytestmark = pytest.mark.skipif(ft.built_module() is None, reason="the compiled tower core is not built here")


@pytest.fixture(autouse=True)
def core() -> Any:
    with ft.forced():
        yield


def position(rules: dict[str, Any], players: int, seed: int, rounds: int, bot: str = "random") -> TowerGame:
    game = TowerGame([f"p{i}" for i in range(players)], rules, seed=seed)
    play_python(game, make_bots([bot] * players, seed), rounds)
    return game


def plans(game: TowerGame, seat: int, strength: float) -> tuple[list[Any], list[Any]]:
    bot = OracleBot(seed=1, strength=strength)
    fast = [(s.action, s.occupied, s.minos) for s in bot.plan(game, seat)]
    python = [(s.action, s.occupied, s.minos) for s in bot.python_plan(game, seat)]
    return fast, python


@given(tower_rules(width=8, height=10), st.integers(1, 4), st.integers(0, 2**32 - 1), st.integers(8, 26),
       st.sampled_from([0.0, 0.1]), st.data())
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_plans_are_the_python_oracles(rules: dict[str, Any], players: int, seed: int, rounds: int, strength: float,
                                      data: st.DataObject) -> None:
    game = position(rules, players, seed, rounds)
    if game.over:
        return
    seat = data.draw(st.integers(0, players - 1))
    if game.towers[seat].out:
        assert ft.oracle_plan(game, seat, te.core_params(), 8) is None  # nothing to plan: Python's answer
        return
    fast, python = plans(game, seat, strength)
    assert fast == python


def test_a_full_width_plan_is_the_python_oracles() -> None:
    """The real beam (64 towers), standard rules, from a late position (the Python plan is slow)."""
    game = position({}, 1, 29, 18, "greedy")
    assert not game.over
    fast, python = plans(game, 0, 1.0)
    assert len(fast) == game.deck_left + 1
    assert fast == python


@pytest.mark.parametrize("preset,players", [("standard", 1), ("advanced", 2)])
def test_oracle_games_are_the_python_oracles(preset: str, players: int) -> None:
    """Whole games through the table: the oracle planning in the core, and in Python."""
    records = []
    for fast_path in (True, False):
        game = TowerGame([f"p{i}" for i in range(players)], {"preset": preset, "width": 6, "height": 9}, seed=11)
        bots: list[Any] = [OracleBot(seed=3 + i, strength=0.0) for i in range(players)]
        for bot in bots:
            bot.fast_path = fast_path
        play_python(game, bots)
        assert game.over
        records.append(dumps(record_of(game)))
    assert records[0] == records[1]


def test_bad_plan_arguments_are_refused() -> None:
    nat = ft.built_module()
    assert nat is not None
    game = TowerGame(["a"], seed=1)
    args = (ft.kernel_rules(game.rules), ft.tower_state(game.towers[0]), ft.context_state(game, 0), te.core_params())
    with pytest.raises(ValueError, match="width"):
        nat.oracle_plan(*args, bytes(3), 0)
    with pytest.raises(ValueError, match="tetromino"):
        nat.oracle_plan(*args, bytes([9]), 8)
    with pytest.raises(ValueError, match="deck"):
        nat.oracle_plan(*args, bytes(28), 8)
