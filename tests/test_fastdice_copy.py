"""Copies of a fast-path dice env (``copy.deepcopy`` and ``pickle``).

A search that copies the env, or a worker process that gets it pickled, must get a game that
plays on exactly as the original would, and apart from it. On the fast path the game is a C
object: until ``env_dump``/``env_load`` a copy raised ``TypeError: cannot pickle 'PyCapsule'
object`` on the default ``Dice-v0`` (random opponents), while the Python path's env copied.
"""

from __future__ import annotations

import copy
import pickle
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from kernel_reference import copy_obs, same
from tabletris.engine import board as board_mod
from tabletris.envs.gym import DiceEnv
from tabletris.envs.vector import DiceVectorEnv

pytestmark = pytest.mark.skipif(not board_mod.native_available(), reason="the compiled core is not built here")

COPIERS: dict[str, Callable[[Any], Any]] = {
    "deepcopy": copy.deepcopy,
    "pickle": lambda thing: pickle.loads(pickle.dumps(thing)),
}

VARIANTS: list[dict[str, Any]] = [
    {},
    {"rules": {"supply": 1, "take": "any"}, "players": 3, "seat": 1},  # TAKE and TOKEN decisions
    {"rules": {"preset": "clear-stones", "target": 3}, "reward": "difference"},
    {"rules": {"access": "free", "width": 5, "height": 6, "garbage": 3}, "reward": "win"},
]


def play(env: DiceEnv, seed: int, steps: int) -> list[Any]:
    """Random legal actions (sub-steps included), resetting from the env's own generator."""
    rng = np.random.default_rng(seed)
    trace: list[Any] = []
    for _ in range(steps):
        action = int(rng.choice(np.flatnonzero(env.action_masks())))
        obs, reward, terminated, truncated, info = env.step(action)
        trace.append((copy_obs(obs), reward, terminated, truncated, info, env.action_masks()))
        if terminated or truncated:
            obs, info = env.reset()
            trace.append((copy_obs(obs), info))
    return trace


@pytest.mark.parametrize("how", list(COPIERS))
@pytest.mark.parametrize("kwargs", VARIANTS, ids=[str(i) for i in range(len(VARIANTS))])
def test_a_copy_plays_on_as_the_original_and_apart_from_it(how: str, kwargs: dict[str, Any]) -> None:
    copier = COPIERS[how]
    fast, python = DiceEnv(**kwargs), DiceEnv(**kwargs)
    python.fast_path = False
    assert fast.fast_path
    for env in (fast, python):
        env.reset(seed=5)
    for cut in range(4):
        twin, python_twin = copier(fast), copier(python)
        assert twin._fast is not None and twin._fast.capsule is not fast._fast.capsule
        # its batch resets draw from its own generator (garbage: none, the Python engine places it)
        assert twin._fast.generator is (None if twin.rules.garbage else twin.np_random.bit_generator)
        ahead = play(twin, cut, 60)
        # the Python path's copy plays the same (the fast path agrees with it step for step)
        assert same(ahead, play(python_twin, cut, 60)), f"the copy left the Python path ({kwargs}, cut {cut})"
        # the original did not move while its copy played, and plays the same from the copy point
        assert same(ahead, play(fast, cut, 60)), f"the original and its copy differ ({kwargs}, cut {cut})"
        play(python, cut, 60)


@pytest.mark.parametrize("how", list(COPIERS))
def test_a_copied_batch_resets_in_the_kernel_from_its_own_generators(how: str) -> None:
    vec = DiceVectorEnv(4, rules={"width": 5, "height": 6})  # short games: resets in the batch call
    vec.reset(seed=3)
    rng = np.random.default_rng(0)
    for _ in range(20):
        vec.step(vec.sample_legal(rng))
    twin = COPIERS[how](vec)
    assert twin.fast_path and twin._batch[0] is not vec._batch[0]
    for env, batch_row in zip(twin.envs, twin._batch[2], strict=True):
        assert env._fast is not None and np.shares_memory(env._fast.status, batch_row)

    def run(v: DiceVectorEnv) -> tuple[list[Any], int]:
        draws = np.random.default_rng(1)
        trace, resets = [], 0
        for _ in range(80):
            masks = v.action_masks()
            out = v.step(v.sample_legal(draws))
            resets += int((v._seeds >= 0).sum())
            trace.append((copy_obs(out[0]), *out[1:], masks))
        return trace, resets

    ahead, resets = run(twin)
    assert resets > 0, "no game was reset in the kernel: the test would not reach the copied generators"
    assert same(ahead, run(vec)[0])
    states = [[env.np_random.bit_generator.state for env in v.envs] for v in (vec, twin)]
    assert states[0] == states[1]


def test_damaged_or_foreign_bytes_are_refused() -> None:
    nat = board_mod._NATIVE
    env = DiceEnv()
    env.reset(seed=1)
    assert env._fast is not None
    data = nat.env_dump(env._fast.capsule)
    with pytest.raises(ValueError, match="damaged"):
        nat.env_load(data[:-1], None)
    with pytest.raises(ValueError, match="another build"):
        nat.env_load(b"XXXX" + data[4:], None)
    with pytest.raises(ValueError, match="damaged"):
        nat.env_load(b"", None)
