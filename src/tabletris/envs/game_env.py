"""``tabletris/Game-v0``: one Gymnasium environment for any registered game, from its protocol.

``gymnasium.make("tabletris/Game-v0", game="pile", seat=0, opponents="random")``. It asks only
the ``Game`` protocol and the game's ``env`` module (``GameSpec.front_ends["env"]``), so a new
game gets an environment by writing that module, with no edit here. The module declares:

- ``MAX_ACTIONS``: the most legal actions a seat can have at once (the action space's size);
- ``observation_space(rules, players)``: a Gymnasium space;
- ``observe(view)``: the observation of a seat's view (``Game.seat_view``).

Action ``i`` is the ``i``-th of ``Game.legal_actions(seat)`` in the engine's order; the mask
(``action_masks()``, and ``info["action_mask"]``) marks the first ``len(legal_actions)``. An
action outside it is, as in the other environments, replaced by the first legal one with
``illegal_reward`` added (``illegal_action="replace"``, the default) or refused (``"raise"``). The
dice and tower games have their own richer environments (``Dice-v0``, ``Tower-v0``: their codecs
name every placement); this one is for a game that has none yet, and for bot authors trying one.
Rewards are ``envs.rewards``' schemes over ``Game.seat_scores()``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import gymnasium as gym
import numpy as np

from tabletris.bots.base import Bot
from tabletris.bots.registry import bot_refusal, make_bot
from tabletris.engine.games import Game, spec
from tabletris.envs.rewards import check_scheme, step_reward
from tabletris.envs.spaces import check_modes
from tabletris.table.driver import Table


class GameEnv(gym.Env[Any, np.int64]):
    """Any registered game with an ``env`` module, for one learning seat against bots."""

    metadata = {"render_modes": ["ansi"], "render_fps": 4}

    def __init__(
        self,
        game: str,
        players: int | None = None,
        seat: int = 0,
        opponents: str | Sequence[str] | None = None,
        rules: Mapping[str, Any] | None = None,
        reward: str = "score",
        render_mode: str | None = None,
        illegal_action: str = "replace",
        illegal_reward: float = 0.0,
    ) -> None:
        self.game_spec = spec(game)
        if not self.game_spec.has_front_end("env"):
            raise ValueError(f"game: the {game} game has no env module (front_ends['env']) for tabletris/Game-v0")
        self.module = self.game_spec.front_end("env")
        n = self.game_spec.min_players if players is None else players
        if not self.game_spec.min_players <= n <= self.game_spec.max_players:
            raise ValueError(f"players: the {game} game takes {self.game_spec.min_players}-{self.game_spec.max_players}, got {n}")
        if not 0 <= seat < n:
            raise ValueError(f"seat: {seat} does not exist with {n} players")
        check_scheme(reward)
        check_modes(render_mode, self.metadata["render_modes"], illegal_action)
        names = [opponents] * (n - 1) if opponents is None or isinstance(opponents, str) else list(opponents)
        names = [self.game_spec.bots[0] if o is None else o for o in names]
        if len(names) != n - 1:
            raise ValueError(f"opponents: {n - 1} other seat(s) need {n - 1} opponent(s), got {len(names)}")
        for name in names:
            refusal = bot_refusal(name, game)
            if refusal is not None:
                raise ValueError(f"opponents: {refusal}")
            make_bot(name)  # an unknown name fails now, not at reset()
        self.players, self.seat, self.opponent_names = n, seat, names
        self.rules = self.game_spec.rules(rules)
        self.reward_scheme = reward
        self.render_mode = render_mode
        self.illegal_action = illegal_action
        self.illegal_reward = float(illegal_reward)
        self.observation_space = self.module.observation_space(self.rules, n)
        self.action_space = gym.spaces.Discrete(int(self.module.MAX_ACTIONS))
        self.game: Game | None = None
        self.table: Table | None = None

    # ------------------------------------------------------------------ gymnasium

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[Any, dict[str, Any]]:
        super().reset(seed=seed)
        rng = self.np_random
        others = [s for s in range(self.players) if s != self.seat]
        bots: dict[int, Bot] = {
            s: make_bot(name, seed=int(rng.integers(2**32))) for s, name in zip(others, self.opponent_names, strict=True)
        }
        names = [f"Player {i + 1}" for i in range(self.players)]
        self.game = self.game_spec.new(names, self.rules, seed=int(rng.integers(2**32)))
        self.table = Table(self.game, bots)
        self.table.play_bots()
        return self._observe(), self._info()

    def step(self, action: np.int64 | int) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        game, table = self._live()
        legal = self._legal()
        if game.over:
            return self._observe(), 0.0, True, False, self._info()
        index = int(action)
        extra: dict[str, Any] = {}
        penalty = 0.0
        if not 0 <= index < len(legal):
            if self.illegal_action == "raise":
                raise ValueError(f"action {index} is not legal now: {len(legal)} legal action(s) (see action_masks())")
            extra["illegal_action"] = index
            index, penalty = 0, self.illegal_reward  # as the other envs: the first legal one instead
        before = game.seat_scores()
        table.act(self.seat, legal[index])
        table.play_bots()
        after = game.seat_scores()
        winners = game.winners() if game.over else None
        reward = step_reward(self.reward_scheme, self.seat, before, after, winners) + penalty
        return self._observe(), reward, game.over, False, {**self._info(), **extra}

    def render(self) -> str | None:
        if self.render_mode != "ansi" or self.game is None:
            return None
        return repr(self.game)

    def action_masks(self) -> np.ndarray:
        """The learner's legal actions now (what sb3-contrib's ``MaskablePPO`` asks for)."""
        mask = np.zeros(int(self.module.MAX_ACTIONS), dtype=bool)
        mask[: len(self._legal())] = True
        return mask

    # ------------------------------------------------------------------ helpers

    def _live(self) -> tuple[Game, Table]:
        if self.game is None or self.table is None:
            raise RuntimeError("call reset() before step()")
        return self.game, self.table

    def _legal(self) -> list[Any]:
        game, table = self._live()
        table.advance()
        legal = list(game.legal_actions(self.seat))
        if len(legal) > self.module.MAX_ACTIONS:
            raise RuntimeError(f"the {self.game_spec.name} game offers {len(legal)} actions, over its MAX_ACTIONS")
        return legal

    def _observe(self) -> Any:
        game, _ = self._live()
        return self.module.observe(game.seat_view(self.seat))

    def _info(self) -> dict[str, Any]:
        game, _ = self._live()
        winners = game.winners() if game.over else None
        return {
            "scores": game.seat_scores(),
            "winner": winners,
            "is_success": winners is not None and self.seat in winners,
            "action_mask": self.action_masks(),
        }
