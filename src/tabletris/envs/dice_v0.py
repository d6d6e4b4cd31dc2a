"""The dice game as a PettingZoo AEC (turn-based) environment.

Usage, the PettingZoo way::

    from tabletris.envs import dice_v0
    env = dice_v0.env(players=2, rules={"preset": "standard"})
    env.reset(seed=7)
    for agent in env.agent_iter():
        obs, reward, terminated, truncated, info = env.last()
        action = None if terminated or truncated else env.action_space(agent).sample(obs["action_mask"])
        env.step(action)

Chance is resolved inside: the env rolls the die for the player to move from the game's own
generator, which ``reset(seed=...)`` seeds, so a seed replays the same game for the same actions.
A roll that cannot be placed ends the game (the engine decides that). A turn may take more than
one step of the same agent (a TAKE or reward decision after the PLACE, see ``dice_codec``).
Rewards follow ``reward=`` (``envs.rewards``): by default score changes (the points a placement
scores, and ``-1`` for the stuck player under ``stuck_penalty``). ``state()`` is every seat's
observation vector, in seat order; ``info`` has ``winner`` and ``is_success`` once the game ends.
The action and observation encoding is ``tabletris.envs.dice_codec`` (shared with the
Gymnasium and OpenSpiel interfaces).

Illegal actions: with ``illegal_action="raise"`` the env raises ``ValueError`` naming the
action; with ``"replace"`` (the default, so unmasked samplers such as seeding checks still run)
the lowest legal action is played instead, ``info["illegal_action"]`` says so, and the agent
gets ``illegal_reward`` on top of its score change.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Literal

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from tabletris.engine.dice import DiceGame, DiceRules
from tabletris.envs.dice_codec import DiceCodec, DiceDecider
from tabletris.envs.render import board_rgb
from tabletris.envs.rewards import check_scheme, step_reward
from tabletris.envs.spaces import check_modes, codec_spaces
from tabletris.table.driver import Table

IllegalPolicy = Literal["raise", "replace"]


def agent_names(players: int | Sequence[str]) -> list[str]:
    """PettingZoo agent ids, ``player_0`` ...; the game's player names are kept apart."""
    n = players if isinstance(players, int) else len(players)
    return [f"player_{i}" for i in range(n)]


def player_names(players: int | Sequence[str]) -> list[str]:
    if isinstance(players, int):
        return [f"Player {i + 1}" for i in range(players)]
    return list(players)


def env(**kwargs: Any) -> wrappers.OrderEnforcingWrapper:
    """The dice environment with PettingZoo's order-enforcing wrapper (see ``raw_env``)."""
    return wrappers.OrderEnforcingWrapper(raw_env(**kwargs))


class raw_env(AECEnv):  # PettingZoo's naming convention: module.raw_env
    """Dice Tetris for ``players`` seats under ``rules`` (a preset name, a dict or DiceRules)."""

    metadata: dict[str, Any] = {
        "name": "tabletris_dice_v0",
        "render_modes": ["human", "ansi", "rgb_array"],
        "is_parallelizable": False,
    }

    def __init__(
        self,
        players: int | Sequence[str] = 2,
        rules: DiceRules | Mapping[str, Any] | str | None = None,
        render_mode: str | None = None,
        max_turns: int | None = None,
        illegal_action: IllegalPolicy = "replace",
        illegal_reward: float = 0.0,
        reward: str = "score",
    ) -> None:
        super().__init__()
        if isinstance(rules, str):
            rules = {"preset": rules}
        self.rules = rules if isinstance(rules, DiceRules) else DiceRules.from_dict(rules)
        self.player_names = player_names(players)
        # Builds a game once so that bad players or rules fail here, with the engine's message.
        DiceGame(self.player_names, self.rules, seed=0)
        check_modes(render_mode, self.metadata["render_modes"], illegal_action)
        check_scheme(reward)
        if max_turns is not None and max_turns < 1:
            raise ValueError(f"max_turns: {max_turns} must be at least 1")
        self.render_mode = render_mode
        self.max_turns = max_turns
        self.illegal_action = illegal_action
        self.illegal_reward = float(illegal_reward)
        self.reward_scheme = reward
        self.possible_agents = agent_names(players)
        self.codec = DiceCodec(self.rules, len(self.possible_agents))
        # One space object per agent, created once: seeding a space must stick (PettingZoo's test).
        self.observation_spaces = {a: codec_spaces(self.codec)[0] for a in self.possible_agents}
        self.action_spaces = {a: codec_spaces(self.codec)[1] for a in self.possible_agents}
        n = len(self.possible_agents)
        self.state_space = spaces.Box(
            np.tile(self.codec.obs_low, n), np.tile(self.codec.obs_high, n), dtype=np.float32
        )
        self._seeder: np.random.Generator | None = None
        self.game: DiceGame | None = None
        self.decider: DiceDecider | None = None

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        return self.action_spaces[agent]

    # ----------------------------------------------------------------- state

    def _game(self) -> DiceGame:
        if self.game is None or self.decider is None:
            raise RuntimeError("call reset() before using the environment")
        return self.game

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """A new game; ``seed`` seeds this and every later game (options are not used)."""
        if seed is not None or self._seeder is None:
            self._seeder = np.random.default_rng(seed)
        game_seed = int(self._seeder.integers(2**32))
        self.game = DiceGame(self.player_names, self.rules, seed=game_seed)
        self.table = Table(self.game)  # every seat is an agent: the driver only rolls and says who acts
        self.agents = list(self.possible_agents)
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self.table.advance()
        self.decider = DiceDecider(self.codec, self.game)
        self._after_change()
        self.agent_selection = self.agents[self.game.to_move]

    def _after_change(self) -> None:
        game = self._game()
        if game.over:
            for a in self.agents:
                self.terminations[a] = True
        elif self.max_turns is not None and game.turn >= self.max_turns:
            for a in self.agents:
                self.truncations[a] = True

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        game = self._game()
        assert self.decider is not None
        seat = self.possible_agents.index(agent)
        mask = np.zeros(self.codec.n_actions, dtype=np.int8)
        if not game.over and game.to_move == seat:
            mask = self.codec.mask(self.decider.legal)
        return {"observation": self.decider.observe(seat), "action_mask": mask}

    def state(self) -> np.ndarray:
        """The global state for centralised critics: every seat's observation vector, seat order."""
        self._game()
        assert self.decider is not None
        return np.concatenate([self.decider.observe(s) for s in range(len(self.possible_agents))])

    def legal_actions(self) -> list[int]:
        """The legal actions of the agent to move, ascending."""
        return [] if self.decider is None else sorted(self.decider.legal)

    def step(self, action: Any) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        game = self._game()
        decider = self.decider
        assert decider is not None
        info: dict[str, Any] = {}
        penalty = 0.0
        a = None if action is None else int(action)
        if a not in decider.legal:
            what = self.codec.describe(a) if a is not None else "no action (None)"
            if self.illegal_action == "raise":
                raise ValueError(f"{agent}: {what} is not a legal move for roll {game.roll_face}")
            a = min(decider.legal)
            info["illegal_action"] = what
            penalty = self.illegal_reward
        before = list(game.scores)
        if decider.apply(a) is not None and not game.over:
            self.table.advance()
            decider.refresh()
        self._cumulative_rewards[agent] = 0.0
        winners = game.winners() if game.over else None
        self.rewards = {
            x: step_reward(self.reward_scheme, i, before, game.scores, winners)
            for i, x in enumerate(self.possible_agents)
            if x in self.agents
        }
        self.rewards[agent] += penalty
        self.infos = {x: {} for x in self.agents}
        self.infos[agent] = info
        if winners is not None:
            for i, x in enumerate(self.possible_agents):
                self.infos[x].update(winner=winners, is_success=i in winners)
        self._after_change()
        if not game.over:
            self.agent_selection = self.possible_agents[game.to_move]
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    # ---------------------------------------------------------------- output

    def render(self) -> Any:
        """The board as text (``ansi``: returned; ``human``: printed) or ``rgb_array``."""
        if self.game is None:
            return None
        game = self.game
        if self.render_mode == "rgb_array":
            return board_rgb(game.board)
        lines = [*game.board.rows()]
        scores = "  ".join(f"{n}: {s}" for n, s in zip(game.players, game.scores, strict=True))
        status = "game over" if game.over else f"{game.player_name} to move, die shows {game.roll_face}"
        lines.append(f"{scores}  ({status})")
        text = "\n".join(lines)
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        """Nothing to release; defined because ``render`` is."""
