"""The tower game as a single-agent Gymnasium environment (``tabletris/Tower-v0``; options in ``envs.gym``)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from tabletris.bots.base import Bot
from tabletris.engine.tower import TowerAction, TowerGame, TowerRules
from tabletris.envs import tower_fast
from tabletris.envs.dice_v0 import IllegalPolicy, player_names
from tabletris.envs.render import board_rgb, side_by_side
from tabletris.envs.seat_env import Opponent, Policy, _SeatEnv
from tabletris.envs.tower_codec import SeatTurn, TowerCodec
from tabletris.envs.tower_v0 import Legal, first_choice
from tabletris.table.driver import Table


class TowerEnv(_SeatEnv):
    """The tower game for one learning seat; the other seats are opponents (module docstring).

    One step is one action of the learner: a MINO action returns at once (reward 0) and the
    learner decides again; a DROP or HOLD completes its action, the opponents submit theirs and
    the round resolves. Rounds in which the engine forces the learner's hold are played through.
    The episode ends with the game: a learner that is out (its score frozen) watches the
    opponents finish it in its last step, so ``winner`` and the ``win`` reward are known.
    """

    def __init__(
        self,
        players: int | Sequence[str] = 2,
        seat: int = 0,
        opponents: Opponent | Sequence[Opponent] = "random",
        rules: TowerRules | Mapping[str, Any] | str | None = None,
        render_mode: str | None = None,
        illegal_action: IllegalPolicy = "replace",
        illegal_reward: float = 0.0,
        reward: str = "score",
        observation: str = "vector",
        action_mask: bool = True,
    ) -> None:
        if isinstance(rules, str):
            rules = {"preset": rules}
        self.rules_spec = rules
        self.players = player_names(players)
        probe = TowerGame(self.players, rules, seed=0)  # bad players or rules fail here, clearly
        self.codec = TowerCodec(probe.rules, len(self.players))
        self._setup(
            len(self.players), seat, opponents, render_mode, illegal_action, illegal_reward,
            reward, observation, action_mask,
        )
        self.game = None
        self.bots: dict[int, Bot | Policy] = {}
        self.turn = SeatTurn()
        self._legal: Legal = {}
        self._fast: tower_fast.FastTower | None = None
        self._fast_rows: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None
        """Where the fast path writes (rows of a ``TowerVectorEnv``'s batch arrays), or None."""
        self.fast_path = tower_fast.eligible(tower_fast.base_rules(rules), self.opponents, reward)
        """Whether the game runs in the compiled tower core (``envs/tower_fast.py``); False forces Python."""

    @property
    def game(self) -> TowerGame | None:
        """The game; on the fast path a ``TowerGame`` built from the core's when asked."""
        fast = self.__dict__.get("_fast")
        return fast.game() if fast is not None else self.__dict__.get("_python_game")

    @game.setter
    def game(self, value: TowerGame | None) -> None:
        self.__dict__["_python_game"] = value

    @property
    def turn(self) -> SeatTurn:
        """The learner's decision so far this round (on the fast path, the core's)."""
        fast = self.__dict__.get("_fast")
        return SeatTurn(fast.chosen()) if fast is not None else self.__dict__["_python_turn"]

    @turn.setter
    def turn(self, value: SeatTurn) -> None:
        self.__dict__["_python_turn"] = value

    def _game(self) -> TowerGame:
        if self.game is None:
            raise RuntimeError("call reset() before step()")
        return self.game

    def _finished(self) -> bool:
        return self._game().over

    def _policy_action(self, seat: int, policy: Policy) -> TowerAction:
        """Drive a policy opponent through its mino sub-steps to its action for the round."""
        game = self._game()
        turn = SeatTurn()
        while True:
            legal = self.codec.legal(game, seat, turn)
            mask = self.codec.mask(legal)
            a = int(policy(self._form(self.codec.observe(game, seat, turn), mask), mask.astype(bool)))
            if a not in legal:
                raise ValueError(f"opponent policy for seat {seat}: {self.codec.describe(a)} is not legal")
            value = legal[a]
            if isinstance(value, TowerAction):
                return value
            turn.minos.append(int(value))

    def _others_play(self) -> None:
        """Opponents submit; rounds the learner has no say in (forced hold, or out: then the game
        is played to its end, so the outcome is known) are played through."""
        game = self._game()
        table = Table(game, {s: b for s, b in self.bots.items() if isinstance(b, Bot)})
        while not game.over:
            for seat in table.bots_to_act():
                table.play_bot(seat)
            for seat in table.humans_to_act():  # policies; the learner's seat is not theirs
                opponent = self.bots.get(seat)
                if opponent is not None:
                    table.act(seat, self._policy_action(seat, opponent))  # type: ignore[arg-type]
            if self.seat in game.waiting_for():
                break
        self._legal = {} if self._finished() else self.codec.legal(game, self.seat, self.turn)

    def _mask(self) -> np.ndarray:
        if self._fast is not None:
            return self._fast.mask.copy()
        return self.codec.mask(self._legal)

    def _obs(self) -> Any:
        if self._fast is not None:
            return tower_fast.env_observation(self)
        return self._form(self.codec.observe(self._game(), self.seat, self.turn), self._mask())

    def _info(self, **extra: Any) -> dict[str, Any]:
        game = self._game()
        winners = game.winners() if game.over else None
        return self._outcome_info(game.scores(), winners, round=game.round, **extra)

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[Any, dict[str, Any]]:
        super().reset(seed=seed)
        if self.fast_path:
            self.game = None
            self.bots = {}
            return tower_fast.env_reset(self)
        self._fast = None
        rng = self.np_random
        self.game = TowerGame(self.players, self.rules_spec, seed=int(rng.integers(2**32)))
        self.bots = self._seat_bots(rng)
        self.turn = SeatTurn()
        if self.seat in self.game.waiting_for():
            self._legal = self.codec.legal(self.game, self.seat, self.turn)
        else:
            self._others_play()
        return self._obs(), self._info()

    def step(self, action: int) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        if self._fast is not None:
            return tower_fast.env_step(self, action)
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
        before = game.scores()
        if isinstance(value, int):
            self.turn.minos.append(value)
            self._legal = self.codec.legal(game, self.seat, self.turn)
        elif isinstance(value, TowerAction):
            game.submit(self.seat, value)
            self.turn = SeatTurn()
            self._others_play()
        winners = game.winners() if game.over else None
        reward = self._reward(before, game.scores(), winners) + penalty
        return self._obs(), reward, self._finished(), False, self._info(**extra)

    def render(self) -> Any:
        if self.game is None:
            return None
        if self.render_mode == "rgb_array":
            return side_by_side([board_rgb(t.board) for t in self.game.towers])
        tower = self.game.towers[self.seat]
        return "\n".join(tower.rows()) + f"\nscores: {self.game.scores()}"
