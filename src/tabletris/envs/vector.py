"""``DiceVectorEnv``: N dice games stepped together, as a ``gymnasium.vector.VectorEnv``.

``gymnasium.make_vec("tabletris/Dice-v0", num_envs=8)`` builds it (the id's vector entry point),
or ``DiceVectorEnv(8, opponents="greedy", ...)`` with ``DiceEnv``'s options. Observations,
rewards and flags come batched (first axis: the game); ``action_masks()`` gives the ``(N,
n_actions)`` masks, as a maskable learner wants. A finished game is reset on the step after
it ends (Gymnasium's ``NEXT_STEP`` autoreset: that step's action for it is ignored).

Seeding: ``reset(seed=s)`` seeds game ``i`` with ``s + i``, so the batch replays exactly what N
separate ``DiceEnv`` would. The games themselves are the engine's, one after the other in this
process: the batch saves the per-env overhead of ``SyncVectorEnv`` wrappers, not engine time.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space, concatenate, create_empty_array

from tabletris.envs.gym import DiceEnv


class DiceVectorEnv(VectorEnv[Any, Any, Any]):
    """N ``DiceEnv`` games in one batch (see the module docstring)."""

    metadata = {"render_modes": ["ansi", "rgb_array"], "autoreset_mode": AutoresetMode.NEXT_STEP}

    def __init__(self, num_envs: int = 1, **kwargs: Any) -> None:
        if num_envs < 1:
            raise ValueError(f"num_envs: {num_envs}: at least 1")
        self.envs = [DiceEnv(**kwargs) for _ in range(num_envs)]
        self.num_envs = num_envs
        self.render_mode = self.envs[0].render_mode
        self.single_observation_space = self.envs[0].observation_space
        self.single_action_space = self.envs[0].action_space
        self.observation_space = batch_space(self.single_observation_space, num_envs)
        self.action_space = batch_space(self.single_action_space, num_envs)
        self._obs: Any = create_empty_array(self.single_observation_space, num_envs)
        self._needs_reset = np.zeros(num_envs, dtype=bool)

    def reset(
        self, *, seed: int | Sequence[int | None] | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Any, dict[str, Any]]:
        if seed is None or isinstance(seed, int):
            seeds: list[int | None] = [None if seed is None else seed + i for i in range(self.num_envs)]
        else:
            seeds = list(seed)
            if len(seeds) != self.num_envs:
                raise ValueError(f"seed: {len(seeds)} seeds for {self.num_envs} games")
        observations = []
        infos: dict[str, Any] = {}
        for i, (env, s) in enumerate(zip(self.envs, seeds, strict=True)):
            obs, info = env.reset(seed=s, options=options)
            observations.append(obs)
            infos = self._add_info(infos, info, i)
        self._needs_reset[:] = False
        self._obs = concatenate(self.single_observation_space, observations, self._obs)
        return self._obs, infos

    def step(self, actions: Any) -> tuple[Any, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        actions = np.asarray(actions)
        rewards = np.zeros(self.num_envs, dtype=np.float64)
        terminated = np.zeros(self.num_envs, dtype=bool)
        truncated = np.zeros(self.num_envs, dtype=bool)
        observations = []
        infos: dict[str, Any] = {}
        for i, env in enumerate(self.envs):
            if self._needs_reset[i]:
                obs, info = env.reset()
            else:
                obs, rewards[i], terminated[i], truncated[i], info = env.step(int(actions[i]))
            observations.append(obs)
            infos = self._add_info(infos, info, i)
        self._needs_reset = terminated | truncated
        self._obs = concatenate(self.single_observation_space, observations, self._obs)
        return self._obs, rewards, terminated, truncated, infos

    def action_masks(self) -> np.ndarray:
        """Every game's legal actions now, ``(num_envs, n_actions)`` bool. A game waiting for its
        reset step allows action 0 only (its action is ignored; a mask with nothing legal would
        break a masked sampler)."""
        masks = np.stack([env.action_masks() for env in self.envs])
        masks[self._needs_reset, 0] = True
        return masks

    def render(self) -> tuple[Any, ...] | None:
        if self.render_mode is None:
            return None
        return tuple(env.render() for env in self.envs)

    def close_extras(self, **kwargs: Any) -> None:
        for env in self.envs:
            env.close()
