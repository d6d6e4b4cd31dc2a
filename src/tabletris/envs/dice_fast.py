"""``Dice-v0``'s fast path: the learner's steps, random opponents, observation and mask in C.

When every opponent is the ``random`` bot (by name), the reward is not ``shaped`` and the dice
kernel plays the rules (``engine.fastdice.supports``), ``DiceEnv`` and ``DiceVectorEnv`` keep
their game in the compiled core (``env_new``/``env_step`` in ``envs/_dice_env.c``): one C call per
step plays the learner's sub-step (PLACE, TAKE, TOKEN, as ``dice_codec`` encodes them), the
opponents' whole turns (their bots' own generators, loaded from the seeded bots) and writes the
observation and the mask into NumPy arrays; ``DiceVectorEnv`` makes that one call for all its
games. Observations, masks, rewards and infos are the Python path's, number for number
(tests/test_fastdice_env.py). What needs the Python ``DiceGame`` (``render``,
``env.unwrapped.game``) gets one built on demand: a new game from the same seed, with the
kernel's position and moves written into it (``engine.fastdice.write_back``).
"""

from __future__ import annotations

import weakref
from collections.abc import Sequence
from typing import Any

import numpy as np

from tabletris.engine import fastdice
from tabletris.engine.board import native_module
from tabletris.engine.dice import DiceGame, DiceRules
from tabletris.envs.dice_codec import DiceCodec
from tabletris.envs.rewards import REWARD_SCHEMES

SCHEMES: dict[str, int] = {name: code for code, name in enumerate(REWARD_SCHEMES)}
"""The reward schemes the kernel computes (``dk_env_reward``), by its codes: their place in
``REWARD_SCHEMES`` (``SCHEME_SCORE``, ``SCHEME_DIFFERENCE``, ``SCHEME_WIN`` in ``_dice_env.c``)."""


def fallback_reason(rules: DiceRules, opponents: Sequence[Any], reward: str) -> str | None:
    """Why this env plays on the Python path, or None where the fast path plays it exactly as
    the Python path does."""
    why = fastdice.unsupported(rules)
    if why is not None:
        return f"the dice kernel does not play these rules: {why}"
    if not hasattr(native_module(), "env_new"):
        return "the compiled core has no env fast path"
    if not all(isinstance(o, str) and o == "random" for o in opponents):
        return "an opponent is not the random bot named as such"
    if reward == "shaped":
        return "the shaped reward is computed on the Python game"
    return None


def eligible(rules: DiceRules, opponents: Sequence[Any], reward: str) -> bool:
    """Whether the fast path plays this env exactly as the Python path does."""
    return fallback_reason(rules, opponents, reward) is None


def codec_args(codec: DiceCodec) -> tuple[Any, ...]:
    """The codec as the kernel reads it (``py_env_new``)."""
    lay = codec.layout
    bases = tuple(tuple(codec._form_base[form] for form in codec.orientations[s]) for s in codec.shapes)
    return (
        codec.n_actions,
        codec.obs_size,
        max(1, codec.rules.supply * codec.players),
        lay["face"].start,
        lay["to_move"].start,
        lay["supply"].start,
        lay["scores"].start,
        lay["phase"].start,
        lay["rows_left"].start,
        lay["tokens_left"].start,
        codec.take_base,
        codec.token_base,
        bases,
    )


_ARGS: weakref.WeakKeyDictionary[DiceCodec, tuple[tuple[Any, ...], tuple[Any, ...]]] = weakref.WeakKeyDictionary()


def _kernel_args(codec: DiceCodec) -> tuple[tuple[Any, ...], tuple[Any, ...]]:
    """The kernel's rules and codec tuples, made once per codec."""
    known = _ARGS.get(codec)
    if known is None:
        known = _ARGS[codec] = (fastdice.kernel_rules(codec.rules, codec.players, (0.0,) * 8), codec_args(codec))
    return known


class FastDice:
    """One game of the env in the kernel, and the arrays its steps are written into (rows of a
    batch's arrays when a ``DiceVectorEnv`` owns them)."""

    def __init__(
        self,
        codec: DiceCodec,
        players: Sequence[str],
        seed: int,
        bot_seeds: dict[int, int],
        seat: int,
        rows: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None,
        scheme: str = "score",
        generator: np.random.BitGenerator | None = None,
    ) -> None:
        """A new game ``DiceGame(players, codec.rules, seed=seed)`` in the kernel, the other
        seats played by random bots seeded with ``bot_seeds`` (``make_bot("random", seed=...)``
        draws from ``random.Random(seed)``, and so does the kernel), stepped up to the learner's
        decision. ``scheme``: the reward the batch step computes; ``generator``: the env's
        ``np_random.bit_generator``, from which a reset inside the batch step draws its seeds
        (``step_batch``; ignored where the rules place garbage: those games reset in Python)."""
        nat = native_module()
        assert nat is not None
        self.codec = codec
        self.players = list(players)
        self.rules = codec.rules
        n = len(self.players)
        if rows is None:
            rows = (
                np.zeros(codec.obs_size, dtype=np.float32),
                np.zeros(codec.n_actions, dtype=np.int8),
                np.zeros(4 + n, dtype=np.int32),
            )
        self.obs, self.mask, self.status = rows
        kernel_rules, kernel_codec = _kernel_args(codec)
        self.seed = seed
        self.scheme = scheme
        self.generator = self._generator(generator)
        self.capsule = nat.env_new(
            kernel_rules, self._start(seed), seat, self._bots(bot_seeds), kernel_codec, self._auto()
        )
        self._game: DiceGame | None = None
        step_all([self], np.array([-1], dtype=np.int64))

    def restart(self, seed: int, bot_seeds: dict[int, int], generator: np.random.BitGenerator | None = None) -> None:
        """A new game in the same kernel env (as ``__init__``, without making it again)."""
        nat = native_module()
        assert nat is not None
        self.seed = seed
        self.generator = self._generator(generator)
        nat.env_reset(self.capsule, self._start(seed), self._bots(bot_seeds), self._auto())
        step_all([self], np.array([-1], dtype=np.int64))

    def _generator(self, generator: np.random.BitGenerator | None) -> np.random.BitGenerator | None:
        return None if self.rules.garbage else generator

    def _auto(self) -> tuple[np.random.BitGenerator | None, int]:
        return (self.generator, SCHEMES[self.scheme])

    def _start(self, seed: int) -> tuple[Any, ...]:
        state = fastdice.fresh_state(self.rules, len(self.players), seed)
        if state is None:  # garbage: placed by the Python engine
            state = fastdice.kernel_state(DiceGame(self.players, self.rules, seed=seed))
        return state

    def _bots(self, bot_seeds: dict[int, int]) -> tuple[int | None, ...]:
        return tuple(bot_seeds.get(s) for s in range(len(self.players)))

    @property
    def over(self) -> bool:
        return bool(self.status[0])

    @property
    def turn(self) -> int:
        return int(self.status[1])

    def scores(self) -> list[int]:
        scores: list[int] = self.status[4:].tolist()
        return scores

    def __getstate__(self) -> dict[str, Any]:
        """``copy.deepcopy`` and ``pickle`` (search over a copied env, worker processes): the
        kernel's game as bytes (``env_dump``), everything else as it is."""
        nat = native_module()
        assert nat is not None
        state = self.__dict__.copy()
        state["capsule"] = nat.env_dump(self.capsule)
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        """The copy's kernel game, its batch resets drawing from the copy's own generator."""
        nat = native_module()
        if nat is None:
            raise RuntimeError("a fast-path dice env needs tabletris's compiled core, which this Python cannot load")
        self.__dict__.update(state)
        self.capsule = nat.env_load(state["capsule"], self.generator)

    def game(self) -> DiceGame:
        """The game as a Python ``DiceGame`` (built once per step when asked)."""
        if self._game is None:
            nat = native_module()
            assert nat is not None
            moves, state = nat.env_game(self.capsule)
            game = DiceGame(self.players, self.rules, seed=self.seed)
            fastdice.write_back(game, moves, state)
            self._game = game
        return self._game


def step_all(
    games: Sequence[FastDice],
    actions: np.ndarray,
    batch: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None,
) -> None:
    """Each game's action (-1: none), then its observation, mask and status written into its
    arrays. ``batch``: the (obs, mask, status) arrays whose rows the games' arrays are, in
    order (``DiceVectorEnv``): then all games are stepped in one C call."""
    nat = native_module()
    assert nat is not None
    for g in games:
        g._game = None
    if batch is not None:
        nat.env_step([g.capsule for g in games], np.ascontiguousarray(actions, dtype=np.int64), *batch)
        return
    for g, a in zip(games, actions, strict=True):
        nat.env_step([g.capsule], np.array([a], dtype=np.int64), g.obs, g.mask, g.status)


def step_batch(
    games: Sequence[FastDice],
    actions: np.ndarray,
    resets: np.ndarray,
    batch: tuple[np.ndarray, np.ndarray, np.ndarray],
    rewards: np.ndarray,
    seeds: np.ndarray,
) -> None:
    """``DiceVectorEnv``'s step in one C call: game ``i`` is reset first where ``resets[i]`` (its
    seeds drawn from its env's ``np_random`` as ``DiceEnv.reset`` draws them; its game needs a
    ``generator``), else plays ``actions[i]`` (-1: none); then its observation, mask and status
    go into row ``i`` of ``batch``, its reward into ``rewards[i]`` (0 without an action) and the
    new game's seed into ``seeds[i]`` (-1 without a reset)."""
    nat = native_module()
    assert nat is not None
    for g in games:
        g._game = None
    nat.env_step(
        [g.capsule for g in games], np.ascontiguousarray(actions, dtype=np.int64), *batch,
        np.ascontiguousarray(resets, dtype=np.uint8), rewards, seeds,
    )
    if resets.any():
        for i in np.flatnonzero(seeds >= 0).tolist():
            games[i].seed = int(seeds[i])
