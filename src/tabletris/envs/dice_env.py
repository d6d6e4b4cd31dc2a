"""The dice game as a single-agent Gymnasium environment (``tabletris/Dice-v0``; options in ``envs.gym``)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from tabletris.bots.base import Bot
from tabletris.engine.dice import DiceGame, DiceRules, winners_of
from tabletris.envs import afterstates
from tabletris.envs.dice_codec import DiceCodec, DiceDecider
from tabletris.envs.dice_fast import FastDice, eligible, step_all
from tabletris.envs.dice_v0 import IllegalPolicy, player_names
from tabletris.envs.render import board_rgb
from tabletris.envs.rewards import SHAPED, dice_potential, shaping, step_reward
from tabletris.envs.seat_env import Opponent, Policy, _SeatEnv
from tabletris.table.driver import Table


class DiceEnv(_SeatEnv):
    """The dice game for one learning seat; see ``envs.gym``'s docstring.

    A learner's turn may take more than one step: after a PLACE id, a TAKE or a reward id
    when the rules leave a real choice (``dice_codec``); the reward of those sub-steps is 0.
    """

    shaped_reward = True

    def __init__(
        self,
        players: int | Sequence[str] = 2,
        seat: int = 0,
        opponents: Opponent | Sequence[Opponent] = "random",
        rules: DiceRules | Mapping[str, Any] | str | None = None,
        render_mode: str | None = None,
        max_turns: int | None = None,
        illegal_action: IllegalPolicy = "replace",
        illegal_reward: float = 0.0,
        reward: str = "score",
        observation: str = "vector",
        action_mask: bool = True,
        gamma: float = 0.99,
        action_features: bool = False,
    ) -> None:
        if isinstance(rules, str):
            rules = {"preset": rules}
        if not 0.0 < gamma <= 1.0:
            raise ValueError(f"gamma: {gamma} is not in (0, 1] (the shaped reward's discount)")
        self.gamma = float(gamma)
        self.rules = rules if isinstance(rules, DiceRules) else DiceRules.from_dict(rules)
        self.players = player_names(players)
        DiceGame(self.players, self.rules, seed=0)  # bad players or rules fail here, clearly
        self.codec = DiceCodec(self.rules, len(self.players))
        self._setup(
            len(self.players), seat, opponents, render_mode, illegal_action, illegal_reward,
            reward, observation, action_mask,
        )
        self.action_features = bool(action_features)
        if self.action_features:
            self.observation_space = afterstates.with_features(self.observation_space, self.codec)
        self.max_turns = max_turns
        self._fast: FastDice | None = None
        self._fast_rows: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None
        """Where the fast path writes (rows of a ``DiceVectorEnv``'s batch arrays), or None."""
        self.fast_path = eligible(self.rules, self.opponents, reward) and not self.action_features
        """Whether the game runs in the compiled core (``envs/dice_fast.py``); False forces Python.
        (The action features measure each option on the engine's game: the Python path.)"""
        self.game = None
        self.decider: DiceDecider | None = None
        self.bots: dict[int, Bot | Policy] = {}

    @property
    def game(self) -> DiceGame | None:
        """The game; on the fast path a ``DiceGame`` built from the kernel's when asked."""
        fast = self.__dict__.get("_fast")
        return fast.game() if fast is not None else self.__dict__.get("_python_game")

    @game.setter
    def game(self, value: DiceGame | None) -> None:
        self.__dict__["_python_game"] = value

    def _form(self, vector: np.ndarray, mask: np.ndarray) -> Any:
        obs = super()._form(vector, mask)
        if not self.action_features:
            return obs
        game, decider = self._game(), self.decider
        assert decider is not None
        legal = {} if game.over or not mask.any() else decider.legal
        features = afterstates.action_features(self.codec, game, decider.turn, legal)
        if isinstance(obs, dict):
            return {**obs, afterstates.KEY: features}
        return {"observation": obs, afterstates.KEY: features}

    def _game(self) -> DiceGame:
        if self.game is None or self.decider is None:
            raise RuntimeError("call reset() before step()")
        return self.game

    def _mask(self) -> np.ndarray:
        if self._fast is not None:
            return self._fast.mask.copy()
        game = self._game()
        assert self.decider is not None
        if game.over or game.to_move != self.seat:
            return self.codec.mask({})
        return self.codec.mask(self.decider.legal)

    def _obs(self) -> Any:
        self._game()
        assert self.decider is not None
        return self._form(self.decider.observe(self.seat), self._mask())

    def _info(self, **extra: Any) -> dict[str, Any]:
        game = self._game()
        winners = game.winners() if game.over else None
        return self._outcome_info(list(game.scores), winners, turn=game.turn, **extra)

    def _potential(self) -> float:
        """The shaped reward's ``phi`` of the board now (0 for the other schemes: not computed)."""
        if self.reward_scheme != SHAPED:
            return 0.0
        board = self._game().board
        return dice_potential(board.occupied, board.geometry.row_masks, board.width)

    def _others_play(self) -> None:
        """Opponents move (the die rolled for each) until the learner has a decision, or the end."""
        game = self._game()
        decider = self.decider
        assert decider is not None
        table = Table(game, {s: b for s, b in self.bots.items() if isinstance(b, Bot)})
        while not game.over:
            if game.roll_face is None:
                table.advance()  # the die, rolled by the driver
                decider.refresh()
                continue
            if game.to_move == self.seat:
                break
            opponent = self.bots[game.to_move]
            if isinstance(opponent, Bot):
                table.play_bot(game.to_move)
                decider.refresh()
            else:
                seat = game.to_move
                mask = self.codec.mask(decider.legal)
                action = int(opponent(self._form(decider.observe(seat), mask), mask.astype(bool)))
                if action not in decider.legal:
                    raise ValueError(f"opponent policy for seat {seat}: {self.codec.describe(action)} is not legal")
                decider.apply(action)

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[Any, dict[str, Any]]:
        super().reset(seed=seed)
        rng = self.np_random
        game_seed = int(rng.integers(2**32))
        if self.fast_path:
            # The opponents are random bots seeded as ``_seat_bots`` seeds them, played in the
            # kernel (``self.bots`` stays empty).
            self.game = None
            self.decider = None
            self.bots = {}
            seeds = {s: int(rng.integers(2**32)) for s in range(len(self.players)) if s != self.seat}
            if self._fast is None:
                self._fast = FastDice(
                    self.codec, self.players, game_seed, seeds, self.seat, self._fast_rows,
                    self.reward_scheme, rng.bit_generator,
                )
            else:
                self._fast.restart(game_seed, seeds, rng.bit_generator)
            return self._fast_obs(), self._fast_info()
        self._fast = None
        self.game = DiceGame(self.players, self.rules, seed=game_seed)
        self.decider = DiceDecider(self.codec, self.game)
        self.bots = self._seat_bots(rng)
        self._others_play()
        return self._obs(), self._info()

    # ------------------------------------------------------------ the fast path (dice_fast)

    def _fast_obs(self) -> Any:
        fast = self._fast
        assert fast is not None
        return self._form(fast.obs.copy(), fast.mask.copy())

    def _fast_info(self, **extra: Any) -> dict[str, Any]:
        fast = self._fast
        assert fast is not None
        scores = fast.scores()
        return self._outcome_info(scores, winners_of(scores) if fast.over else None, turn=fast.turn, **extra)

    def _fast_action(self, action: int) -> tuple[int, dict[str, Any], float]:
        """The action played (``illegal_action`` applied), the info it adds and its penalty."""
        fast = self._fast
        assert fast is not None
        a = int(action)
        if 0 <= a < fast.mask.shape[0] and fast.mask[a]:
            return a, {}, 0.0
        what = self.codec.describe(a)
        if self.illegal_action == "raise":
            raise ValueError(f"{what} is not a legal move for roll {fast.game().roll_face}")
        return int(np.flatnonzero(fast.mask)[0]), {"illegal_action": what}, self.illegal_reward

    def _fast_result(
        self, before: list[int], extra: dict[str, Any], penalty: float
    ) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        """``step``'s answer once the kernel has stepped (the Python path's, number for number)."""
        fast = self._fast
        assert fast is not None
        scores = fast.scores()
        over = fast.over
        reward = self._reward(before, scores, winners_of(scores) if over else None) + penalty
        truncated = not over and self.max_turns is not None and fast.turn >= self.max_turns
        return self._fast_obs(), reward, over, truncated, self._fast_info(**extra)

    def _fast_step(self, action: int) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        fast = self._fast
        assert fast is not None
        if fast.over:
            return self._fast_obs(), 0.0, True, False, self._fast_info()
        a, extra, penalty = self._fast_action(action)
        before = fast.scores()
        step_all([fast], np.array([a], dtype=np.int64))
        return self._fast_result(before, extra, penalty)

    def step(self, action: int) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        if self._fast is not None:
            return self._fast_step(action)
        game = self._game()
        decider = self.decider
        assert decider is not None
        if game.over:
            return self._obs(), 0.0, True, False, self._info()
        extra: dict[str, Any] = {}
        penalty = 0.0
        a = int(action)
        if a not in decider.legal:
            what = self.codec.describe(a)
            if self.illegal_action == "raise":
                raise ValueError(f"{what} is not a legal move for roll {game.roll_face}")
            a = min(decider.legal)
            extra["illegal_action"] = what
            penalty = self.illegal_reward
        before = list(game.scores)
        phi = self._potential()
        if decider.apply(a) is not None:
            self._others_play()
        winners = game.winners() if game.over else None
        if self.reward_scheme == SHAPED:
            after = None if game.over else self._potential()
            reward = step_reward("difference", self.seat, before, game.scores, winners)
            reward += shaping(self.gamma, phi, after) + penalty
        else:
            reward = self._reward(before, list(game.scores), winners) + penalty
        truncated = not game.over and self.max_turns is not None and game.turn >= self.max_turns
        return self._obs(), reward, game.over, truncated, self._info(**extra)

    def render(self) -> Any:
        if self.game is None:
            return None
        if self.render_mode == "rgb_array":
            others = [s for s in range(len(self.players)) if s != self.seat]
            return board_rgb(self.game.board, dim=others)
        game = self.game
        status = "game over" if game.over else f"{game.player_name} to move, die shows {game.roll_face}"
        return "\n".join(game.board.rows()) + f"\nscores: {game.scores}  ({status})"
