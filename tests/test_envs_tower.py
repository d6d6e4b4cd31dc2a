"""The tower game's PettingZoo Parallel environment (and its AEC form) and its encoding."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pettingzoo.test import api_test, parallel_api_test, parallel_seed_test, seed_test

from tabletris.engine.tower import TowerAction, TowerGame
from tabletris.envs import tower_v0
from tabletris.envs.tower_codec import HOLD, WAIT, SeatTurn, TowerCodec


@pytest.mark.parametrize(
    "kwargs",
    [{"players": 2}, {"players": 4, "rules": "advanced"}, {"players": 1, "rules": {"height": 8}}],
)
def test_pettingzoo_parallel_api_test(kwargs: dict) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # style hints (dict observations) are not failures
        parallel_api_test(tower_v0.parallel_env(**kwargs), num_cycles=1000)


def test_pettingzoo_parallel_seed_test() -> None:
    parallel_seed_test(lambda: tower_v0.parallel_env(players=3), num_cycles=200)


def test_aec_form_passes_api_and_seed_tests() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        api_test(tower_v0.env(players=2, rules="advanced"), num_cycles=300)
    seed_test(lambda: tower_v0.env(players=2), num_cycles=100)


def play(env: tower_v0.TowerParallelEnv, seed: int) -> tuple[dict[str, float], int, list[int]]:
    obs, _ = env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    totals = dict.fromkeys(env.possible_agents, 0.0)
    steps = 0
    while env.agents:
        actions = {a: int(rng.choice(np.flatnonzero(obs[a]["action_mask"]))) for a in env.agents}
        obs, rewards, _term, _trunc, _info = env.step(actions)
        for a, r in rewards.items():
            totals[a] += r
        steps += 1
    return totals, steps, env.game.scores()


@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), players=st.integers(1, 4))
def test_whole_games_rewards_add_up_to_scores(seed: int, players: int) -> None:
    env = tower_v0.parallel_env(players=players, rules="advanced")
    totals, steps, scores = play(env, seed)
    assert env.game.over or all(t.out for t in env.game.towers)
    assert [totals[a] for a in env.possible_agents] == [float(s) for s in scores]
    # A round takes at least one step; minos add sub-steps, never more than the box holds.
    assert len(env.game.rounds) <= steps <= len(env.game.rounds) + env.game.rules.minos_in_box


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), rounds=st.integers(0, 12))
def test_legal_actions_are_exactly_what_the_engine_accepts(seed: int, rounds: int) -> None:
    """Each DROP/HOLD the codec offers is accepted by the engine; each drop the engine lists is offered."""
    game = TowerGame(["A", "B"], {"preset": "standard", "start_minos": 2}, seed=seed)
    codec = TowerCodec(game.rules, 2)
    rng = np.random.default_rng(seed)
    for _ in range(rounds):
        if game.over:
            break
        for seat in list(game.waiting_for()):
            turn = SeatTurn()
            legal = codec.legal(game, seat, turn)
            drops = {codec.encode_drop(p) for p in game.legal_drops(seat)}
            finals = {a for a, v in legal.items() if isinstance(v, TowerAction)}
            assert finals == drops | ({HOLD} if game.can_hold(seat) else set())
            for a in finals:
                game.preview(seat, legal[a])  # raises if the engine disagrees
            while True:
                a = int(rng.choice(sorted(legal)))
                value = legal[a]
                if isinstance(value, int):
                    turn.minos.append(value)
                    legal = codec.legal(game, seat, turn)
                    assert HOLD not in legal and legal, "a mino never leaves a seat without a drop"
                    continue
                game.submit(seat, value)
                break


def test_mino_sub_phase_and_wait() -> None:
    env = tower_v0.parallel_env(players=2, rules={"start_minos": 1}, illegal_action="raise")
    obs, _ = env.reset(seed=1)
    codec = env.codec
    mask0 = obs["player_0"]["action_mask"]
    assert mask0[HOLD] and not mask0[WAIT]
    mino = codec.mino_base + 3
    assert mask0[mino]
    drop = int(np.flatnonzero(obs["player_1"]["action_mask"][codec.drop_base : codec.mino_base])[0]) + codec.drop_base
    obs, rewards, *_ = env.step({"player_0": mino, "player_1": drop})
    assert env.game.round == 1 and env.turns[0].minos == [3] and env.turns[1].done
    m0, m1 = obs["player_0"]["action_mask"], obs["player_1"]["action_mask"]
    assert not m0[HOLD] and not m0[codec.mino_base : codec.n_actions].any()  # no minos left, no hold
    assert list(np.flatnonzero(m1)) == [WAIT]
    # The chosen mino shows in the observation before the round resolves.
    planes = obs["player_0"]["observation"][codec.layout["tower"]].reshape(16, 15, 8)
    assert planes[7, 0, 3] == 1.0
    with pytest.raises(ValueError, match="player_1: drop"):
        env.step({"player_0": drop, "player_1": drop})
    drop0 = int(np.flatnonzero(m0)[0])
    env.step({"player_0": drop0, "player_1": WAIT})
    assert env.game.round == 2 and env.game.towers[0].minos == 0
    assert env.game.rounds[0][0].minos == (3,)


def test_illegal_actions_are_replaced_and_flagged() -> None:
    env = tower_v0.parallel_env(players=2, illegal_reward=-2.0)
    env.reset(seed=3)
    _obs, rewards, _t, _tr, infos = env.step({"player_0": WAIT})
    assert env.game.round == 2
    assert infos["player_0"]["illegal_action"] == "wait"
    assert infos["player_1"]["illegal_action"] == "no action"
    assert rewards["player_0"] <= -2.0 + 4


def test_configuration_errors_are_clear() -> None:
    with pytest.raises(ValueError, match="players"):
        tower_v0.parallel_env(players=5)
    with pytest.raises(ValueError, match="rules.width"):
        tower_v0.parallel_env(rules={"width": 2})


def test_render_shows_every_tower() -> None:
    env = tower_v0.parallel_env(players=3, render_mode="ansi")
    env.reset(seed=0)
    text = env.render()
    assert text is not None
    assert text.splitlines()[0] == "  ".join(["." * 8] * 3)
    assert "PLAY" in text


def test_state_is_every_seats_observation() -> None:
    env = tower_v0.parallel_env(players=3)
    obs, _ = env.reset(seed=4)
    state = env.state()
    assert env.state_space.contains(state)
    size = env.codec.obs_size
    for seat, agent in enumerate(env.possible_agents):
        np.testing.assert_array_equal(state[seat * size : (seat + 1) * size], obs[agent]["observation"])
