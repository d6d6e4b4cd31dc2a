"""``Dice-v0``'s fast path (``envs/dice_fast.py``) against the Python path, step for step.

Both envs get the same seeds and the same random legal actions (sub-steps included: TAKE and
TOKEN decisions), and every observation, mask, reward, flag and info must be identical; the
``DiceGame`` the fast path builds on demand must be the Python env's game (records, board,
supply, tokens, generator). ``DiceVectorEnv`` likewise, batch for batch, across autoresets.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kernel_reference import copy_obs, dice_rules, examples, same
from tabletris.engine import board as board_mod
from tabletris.envs.gym import DiceEnv
from tabletris.envs.vector import DiceVectorEnv

pytestmark = pytest.mark.skipif(not board_mod.native_available(), reason="the compiled core is not built here")


def mask_of(env: DiceEnv, obs: Any) -> np.ndarray:
    return np.asarray(obs["action_mask"]) if isinstance(obs, dict) else env.action_masks()


def run(kwargs: dict[str, Any], fast: bool, seed: int, steps: int, illegal_every: int = 0) -> tuple[list[Any], DiceEnv]:
    env = DiceEnv(**kwargs)
    if fast:
        assert env.fast_path, f"{kwargs} did not take the fast path"
    env.fast_path = fast
    rng = np.random.default_rng(seed)
    obs, info = env.reset(seed=seed)
    trace: list[Any] = [(obs, info, env.action_masks())]
    for k in range(steps):
        legal = np.flatnonzero(mask_of(env, obs))
        action = int(rng.choice(legal)) if len(legal) else 0
        if illegal_every and k % illegal_every == 0:
            action = int(rng.integers(-2, env.codec.n_actions + 2))  # legal or not: replaced the same way
        obs, reward, terminated, truncated, info = env.step(action)
        trace.append((obs, reward, terminated, truncated, info, env.action_masks()))
        if terminated or truncated:
            obs, info = env.reset()
            trace.append((obs, info, env.action_masks()))
    return trace, env


def assert_same_env(kwargs: dict[str, Any], seed: int, steps: int = 150, illegal_every: int = 0) -> None:
    python, env_py = run(kwargs, False, seed, steps, illegal_every)
    fast, env_fast = run(kwargs, True, seed, steps, illegal_every)
    assert env_fast._fast is not None and env_py._fast is None
    for k, (a, b) in enumerate(zip(python, fast, strict=True)):
        assert same(a, b), f"step {k} differs ({kwargs}, seed {seed})"
    game_py, game_fast = env_py.game, env_fast.game
    assert game_py is not None and game_fast is not None
    assert [m.to_dict() for m in game_py.moves] == [m.to_dict() for m in game_fast.moves]
    assert game_py.board == game_fast.board
    assert (game_py.supply, game_py.tokens, game_py.scores, game_py.turn, game_py.roll_face) == (
        game_fast.supply, game_fast.tokens, game_fast.scores, game_fast.turn, game_fast.roll_face
    )
    assert game_py.rng.getstate() == game_fast.rng.getstate()
    assert env_py.render() == env_fast.render()


VARIANTS: list[dict[str, Any]] = [
    {},
    {"rules": {"supply": 1}},
    {"rules": {"supply": 1, "take": "any"}, "players": 3, "seat": 1},
    {"rules": {"must_close": True, "supply": 2}},
    {"rules": {"preset": "clear-stones", "target": 3}},
    {"rules": {"clear_rows": "cells", "unlimited_supply": False, "supply": 2}},
    {"rules": {"preset": "classic"}, "players": 4, "seat": 3},
    {"rules": {"access": "free", "width": 5, "height": 6, "garbage": 3}},
    {"rules": {"preset": "penalty", "supply": 1}, "reward": "win"},
    {"rules": {"supply": 1}, "reward": "difference", "max_turns": 12},
    {"rules": {"access": "drop", "orientation": "rotate", "rescore_reopened": True}, "observation": "image"},
    {"rules": {"supply": 2}, "action_mask": False, "render_mode": "ansi"},
    {"rules": {"first_player": 2}, "players": 3, "seat": 2},
    {"players": 1},
]


@pytest.mark.parametrize("kwargs", VARIANTS, ids=[str(i) for i in range(len(VARIANTS))])
def test_fast_env_steps_as_the_python_env(kwargs: dict[str, Any]) -> None:
    for seed in range(3):
        assert_same_env(kwargs, seed)


def test_illegal_actions_are_replaced_the_same_way() -> None:
    assert_same_env({"illegal_reward": -0.5, "rules": {"supply": 1}}, 4, steps=120, illegal_every=3)


def test_an_illegal_action_raises_the_same_error() -> None:
    messages = []
    for fast in (False, True):
        env = DiceEnv(illegal_action="raise")
        env.fast_path = env.fast_path and fast
        env.reset(seed=2)
        with pytest.raises(ValueError) as e:
            env.step(env.codec.n_actions + 5)
        messages.append(str(e.value))
    assert messages[0] == messages[1] and "is not a legal move for roll" in messages[0]


@settings(max_examples=examples(40), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    rules=dice_rules(width=10, height=14, target=6, supply=3, garbage=4),
    players=st.integers(2, 4),
    seat=st.integers(0, 3),
    seed=st.integers(0, 2**31),
)
def test_any_rules(rules: dict[str, Any], players: int, seat: int, seed: int) -> None:
    assert_same_env({"rules": rules, "players": players, "seat": seat % players}, seed, steps=60)


def test_not_on_the_fast_path() -> None:
    """Other opponents, the shaped reward and row_reward: choose stay on the Python path."""
    assert DiceEnv().fast_path
    assert not DiceEnv(opponents="greedy").fast_path
    assert not DiceEnv(reward="shaped").fast_path
    assert not DiceEnv(rules="choose").fast_path
    with board_mod.engine(False):
        assert not DiceEnv().fast_path


# ------------------------------------------------------------------ the batch


def run_vector(kwargs: dict[str, Any], fast: bool, seed: int, steps: int, illegal_every: int = 0) -> list[Any]:
    vec = DiceVectorEnv(5, **kwargs)
    if not fast:
        vec.fast_path = False
    rng = np.random.default_rng(seed)
    obs, infos = vec.reset(seed=seed)
    trace: list[Any] = [(copy_obs(obs), infos)]
    for _ in range(steps):
        masks = vec.action_masks()
        actions = np.array([int(rng.choice(np.flatnonzero(m))) for m in masks])
        if illegal_every and rng.integers(illegal_every) == 0:
            actions[rng.integers(len(actions))] = rng.integers(-3, vec.envs[0].codec.n_actions + 3)
        obs, rewards, terminated, truncated, infos = vec.step(actions)
        trace.append((copy_obs(obs), rewards, terminated, truncated, infos, masks))
    assert all((env._fast is not None) == fast for env in vec.envs)
    return trace


@pytest.mark.parametrize(
    "kwargs",
    [
        {},
        {"action_mask": False},
        {"rules": {"supply": 1, "take": "any"}, "players": 3, "reward": "difference"},
        {"observation": "image", "max_turns": 9, "reward": "win"},
        {"illegal_reward": -1.0},
    ],
    ids=["dict", "box", "takes", "image", "illegal"],
)
def test_vector_env_batches_as_the_python_env(kwargs: dict[str, Any]) -> None:
    illegal = 2 if "illegal_reward" in kwargs else 0
    python = run_vector(kwargs, False, 3, 120, illegal)
    fast = run_vector(kwargs, True, 3, 120, illegal)
    for k, (a, b) in enumerate(zip(python, fast, strict=True)):
        assert same(a, b), f"batch step {k} differs ({kwargs})"
