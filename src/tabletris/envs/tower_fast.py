"""``Tower-v0``'s fast path: the learner's steps, random and greedy opponents, observation and mask in C.

When every opponent is the ``random`` or the ``greedy`` bot by name and the tower core plays the
rules (``engine.fasttower.supports``), ``TowerEnv`` and ``TowerVectorEnv`` keep their game in the
compiled core (``env_new``/``env_step`` in ``envs/_tower_env.c``): one C call per step plays the
learner's sub-step (MINO, then DROP or HOLD, as ``tower_codec`` encodes them), the opponents'
decisions (their bots' own generators, seeded as ``TowerEnv._seat_bots`` seeds them), resolves
the rounds and writes the observation, the mask, the status and the reward into NumPy arrays;
``TowerVectorEnv`` makes that one call for all its games, resets included. Observations, masks,
rewards and infos are the Python path's, number for number (tests/test_fasttower_env.py). What
needs the Python ``TowerGame`` (``render``, ``env.unwrapped.game``) gets one built on demand: a new
game from the same seed with the core's position written into it (``fasttower.write_back``).
"""

from __future__ import annotations

import weakref
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from tabletris.bots import tower_eval as te
from tabletris.engine import fasttower
from tabletris.engine.tower import TowerGame, TowerRules
from tabletris.envs.rewards import REWARD_SCHEMES
from tabletris.envs.tower_codec import TowerCodec

SCHEMES: dict[str, int] = {name: code for code, name in enumerate(REWARD_SCHEMES)}
"""The reward schemes the core computes (``tw_env_reward``: ``TS_SCORE``, ``TS_DIFFERENCE``,
``TS_WIN``), by their place in ``REWARD_SCHEMES``."""

OPPONENTS = ("random", "greedy")
"""The opponents the fast path plays, by their bots' registry names."""

STATUS = 4
"""Fields of a game's status row before the scores: over, round, winners (a bit per seat), 0."""


def base_rules(rules: TowerRules | Mapping[str, Any] | None) -> TowerRules:
    """The rules a new game starts from (cards still to draw where the rules draw them)."""
    return rules if isinstance(rules, TowerRules) else TowerRules.from_dict(rules)


def eligible(rules: TowerRules, opponents: Sequence[Any], reward: str) -> bool:
    """Whether the fast path plays this env exactly as the Python path does."""
    return (
        fasttower.supports(rules)
        and all(isinstance(o, str) and o in OPPONENTS for o in opponents)
        and reward in SCHEMES
    )


def codec_args(codec: TowerCodec) -> tuple[int, ...]:
    """The codec as the core reads it (``tw_load_codec``)."""
    lay = codec.layout
    starts = ("tower", "others", "play", "next", "cards_seen", "deck_left", "supply", "minos", "hold_used",
              "submitted", "out", "scores", "achievements")
    return (
        codec.n_actions, codec.obs_size, codec.drop_base, codec.mino_base, max(1, codec.rules.minos_in_box),
        *(lay[name].start for name in starts),
    )


_ARGS: weakref.WeakKeyDictionary[TowerCodec, tuple[int, ...]] = weakref.WeakKeyDictionary()


def _codec_args(codec: TowerCodec) -> tuple[int, ...]:
    known = _ARGS.get(codec)
    if known is None:
        known = _ARGS[codec] = codec_args(codec)
    return known


class FastTower:
    """One game of the env in the core, and the arrays its steps are written into (rows of a
    batch's arrays when a ``TowerVectorEnv`` owns them)."""

    def __init__(
        self,
        codec: TowerCodec,
        players: Sequence[str],
        rules: TowerRules | Mapping[str, Any] | None,
        seed: int,
        opponents: Mapping[int, str],
        bot_seeds: Mapping[int, int],
        seat: int,
        rows: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None,
        scheme: str = "score",
        generator: np.random.BitGenerator | None = None,
    ) -> None:
        """A new game ``TowerGame(players, rules, seed=seed)`` in the core, the other seats
        played by ``opponents`` (seat -> ``random`` or ``greedy``) seeded with ``bot_seeds``
        (``make_bot(name, seed=...)`` draws from ``random.Random(seed)``, and so does the core),
        stepped up to the learner's decision. ``scheme``: the reward the steps compute;
        ``generator``: the env's ``np_random.bit_generator``, from which a reset inside the batch
        step draws its seeds (``step_batch``; None where the rules choose towers: those games
        reset in Python)."""
        nat = fasttower.core_module()
        assert nat is not None
        self.codec = codec
        self.players = list(players)
        self.rules_spec = rules
        self.rules = base_rules(rules)
        n = len(self.players)
        if rows is None:
            rows = (
                np.zeros(codec.obs_size, dtype=np.float32),
                np.zeros(codec.n_actions, dtype=np.int8),
                np.zeros(STATUS + n, dtype=np.int32),
            )
        self.obs, self.mask, self.status = rows
        self.seat = seat
        self.seed = seed
        self.scheme = scheme
        self.setup = fasttower.setup_state(self.rules)
        self.generator = generator if self.setup is not None else None
        policies = bytes(fasttower.POLICY_CODE.get(opponents.get(s, "random"), 0) for s in range(n))
        self.capsule = nat.env_new(
            fasttower.kernel_rules(self.rules), self._start(seed), seat, policies, self._bots(bot_seeds),
            _codec_args(codec), te.core_params(), (self.generator, SCHEMES[scheme]), self.setup,
        )
        self._game: TowerGame | None = None
        step_all([self], np.array([-1], dtype=np.int64))

    def _start(self, seed: int) -> tuple[Any, ...]:
        return fasttower.game_state(TowerGame(self.players, self.rules_spec, seed=seed))

    def _bots(self, bot_seeds: Mapping[int, int]) -> tuple[int | None, ...]:
        return tuple(None if s == self.seat else bot_seeds[s] for s in range(len(self.players)))

    def restart(self, seed: int, bot_seeds: Mapping[int, int], generator: np.random.BitGenerator | None = None) -> None:
        """A new game in the same core env (as ``__init__``, without making it again): set up in
        the core where the rules choose no towers, else in Python and loaded."""
        nat = fasttower.core_module()
        assert nat is not None
        self.seed = seed
        if self.setup is not None:
            self.generator = generator
            nat.env_seed(self.capsule, seed, self._bots(bot_seeds), (generator, SCHEMES[self.scheme]))
        else:
            nat.env_reset(self.capsule, self._start(seed), self._bots(bot_seeds), (None, SCHEMES[self.scheme]))
        step_all([self], np.array([-1], dtype=np.int64))

    @property
    def over(self) -> bool:
        return bool(self.status[0])

    @property
    def round(self) -> int:
        return int(self.status[1])

    def scores(self) -> list[int]:
        scores: list[int] = self.status[STATUS:].tolist()
        return scores

    def winners(self) -> list[int] | None:
        """The engine's winners once the game is over, else None."""
        if not self.over:
            return None
        mask = int(self.status[2])
        return [s for s in range(len(self.players)) if mask >> s & 1]

    def __getstate__(self) -> dict[str, Any]:
        """``copy.deepcopy`` and ``pickle``: the core's game as bytes (``env_dump``)."""
        nat = fasttower.core_module()
        assert nat is not None
        state = self.__dict__.copy()
        state["capsule"] = nat.env_dump(self.capsule)
        state["_game"] = None
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        nat = fasttower.core_module()
        if nat is None:
            raise RuntimeError("a fast-path tower env needs tabletris's compiled tower core, which is not in use here")
        self.__dict__.update(state)
        self.capsule = nat.env_load(state["capsule"], self.generator)

    def game(self) -> TowerGame:
        """The game as a Python ``TowerGame`` (built once per step when asked)."""
        if self._game is None:
            nat = fasttower.core_module()
            assert nat is not None
            dump = nat.env_game(self.capsule)[0]
            game = TowerGame(self.players, self.rules_spec, seed=self.seed)
            fasttower.write_back(game, dump)
            self._game = game
        return self._game

    def chosen(self) -> list[int]:
        """The mino columns the learner has chosen this round."""
        nat = fasttower.core_module()
        assert nat is not None
        chosen: list[int] = nat.env_game(self.capsule)[1]
        return chosen


def step_all(
    games: Sequence[FastTower],
    actions: np.ndarray,
    batch: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None,
    rewards: np.ndarray | None = None,
) -> None:
    """Each game's action (-1: none), then its observation, mask and status written into its
    arrays (``batch``: the arrays whose rows the games' arrays are, in order: one C call);
    ``rewards`` gets each game's reward."""
    nat = fasttower.core_module()
    assert nat is not None
    for g in games:
        g._game = None
    n = len(games)
    out = rewards if rewards is not None else np.empty(n, dtype=np.float64)
    resets = np.zeros(n, dtype=np.uint8)
    seeds = np.empty(n, dtype=np.int64)
    acts = np.ascontiguousarray(actions, dtype=np.int64)
    if batch is not None:
        nat.env_step([g.capsule for g in games], acts, *batch, resets, out, seeds)
        return
    for i, g in enumerate(games):
        nat.env_step([g.capsule], acts[i : i + 1], g.obs, g.mask, g.status, resets[i : i + 1], out[i : i + 1], seeds[i : i + 1])


def step_batch(
    games: Sequence[FastTower],
    actions: np.ndarray,
    resets: np.ndarray,
    batch: tuple[np.ndarray, np.ndarray, np.ndarray],
    rewards: np.ndarray,
    seeds: np.ndarray,
) -> None:
    """``TowerVectorEnv``'s step in one C call: game ``i`` is reset first where ``resets[i]`` (its
    seeds drawn from its env's ``np_random`` as ``TowerEnv.reset`` draws them), else plays
    ``actions[i]`` (-1: none); its observation, mask and status go into row ``i`` of ``batch``,
    its reward into ``rewards[i]`` and the new game's seed into ``seeds[i]`` (-1 without)."""
    nat = fasttower.core_module()
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


def first_legal(mask: np.ndarray, drop_base: int, mino_base: int) -> int:
    """``tower_v0.first_choice`` on a mask: the first legal drop, else the lowest legal action."""
    drops = np.flatnonzero(mask[drop_base:mino_base])
    if len(drops):
        return int(drops[0]) + drop_base
    return int(np.flatnonzero(mask)[0])


# ------------------------------------------------------------------ TowerEnv's fast path


def env_reset(env: Any) -> tuple[Any, dict[str, Any]]:
    """``TowerEnv.reset`` on the fast path (after Gymnasium's seeding): the game's seed, then each
    opponent's bot seed in seat order, drawn from ``np_random`` as the Python path draws them."""
    rng = env.np_random
    seed = int(rng.integers(2**32))
    others = [s for s in range(env.players_count) if s != env.seat]
    bot_seeds = {s: int(rng.integers(2**32)) for s in others}
    if env._fast is None:
        opponents = dict(zip(others, env.opponents, strict=True))
        env._fast = FastTower(
            env.codec, env.players, env.rules_spec, seed, opponents, bot_seeds, env.seat, env._fast_rows,
            env.reward_scheme, rng.bit_generator,
        )
    else:
        env._fast.restart(seed, bot_seeds, rng.bit_generator)
    return env_observation(env), env_info(env)


def env_observation(env: Any) -> Any:
    fast = env._fast
    return env._form(fast.obs.copy(), fast.mask.copy())


def env_info(env: Any, **extra: Any) -> dict[str, Any]:
    fast = env._fast
    info: dict[str, Any] = env._outcome_info(fast.scores(), fast.winners(), round=fast.round, **extra)
    return info


def env_action(env: Any, action: Any) -> tuple[int, dict[str, Any], float]:
    """The action played (``illegal_action`` applied as ``TowerEnv.step`` applies it), the info
    it adds and its penalty."""
    fast = env._fast
    codec = env.codec
    a = int(action)
    if 0 <= a < fast.mask.shape[0] and fast.mask[a]:
        return a, {}, 0.0
    what = codec.describe(a)
    if env.illegal_action == "raise":
        raise ValueError(f"{what} is not legal now (legal: {np.flatnonzero(fast.mask).tolist()})")
    return first_legal(fast.mask, codec.drop_base, codec.mino_base), {"illegal_action": what}, env.illegal_reward


def env_step(env: Any, action: Any) -> tuple[Any, float, bool, bool, dict[str, Any]]:
    """``TowerEnv.step`` on the fast path: one C call for the learner's sub-step, the opponents'
    decisions and the rounds they resolve; the Python path's answer, number for number."""
    fast = env._fast
    if fast.over:
        return env_observation(env), 0.0, True, False, env_info(env)
    a, extra, penalty = env_action(env, action)
    rewards = np.empty(1, dtype=np.float64)
    step_all([fast], np.array([a], dtype=np.int64), rewards=rewards)
    return env_observation(env), float(rewards[0]) + penalty, fast.over, False, env_info(env, **extra)
