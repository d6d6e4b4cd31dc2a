"""``DiceVectorEnv``'s batch step in the kernel (resets, rewards) against the Python path.

The fast path resets the games that ended inside the kernel's batch call, drawing their seeds
from each env's own ``np_random`` (NumPy's BitGenerator through its C capsule), and computes
every reward scheme in C. Both paths get the same seeds and actions; every observation, mask,
reward, flag and info must be identical batch for batch, the envs' generators must end in the
same state, and the ``DiceGame`` each fast env builds on demand must be the Python env's game
(so the seeds of the games reset in C are known in Python too).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kernel_reference import copy_obs, examples, same
from tabletris.engine import board as board_mod
from tabletris.engine.fastdice import supports
from tabletris.envs.vector import DiceVectorEnv

pytestmark = pytest.mark.skipif(not board_mod.native_available(), reason="the compiled core is not built here")


def run(
    kwargs: dict[str, Any], fast: bool, seed: int, steps: int, games: int = 4, illegal_every: int = 0,
    new_generator_at: int | None = None,
) -> tuple[list[Any], DiceVectorEnv, int]:
    """The trace of a run, the env, and how many games the kernel reset in its batch call."""
    vec = DiceVectorEnv(games, **kwargs)
    if not fast:
        vec.fast_path = False
    rng = np.random.default_rng(seed)
    obs, infos = vec.reset(seed=seed)
    trace: list[Any] = [(copy_obs(obs), infos)]
    in_kernel = 0
    for k in range(steps):
        if k == new_generator_at:
            vec.envs[0].np_random = np.random.default_rng(seed + 99)  # set by hand: honoured on both paths
        masks = vec.action_masks()
        # A game over at its reset has an empty mask until the step that reports it (both paths).
        actions = np.array([int(rng.choice(np.flatnonzero(m))) if m.any() else 0 for m in masks])
        if illegal_every and rng.integers(illegal_every) == 0:
            actions[rng.integers(len(actions))] = rng.integers(-3, vec.envs[0].codec.n_actions + 3)
        obs, rewards, terminated, truncated, infos = vec.step(actions)
        if fast:
            in_kernel += int((vec._seeds >= 0).sum())
        trace.append((copy_obs(obs), rewards, terminated, truncated, infos, masks))
    assert all((env._fast is not None) == fast for env in vec.envs)
    return trace, vec, in_kernel


def assert_same(kwargs: dict[str, Any], seed: int, steps: int = 150, **options: Any) -> int:
    python, vec_py, _ = run(kwargs, False, seed, steps, **options)
    fast, vec_fast, in_kernel = run(kwargs, True, seed, steps, **options)
    for k, (a, b) in enumerate(zip(python, fast, strict=True)):
        assert same(a, b), f"batch step {k} differs ({kwargs}, seed {seed})"
    for env_py, env_fast in zip(vec_py.envs, vec_fast.envs, strict=True):
        assert env_py.np_random.bit_generator.state == env_fast.np_random.bit_generator.state
        game_py, game_fast = env_py.game, env_fast.game
        assert game_py is not None and game_fast is not None
        assert [m.to_dict() for m in game_py.moves] == [m.to_dict() for m in game_fast.moves]
        assert game_py.board == game_fast.board
        assert game_py.rng.getstate() == game_fast.rng.getstate()
        assert game_py.seed == game_fast.seed  # the seed a reset in the kernel drew
        assert (game_py.scores, game_py.supply, game_py.turn) == (game_fast.scores, game_fast.supply, game_fast.turn)
    return in_kernel


VARIANTS: list[dict[str, Any]] = [
    {"action_mask": False},
    {"reward": "difference", "players": 3, "seat": 1},
    {"reward": "win", "players": 4, "seat": 3, "rules": {"supply": 1}},
    {"reward": "win", "players": 1},
    {"reward": "difference", "players": 1, "rules": {"width": 5, "height": 5}},
    {"rules": {"supply": 1, "take": "any"}, "players": 3, "reward": "difference", "max_turns": 10},
    {"rules": {"must_close": True, "supply": 2, "first_player": 1}, "reward": "win"},
    {"rules": {"preset": "clear-stones", "target": 3}, "reward": "difference"},
    {"rules": {"clear_rows": "cells", "unlimited_supply": False, "supply": 2}},
    {"rules": {"preset": "penalty", "supply": 1}, "reward": "win", "illegal_reward": -0.25},
    {"rules": {"access": "free", "width": 5, "height": 6, "garbage": 3}, "reward": "difference"},
    {"observation": "image", "rules": {"width": 6, "height": 6}},
]


@pytest.mark.parametrize("kwargs", VARIANTS, ids=[str(i) for i in range(len(VARIANTS))])
def test_batch_steps_as_the_python_env(kwargs: dict[str, Any]) -> None:
    illegal = 3 if "illegal_reward" in kwargs else 0
    in_kernel = assert_same(kwargs, 7, illegal_every=illegal)
    garbage = kwargs.get("rules", {}).get("garbage", 0)
    assert (in_kernel == 0) == bool(garbage), in_kernel  # games with garbage are reset in Python


def test_resets_in_the_kernel_happen_and_match() -> None:
    """Small boards end every few steps: many resets in the batch call, all as in Python."""
    in_kernel = assert_same({"rules": {"width": 4, "height": 5}, "players": 3, "reward": "win"}, 3, steps=200)
    assert in_kernel > 50


def test_a_generator_set_by_hand_is_used() -> None:
    """``env.np_random = ...`` between steps: the next reset draws from the new generator."""
    assert_same({"rules": {"width": 4, "height": 5}}, 5, steps=80, new_generator_at=10)


def test_illegal_action_raises_before_anything_is_stepped() -> None:
    vec = DiceVectorEnv(3, illegal_action="raise")
    vec.reset(seed=1)
    turns = [env._fast.turn for env in vec.envs if env._fast is not None]
    actions = np.array([int(np.flatnonzero(m)[0]) for m in vec.action_masks()])
    actions[1] = vec.envs[0].codec.n_actions + 4
    with pytest.raises(ValueError, match="is not a legal move"):
        vec.step(actions)
    assert [env._fast.turn for env in vec.envs if env._fast is not None] == turns


@settings(max_examples=examples(25), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    rules=st.fixed_dictionaries({
        "width": st.integers(4, 9),
        "height": st.integers(4, 10),
        "access": st.sampled_from(["drop", "slide", "free"]),
        "take": st.sampled_from(["lowest", "any"]),
        "must_close": st.booleans(),
        "clear_rows": st.sampled_from([False, "cells", "stones"]),
        "supply": st.integers(0, 3),
        "garbage": st.sampled_from([0, 0, 0, 2]),
    }),
    players=st.integers(1, 4),
    seat=st.integers(0, 3),
    reward=st.sampled_from(["score", "difference", "win"]),
    seed=st.integers(0, 2**31),
)
def test_any_rules_batch(rules: dict[str, Any], players: int, seat: int, reward: str, seed: int) -> None:
    assert_same({"rules": rules, "players": players, "seat": seat % players, "reward": reward}, seed, steps=50, games=3)


@pytest.mark.parametrize("fast", [True, False])
def test_sample_legal_draws_a_uniform_legal_action_per_game(fast: bool) -> None:
    """``sample_legal`` against the plain definition, game by game with the same uniforms:
    ``floor(u * count)`` into the game's legal ids; and every draw is legal."""
    vec = DiceVectorEnv(5, rules={"width": 5, "height": 6, "supply": 1})
    if not fast:
        vec.fast_path = False
    vec.reset(seed=2)
    rng, twin = np.random.default_rng(8), np.random.default_rng(8)
    seen: set[int] = set()
    for _ in range(60):
        masks = vec.action_masks()
        actions = vec.sample_legal(rng)
        uniforms = twin.random(len(masks))
        expected = [int(np.flatnonzero(m)[int(u * m.sum())]) if m.any() else 0 for m, u in zip(masks, uniforms, strict=True)]
        assert actions.tolist() == expected
        assert all(m[a] for m, a in zip(masks, actions, strict=True) if m.any())
        seen.update(actions.tolist())
        vec.step(actions)
    assert len(seen) > 20  # not always the same few ids


def test_sample_legal_with_a_game_that_has_no_legal_action() -> None:
    vec = DiceVectorEnv(3, action_mask=False)
    vec.reset(seed=1)
    vec._batch[1][1] = 0  # as for a game over at its reset, until the step that reports it
    actions = vec.sample_legal(np.random.default_rng(0))
    masks = vec.action_masks()
    assert actions[1] == 0 and masks[0, actions[0]] and masks[2, actions[2]]


def test_the_batch_can_be_put_on_the_python_path_and_back() -> None:
    """``DiceVectorEnv.fast_path``: off puts every game on the Python path (no kernel games after
    ``reset``); on only where the games could take the fast path."""
    vec = DiceVectorEnv(2)
    assert vec.fast_path == supports(vec.envs[0].rules)
    vec.fast_path = False
    vec.reset(seed=0)
    assert not vec.fast_path and vec._games is None and all(env._fast is None for env in vec.envs)
    vec.fast_path = True
    assert vec.fast_path == supports(vec.envs[0].rules)
    slow = DiceVectorEnv(2, opponents="greedy")
    slow.fast_path = True
    assert not slow.fast_path and not any(env.fast_path for env in slow.envs)
