"""The single-agent Gymnasium environments and their registration on ``import tabletris``."""

from __future__ import annotations

import subprocess
import sys
import warnings

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import tabletris  # noqa: F401  (registers the environments)
from tabletris.envs.gym import DiceEnv, TowerEnv


def run_python(code: str) -> str:
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    return result.stdout.strip()


def test_import_tabletris_does_not_import_gymnasium_but_registers_when_it_is() -> None:
    out = run_python(
        "import sys, tabletris\n"
        "print('gymnasium' in sys.modules)\n"
        "import gymnasium\n"
        "print(gymnasium.spec('tabletris/Dice-v0').entry_point)"
    )
    assert out.splitlines() == ["False", "tabletris.envs.gym:DiceEnv"]


def test_registration_when_gymnasium_came_first() -> None:
    out = run_python(
        "import gymnasium, tabletris\n"
        "print(sorted(k for k in gymnasium.registry if k.startswith('tabletris/')))"
    )
    from tabletris.envs.registration import ENVIRONMENTS

    assert out == str(sorted(ENVIRONMENTS)) and {"tabletris/Dice-v0", "tabletris/Tower-v0", "tabletris/Game-v0"} <= set(ENVIRONMENTS)


@pytest.mark.parametrize(
    "kwargs",
    [
        {},
        {"players": 3, "seat": 2, "opponents": ["random", "random"], "rules": {"preset": "classic"}},
        {"players": 1, "rules": "clear-rows"},
    ],
)
def test_dice_env_passes_gymnasiums_checker(kwargs: dict) -> None:
    env = gymnasium.make("tabletris/Dice-v0", **kwargs)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # any checker warning is a failure
        check_env(env.unwrapped)


def play(env: DiceEnv, seed: int) -> tuple[list[int], float, list[int]]:
    obs, info = env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    actions, total = [], 0.0
    while True:
        action = int(rng.choice(np.flatnonzero(obs["action_mask"])))
        actions.append(action)
        obs, reward, terminated, truncated, info = env.step(action)
        total += reward
        if terminated or truncated:
            return actions, total, info["scores"]


def test_dice_env_same_seed_same_game_and_rewards_are_score_changes() -> None:
    env = DiceEnv(players=3, seat=1)
    first = play(env, 11)
    second = play(DiceEnv(players=3, seat=1), 11)
    assert first == second
    _actions, total, scores = first
    assert total == scores[1]
    assert env.game is not None and env.game.over


def test_dice_env_learner_only_sees_its_own_turns() -> None:
    env = DiceEnv(players=2, seat=1)
    obs, _ = env.reset(seed=4)
    assert env.game is not None
    assert env.game.to_move == 1 and env.game.roll_face is not None
    assert obs["action_mask"].any()


def test_dice_env_configuration_errors() -> None:
    with pytest.raises(ValueError, match="seat: 2 does not exist"):
        DiceEnv(players=2, seat=2)
    with pytest.raises(ValueError, match="unknown bot 'nobody'"):
        DiceEnv(opponents="nobody")
    with pytest.raises(ValueError, match="2 other seat.s. need 2 opponent"):
        DiceEnv(players=3, opponents=["random"])


def test_step_after_the_end_is_harmless() -> None:
    env = DiceEnv(players=1)
    play(env, 3)
    obs, reward, terminated, truncated, _ = env.step(0)
    assert terminated and reward == 0.0 and not obs["action_mask"].any()


@pytest.mark.parametrize(
    "kwargs",
    [{}, {"players": 3, "seat": 2, "rules": "advanced"}, {"players": 1, "rules": {"height": 8}}],
)
def test_tower_env_passes_gymnasiums_checker(kwargs: dict) -> None:
    env = gymnasium.make("tabletris/Tower-v0", **kwargs)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        check_env(env.unwrapped)


def play_tower(env: TowerEnv, seed: int) -> tuple[list[int], float, list[int]]:
    obs, _ = env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    actions, total = [], 0.0
    while True:
        action = int(rng.choice(np.flatnonzero(obs["action_mask"])))
        actions.append(action)
        obs, reward, terminated, truncated, info = env.step(action)
        total += reward
        if terminated or truncated:
            return actions, total, info["scores"]


def test_tower_env_same_seed_same_game_and_rewards_are_score_changes() -> None:
    first = play_tower(TowerEnv(players=3, seat=1), 5)
    assert first == play_tower(TowerEnv(players=3, seat=1), 5)
    _actions, total, scores = first
    assert total == scores[1]


def test_tower_env_minos_are_sub_steps() -> None:
    env = TowerEnv(players=2, rules={"start_minos": 2}, illegal_action="raise")
    obs, _ = env.reset(seed=2)
    mino = env.codec.mino_base
    obs, reward, *_ = env.step(mino)
    assert reward == 0.0 and env.turn.minos == [0] and env.game.round == 1
    obs, *_ = env.step(mino)
    assert env.turn.minos == [0, 0]
    assert not obs["action_mask"][env.codec.mino_base :].any()  # both minos used
    with pytest.raises(ValueError, match="hold is not legal"):
        env.step(1)
    drop = int(np.flatnonzero(obs["action_mask"])[0])
    env.step(drop)
    assert env.game.round == 2 and env.game.rounds[0][0].minos == (0, 0)


@pytest.mark.parametrize("env_class", [DiceEnv, TowerEnv])
def test_every_opponent_name_is_checked_at_construction(env_class: type) -> None:
    """Not only the first: a bad name for the third seat fails before any game starts."""
    with pytest.raises(ValueError, match="unknown bot 'wizard'"):
        env_class(players=3, opponents=["random", "wizard"])


def test_make_without_importing_tabletris_and_with_the_env_checker_on() -> None:
    out = run_python(
        "import sys, gymnasium, warnings\n"
        "warnings.simplefilter('error')\n"
        "env = gymnasium.make('tabletris:tabletris/Dice-v0', opponents='greedy')\n"
        "env.reset(seed=1)\n"
        "print(gymnasium.spec('tabletris/Dice-v0').disable_env_checker)\n"
        "print(type(env.env).__name__)\n"
    )
    assert out.splitlines() == ["False", "PassiveEnvChecker"]


def test_the_gymnasium_entry_point_names_the_registration_function() -> None:
    from importlib.metadata import entry_points

    (point,) = [e for e in entry_points(group="gymnasium.envs") if e.name == "tabletris"]
    assert point.value == "tabletris.envs.registration:register_envs"
    assert callable(point.load())


@pytest.mark.parametrize("env_class", [DiceEnv, TowerEnv])
def test_action_masks_is_the_observations_mask(env_class: type) -> None:
    env = env_class(players=2)
    obs, _ = env.reset(seed=3)
    for _ in range(5):
        np.testing.assert_array_equal(env.action_masks(), obs["action_mask"].astype(bool))
        obs, *_ = env.step(int(np.flatnonzero(env.action_masks())[0]))


@pytest.mark.parametrize("observation", ["vector", "image"])
@pytest.mark.parametrize("env_class", [DiceEnv, TowerEnv])
def test_bare_and_image_observations_pass_the_checker(env_class: type, observation: str) -> None:
    name = "tabletris/Dice-v0" if env_class is DiceEnv else "tabletris/Tower-v0"
    env = gymnasium.make(name, players=2, observation=observation, action_mask=False).unwrapped
    assert isinstance(env.observation_space, gymnasium.spaces.Box)
    if observation == "image":
        assert env.observation_space.shape == env.codec.image_shape
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        check_env(env)


def play_masked(env: gymnasium.Env, seed: int) -> tuple[list[float], dict]:
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    rewards = []
    while True:
        _obs, reward, terminated, truncated, info = env.step(int(rng.choice(np.flatnonzero(env.action_masks()))))
        rewards.append(reward)
        if terminated or truncated:
            return rewards, info


@pytest.mark.parametrize("env_class", [DiceEnv, TowerEnv])
def test_reward_schemes(env_class: type) -> None:
    win, info = play_masked(env_class(players=2, reward="win"), 8)
    assert all(r == 0.0 for r in win[:-1])
    winners = info["winner"]
    assert winners is not None and info["is_success"] == (0 in winners)
    assert win[-1] == (1.0 if winners == [0] else 0.0 if 0 in winners else -1.0)
    diff, info = play_masked(env_class(players=2, reward="difference"), 8)
    scores = info["scores"]
    assert sum(diff) == pytest.approx(scores[0] - scores[1])
    with pytest.raises(ValueError, match="reward: 'wins'"):
        env_class(reward="wins")


def test_info_before_the_end_has_no_winner() -> None:
    env = DiceEnv(players=2)
    _obs, info = env.reset(seed=1)
    assert info["winner"] is None and info["is_success"] is False


def test_opponents_may_be_bot_instances_and_policies() -> None:
    from tabletris.bots.registry import make_bot

    calls: list[tuple[int, int]] = []

    def first_legal(observation: dict, mask: np.ndarray) -> int:
        assert observation["action_mask"].astype(bool).tolist() == mask.tolist()
        calls.append((int(mask.sum()), int(np.flatnonzero(mask)[0])))
        return int(np.flatnonzero(mask)[0])

    env = DiceEnv(players=3, opponents=[make_bot("greedy", seed=1), first_legal])
    _rewards, info = play_masked(env, 2)
    assert calls and info["winner"] is not None
    tower = TowerEnv(players=2, opponents=first_legal)
    play_masked(tower, 2)
    assert tower.game is not None and tower.game.over
    with pytest.raises(ValueError, match=r"opponents\[1\]: 3 is not a bot name"):
        DiceEnv(players=3, opponents=["random", 3])


def test_a_policy_opponent_that_plays_illegally_is_named() -> None:
    env = DiceEnv(players=2, seat=1, opponents=lambda obs, mask: int(np.flatnonzero(~mask)[0]))
    with pytest.raises(ValueError, match="opponent policy for seat 0"):
        env.reset(seed=0)


def test_self_play_opponent_follows_its_updates() -> None:
    from tabletris.envs.gym import SelfPlay

    selfplay = SelfPlay(seed=0)
    env = DiceEnv(players=2, opponents=selfplay)
    play_masked(env, 1)
    seen: list[int] = []

    def last_legal(observation: dict, mask: np.ndarray) -> int:
        seen.append(1)
        return int(np.flatnonzero(mask)[-1])

    selfplay.update(last_legal)
    play_masked(env, 1)
    assert seen and selfplay.updates == 1


@pytest.mark.parametrize("env_class", [DiceEnv, TowerEnv])
def test_rgb_array_render(env_class: type) -> None:
    env = env_class(players=2, render_mode="rgb_array")
    env.reset(seed=0)
    picture = env.render()
    assert picture.ndim == 3 and picture.shape[2] == 3 and picture.dtype == np.uint8
    assert isinstance(env_class(players=2, render_mode="ansi").reset(seed=0), tuple)


def test_vector_env_batches_games_exactly_like_separate_envs() -> None:
    from gymnasium.vector import VectorEnv

    from tabletris.envs.vector import DiceVectorEnv

    vec = gymnasium.make_vec("tabletris/Dice-v0", num_envs=3, opponents="greedy", action_mask=False)
    assert isinstance(vec, DiceVectorEnv) and isinstance(vec, VectorEnv)
    singles = [DiceEnv(opponents="greedy", action_mask=False) for _ in range(3)]
    obs, _ = vec.reset(seed=10)
    assert obs.shape == (3, singles[0].codec.obs_size)
    for i, env in enumerate(singles):
        np.testing.assert_array_equal(obs[i], env.reset(seed=10 + i)[0])
    rng = np.random.default_rng(0)
    finished = np.zeros(3, dtype=bool)
    for _ in range(200):
        masks = vec.action_masks()
        assert masks.shape == (3, vec.single_action_space.n)
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
        obs, rewards, terminated, truncated, infos = vec.step(actions)
        for i, env in enumerate(singles):
            if finished[i]:
                continue
            o, r, t, _tr, info = env.step(int(actions[i]))
            np.testing.assert_array_equal(obs[i], o)
            assert rewards[i] == r and terminated[i] == t
            finished[i] = t
        if finished.all():
            break
    assert finished.all()
    # The step after a game ends resets it (NEXT_STEP autoreset).
    obs, rewards, terminated, _tr, _ = vec.step(np.zeros(3, dtype=np.int64))
    assert terminated.sum() <= 3 and vec.action_masks().any(axis=1).all()
