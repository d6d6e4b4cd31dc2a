"""Single-agent Gymnasium environments: one seat is the learner, the other seats are opponents.

``gymnasium.make("tabletris/Dice-v0", players=2, seat=0, opponents="random")`` after
``import tabletris``, or ``gymnasium.make("tabletris:tabletris/Dice-v0")`` with no import at all
(Gymnasium imports the module named before the colon). Options, both games:

- ``opponents``: one per other seat, or one for all: a bot name (``make_bot``: ``random``,
  ``greedy``, ``expert``, ``ext:...``), a ``Bot`` instance, or a policy: a callable
  ``policy(observation, action_mask) -> action id`` that plays its seat through the same encoding
  as the learner (``observation`` exactly as the learner gets it, ``action_mask`` a bool array). A policy makes
  self-play a one-liner (``SelfPlay`` below). Named bots are seeded from the env's seed, so
  ``reset(seed=...)`` replays the same game for the same actions.
- ``reward``: ``score`` (own points; the default), ``difference`` or ``win`` (``envs.rewards``);
  the dice env also ``shaped`` (``difference`` plus potential-based shaping with discount ``gamma``).
- ``observation``: ``vector`` (flat) or ``image`` (channels x rows x columns; see the codecs);
  ``action_mask``: True puts the mask in the observation dict, False gives the bare Box; either
  way ``action_masks()`` returns it (what sb3-contrib's ``MaskablePPO`` calls).
- ``render_mode``: ``ansi`` (text) or ``rgb_array``.

``info`` carries ``scores``, ``winner`` (the engine's winning seats once over, else None) and
``is_success`` (the learner is among them; False until the end).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import gymnasium as gym
import numpy as np

from tabletris.bots.base import Bot
from tabletris.bots.registry import make_bot
from tabletris.engine.dice import DiceGame, DiceRules, winners_of
from tabletris.engine.tower import TowerAction, TowerGame, TowerRules
from tabletris.envs import afterstates, tower_fast
from tabletris.envs.dice_codec import DiceCodec, DiceDecider
from tabletris.envs.dice_fast import FastDice, eligible, step_all
from tabletris.envs.dice_v0 import IllegalPolicy, player_names
from tabletris.envs.render import board_rgb, side_by_side
from tabletris.envs.rewards import SHAPED, check_scheme, dice_potential, shaping, step_reward
from tabletris.envs.spaces import check_modes, codec_spaces
from tabletris.envs.tower_codec import SeatTurn, TowerCodec
from tabletris.envs.tower_v0 import Legal, first_choice
from tabletris.table.driver import Table

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
        check_scheme(reward, shaped=isinstance(self, DiceEnv))
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


class DiceEnv(_SeatEnv):
    """The dice game for one learning seat; see the module docstring.

    A learner's turn may take more than one step: after a PLACE id, a TAKE or a reward id
    when the rules leave a real choice (``dice_codec``); the reward of those sub-steps is 0.
    """

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
