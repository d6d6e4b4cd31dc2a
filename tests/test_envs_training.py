"""The shaped reward (potential-based, Ng et al. 1999) and the PPO script's evaluation tally."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest

from tabletris.engine.board import geometry
from tabletris.envs.gym import DiceEnv, TowerEnv
from tabletris.envs.rewards import dice_potential, shaping

SCRIPT = Path(__file__).resolve().parents[1] / "scripts" / "train_ppo.py"


def train_script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("train_ppo", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["train_ppo"] = module
    spec.loader.exec_module(module)
    return module


def test_potential_is_the_sum_of_squared_row_fills() -> None:
    g = geometry(10, 20)
    six_in_row0 = sum(1 << x for x in range(6))
    assert dice_potential(six_in_row0, g.row_masks, 10) == pytest.approx(0.36)
    two_rows = six_in_row0 | (g.row_masks[3])  # six cells in row 0, row 3 complete
    assert dice_potential(two_rows, g.row_masks, 10) == pytest.approx(1.36)
    # Concentrating four cells in one row is worth more than spreading them over four rows.
    column = sum(1 << (y * g.stride) for y in range(4))
    assert dice_potential(0b1111, g.row_masks, 10) > dice_potential(column, g.row_masks, 10)
    assert shaping(0.9, 2.0, None) == -2.0 and shaping(0.9, 2.0, 3.0) == pytest.approx(0.7)


def play_pair(seat: int, seed: int, gamma: float) -> tuple[list[float], list[float], float, dict]:
    """One game played twice with the same actions, once rewarded ``shaped``, once ``difference``."""
    shaped = DiceEnv(players=2, seat=seat, reward="shaped", gamma=gamma, action_mask=False)
    plain = DiceEnv(players=2, seat=seat, reward="difference", action_mask=False)
    shaped.reset(seed=seed)
    plain.reset(seed=seed)
    assert shaped.game is not None
    board = shaped.game.board
    phi0 = dice_potential(board.occupied, board.geometry.row_masks, board.width)
    rng = np.random.default_rng(seed)
    a_rewards: list[float] = []
    b_rewards: list[float] = []
    while True:
        mask = shaped.action_masks()
        assert mask.tolist() == plain.action_masks().tolist()
        action = int(rng.choice(np.flatnonzero(mask)))
        _o, ra, done, trunc, info = shaped.step(action)
        _o, rb, done_b, _t, _i = plain.step(action)
        a_rewards.append(ra)
        b_rewards.append(rb)
        assert done == done_b
        if done or trunc:
            return a_rewards, b_rewards, phi0, info


@pytest.mark.parametrize(("seat", "seed"), [(0, 1), (1, 2), (0, 5)])
def test_shaping_telescopes_to_minus_the_first_potential(seat: int, seed: int) -> None:
    gamma = 0.9
    shaped, plain, phi0, info = play_pair(seat, seed, gamma)
    discounted = sum(gamma**t * r for t, r in enumerate(shaped))
    plain_discounted = sum(gamma**t * r for t, r in enumerate(plain))
    # Ng et al.: the shaping terms' discounted sum is -phi(s0), whatever the policy did.
    assert discounted == pytest.approx(plain_discounted - phi0, abs=1e-9)
    assert sum(plain) == pytest.approx(info["scores"][seat] - info["scores"][1 - seat])
    assert shaped != plain  # the shaping term is really there
    if seat == 1:
        assert phi0 > 0.0  # the first player had placed a stone before the learner's first step


def test_shaped_reward_is_for_the_dice_env_and_checks_gamma() -> None:
    with pytest.raises(ValueError, match="reward: 'shaped': expected one of score, difference, win$"):
        TowerEnv(reward="shaped")
    with pytest.raises(ValueError, match="gamma: 1.5"):
        DiceEnv(reward="shaped", gamma=1.5)


def test_tally_counts_sole_wins_shared_wins_and_losses() -> None:
    train = train_script()
    result = train.tally([(0, [0]), (1, [0, 1]), (0, [1]), (1, [1]), (0, [0, 1])])
    assert (result["won"], result["drawn"], result["lost"]) == (2, 2, 1)
    assert result["wins"] == pytest.approx(3.0) and result["win_rate"] == pytest.approx(0.6)
    assert result["sole_win_rate"] == pytest.approx(0.4)
    low, high = result["ci95"]
    assert low < 0.6 < high and result["sole_ci95"][0] < 0.4 < result["sole_ci95"][1]


def test_evaluation_counts_a_scripted_policys_games() -> None:
    train = train_script()

    def lowest(_obs: object, mask: np.ndarray) -> int:
        return int(np.flatnonzero(mask)[0])

    result = train.play(lowest, "random", games=6, seed=40)
    expected = {"won": 0, "drawn": 0, "lost": 0}
    for i in range(6):  # the same games, replayed by hand
        env = DiceEnv(players=2, seat=i % 2, opponents="random", action_mask=False)
        env.reset(seed=40 + i)
        done = False
        while not done:
            _o, _r, done, _t, info = env.step(lowest(None, env.action_masks()))
        winners = info["winner"]
        expected["won" if winners == [env.seat] else "drawn" if env.seat in winners else "lost"] += 1
    assert {k: result[k] for k in expected} == expected
    assert result["games"] == 6 and result["won"] + result["drawn"] + result["lost"] == 6
