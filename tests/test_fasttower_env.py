"""``Tower-v0``'s fast path (``envs/tower_fast.py``) against the Python path, step for step.

Both envs get the same seeds and the same random legal actions (mino sub-steps included), and
every observation, mask, reward, flag and info must be identical; the ``TowerGame`` the fast path
builds on demand must be the Python env's game (records, towers, cards, generator).
``TowerVectorEnv`` likewise, batch for batch, across autoresets; copies of a fast env play on as
the original would, apart from it.
"""

from __future__ import annotations

import copy
import pickle
import random
from collections.abc import Callable
from typing import Any

import gymnasium
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import tabletris.envs  # noqa: F401 - registers the environments
from kernel_reference import copy_obs, same
from tabletris.engine import board as board_mod
from tabletris.engine import fasttower
from tabletris.engine.tower import TowerGame
from tabletris.envs.gym import TowerEnv
from tabletris.envs.tower_vector import TowerVectorEnv
from tower_reference import assert_same_games, tower_rules

pytestmark = pytest.mark.skipif(fasttower.core_module() is None, reason="the compiled tower core is not in use here")


def mask_of(env: TowerEnv, obs: Any) -> np.ndarray:
    return np.asarray(obs["action_mask"]) if isinstance(obs, dict) else env.action_masks()


def run(kwargs: dict[str, Any], fast: bool, seed: int, steps: int, illegal_every: int = 0) -> tuple[list[Any], TowerEnv]:
    env = TowerEnv(**kwargs)
    if fast:
        assert env.fast_path, f"{kwargs} did not take the fast path"
    env.fast_path = fast
    rng = np.random.default_rng(seed)
    obs, info = env.reset(seed=seed)
    trace: list[Any] = [(copy_obs(obs), info, env.action_masks())]
    for k in range(steps):
        legal = np.flatnonzero(mask_of(env, obs))
        action = int(rng.choice(legal)) if len(legal) else 0
        if illegal_every and k % illegal_every == 0:
            action = int(rng.integers(-2, env.codec.n_actions + 2))  # legal or not: replaced the same way
        obs, reward, terminated, truncated, info = env.step(action)
        trace.append((copy_obs(obs), reward, terminated, truncated, info, env.action_masks()))
        if terminated or truncated:
            obs, info = env.reset()
            trace.append((copy_obs(obs), info, env.action_masks()))
    return trace, env


def assert_same_env(kwargs: dict[str, Any], seed: int, steps: int = 120, illegal_every: int = 0) -> None:
    python, env_py = run(kwargs, False, seed, steps, illegal_every)
    fast, env_fast = run(kwargs, True, seed, steps, illegal_every)
    assert env_fast._fast is not None and env_py._fast is None
    for k, (a, b) in enumerate(zip(python, fast, strict=True)):
        assert same(a, b), f"step {k} differs ({kwargs}, seed {seed})"
    game_py, game_fast = env_py.game, env_fast.game
    assert game_py is not None and game_fast is not None
    assert_same_games(game_py, game_fast, f"{kwargs}, seed {seed}")
    assert env_py.render() == env_fast.render()


VARIANTS: list[dict[str, Any]] = [
    {},
    {"opponents": "greedy", "players": 3, "seat": 1},
    {"opponents": ["greedy", "random", "greedy"], "players": 4, "seat": 2, "rules": "advanced"},
    {"rules": {"start_minos": 3, "width": 6, "height": 8}, "reward": "difference"},
    {"rules": {"preset": "advanced", "width": 5, "height": 7}, "reward": "win", "players": 3},
    {"players": 1, "rules": {"start_minos": 2}},
    {"observation": "image", "opponents": "greedy"},
    {"action_mask": False, "render_mode": "ansi", "rules": {"achievements": ["four-pairs", "connect-io"]}},
    {"rules": {"towers": ["2b", None]}, "opponents": "greedy"},
]


@pytest.mark.parametrize("kwargs", VARIANTS, ids=[str(i) for i in range(len(VARIANTS))])
def test_fast_env_steps_as_the_python_env(kwargs: dict[str, Any]) -> None:
    for seed in range(3):
        assert_same_env(kwargs, seed)


def test_illegal_actions_are_replaced_the_same_way() -> None:
    assert_same_env({"illegal_reward": -0.5, "rules": {"start_minos": 2}}, 4, steps=120, illegal_every=3)


def test_an_illegal_action_raises_the_same_error() -> None:
    messages = []
    for fast in (False, True):
        env = TowerEnv(illegal_action="raise", rules={"start_minos": 1})
        env.fast_path = env.fast_path and fast
        env.reset(seed=2)
        with pytest.raises(ValueError) as e:
            env.step(env.codec.n_actions + 5)
        messages.append(str(e.value))
    assert messages[0] == messages[1] and "is not legal now (legal: [" in messages[0]


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    rules=tower_rules(width=8, height=12),
    players=st.integers(1, 4),
    seat=st.integers(0, 3),
    seed=st.integers(0, 2**31),
    opponents=st.lists(st.sampled_from(["random", "greedy"]), min_size=3, max_size=3),
)
def test_any_rules(rules: dict[str, Any], players: int, seat: int, seed: int, opponents: list[str]) -> None:
    kwargs = {"rules": rules, "players": players, "seat": seat % players, "opponents": opponents[: players - 1]}
    assert_same_env(kwargs, seed, steps=60)


def test_not_on_the_fast_path() -> None:
    """Other opponents (a bot object, a policy, the expert) stay on the Python path."""
    assert TowerEnv().fast_path and TowerEnv(opponents="greedy").fast_path
    assert not TowerEnv(opponents="expert").fast_path
    assert not TowerEnv(opponents=lambda obs, mask: int(np.flatnonzero(mask)[0])).fast_path


def test_gymnasium_make_takes_the_fast_path() -> None:
    env = gymnasium.make("tabletris/Tower-v0")
    assert env.unwrapped.fast_path  # type: ignore[attr-defined]
    obs, _ = env.reset(seed=1)
    obs, *_ = env.step(int(np.flatnonzero(obs["action_mask"])[0]))
    assert env.unwrapped._fast is not None  # type: ignore[attr-defined]
    vec = gymnasium.make_vec("tabletris/Tower-v0", num_envs=3)
    assert isinstance(vec, TowerVectorEnv) and vec.fast_path


# ------------------------------------------------------------------ the batch


def run_vector(kwargs: dict[str, Any], fast: bool, seed: int, steps: int, illegal_every: int = 0) -> list[Any]:
    vec = TowerVectorEnv(5, **kwargs)
    if not fast:
        vec.fast_path = False
    rng = np.random.default_rng(seed)
    obs, infos = vec.reset(seed=seed)
    trace: list[Any] = [(copy_obs(obs), infos)]
    for _ in range(steps):
        masks = vec.action_masks()
        actions = np.array([int(rng.choice(np.flatnonzero(m))) for m in masks])
        if illegal_every and rng.integers(illegal_every) == 0:
            actions[rng.integers(len(actions))] = rng.integers(-3, vec.envs[0].codec.n_actions + 3)
        obs, rewards, terminated, truncated, infos = vec.step(actions)
        trace.append((copy_obs(obs), rewards, terminated, truncated, infos, masks))
    assert all((env._fast is not None) == fast for env in vec.envs)
    return trace


@pytest.mark.parametrize(
    "kwargs",
    [
        {},
        {"action_mask": False, "opponents": "greedy"},
        {"rules": {"start_minos": 2, "width": 5, "height": 7}, "players": 3, "reward": "difference"},
        {"observation": "image", "reward": "win", "rules": {"width": 4, "height": 6}},
        {"illegal_reward": -1.0},
        {"rules": {"towers": [None, "3a"]}},
    ],
    ids=["dict", "box", "minos", "image", "illegal", "towers"],
)
def test_vector_env_batches_as_the_python_env(kwargs: dict[str, Any]) -> None:
    illegal = 2 if "illegal_reward" in kwargs else 0
    python = run_vector(kwargs, False, 3, 100, illegal)
    fast = run_vector(kwargs, True, 3, 100, illegal)
    for k, (a, b) in enumerate(zip(python, fast, strict=True)):
        assert same(a, b), f"batch step {k} differs ({kwargs})"


# ------------------------------------------------------------------ copies

COPIERS: dict[str, Callable[[Any], Any]] = {
    "deepcopy": copy.deepcopy,
    "pickle": lambda thing: pickle.loads(pickle.dumps(thing)),
}


def play(env: TowerEnv, seed: int, steps: int) -> list[Any]:
    rng = np.random.default_rng(seed)
    trace: list[Any] = []
    for _ in range(steps):
        action = int(rng.choice(np.flatnonzero(env.action_masks())))
        obs, reward, terminated, truncated, info = env.step(action)
        trace.append((copy_obs(obs), reward, terminated, truncated, info, env.action_masks()))
        if terminated or truncated:
            obs, info = env.reset()
            trace.append((copy_obs(obs), info))
    return trace


@pytest.mark.parametrize("how", list(COPIERS))
def test_a_copy_plays_on_as_the_original_and_apart_from_it(how: str) -> None:
    copier = COPIERS[how]
    kwargs: dict[str, Any] = {"opponents": "greedy", "rules": {"start_minos": 2, "width": 6, "height": 9}}
    fast, python = TowerEnv(**kwargs), TowerEnv(**kwargs)
    python.fast_path = False
    for env in (fast, python):
        env.reset(seed=5)
    for cut in range(3):
        twin, python_twin = copier(fast), copier(python)
        assert twin._fast is not None and twin._fast.capsule is not fast._fast.capsule
        assert twin._fast.generator is twin.np_random.bit_generator
        ahead = play(twin, cut, 40)
        assert same(ahead, play(python_twin, cut, 40))
        assert same(ahead, play(fast, cut, 40))
        play(python, cut, 40)


@pytest.mark.parametrize("how", list(COPIERS))
def test_a_copied_batch_resets_from_its_own_generators(how: str) -> None:
    vec = TowerVectorEnv(3, rules={"width": 4, "height": 5})  # short games: resets in the batch call
    python = TowerVectorEnv(3, rules={"width": 4, "height": 5})
    python.fast_path = False
    for v in (vec, python):
        v.reset(seed=3)
    rng = np.random.default_rng(0)
    twin = COPIERS[how](vec)
    for _ in range(40):
        actions = vec.sample_legal(rng)
        a = twin.step(actions)
        b = python.step(actions)
        assert same(copy_obs(a[0]), copy_obs(b[0])) and same(a[1:], b[1:])


def test_damaged_bytes_are_refused() -> None:
    nat = fasttower.core_module()
    env = TowerEnv()
    env.reset(seed=1)
    assert env._fast is not None
    data = bytearray(nat.env_dump(env._fast.capsule))
    with pytest.raises(ValueError, match="damaged"):
        nat.env_load(bytes(data[:-1]), None)
    data[:4] = (50).to_bytes(4, "little")  # the tower's width, far past the build's
    with pytest.raises(ValueError, match="damaged"):
        nat.env_load(bytes(data), None)


# ------------------------------------------------------------------ the codec's legal actions


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rules=tower_rules(), players=st.integers(1, 4), seed=st.integers(0, 2**32 - 1), rounds=st.integers(0, 26),
       data=st.data())
def test_the_codecs_legal_actions_from_the_core_are_the_engines(
    rules: dict[str, Any], players: int, seed: int, rounds: int, data: st.DataObject
) -> None:
    """``TowerCodec.legal`` (PettingZoo, OpenSpiel, the Python env) asks the core for the ids; ids,
    their order and every value are what the engine's drops give, mino sub-steps included."""
    from tabletris.engine import board as board_mod
    from tabletris.envs.tower_codec import LegalActions, SeatTurn, TowerCodec
    from tower_reference import make_bots, play_python

    game = TowerGame([f"p{i}" for i in range(players)], rules, seed=seed)
    play_python(game, make_bots(["random"] * players, seed), rounds)
    codec = TowerCodec(game.rules, players)
    for seat in range(players):
        turn = SeatTurn()
        for _ in range(4):
            fast = codec.legal(game, seat, turn)
            with board_mod.engine(False):
                python = codec.legal(game, seat, turn)
            assert list(fast) == list(python) and dict(fast.items()) == python
            minos = [a - codec.mino_base for a in fast if a >= codec.mino_base]
            if not minos:
                break
            assert isinstance(fast, LegalActions)
            turn.minos.append(data.draw(st.sampled_from(minos)))


def test_the_openspiel_tower_game_asks_the_core_for_its_legal_actions(monkeypatch: pytest.MonkeyPatch) -> None:
    """OpenSpiel's tower game (issue 29) takes each seat's legal ids from the tower core, and
    they are the ids the Python codec gives with the core off, state for state."""
    pyspiel = pytest.importorskip("pyspiel")
    import tabletris.envs.openspiel_games  # noqa: F401  (registers the games)

    nat = fasttower.core_module()
    if nat is None:
        pytest.skip("the tower core is not in use")
    calls: list[int] = []
    real = nat.legal_ids

    def counted(*args: Any) -> Any:
        calls.append(1)
        return real(*args)

    monkeypatch.setattr(nat, "legal_ids", counted)
    game = pyspiel.load_game("python_tabletris_tower", {"players": 2, "rules": "start_minos:2;minos_in_box:12"})
    rng = random.Random(4)
    state = game.new_initial_state()
    checked = 0
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes, probs = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(rng.choices(outcomes, probs)[0])
            continue
        before = len(calls)
        legal = [state.legal_actions(p) for p in range(2)]
        assert len(calls) > before
        with board_mod.engine(False):
            assert fasttower.core_module() is None
            python = [state.clone().legal_actions(p) for p in range(2)]
        assert legal == python
        checked += 1
        state.apply_actions([rng.choice(actions) for actions in legal])
    assert checked > 20
