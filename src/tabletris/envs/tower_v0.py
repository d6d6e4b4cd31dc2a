"""The tower game as a PettingZoo Parallel (simultaneous) environment.

Usage, the PettingZoo way::

    from tabletris.envs import tower_v0
    env = tower_v0.parallel_env(players=3, rules={"preset": "advanced"})
    observations, infos = env.reset(seed=7)
    while env.agents:
        actions = {a: env.action_space(a).sample(observations[a]["action_mask"]) for a in env.agents}
        observations, rewards, terminations, truncations, infos = env.step(actions)

``tower_v0.env()`` is the same game turned into an AEC environment by PettingZoo's
``parallel_to_aec``. Every seat acts at every step, privately: a round resolves in the engine
once every active seat has submitted. Minos are a sub-phase (see ``tower_codec``): a seat that
drops a mino decides again at the next step, while seats whose action is in answer WAIT. Chance
(deck order, layouts, advanced achievement cards) comes from the game's generator, seeded by
``reset(seed=...)``. Rewards are score changes (rows, bonus icons and achievements, as they are
scored at the end of a round). A seat that is out is terminated; the others when the game ends.

Illegal actions: ``illegal_action="raise"`` raises ``ValueError`` naming the seat and the action;
``"replace"`` (the default, so unmasked samplers such as the seeding checks still run) plays the
first legal drop instead (or the only legal action), flags ``info["illegal_action"]`` and adds
``illegal_reward``. A missing action for a live seat counts as illegal.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Literal

import numpy as np
from gymnasium import spaces
from pettingzoo import ParallelEnv
from pettingzoo.utils import wrappers
from pettingzoo.utils.conversions import parallel_to_aec

from tabletris.engine.tower import TowerAction, TowerGame, TowerRules
from tabletris.envs.dice_v0 import agent_names, player_names
from tabletris.envs.spaces import check_modes, codec_spaces
from tabletris.envs.tower_codec import SeatTurn, TowerCodec

IllegalPolicy = Literal["raise", "replace"]
Legal = Mapping[int, TowerAction | int | None]


def parallel_env(**kwargs: Any) -> TowerParallelEnv:
    """The tower environment, simultaneous (see ``TowerParallelEnv``)."""
    return TowerParallelEnv(**kwargs)


def raw_env(**kwargs: Any) -> Any:
    """The tower environment as an AEC environment, without wrappers."""
    return parallel_to_aec(TowerParallelEnv(**kwargs))


def env(**kwargs: Any) -> wrappers.OrderEnforcingWrapper:
    """The tower environment as a wrapped AEC environment (PettingZoo's ``env()`` convention)."""
    return wrappers.OrderEnforcingWrapper(raw_env(**kwargs))


def first_choice(legal: Legal) -> int:
    """What replaces an illegal action: the first legal drop, else the lowest legal action."""
    drops = [a for a, v in legal.items() if isinstance(v, TowerAction) and not v.hold]
    return drops[0] if drops else min(legal)


class TowerParallelEnv(ParallelEnv):
    """Tower Tetris for ``players`` seats under ``rules`` (a preset name, a dict or TowerRules)."""

    metadata: dict[str, Any] = {"name": "tabletris_tower_v0", "render_modes": ["human", "ansi"]}

    def __init__(
        self,
        players: int | Sequence[str] = 2,
        rules: TowerRules | Mapping[str, Any] | str | None = None,
        render_mode: str | None = None,
        illegal_action: IllegalPolicy = "replace",
        illegal_reward: float = 0.0,
    ) -> None:
        if isinstance(rules, str):
            rules = {"preset": rules}
        self.rules_spec = rules
        self.player_names = player_names(players)
        probe = TowerGame(self.player_names, rules, seed=0)  # bad players or rules fail here
        check_modes(render_mode, self.metadata["render_modes"], illegal_action)
        self.render_mode = render_mode
        self.illegal_action = illegal_action
        self.illegal_reward = float(illegal_reward)
        self.possible_agents = agent_names(players)
        self.codec = TowerCodec(probe.rules, len(self.possible_agents))
        self.observation_spaces = {a: codec_spaces(self.codec)[0] for a in self.possible_agents}
        self.action_spaces = {a: codec_spaces(self.codec)[1] for a in self.possible_agents}
        n = len(self.possible_agents)
        self.state_space = spaces.Box(
            np.tile(self.codec.obs_low, n), np.tile(self.codec.obs_high, n), dtype=np.float32
        )
        self._seeder: np.random.Generator | None = None
        self.game: TowerGame | None = None
        self.turns: list[SeatTurn] = []
        self._legal: list[Legal] = []
        self.agents: list[str] = []

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        return self.action_spaces[agent]

    def _game(self) -> TowerGame:
        if self.game is None:
            raise RuntimeError("call reset() before using the environment")
        return self.game

    def _refresh(self) -> None:
        game = self._game()
        self._legal = [self.codec.legal(game, s, self.turns[s]) for s in range(len(self.possible_agents))]

    def _obs(self, agent: str) -> dict[str, np.ndarray]:
        seat = self.possible_agents.index(agent)
        return {
            "observation": self.codec.observe(self._game(), seat, self.turns[seat]),
            "action_mask": self.codec.mask(self._legal[seat]),
        }

    def reset(
        self, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, dict[str, np.ndarray]], dict[str, dict[str, Any]]]:
        """A new game; ``seed`` seeds this and every later game (options are not used)."""
        if seed is not None or self._seeder is None:
            self._seeder = np.random.default_rng(seed)
        self.game = TowerGame(self.player_names, self.rules_spec, seed=int(self._seeder.integers(2**32)))
        self.turns = [SeatTurn() for _ in self.possible_agents]
        self._refresh()
        self.agents = [a for i, a in enumerate(self.possible_agents) if not self.game.towers[i].out]
        return {a: self._obs(a) for a in self.agents}, {a: {} for a in self.agents}

    def step(
        self, actions: Mapping[str, Any]
    ) -> tuple[
        dict[str, dict[str, np.ndarray]],
        dict[str, float],
        dict[str, bool],
        dict[str, bool],
        dict[str, dict[str, Any]],
    ]:
        game = self._game()
        live = list(self.agents)
        before = game.scores()
        infos: dict[str, dict[str, Any]] = {a: {} for a in live}
        penalties = dict.fromkeys(live, 0.0)
        decided: list[tuple[int, int]] = []
        for agent in live:
            seat = self.possible_agents.index(agent)
            legal = self._legal[seat]
            raw = actions.get(agent)
            action = None if raw is None else int(raw)
            if action not in legal:
                what = "no action" if action is None else self.codec.describe(action)
                if self.illegal_action == "raise":
                    raise ValueError(f"{agent}: {what} is not legal now (legal: {sorted(legal)})")
                action = first_choice(legal)
                infos[agent]["illegal_action"] = what
                penalties[agent] = self.illegal_reward
            assert action is not None  # legal, or replaced by a legal one
            decided.append((seat, action))
        rounds_before = len(game.rounds)
        for seat, action in decided:
            value = self._legal[seat][action]
            if isinstance(value, int):  # a mino column: decide again next step
                self.turns[seat].minos.append(value)
            elif isinstance(value, TowerAction):
                self.turns[seat].done = True
                game.submit(seat, value)
        if game.over or len(game.rounds) != rounds_before:
            self.turns = [SeatTurn() for _ in self.possible_agents]
        self._refresh()
        after = game.scores()
        rewards = {
            a: float(after[i] - before[i]) + penalties[a]
            for i, a in enumerate(self.possible_agents)
            if a in live
        }
        terminations = {
            a: game.over or game.towers[self.possible_agents.index(a)].out for a in live
        }
        truncations = dict.fromkeys(live, False)
        observations = {a: self._obs(a) for a in live}
        self.agents = [a for a in live if not terminations[a]]
        if self.render_mode == "human":
            self.render()
        return observations, rewards, terminations, truncations, infos

    def state(self) -> np.ndarray:
        """The global state for centralised critics: every seat's observation vector, seat
        order (each seat's view: the deck below NEXT is in no one's, so not in this either)."""
        game = self._game()
        return np.concatenate([self.codec.observe(game, s, self.turns[s]) for s in range(len(self.possible_agents))])

    def legal_actions(self, agent: str) -> list[int]:
        """``agent``'s legal actions now, ascending."""
        return sorted(self._legal[self.possible_agents.index(agent)])

    def render(self) -> str | None:
        """Every tower side by side, with scores (``ansi``: returned; ``human``: printed)."""
        if self.game is None:
            return None
        game = self.game
        columns = [t.rows() for t in game.towers]
        lines = ["  ".join(parts) for parts in zip(*columns, strict=True)]
        scores = "  ".join(f"{n}: {s}" for n, s in zip(game.players, game.scores(), strict=True))
        play = "-" if game.play_card is None else game.play_card.value
        nxt = "-" if game.next_card is None else game.next_card.value
        lines.append(f"{scores}  (round {game.round}, PLAY {play}, NEXT {nxt}{', over' if game.over else ''})")
        text = "\n".join(lines)
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        """Nothing to release."""
