"""The dice kernel against the reference: whole games on both engines from the same seeds.

``engine/fastdice.py`` plays dice turns in C (a second copy of the turn's rules, allowed by
issue 19 only under this test). Each case plays one game in Python the way ``Table`` plays bots
(roll, ``bot.choose_dice`` on a view, ``complete``, ``act``) and the same game in the kernel from
the same game and bot seeds, then compares everything: the records (every move, take and token),
scores, rows completed, supply, the board's stones, scored rows, whose turn, the stuck seat, and
the game's and bots' generators afterwards. Rule sets cover every access and orientation mode,
both takes, must_close, both clearings with targets, stuck penalty, rescoring, limited and
unlimited supply, tokens on and off, garbage, and boards from 4x4 to 12x40.
"""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kernel_reference import dice_rules, examples, game_state, play_bots
from tabletris.bots.heuristics import DEFAULT_WEIGHTS, weights_tuple
from tabletris.bots.registry import make_bot
from tabletris.engine import board as board_mod
from tabletris.engine import fastdice
from tabletris.engine.dice import DICE_PRESETS, DiceGame, DiceRules

pytestmark = pytest.mark.skipif(not board_mod.native_available(), reason="the compiled core is not built here")

WEIGHTS = weights_tuple(DEFAULT_WEIGHTS)
MAX_TURNS = 200
"""Both engines stop after this many turns (games with takes can run long); the positions are
compared wherever they stopped."""


def play_python(game: DiceGame, policies: list[str], seeds: list[int], turns: int = MAX_TURNS) -> list[Any]:
    """The reference: bots of the registry through the engine, as ``Table.play_out`` drives them."""
    bots = [make_bot(name, seed=seed) for name, seed in zip(policies, seeds, strict=True)]
    play_bots(game, bots, turns)
    return bots


def play_kernel(game: DiceGame, policies: list[str], seeds: list[int], turns: int = MAX_TURNS) -> list[random.Random]:
    rngs = [random.Random(seed) for seed in seeds]
    fastdice.playout(game, policies, rngs, WEIGHTS, max_turns=turns)
    return rngs




def assert_same(rules: DiceRules | dict[str, Any], players: int, seed: int, policies: list[str], before: int = 0,
                pending: bool = False, pure: bool = False) -> None:
    """One game on both engines; ``before`` turns are played in Python first (the kernel loads
    any position), ``pending``: then the die is rolled and the kernel starts with it showing;
    ``pure``: the reference game runs on the pure-Python board too."""
    names = [f"p{i}" for i in range(players)]
    seeds = [seed * 31 + 7 * i + 1 for i in range(players)]
    a = DiceGame(names, rules, seed=seed)
    b = DiceGame(names, rules, seed=seed)
    assert fastdice.supports(a.rules)
    if before:
        # The same opening on both: Python random bots with their own seeds.
        opening = [s + 1000 for s in seeds]
        play_python(a, ["random"] * players, opening, before)
        play_python(b, ["random"] * players, opening, before)
    if pending and not a.over:
        a.roll()
        b.roll()
    with board_mod.engine(not pure):
        bots = play_python(a, policies, seeds)
    board_b = b.board
    rngs = play_kernel(b, policies, seeds)
    assert b.board is board_b  # the game's own board object, as front ends hold it
    sa, sb = game_state(a), game_state(b)
    for key in sa:
        assert sa[key] == sb[key], f"{key} differs (rules {rules}, seed {seed}, policies {policies})"
    assert a.board == b.board
    for bot, rng, name in zip(bots, rngs, policies, strict=True):
        if name == "random":
            assert bot.rng.getstate() == rng.getstate()
    # The kernel's game goes on as a Python game: one more Python turn agrees too.
    if not a.over:
        play_python(a, ["random"] * players, [5] * players, 1)
        play_python(b, ["random"] * players, [5] * players, 1)
        assert game_state(a) == game_state(b)


# ------------------------------------------------------------------ the generator


@pytest.mark.parametrize("n", [1, 2, 3, 5, 6, 7, 8, 100, 1000, 2**16 + 1, 2**30 + 3, 2**31 - 1])
def test_generator_draws_as_cpython(n: int) -> None:
    nat = board_mod.native_module()
    assert nat is not None
    for seed in (0, 1, 19, 2**32 - 1):
        r = random.Random(seed)
        r.random()  # any index into the state, not only a fresh one
        version, words, gauss = r.getstate()
        draws, after = nat.mt_draw(words, n, 1500)  # past one regeneration of the 624 words
        assert draws == [r.randrange(n) for _ in range(1500)]
        assert after == r.getstate()[1]
        assert (version, after, gauss) == r.getstate()


def test_seeding_as_cpython() -> None:
    """An int seed makes the generator ``random.Random(seed)`` starts from (the env's fast path
    seeds games and bots in C)."""
    nat = board_mod.native_module()
    assert nat is not None
    for seed in (0, 1, 6, 2026, 2**31 - 1, 2**31, 2**32 - 1):
        draws, after = nat.mt_draw(seed, 7, 700)
        r = random.Random(seed)
        assert draws == [r.randrange(7) for _ in range(700)]
        assert after == r.getstate()[1]
    with pytest.raises(ValueError, match="2\\*\\*32"):
        nat.mt_draw(2**32, 7, 1)


def test_choice_is_randbelow() -> None:
    """``rng.choice(die)`` (the roll) draws what ``randrange(len(die))`` draws."""
    nat = board_mod.native_module()
    assert nat is not None
    die = ("I", "O", "T", "S", "L", "*")
    r = random.Random(4)
    draws, _ = nat.mt_draw(r.getstate()[1], len(die), 300)
    assert [die[i] for i in draws] == [r.choice(die) for _ in range(300)]


# ------------------------------------------------------------------ whole games


@pytest.mark.parametrize("preset", sorted(p for p in DICE_PRESETS if p != "choose"))
@pytest.mark.parametrize("players", [2, 3, 4])
def test_presets_random_and_greedy(preset: str, players: int) -> None:
    for seed in range(6):
        policies = [["random", "greedy"][(seed + i) % 2] for i in range(players)] if seed % 3 else ["random"] * players
        assert_same({"preset": preset}, players, seed, policies)


@pytest.mark.parametrize("preset", ["standard", "clear-stones", "must-close", "classic"])
def test_pure_python_reference(preset: str) -> None:
    """The reference on the pure-Python board as well (no compiled code on its side at all)."""
    for seed in range(3):
        assert_same({"preset": preset}, 2, seed, ["greedy", "random"], pure=True)


def test_many_random_games() -> None:
    """A thousand random-vs-random games of the standard rules and its smallest board."""
    for seed in range(600):
        assert_same({}, 2 + seed % 3, seed, ["random"] * (2 + seed % 3))
    for seed in range(400):
        assert_same({"width": 4, "height": 6, "supply": 2}, 2, seed, ["random", "random"])


rules_st = dice_rules()


@settings(max_examples=examples(400), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rules=rules_st, players=st.integers(2, 4), seed=st.integers(0, 2**32 - 1), kinds=st.integers(0, 15))
def test_any_rules_whole_games(rules: dict[str, Any], players: int, seed: int, kinds: int) -> None:
    policies = ["greedy" if kinds >> i & 1 else "random" for i in range(players)]
    assert_same(rules, players, seed, policies)


@settings(max_examples=examples(200), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rules=rules_st, seed=st.integers(0, 2**32 - 1), before=st.integers(1, 30), pending=st.booleans(),
       greedy=st.booleans())
def test_from_any_position(rules: dict[str, Any], seed: int, before: int, pending: bool, greedy: bool) -> None:
    """The kernel loads a game in the middle (takes, garbage, clearing, a roll showing)."""
    assert_same(rules, 3, seed, ["greedy" if greedy else "random", "random", "random"], before, pending)


def test_first_player_one_player_and_listed_garbage() -> None:
    garbage = [{"shape": "I", "cells": [[0, 0], [1, 0], [2, 0], [3, 0]]}, {"shape": "O", "cells": [[8, 0], [9, 0], [8, 1], [9, 1]]}]
    for seed in range(10):
        assert_same({"first_player": 1}, 3, seed, ["random", "greedy", "random"])
        assert_same({}, 1, seed, ["greedy" if seed % 2 else "random"])
        assert_same({"garbage": garbage, "supply": 1}, 2, seed, ["random", "random"])


def test_tall_board_and_wide_board() -> None:
    for seed in range(8):
        assert_same({"width": 6, "height": 40}, 2, seed, ["greedy", "random"])
        assert_same({"width": 12, "height": 8, "access": "free", "take": "any"}, 4, seed, ["random", "greedy"] * 2)


# ------------------------------------------------------------------ what it does not play


def test_supports_says_what_it_does_not_play() -> None:
    assert fastdice.supports(DiceRules())
    assert not fastdice.supports(DiceRules.preset_named("choose"))
    assert "choose" in (fastdice.unsupported(DiceRules.preset_named("choose")) or "")
    with board_mod.engine(False):
        assert fastdice.unsupported(DiceRules()) == "the compiled core is not in use"
        with pytest.raises(ValueError, match="does not play this game"):
            fastdice.playout(DiceGame(["a", "b"], seed=1), ["random", "random"], [random.Random(1)] * 2, WEIGHTS)


def test_bad_arguments_say_what_is_wrong() -> None:
    game = DiceGame(["a", "b"], seed=1)
    with pytest.raises(ValueError, match=r"policies\[1\]: 'oracle'"):
        fastdice.playout(game, ["random", "oracle"], [random.Random(1), None], WEIGHTS)
    with pytest.raises(ValueError, match="needs its bot's generator"):
        fastdice.playout(game, ["random", "random"], [random.Random(1), None], WEIGHTS)
    with pytest.raises(ValueError, match="one policy and one generator per seat"):
        fastdice.playout(game, ["random"], [random.Random(1)], WEIGHTS)
    game.roll()
    game.push(game.turn_options()[0].placement, game.turn_options()[0].shape)
    with pytest.raises(ValueError, match="push/pop"):
        fastdice.playout(game, ["greedy", "greedy"], [None, None], WEIGHTS)
    assert len(game.moves) == 1  # nothing played
