"""Dice bots: every decision is legal under every preset, and no bot can see the die's future."""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from helpers import play_dice_turn
from tabletris.bots.heuristics import features_of, gap_rows, max_rows_completed
from tabletris.bots.registry import bot_names, make_bot
from tabletris.engine.board import Board
from tabletris.engine.dice import DICE_PRESETS, DiceGame
from tabletris.engine.shapes import Shape

DICE_BOTS = ("random", "greedy", "expert")
HOUSE_RULES = [
    {"preset": name} for name in DICE_PRESETS
] + [
    {"take": "any", "supply": 1},
    {"access": "drop", "orientation": "rotate"},
    {"access": "free", "row_reward": "choose"},
    {"clear_rows": True, "target": 3, "row_reward": "choose", "width": 6, "height": 10},
    {"garbage": 10, "supply": 2, "take": "lowest", "stuck_penalty": True},
]


def _position(rules: dict[str, object], seed: int, turns: int, players: int = 2) -> DiceGame:
    """A game after ``turns`` random turns (or fewer if it ended), with the die rolled."""
    game = DiceGame([f"P{i}" for i in range(players)], rules, seed=seed)
    rng_bot = make_bot("random", seed=seed)
    for _ in range(turns):
        if game.over:
            break
        play_dice_turn(game, rng_bot)
    if not game.over and game.roll_face is None:
        game.roll()
    return game


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    rules=st.sampled_from(HOUSE_RULES),
    seed=st.integers(0, 2**32 - 1),
    turns=st.integers(0, 60),
    players=st.integers(1, 4),
    bot=st.sampled_from(DICE_BOTS),
    strength=st.sampled_from([None, 0.0, 0.5, 1.0]),
)
def test_dice_bots_only_return_legal_decisions(
    rules: dict[str, object], seed: int, turns: int, players: int, bot: str, strength: float | None
) -> None:
    game = _position(rules, seed, turns, players)
    if game.over:
        return
    player = make_bot(bot, seed=seed, strength=strength)
    decision = player.choose_dice(game.view())
    before = len(game.moves)
    game.play(decision.placement, decision.shape, decision.take, decision.rewards)  # raises if illegal
    assert len(game.moves) == before + 1
    assert set(game.moves[-1].place or ()) == set(decision.placement.cells)


@pytest.mark.parametrize("bot", DICE_BOTS)
@pytest.mark.parametrize("rules", HOUSE_RULES[:4] + HOUSE_RULES[-3:], ids=str)
def test_dice_bots_finish_whole_games(bot: str, rules: dict[str, object]) -> None:
    game = DiceGame(["A", "B", "C"], rules, seed=7)
    players = [make_bot(bot, seed=i) for i in range(3)]
    for _ in range(2000):
        if game.over:
            break
        play_dice_turn(game, players[game.to_move])
    assert game.over
    assert game.winners()


@pytest.mark.parametrize("bot", DICE_BOTS)
def test_dice_bots_do_not_read_the_games_generator(bot: str) -> None:
    """Two games in the same position whose generators differ: the same decision."""
    game = _position({"preset": "standard"}, seed=11, turns=14)
    other = _position({"preset": "standard"}, seed=11, turns=14)
    other.rng = random.Random(999)  # a different future of the die
    a = make_bot(bot, seed=3).choose_dice(game.view())
    b = make_bot(bot, seed=3).choose_dice(other.view())
    assert a == b
    # And the view itself carries none of the game's generator state.
    assert game.view().rng.getstate() != game.rng.getstate()


def test_bot_registry_knows_the_new_bots() -> None:
    assert {"random", "greedy", "expert"} <= set(bot_names())
    with pytest.raises(ValueError, match="unknown bot 'nobody'"):
        make_bot("nobody")


def test_greedy_takes_the_row_that_scores() -> None:
    """A row missing exactly an I's four cells: greedy completes it."""
    game = DiceGame(["A", "B"], {"die": ["I"], "access": "free"}, seed=1)
    for x in range(0, 6, 2):
        game.roll("I")
        game.play([[x, 0], [x, 1], [x, 2], [x, 3]])
        game.roll("I")
        game.play([[x + 1, 0], [x + 1, 1], [x + 1, 2], [x + 1, 3]])
    game.roll("I")
    decision = make_bot("greedy", seed=1).choose_dice(game.view())
    game.play(decision.placement, decision.shape)
    assert game.scores[game.moves[-1].player] >= 1


def _o_gap_game() -> DiceGame:
    """Rows 0-1 filled except a 4x2 gap at the left; the die only shows O."""
    garbage = [{"shape": "O", "cells": [[x, 0], [x + 1, 0], [x, 1], [x + 1, 1]]} for x in (4, 6, 8)]
    game = DiceGame(["A", "B"], {"die": ["O"], "garbage": garbage}, seed=1)
    game.roll("O")
    return game


def test_expert_does_not_hand_two_rows_to_the_next_player() -> None:
    """Half-filling the gap lets the next O complete two rows; the expert plays elsewhere."""
    from tabletris.bots.dice_eval import outlook

    game = _o_gap_game()
    decision = make_bot("expert", seed=1).choose_dice(game.view())
    game.play(decision.placement, decision.shape, decision.take, decision.rewards)
    assert outlook(game).expected_rows == 0
    assert decision.placement.x >= 4 or decision.placement.y >= 2


def test_outlook_sees_the_rows_half_filling_hands_over() -> None:
    from tabletris.bots.dice_eval import outlook

    game = _o_gap_game()
    game.play([[0, 0], [1, 0], [0, 1], [1, 1]])
    look = outlook(game)
    assert look.expected_rows == 2
    assert look.stuck_probability == 0


def test_features_count_holes_wells_and_transitions() -> None:
    board = Board(4, 6)
    # Column 0 with a hole at y=0 under a cell at y=1; column 3 filled to height 3.
    for cell in [(0, 1), (3, 0), (3, 1), (3, 2)]:
        board.new_stone(Shape.M, (cell,), None)
    f = features_of(board.occupied, 4, 6)
    assert f.holes == 1
    assert f.hole_rows == 1
    assert f.heights == (2, 0, 0, 3)
    assert f.bumpiness == 2 + 0 + 3
    assert f.max_height == 3
    # Column 1 and 2 are open; no one-wide well with walls on both sides.
    assert f.wells == 0
    # Row 0: wall|. . . X|wall -> transitions at wall->.(1) and .->X(1) = 2
    # Row 1: wall|X . . X|wall -> X->. and .->X = 2 ; Row 2: . . . X -> 2 ; rows 3-5: wall->. , .->wall = 2 each
    assert f.row_transitions == 2 * 6


def test_max_rows_completed_sees_double_rows_and_stuck_shapes() -> None:
    board = Board(4, 6)
    for y in (0, 1):
        for x in (0, 1):
            board.new_stone(Shape.M, ((x, y),), None)
    rows = gap_rows(board, 0b111111, max_gaps=3)
    assert [r for r, _ in rows] == [0, 1]
    assert max_rows_completed(board, Shape.O, "rotate", "slide", rows) == 2
    assert max_rows_completed(board, Shape.I, "rotate", "slide", rows) == 0
    full = Board(4, 4)
    for y in range(4):
        for x in range(4):
            if (x, y) != (0, 3):
                full.new_stone(Shape.M, ((x, y),), None)
    assert max_rows_completed(full, Shape.O, "rotate", "slide", gap_rows(full, 0b1111)) == -1
