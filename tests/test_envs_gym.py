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
    assert out == "['tabletris/Dice-v0', 'tabletris/Tower-v0']"


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
    with pytest.raises(ValueError, match="2 other seat"):
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
