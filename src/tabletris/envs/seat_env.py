"""What the single-agent environments of every game share: the opponents (bot names, bots or
policies), the checks of the arguments, the observation's forms, the info and ``SelfPlay``.

Each game's env is in its own module (``dice_env.DiceEnv``, ``tower_env.TowerEnv``); ``gym``
is where Gymnasium's entry points and the docs name them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, ClassVar

import gymnasium as gym
import numpy as np

from tabletris.bots.base import Bot
from tabletris.bots.registry import make_bot
from tabletris.envs.rewards import check_scheme, step_reward
from tabletris.envs.spaces import check_modes, codec_spaces

Policy = Callable[[Any, np.ndarray], int]
Opponent = str | Bot | Policy


def opponent_list(opponents: Opponent | Sequence[Opponent], others: int) -> list[Opponent]:
    """One opponent per other seat, from a single one or a list of exactly that many."""
    if isinstance(opponents, str | Bot) or callable(opponents):
        return [opponents] * others
    items = list(opponents)
    if len(items) != others:
        raise ValueError(f"opponents: {others} other seat(s) need {others} opponent(s), got {len(items)}")
    for i, item in enumerate(items):
        if not (isinstance(item, str | Bot) or callable(item)):
            raise ValueError(
                f"opponents[{i}]: {item!r} is not a bot name, a Bot or a policy(observation, mask) -> action"
            )
    return items


class _SeatEnv(gym.Env[Any, Any]):
    """What both games' environments share: checks, opponents, observation forms, info."""

    metadata = {"render_modes": ["ansi", "rgb_array"], "render_fps": 4}
    codec: Any
    game: Any
    shaped_reward: ClassVar[bool] = False
    """Whether the game offers the ``shaped`` reward (a potential of its positions: dice)."""

    def _setup(
        self,
        players: int,
        seat: int,
        opponents: Opponent | Sequence[Opponent],
        render_mode: str | None,
        illegal_action: str,
        illegal_reward: float,
        reward: str,
        observation: str,
        action_mask: bool,
    ) -> None:
        """Check every argument once, so a bad one fails at construction with its name."""
        if not 0 <= seat < players:
            raise ValueError(f"seat: {seat} does not exist with {players} players")
        check_modes(render_mode, self.metadata["render_modes"], illegal_action, observation)
        check_scheme(reward, shaped=self.shaped_reward)
        self.opponents = opponent_list(opponents, players - 1)
        for name in {o for o in self.opponents if isinstance(o, str)}:
            make_bot(name)  # unknown names fail now, not at reset()
        self.seat = seat
        self.render_mode = render_mode
        self.illegal_action = illegal_action
        self.illegal_reward = float(illegal_reward)
        self.reward_scheme = reward
        self.observation_form = observation
        self.mask_in_observation = action_mask
        self.observation_space, self.action_space = codec_spaces(self.codec, observation, action_mask)

    def _seat_bots(self, rng: np.random.Generator) -> dict[int, Bot | Policy]:
        """Opponents by seat for a new game: names become freshly seeded bots."""
        others = [s for s in range(self.players_count) if s != self.seat]
        out: dict[int, Bot | Policy] = {}
        for s, o in zip(others, self.opponents, strict=True):
            out[s] = make_bot(o, seed=int(rng.integers(2**32))) if isinstance(o, str) else o
        return out

    @property
    def players_count(self) -> int:
        return int(self.codec.players)

    def _form(self, vector: np.ndarray, mask: np.ndarray) -> Any:
        obs = self.codec.image(vector) if self.observation_form == "image" else vector
        if self.mask_in_observation:
            return {"observation": obs, "action_mask": mask}
        return obs

    def _outcome_info(self, scores: list[int], winners: list[int] | None, **extra: Any) -> dict[str, Any]:
        return {
            "scores": scores,
            "winner": winners,
            "is_success": winners is not None and self.seat in winners,
            **extra,
        }

    def _reward(self, before: list[int], after: list[int], winners: list[int] | None) -> float:
        return step_reward(self.reward_scheme, self.seat, before, after, winners)

    def action_masks(self) -> np.ndarray:
        """The learner's legal actions now (bool); what ``MaskablePPO`` asks for."""
        return self._mask().astype(bool)

    def _mask(self) -> np.ndarray:
        raise NotImplementedError


class SelfPlay:
    """An opponent policy that plays as a snapshot of the learner, for self-play.

    ``env = DiceEnv(opponents=SelfPlay())``; every so often ``selfplay.update(policy)`` with a
    ``policy(observation, action_mask) -> action`` made from the learner (for sb3:
    ``SelfPlay.from_model(model)``). Until the first update it plays uniformly among legal ids.
    """

    def __init__(self, policy: Policy | None = None, seed: int | None = None) -> None:
        self.policy = policy
        self.rng = np.random.default_rng(seed)
        self.updates = 0

    def update(self, policy: Policy) -> None:
        self.policy = policy
        self.updates += 1

    def __call__(self, observation: Any, action_mask: np.ndarray) -> int:
        if self.policy is None:
            return int(self.rng.choice(np.flatnonzero(action_mask)))
        return int(self.policy(observation, action_mask))

    @staticmethod
    def from_model(model: Any) -> Policy:
        """A policy from an sb3(-contrib) model with ``predict(obs, action_masks=...)``: a frozen
        copy of its current weights, so later training does not change the opponent."""
        import copy

        policy = copy.deepcopy(model.policy)

        def act(observation: Any, action_mask: np.ndarray) -> int:
            action, _ = policy.predict(observation, deterministic=False, action_masks=action_mask)
            return int(action)

        return act
