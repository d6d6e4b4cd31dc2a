"""What the dice kernel reads, the codes it is passed, and what it refuses (issues 24 and 30).

The kernel is a second copy of the rules, so it must never play a game other than the one asked:
a ``DiceRules`` field it does not read is refused by name (the Python engine plays it), its C
codes are the Python constants the binding passes, a count it cannot hold in a C int is refused
(never truncated) and sends the env to the Python path, and what it loads (states from Python,
buffers) is checked before use. ``tests/test_fastdice_fuzz.py`` damages dumps and states at
random; these are the reported cases, each failing on the code before the fix.
"""

from __future__ import annotations

import dataclasses
import random
import subprocess
import sys
from typing import Any

import gymnasium
import numpy as np
import pytest
from hypothesis import given, settings

from kernel_reference import NOT_DRAWN, dice_rules
from tabletris.bots.heuristics import DEFAULT_WEIGHTS, weights_tuple
from tabletris.engine import board as board_mod
from tabletris.engine import fastdice
from tabletris.engine.board import ACCESS_CODE, NATIVE_MAX_WIDTH
from tabletris.engine.dice import MAX_PLAYERS, DiceGame, DiceRules
from tabletris.engine.dice_rules import MAX_COUNT
from tabletris.engine.errors import RulesError
from tabletris.envs import dice_fast
from tabletris.envs.gym import DiceEnv

pytestmark = pytest.mark.skipif(not board_mod.native_available(), reason="the compiled core is not built here")

WEIGHTS = weights_tuple(DEFAULT_WEIGHTS)


@dataclasses.dataclass(frozen=True)
class WindyRules(DiceRules):
    """The rules with an option the kernel has never heard of (as a new DiceRules field would be)."""

    wind: int = 0


def nat() -> Any:
    module = board_mod.native_module()
    assert module is not None
    return module


# ------------------------------------------------------------------ what the kernel reads


def test_a_field_the_kernel_does_not_read_is_refused_by_name() -> None:
    assert fastdice.supports(DiceRules())
    why = fastdice.unsupported(WindyRules())
    assert why is not None and "rules.wind" in why
    with pytest.raises(ValueError, match="rules.wind"):
        fastdice.playout(DiceGame(["a", "b"], WindyRules(), seed=1), ["random"] * 2, [random.Random(1)] * 2, WEIGHTS)
    env = DiceEnv(rules=WindyRules())
    assert not env.fast_path
    assert "rules.wind" in (dice_fast.fallback_reason(env.rules, env.opponents, "score") or "")


def test_kernel_reads_names_only_fields_of_the_rules() -> None:
    assert {f.name for f in dataclasses.fields(DiceRules)} >= fastdice.KERNEL_READS


def test_the_rule_set_strategy_draws_every_field_or_says_why_not() -> None:
    names = {f.name for f in dataclasses.fields(DiceRules)}
    assert set(NOT_DRAWN) <= names
    with pytest.raises(ValueError, match="neither drawn nor in NOT_DRAWN: wind"):
        dice_rules(rules_class=WindyRules)


@settings(max_examples=10, deadline=None)
@given(rules=dice_rules())
def test_the_rule_set_strategy_draws_every_other_field(rules: dict[str, Any]) -> None:
    assert set(rules) == {f.name for f in dataclasses.fields(DiceRules)} - set(NOT_DRAWN)


# ------------------------------------------------------------------ the codes


def test_the_kernels_codes_are_the_python_constants_it_is_passed() -> None:
    shapes = DiceRules(die=("I", "O", "T", "S", "Z", "J", "L")).shapes
    expected = {
        **{f"ACCESS_{mode.upper()}": code for mode, code in ACCESS_CODE.items()},
        "CLEAR_NONE": fastdice.CLEAR_CODE[False],
        "CLEAR_CELLS": fastdice.CLEAR_CODE["cells"],
        "CLEAR_STONES": fastdice.CLEAR_CODE["stones"],
        **{f"POLICY_{name.upper()}": code for name, code in fastdice.POLICY_CODE.items()},
        "F_LIMITED": fastdice.FLAG_LIMITED,
        "F_TOKENS": fastdice.FLAG_TOKENS,
        "F_TAKE_ANY": fastdice.FLAG_TAKE_ANY,
        "F_MUST_CLOSE": fastdice.FLAG_MUST_CLOSE,
        "F_STUCK_PENALTY": fastdice.FLAG_STUCK_PENALTY,
        "F_RESCORE": fastdice.FLAG_RESCORE,
        **{f"SCHEME_{name.upper()}": code for name, code in dice_fast.SCHEMES.items()},
        "DK_PLAYERS": MAX_PLAYERS,
        "DK_FACES": fastdice.MAX_FACES,
        "DK_MAX_CELLS": max(len(o.cells) for s in shapes for o in s.orientations("free")),
        "DK_MAX_COUNT": fastdice.KERNEL_MAX_COUNT,
        "MAX_W": NATIVE_MAX_WIDTH,
        "INT_MAX": fastdice.KERNEL_INT_MAX,
    }
    codes = dict(nat().CONSTANTS)
    assert codes.pop("DK_SHAPES") >= len(shapes)  # every shape a die can have
    assert codes.pop("MAX_H") >= DiceRules(height=100).height  # the tallest board the rules allow
    assert codes == expected
    assert len(set(fastdice.POLICY_CODE.values())) == len(fastdice.POLICY_CODE)


# ------------------------------------------------------------------ counts the kernel cannot hold


def test_the_rules_bound_every_count() -> None:
    assert DiceRules(supply=MAX_COUNT, target=MAX_COUNT, garbage=MAX_COUNT).supply == MAX_COUNT
    for option, value, message in [
        ("supply", MAX_COUNT + 1, f"rules.supply: {MAX_COUNT + 1} is out of range (0-{MAX_COUNT})"),
        ("target", 2**60, f"rules.target: {2**60} is out of range (1-{MAX_COUNT})"),
        ("garbage", MAX_COUNT + 1, f"rules.garbage: {MAX_COUNT + 1} is out of range (0-{MAX_COUNT})"),
        ("first_player", MAX_PLAYERS, f"rules.first_player: {MAX_PLAYERS} is out of range (0-{MAX_PLAYERS - 1})"),
    ]:
        with pytest.raises(RulesError, match=message.replace("(", r"\(").replace(")", r"\)")):
            DiceRules.from_dict({option: value})


@pytest.mark.parametrize("supply", [2**31, 2**32 + 1, fastdice.KERNEL_MAX_COUNT // MAX_PLAYERS + 1])
def test_a_supply_the_kernel_cannot_count_is_played_by_python(supply: int) -> None:
    """Issue 30: ``supply=2**31`` made the kernel see -2**31 and stall at turn 1 (the Python
    engine plays 26 turns); ``2**32+1`` became 1. Now the kernel does not take these rules."""
    rules = DiceRules(supply=supply)
    assert "rules.supply" in (fastdice.unsupported(rules) or "")
    game = DiceGame(["a", "b"], rules, seed=3)
    with pytest.raises(ValueError, match="does not play this game: rules.supply"):
        fastdice.playout(game, ["random"] * 2, [random.Random(1), random.Random(2)], WEIGHTS)
    assert game.turn == 0  # nothing played


@pytest.mark.parametrize("supply", [2**31, 2**32 + 1])
def test_the_kernel_refuses_a_count_it_would_truncate(supply: int) -> None:
    """The kernel's own guard (behind ``unsupported``): an int it keeps in a C int raises
    OverflowError naming it, where it was cast to a wrong value."""
    rules = DiceRules()
    state = list(fastdice.fresh_state(rules, 2, 3) or ())
    state[2] = (supply,) * len(rules.shapes)
    with pytest.raises(OverflowError, match=f"supply {supply} does not fit the kernel's 32-bit ints"):
        nat().dice_playout(fastdice.kernel_rules(rules, 2, WEIGHTS), tuple(state), bytes(2), (0, 0), 100)
    big_target = DiceRules(clear_rows="cells", target=2**31)
    assert "rules.target" in (fastdice.unsupported(big_target) or "")
    with pytest.raises(OverflowError, match="target 2147483648 does not fit"):
        nat().dice_playout(fastdice.kernel_rules(big_target, 2, WEIGHTS), fastdice.fresh_state(big_target, 2, 3),
                           bytes(2), (0, 0), 100)


def test_an_env_with_a_big_supply_plays_on_the_python_path() -> None:
    """Issue 30: ``gymnasium.make(..., rules={"supply": 2**31})`` raised OverflowError."""
    env = gymnasium.make("tabletris/Dice-v0", rules={"supply": 2**31}).unwrapped
    assert isinstance(env, DiceEnv) and not env.fast_path
    assert "rules.supply" in (dice_fast.fallback_reason(env.rules, env.opponents, "score") or "")
    env.reset(seed=4)
    rng = np.random.default_rng(0)
    for _ in range(400):
        _, _, terminated, truncated, info = env.step(int(rng.choice(np.flatnonzero(env.action_masks()))))
        if terminated or truncated:
            break
    assert terminated and env.game is not None and env.game.turn > 1


def test_the_kernel_stops_at_the_most_turns_it_counts() -> None:
    rules = DiceRules()
    state = list(fastdice.fresh_state(rules, 2, 3) or ())
    state[6] = fastdice.KERNEL_MAX_COUNT
    with pytest.raises(ValueError, match="reached turn 268435455, the most the kernel counts"):
        nat().dice_playout(fastdice.kernel_rules(rules, 2, WEIGHTS), tuple(state), bytes(2), (0, 0), 100)
    state[6] = fastdice.KERNEL_MAX_COUNT + 1
    with pytest.raises(ValueError, match="out of range"):
        nat().dice_playout(fastdice.kernel_rules(rules, 2, WEIGHTS), tuple(state), bytes(2), (0, 0), 100)


# ------------------------------------------------------------------ states and rules from Python


def state_with(stones: list[tuple[int, int, int, bytes]], rules: DiceRules, roll: int = -1) -> tuple[Any, ...]:
    state = list(fastdice.fresh_state(rules, 2, 3) or ())
    state[0] = stones
    state[1] = len(stones) + 1
    state[8] = roll
    return tuple(state)


def test_overlapping_stones_are_refused() -> None:
    rules = DiceRules()
    i_cells = bytes([0, 0, 1, 0, 2, 0, 3, 0])
    with pytest.raises(ValueError, match="two stones on one cell"):
        nat().dice_playout(fastdice.kernel_rules(rules, 2, WEIGHTS), state_with([(0, 0, 1, i_cells), (0, 1, 2, i_cells)], rules),
                           bytes(2), (0, 0), 1)


def test_more_stones_than_cells_cannot_overflow_the_take_candidates() -> None:
    """Issue 30: with take ``any`` and an empty supply, stones piled on one cell overflowed
    ``dk_candidates``' stack buffer (and the expert's). In a fresh process: the old code crashed."""
    code = """
from tabletris.bots.heuristics import DEFAULT_WEIGHTS, weights_tuple
from tabletris.bots.expert import ExpertBot
from tabletris.engine import board, fastdice
from tabletris.engine.dice import DiceRules
nat = board.native_module()
rules = DiceRules(take="any", supply=0)
state = list(fastdice.fresh_state(rules, 2, 3))
state[0] = [(0, 0, n, bytes([0, 0, 1, 0, 2, 0, 3, 0])) for n in range(1, 30001)]
state[1] = 30001
state[8] = 0  # the die shows I, of which the supply has none
for call in (
    lambda: nat.expert_decide(fastdice.kernel_rules(rules, 2, weights_tuple(DEFAULT_WEIGHTS)), tuple(state), fastdice._params(ExpertBot().kernel_params())),
    lambda: nat.dice_playout(fastdice.kernel_rules(rules, 2, weights_tuple(DEFAULT_WEIGHTS)), tuple(state), bytes(2), (0, 0), 1),
):
    try:
        call()
    except ValueError as e:
        print("refused:", e)
"""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.count("refused: dice kernel: more stones than cells") == 2


def test_a_piece_of_more_cells_than_a_stone_holds_is_refused() -> None:
    rules = DiceRules()
    kernel_rules = list(fastdice.kernel_rules(rules, 2, WEIGHTS))
    kernel_rules[3] = (bytes([5, 5, 1, 0, 0, 1, 0, 2, 0, 3, 0, 4, 0]),) * len(rules.shapes)  # a 5-cell bar
    with pytest.raises(ValueError, match="rules out of range"):
        nat().dice_playout(tuple(kernel_rules), fastdice.fresh_state(rules, 2, 3), bytes(2), (0, 0), 1)


def test_a_negative_count_of_draws_is_a_value_error() -> None:
    with pytest.raises(ValueError, match="count: -1 draws"):
        nat().mt_draw(5, 6, -1)


# ------------------------------------------------------------------ the env's buffers


def step_buffers(env: DiceEnv) -> dict[str, np.ndarray]:
    fast = env._fast
    assert fast is not None
    return {"actions": np.array([-1], dtype=np.int64), "obs": fast.obs, "masks": fast.mask, "status": fast.status}


def test_env_step_refuses_a_buffer_of_another_type_misaligned_or_too_small() -> None:
    env = DiceEnv()
    env.reset(seed=2)
    assert env._fast is not None
    good = step_buffers(env)
    nat().env_step([env._fast.capsule], *good.values())  # as the env calls it
    raw = np.zeros(8 * 4 + 1, dtype=np.uint8)
    bad: list[tuple[str, Any, str]] = [
        ("obs", good["obs"].astype(np.float64), "obs: a buffer of another type"),
        ("masks", good["masks"].astype(bool), "masks: a buffer of another type"),
        ("actions", np.frombuffer(raw.data, dtype=np.int64, count=1, offset=1), "actions: a buffer misaligned"),
        ("status", good["status"][:3], "status: a buffer too small for the batch"),
        ("obs", np.zeros(2 * good["obs"].size, dtype=np.float32)[::2], "obs: expected a C-contiguous, writable"),
        ("actions", good["actions"].astype(">i8"), "actions: a buffer of another type"),
        ("masks", bytes(good["masks"].size), "masks: expected a C-contiguous, writable buffer of int8"),
    ]
    for name, value, message in bad:
        args = {**good, name: value}
        with pytest.raises(ValueError, match=message):
            nat().env_step([env._fast.capsule], *args.values())
    before = env._fast.status.copy()
    rewards, seeds = np.zeros(1), np.zeros(1, dtype=np.int64)
    with pytest.raises(ValueError, match="rewards: a buffer of another type"):
        nat().env_step([env._fast.capsule], *good.values(), np.zeros(1, dtype=np.uint8), rewards.astype(np.float32), seeds)
    assert np.array_equal(before, env._fast.status)  # nothing stepped


# ------------------------------------------------------------------ a copy's bytes


HEAD = 64
"""The dump's header (6 uint32 and 5 int64); the env's struct follows, its game first: the ints
w, h, access, nshapes, nfaces, nplayers, ... (``dk_game`` in _dice_kernel.c)."""


def dumped(kwargs: dict[str, Any] | None = None, steps: int = 7) -> bytes:
    env = DiceEnv(**(kwargs or {}))
    env.reset(seed=9)
    rng = np.random.default_rng(1)
    for _ in range(steps):
        _, _, terminated, truncated, _ = env.step(int(rng.choice(np.flatnonzero(env.action_masks()))))
        if terminated or truncated:
            env.reset()
    assert env._fast is not None
    data: bytes = nat().env_dump(env._fast.capsule)
    return data


def with_int(data: bytes, offset: int, value: int) -> bytes:
    return data[:offset] + value.to_bytes(4, "little", signed=True) + data[offset + 4:]


@pytest.mark.parametrize(("field", "offset", "value"), [
    ("h", HEAD + 4, 5000),  # issue 30: overflowed the heap
    ("nshapes", HEAD + 12, 50),  # issue 30: indexed out of bounds
    ("w", HEAD, 0),
    ("access", HEAD + 8, 7),
    ("nplayers", HEAD + 20, 99),
    ("flags", HEAD + 24, 1 << 12),
])
def test_a_copy_with_a_field_out_of_range_is_damaged(field: str, offset: int, value: int) -> None:
    data = dumped()
    assert nat().env_load(data, None) is not None
    with pytest.raises(ValueError, match="the copy's bytes are damaged"):
        nat().env_load(with_int(data, offset, value), None)


def test_a_copy_with_huge_counts_in_its_header_is_damaged() -> None:
    data = dumped()
    for index in range(5):  # nstones, ngroups, pool_used, nmoves, ntakes: the header's int64s
        offset = 24 + 8 * index
        for value in (2**62, 2**61 + 1, -1):
            damaged = data[:offset] + value.to_bytes(8, "little", signed=True) + data[offset + 8:]
            with pytest.raises(ValueError, match="damaged"):
                nat().env_load(damaged, None)
