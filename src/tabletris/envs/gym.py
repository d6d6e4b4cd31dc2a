"""Single-agent Gymnasium environments: one seat is the learner, the other seats are bots.

``gymnasium.make("tabletris/Dice-v0", players=2, seat=0, opponents="random")`` (registered on
``import tabletris``). Every other seat is played by a bot from ``make_bot`` (a name, or one name
per other seat); the bots are seeded from the environment's seed, so ``reset(seed=...)`` replays
the same game for the same actions. Observations and actions are the PettingZoo environments'
encoding (``dice_codec``/``tower_codec``): a dict of ``observation`` and ``action_mask``.
The reward of a step is the change of the learner's score over the step, the other seats'
turns included (a stuck penalty counts when it falls on the learner).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import gymnasium as gym
import numpy as np

from tabletris.bots.base import Bot
from tabletris.bots.registry import make_bot
from tabletris.engine.dice import DiceAction, DiceGame, DiceRules
from tabletris.engine.tower import TowerAction, TowerGame, TowerRules
from tabletris.envs.dice_codec import DiceChoice, DiceCodec
from tabletris.envs.dice_v0 import IllegalPolicy, player_names
from tabletris.envs.spaces import check_modes, codec_spaces
from tabletris.envs.tower_codec import SeatTurn, TowerCodec
from tabletris.envs.tower_v0 import Legal, first_choice
from tabletris.table.driver import Table


def opponent_names(opponents: str | Sequence[str], others: int) -> list[str]:
    """One bot name per other seat, from a single name or a list of exactly that many."""
    if isinstance(opponents, str):
        return [opponents] * others
    names = list(opponents)
    if len(names) != others:
        raise ValueError(f"opponents: {others} other seat(s) need {others} bot name(s), got {len(names)}")
    return names


def make_opponents(names: Sequence[str], rng: np.random.Generator) -> list[Bot]:
    return [make_bot(name, seed=int(rng.integers(2**32))) for name in names]


def check_seats(
    env: gym.Env[Any, Any], players: int, seat: int, opponents: str | Sequence[str], render_mode: str | None, illegal_action: str
) -> list[str]:
    """The bots for the other seats, after checking the learner's seat, the bot names and the
    render and illegal-action modes: once for both games, so a bad argument fails at construction
    with its name."""
    if not 0 <= seat < players:
        raise ValueError(f"seat: {seat} does not exist with {players} players")
    check_modes(render_mode, env.metadata["render_modes"], illegal_action)
    names = opponent_names(opponents, players - 1)
    for name in set(names):
        make_bot(name)  # unknown names fail now, not at reset()
    return names


class DiceEnv(gym.Env[Any, Any]):
    """The dice game for one learning seat; see the module docstring."""

    metadata = {"render_modes": ["ansi"], "render_fps": 4}

    def __init__(
        self,
        players: int | Sequence[str] = 2,
        seat: int = 0,
        opponents: str | Sequence[str] = "random",
        rules: DiceRules | Mapping[str, Any] | str | None = None,
        render_mode: str | None = None,
        max_turns: int | None = None,
        illegal_action: IllegalPolicy = "replace",
        illegal_reward: float = 0.0,
    ) -> None:
        if isinstance(rules, str):
            rules = {"preset": rules}
        self.rules = rules if isinstance(rules, DiceRules) else DiceRules.from_dict(rules)
        self.players = player_names(players)
        DiceGame(self.players, self.rules, seed=0)  # bad players or rules fail here, clearly
        self.opponent_names = check_seats(self, len(self.players), seat, opponents, render_mode, illegal_action)
        self.seat = seat
        self.render_mode = render_mode
        self.max_turns = max_turns
        self.illegal_action = illegal_action
        self.illegal_reward = float(illegal_reward)
        self.codec = DiceCodec(self.rules, len(self.players))
        self.observation_space, self.action_space = codec_spaces(self.codec)
        self.game: DiceGame | None = None
        self.bots: dict[int, Bot] = {}
        self._choices: dict[int, DiceChoice] = {}

    def _game(self) -> DiceGame:
        if self.game is None:
            raise RuntimeError("call reset() before step()")
        return self.game

    def _obs(self) -> dict[str, np.ndarray]:
        game = self._game()
        return {"observation": self.codec.observe(game, self.seat), "action_mask": self.codec.mask(self._choices)}

    def _info(self, **extra: Any) -> dict[str, Any]:
        game = self._game()
        return {"scores": list(game.scores), "turn": game.turn, **extra}

    def _others_play(self) -> None:
        """Bots move (the die rolled for each) until the learner has a roll to place, or the end."""
        game = self._game()
        while not game.over:
            if game.roll_face is None:
                game.roll()
                continue
            if game.to_move == self.seat:
                break
            Table(game, {game.to_move: self.bots[game.to_move]}).play_bot(game.to_move)
        self._choices = self.codec.choices(game)

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        super().reset(seed=seed)
        rng = self.np_random
        game_seed = int(rng.integers(2**32))
        self.game = DiceGame(self.players, self.rules, seed=game_seed)
        others = [s for s in range(len(self.players)) if s != self.seat]
        self.bots = dict(zip(others, make_opponents(self.opponent_names, rng), strict=True))
        self._others_play()
        return self._obs(), self._info()

    def step(self, action: int) -> tuple[dict[str, np.ndarray], float, bool, bool, dict[str, Any]]:
        game = self._game()
        if game.over:
            return self._obs(), 0.0, True, False, self._info()
        extra: dict[str, Any] = {}
        penalty = 0.0
        choice = self._choices.get(int(action))
        if choice is None:
            what = self.codec.describe(int(action))
            if self.illegal_action == "raise":
                raise ValueError(f"{what} is not a legal move for roll {game.roll_face}")
            choice = self._choices[min(self._choices)]
            extra["illegal_action"] = what
            penalty = self.illegal_reward
        before = game.scores[self.seat]
        game.act(DiceAction(choice.shape, choice.placement, choice.take))
        self._others_play()
        reward = float(game.scores[self.seat] - before) + penalty
        truncated = not game.over and self.max_turns is not None and game.turn >= self.max_turns
        return self._obs(), reward, game.over, truncated, self._info(**extra)

    def render(self) -> str | None:
        if self.game is None:
            return None
        return "\n".join(self.game.board.rows()) + f"\nscores: {self.game.scores}"


class TowerEnv(gym.Env[Any, Any]):
    """The tower game for one learning seat; the other seats are bots (see the module docstring).

    One step is one action of the learner: a MINO action returns at once (reward 0) and the
    learner decides again; a DROP or HOLD completes its action, the bots submit theirs and the
    round resolves. Rounds in which the engine forces the learner's hold are played through.
    The episode ends when the game does, or when the learner is out (its score is frozen).
    """

    metadata = {"render_modes": ["ansi"], "render_fps": 4}

    def __init__(
        self,
        players: int | Sequence[str] = 2,
        seat: int = 0,
        opponents: str | Sequence[str] = "random",
        rules: TowerRules | Mapping[str, Any] | str | None = None,
        render_mode: str | None = None,
        illegal_action: IllegalPolicy = "replace",
        illegal_reward: float = 0.0,
    ) -> None:
        if isinstance(rules, str):
            rules = {"preset": rules}
        self.rules_spec = rules
        self.players = player_names(players)
        probe = TowerGame(self.players, rules, seed=0)  # bad players or rules fail here, clearly
        self.opponent_names = check_seats(self, len(self.players), seat, opponents, render_mode, illegal_action)
        self.seat = seat
        self.render_mode = render_mode
        self.illegal_action = illegal_action
        self.illegal_reward = float(illegal_reward)
        self.codec = TowerCodec(probe.rules, len(self.players))
        self.observation_space, self.action_space = codec_spaces(self.codec)
        self.game: TowerGame | None = None
        self.bots: list[Bot | None] = []
        self.turn = SeatTurn()
        self._legal: Legal = {}

    def _game(self) -> TowerGame:
        if self.game is None:
            raise RuntimeError("call reset() before step()")
        return self.game

    def _finished(self) -> bool:
        game = self._game()
        return game.over or game.towers[self.seat].out

    def _others_play(self) -> None:
        """Bots submit; rounds the learner has no say in (forced hold) are played through."""
        game = self._game()
        table = Table(game, self.bots)
        while not self._finished():
            for seat in table.bots_to_act():
                table.play_bot(seat)
            if self.seat in game.waiting_for():
                break
        self._legal = {} if self._finished() else self.codec.legal(game, self.seat, self.turn)

    def _obs(self) -> dict[str, np.ndarray]:
        return {
            "observation": self.codec.observe(self._game(), self.seat, self.turn),
            "action_mask": self.codec.mask(self._legal),
        }

    def _info(self, **extra: Any) -> dict[str, Any]:
        game = self._game()
        return {"scores": game.scores(), "round": game.round, **extra}

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        super().reset(seed=seed)
        rng = self.np_random
        self.game = TowerGame(self.players, self.rules_spec, seed=int(rng.integers(2**32)))
        bots = iter(make_opponents(self.opponent_names, rng))
        self.bots = [None if s == self.seat else next(bots) for s in range(len(self.players))]
        self.turn = SeatTurn()
        if self.seat in self.game.waiting_for():
            self._legal = self.codec.legal(self.game, self.seat, self.turn)
        else:
            self._others_play()
        return self._obs(), self._info()

    def step(self, action: int) -> tuple[dict[str, np.ndarray], float, bool, bool, dict[str, Any]]:
        game = self._game()
        if self._finished():
            return self._obs(), 0.0, True, False, self._info()
        extra: dict[str, Any] = {}
        penalty = 0.0
        a = int(action)
        if a not in self._legal:
            what = self.codec.describe(a)
            if self.illegal_action == "raise":
                raise ValueError(f"{what} is not legal now (legal: {sorted(self._legal)})")
            a = first_choice(self._legal)
            extra["illegal_action"] = what
            penalty = self.illegal_reward
        value = self._legal[a]
        before = game.scores()[self.seat]
        if isinstance(value, int):
            self.turn.minos.append(value)
            self._legal = self.codec.legal(game, self.seat, self.turn)
        elif isinstance(value, TowerAction):
            game.submit(self.seat, value)
            self.turn = SeatTurn()
            self._others_play()
        reward = float(game.scores()[self.seat] - before) + penalty
        return self._obs(), reward, self._finished(), False, self._info(**extra)

    def render(self) -> str | None:
        if self.game is None:
            return None
        tower = self.game.towers[self.seat]
        return "\n".join(tower.rows()) + f"\nscores: {self.game.scores()}"
