"""``TowerVectorEnv``: N tower games stepped together, as a ``gymnasium.vector.VectorEnv``.

``gymnasium.make_vec("tabletris/Tower-v0", num_envs=8)`` builds it (the id's vector entry point),
or ``TowerVectorEnv(8, opponents="greedy", ...)`` with ``TowerEnv``'s options. Observations,
rewards and flags come batched (first axis: the game); ``action_masks()`` gives the ``(N,
n_actions)`` masks, as a maskable learner wants. A finished game is reset on the step after it
ends (Gymnasium's ``NEXT_STEP`` autoreset: that step's action for it is ignored).

Seeding: ``reset(seed=s)`` seeds game ``i`` with ``s + i``, so the batch replays exactly what N
separate ``TowerEnv`` would. On ``TowerEnv``'s fast path (``random`` and ``greedy`` opponents:
``envs/tower_fast.py``) the games live in the compiled tower core and one C call per ``step``
plays all N of them, writing their observations, masks, statuses and rewards into this batch's
arrays and resetting the games that ended (their seeds drawn in C from each env's
``np_random``, as ``TowerEnv.reset`` draws them); otherwise they are the engine's, one after the
other in this process.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space, concatenate, create_empty_array

from tabletris.envs.gym import TowerEnv
from tabletris.envs.tower_fast import STATUS, FastTower, env_action, step_batch


class TowerVectorEnv(VectorEnv[Any, Any, Any]):
    """N ``TowerEnv`` games in one batch (see the module docstring)."""

    metadata = {"render_modes": ["ansi", "rgb_array"], "autoreset_mode": AutoresetMode.NEXT_STEP}

    def __init__(self, num_envs: int = 1, **kwargs: Any) -> None:
        if num_envs < 1:
            raise ValueError(f"num_envs: {num_envs}: at least 1")
        self.envs = [TowerEnv(**kwargs) for _ in range(num_envs)]
        self.num_envs = num_envs
        self.render_mode = self.envs[0].render_mode
        self.single_observation_space = self.envs[0].observation_space
        self.single_action_space = self.envs[0].action_space
        self.observation_space = batch_space(self.single_observation_space, num_envs)
        self.action_space = batch_space(self.single_action_space, num_envs)
        self._obs: Any = create_empty_array(self.single_observation_space, num_envs)
        self._needs_reset = np.zeros(num_envs, dtype=bool)
        self._games: list[FastTower] | None = None
        """Every game's ``FastTower`` once ``reset`` put them all on the fast path, else None."""
        first = self.envs[0]
        self._eligible = first.fast_path
        self._fast = self._eligible
        if self._eligible:
            codec = first.codec
            self._batch = (
                np.zeros((num_envs, codec.obs_size), dtype=np.float32),
                np.zeros((num_envs, codec.n_actions), dtype=np.int8),
                np.zeros((num_envs, STATUS + codec.players), dtype=np.int32),
            )
            self._link_rows()
            self._seeds = np.zeros(num_envs, dtype=np.int64)
            self._rows = np.arange(num_envs)

    def _link_rows(self) -> None:
        """Each game writes into its row of the batch arrays (its env's, and its core game's)."""
        for i, env in enumerate(self.envs):
            rows = (self._batch[0][i], self._batch[1][i], self._batch[2][i])
            env._fast_rows = rows
            if env._fast is not None:
                env._fast.obs, env._fast.mask, env._fast.status = rows

    def __setstate__(self, state: dict[str, Any]) -> None:
        """A copy (``copy.deepcopy``, ``pickle``): its games write into the copy's arrays again."""
        self.__dict__.update(state)
        if self._eligible:
            self._link_rows()

    @property
    def fast_path(self) -> bool:
        """Whether the batch steps in the tower core (``TowerEnv.fast_path`` of its games)."""
        return self._fast

    @fast_path.setter
    def fast_path(self, value: bool) -> None:
        """``False`` (before ``reset``) puts every game on the Python path; ``True`` only undoes
        that where the games could take the fast path."""
        self._fast = bool(value) and self._eligible
        for env in self.envs:
            env.fast_path = self._fast

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
        games = [env._fast for env in self.envs]
        fast = [g for g in games if g is not None]
        self._games = fast if self._fast and len(fast) == self.num_envs else None
        self._obs = concatenate(self.single_observation_space, observations, self._obs)
        return self._obs, infos

    def step(self, actions: Any) -> tuple[Any, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        actions = np.asarray(actions)
        if self._games is not None:
            return self._fast_step(actions)
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

    def _fast_step(self, actions: np.ndarray) -> tuple[Any, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """``step`` on the fast path: one core call resets the games that ended (``NEXT_STEP``;
        seeded from each env's ``np_random`` as ``TowerEnv.reset`` seeds them; where the rules
        choose towers the Python env resets them first) and steps the others with their rewards;
        the actions are checked as ``TowerEnv.step`` checks them, and the flags and infos
        (``_add_info``'s layout) are built for the whole batch in NumPy."""
        n = self.num_envs
        envs = self.envs
        games = self._games
        assert games is not None
        _, masks, status = self._batch
        reset = self._needs_reset
        in_c = reset
        if reset.any():
            in_c = reset.copy()
            for r in np.flatnonzero(reset).tolist():
                env = envs[r]
                generator = games[r].generator
                if generator is None or generator is not env.np_random.bit_generator:
                    env.reset()  # chosen towers (set up in Python), or a generator set by hand
                    in_c[r] = False
        stepping = ~reset & (status[:, 0] == 0)
        n_actions = masks.shape[1]
        wanted = np.asarray(actions).astype(np.int64, copy=False).reshape(n)
        inside = (wanted >= 0) & (wanted < n_actions)
        legal = inside & (masks[self._rows, np.where(inside, wanted, 0)] != 0)
        played = np.where(stepping, wanted, -1)
        extras: dict[int, tuple[dict[str, Any], float]] = {}
        bad = stepping & ~legal
        if bad.any():
            for i in np.flatnonzero(bad).tolist():
                a, extra, penalty = env_action(envs[i], int(wanted[i]))
                extras[i] = (extra, penalty)
                played[i] = a
        rewards = np.empty(n, dtype=np.float64)
        step_batch(games, played, in_c, self._batch, rewards, self._seeds)
        for j, (_, penalty) in extras.items():
            rewards[j] = rewards[j] + penalty
        after = status[:, STATUS:].tolist()
        over = status[:, 0] != 0
        rounds = status[:, 1].astype(int)
        terminated = over & ~reset
        truncated = np.zeros(n, dtype=bool)
        scores = np.empty(n, dtype=object)
        for j, row in enumerate(after):
            scores[j] = row
        winners = np.full(n, None, dtype=object)
        success = np.zeros(n, dtype=bool)
        if over.any():
            masks_won = status[:, 2].tolist()
            for j in np.flatnonzero(over).tolist():
                won = [s for s in range(len(after[j])) if masks_won[j] >> s & 1]
                winners[j] = won
                success[j] = envs[j].seat in won
        everyone = np.ones(n, dtype=bool)
        infos: dict[str, Any] = {
            "scores": scores, "_scores": everyone, "winner": winners, "_winner": everyone.copy(),
            "is_success": success, "_is_success": everyone.copy(), "round": rounds, "_round": everyone.copy(),
        }
        for j, (extra, _) in sorted(extras.items()):
            infos = self._add_info(infos, extra, j)
        self._needs_reset = terminated | truncated
        self._obs = self._fast_observations()
        return self._obs, rewards, terminated, truncated, infos

    def _fast_observations(self) -> Any:
        obs, masks, _ = self._batch
        first = self.envs[0]
        if first.observation_form == "vector":
            if not first.mask_in_observation:
                np.copyto(self._obs, obs)
            else:
                np.copyto(self._obs["observation"], obs)
                np.copyto(self._obs["action_mask"], masks)
            return self._obs
        forms = [env._form(obs[i], masks[i]) for i, env in enumerate(self.envs)]
        return concatenate(self.single_observation_space, forms, self._obs)

    def action_masks(self) -> np.ndarray:
        """Every game's legal actions now, ``(num_envs, n_actions)`` bool; a game waiting for its
        reset step allows action 0 only (its action is ignored)."""
        if self._games is not None:
            masks = self._batch[1].astype(bool)
        else:
            masks = np.stack([env.action_masks() for env in self.envs])
        masks[self._needs_reset, 0] = True
        return masks

    def sample_legal(self, rng: np.random.Generator) -> np.ndarray:
        """One uniformly random legal action per game (int64), drawn for the whole batch at once
        from ``action_masks()`` as ``DiceVectorEnv.sample_legal`` draws it."""
        from tabletris.envs.vector import DiceVectorEnv

        return DiceVectorEnv.sample_legal(self, rng)  # type: ignore[arg-type]

    def render(self) -> tuple[Any, ...] | None:
        if self.render_mode is None:
            return None
        return tuple(env.render() for env in self.envs)

    def close_extras(self, **kwargs: Any) -> None:
        for env in self.envs:
            env.close()
