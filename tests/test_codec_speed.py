"""The env codec's fast paths (issue 19) give the very observations and ids of the plain rules."""

from __future__ import annotations

import random

import numpy as np
import pytest

from helpers import play_random_game
from tabletris.engine.dice import DiceGame
from tabletris.envs.dice_codec import BOARD_PLANES, DiceCodec


@pytest.mark.parametrize("players", [1, 2, 3])
@pytest.mark.parametrize("rules", [{"preset": "garbage"}, {"width": 6, "height": 9, "supply": 1}])
def test_board_planes_are_each_stones_cells_by_owner(players: int, rules: dict[str, object]) -> None:
    """Own stones, other players' stones and garbage, cell by cell, from every seat."""
    game = DiceGame(["A", "B", "C"][:players], rules, seed=players)
    codec = DiceCodec(game.rules, players)
    rng = random.Random(players)
    for turns in (0, 6, 30):
        play_random_game(game, rng, max_turns=turns)
        for seat in range(players):
            planes = codec.observe(game, seat)[codec.layout["board"]].reshape(BOARD_PLANES, game.rules.height, game.rules.width)
            expected = np.zeros_like(planes)
            for stone in game.board.stones.values():
                plane = 2 if stone.owner is None else 0 if stone.owner == seat else 1
                for x, y in stone.cells:
                    expected[plane, y, x] = 1.0
            np.testing.assert_array_equal(planes, expected)


def test_place_ids_by_arithmetic_are_the_encoding() -> None:
    """``placement_options``' ids are ``encode``'s (the id table), on every legal placement."""
    game = DiceGame(["A", "B"], {"die": ["I", "O", "T", "S", "L", "*"], "orientation": "rotate"}, seed=3)
    codec = DiceCodec(game.rules, 2)
    rng = random.Random(3)
    for _ in range(20):
        if game.over:
            break
        game.roll()
        if game.over:
            break
        options = codec.placement_options(game)
        for shape in game.shapes_for_roll():
            for take in game.take_options(shape):
                for p in game.legal_placements(shape, take):
                    assert take in options[codec.encode(p)]
        assert len(options) == len({codec.encode(o.placement) for o in game.turn_options()})
        game.act(rng.choice(game.turn_options()))
