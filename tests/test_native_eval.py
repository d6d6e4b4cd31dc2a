"""The bots' dice evaluation in the compiled core agrees exactly with the Python reference.

``dice_eval.immediate_all`` (points and weighted board cost of every option, one core call) and
``dice_eval.outlook`` (the next roll's row threats, every shape the supply has in one core call)
must give the very numbers, floats included, of ``immediate`` and ``outlook`` on the pure engine,
on many random positions of many rule variants (small boards, empty supplies, takes, clearing).
"""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from helpers import play_random_game
from tabletris.bots.dice_eval import immediate, immediate_all, outlook
from tabletris.bots.heuristics import DEFAULT_WEIGHTS, Weights, board_cost, board_cost_py
from tabletris.engine import board as board_module
from tabletris.engine.board import Placement
from tabletris.engine.dice import DiceGame
from tabletris.engine.errors import IllegalMove
from test_dice_properties import VARIANTS

if not board_module.native_available():
    pytest.skip(f"only one engine here: {board_module.engine_name()}", allow_module_level=True)

EVAL_VARIANTS: list[dict[str, Any]] = [
    *VARIANTS,
    {"preset": "clear-rows"},
    {"clear_rows": "stones", "target": 8, "width": 6, "height": 8},
    {"preset": "classic"},
    {"width": 12, "height": 14, "supply": 2, "access": "free"},
]

ODD_WEIGHTS = Weights(1.1, 0.7, 0.13, 0.29, 0.31, 0.17, 0.23, 0.019)
"""Weights with no round products, so a sum in another order would show in the last bits."""


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    rules=st.sampled_from(EVAL_VARIANTS),
    players=st.integers(1, 4),
    seed=st.integers(0, 2**32 - 1),
    turns=st.integers(0, 60),
    low=st.booleans(),
    weights=st.sampled_from([DEFAULT_WEIGHTS, ODD_WEIGHTS]),
)
def test_evaluation_identical_on_both_engines(
    rules: dict[str, Any], players: int, seed: int, turns: int, low: bool, weights: Weights
) -> None:
    game = DiceGame(["A", "B", "C", "D"][:players], rules, seed=seed)
    play_random_game(game, random.Random(seed ^ turns), max_turns=turns, low=low)
    if not game.over and game.roll_face is None:
        game.roll()
    # The outlook is asked of every position, the finished ones too (the expert asks it after
    # each option, whoever is to move).
    native_outlook = outlook(game)
    native_cost = board_cost(game.board, weights)
    with board_module.engine(False):
        assert outlook(game) == native_outlook
        assert board_cost(game.board, weights) == native_cost == board_cost_py(game.board, weights)
    if game.over:
        return
    options = game.turn_options()
    fast = immediate_all(game, options, weights)
    with board_module.engine(False):
        reference = [immediate(game, o, weights) for o in options]
        assert immediate_all(game, options, weights) == reference
    assert fast == reference
    # ``Board.check_placement`` (what ``play`` asks of an engine-made placement) accepts exactly
    # what ``validate`` accepts: every legal option, and no placement validate refuses.
    mode, access = game.rules.orientation_mode, game.rules.access_mode
    board = game.board
    for o in options:
        if o.take is None:
            assert board.check_placement(o.placement, mode, access) == o.placement
    rng = random.Random(seed)
    for shape in game.rules.shapes:
        for form in shape.orientations(mode):
            for _ in range(6):
                p = Placement(shape, form, rng.randrange(-1, board.width), rng.randrange(-1, board.height))
                try:
                    legal = board.validate(shape, p.cells, mode, access) == p
                except IllegalMove:
                    legal = False
                assert (board.check_placement(p, mode, access) is not None) == legal, p


def test_the_core_counts_and_clears_rows_as_the_reference() -> None:
    """A position where options complete rows: points, and under clear_rows the cost of the board
    after the fall, come out the same (the hypothesis run may meet few of these)."""
    for rules in ({"width": 4, "height": 6, "access": "free"}, {"width": 4, "height": 6, "access": "free", "clear_rows": "cells", "target": 9}):
        game = DiceGame(["A"], rules, seed=1)
        scored = 0
        for _ in range(40):
            if game.over:
                break
            game.roll()
            if game.over:
                break
            options = game.turn_options()
            fast = immediate_all(game, options)
            with board_module.engine(False):
                assert fast == [immediate(game, o) for o in options]
            scored += sum(m.points for m in fast)
            best = max(range(len(options)), key=lambda i: (fast[i].points, -fast[i].cost))
            game.act(options[best])
        assert scored > 0, rules
