"""The dice env's ``action_features`` option and the per-action policy (``tabletris.envs.sb3``)."""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest
import sb3_contrib  # the train extra's, in the test extra too
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from stable_baselines3.common.env_util import make_vec_env

from tabletris.bots.heuristics import features_of
from tabletris.engine.dice import DiceAction, DiceGame
from tabletris.engine.fastdice import supports
from tabletris.envs.afterstates import FEATURES, KEY, feature_bounds, scales
from tabletris.envs.gym import DiceEnv
from tabletris.envs.rewards import dice_potential
from tabletris.envs.sb3 import ActionScorePolicy

KIND = {name: FEATURES.index(name) for name in ("place", "take", "choice")}
POINTS, FILL, NEAR = (FEATURES.index(n) for n in ("points", "row_fill", "near_rows"))
MEASURED = FEATURES[NEAR + 1 :]


def played(game: DiceGame, action: DiceAction) -> DiceGame:
    """The position after really playing ``action`` on a copy of ``game`` (the engine's answer)."""
    after = game.view()
    after.act(action)
    return after


def check_rows(env: DiceEnv, obs: dict[str, np.ndarray], rng: np.random.Generator, samples: int = 6) -> None:
    """The rows are nonzero exactly on the legal ids, and a sample of PLACE/TAKE rows equals the
    board the engine leaves when the action is played."""
    feats = obs[KEY]
    mask = env.action_masks()
    assert feats.shape == (env.codec.n_actions, len(FEATURES))
    assert (feats.any(axis=1) == mask).all()
    assert env.observation_space.contains(obs)
    game, decider = env.game, env.decider
    assert game is not None and decider is not None
    legal = np.flatnonzero(mask)
    if legal.size == 0:
        return
    phase = decider.turn.phase
    kinds = feats[legal][:, [KIND["place"], KIND["take"], KIND["choice"]]]
    expected_kind = {"place": 0, "take": 1}.get(phase, 2)
    assert (kinds.argmax(axis=1) == expected_kind).all() and (kinds.sum(axis=1) == 1).all()
    if phase not in ("place", "take"):
        assert not feats[legal][:, POINTS:].any()
        return
    scale = scales(env.codec.width, env.codec.height)
    sampled = set(rng.choice(legal, size=min(samples, legal.size), replace=False).tolist())
    if phase == "place":  # every PLACE id paid by taking a stone, besides the sample
        sampled |= {a for a in legal.tolist() if decider.legal[a][0] is not None}
    for a in sorted(sampled):
        value = decider.legal[int(a)]
        if phase == "place":
            p, take = env.codec.placements[int(a)], value[0]
        else:
            p, take = decider.turn.placement, value
        after = played(game, DiceAction(p.shape, p, take))
        row = feats[a] * scale
        assert row[POINTS] == after.scores[game.to_move] - game.scores[game.to_move]
        board = after.board
        assert row[FILL] == pytest.approx(dice_potential(board.occupied, board.geometry.row_masks, board.width))
        fills = [(board.occupied & row_mask).bit_count() for row_mask in board.geometry.row_masks]
        assert row[NEAR] == sum(board.width - 4 <= n < board.width for n in fills)
        measured = features_of(board.occupied, board.width, board.height)
        assert row[NEAR + 1 :].tolist() == pytest.approx([getattr(measured, n) for n in MEASURED])


@settings(max_examples=8, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), seat=st.integers(0, 1))
def test_feature_rows_are_the_engine_afterstates(seed: int, seat: int) -> None:
    env = DiceEnv(seat=seat, action_mask=False, action_features=True)
    obs, _info = env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    done = False
    while not done:
        check_rows(env, obs, rng)
        action = int(rng.choice(np.flatnonzero(env.action_masks())))
        obs, _r, terminated, truncated, _info = env.step(action)
        done = terminated or truncated
    assert not obs[KEY].any()  # the game is over: nothing is legal


def test_take_decisions_have_their_own_rows() -> None:
    """A short supply forces takes: each takeable stone gets the afterstate with it lifted (the
    piece may fill the room the stone leaves), in PLACE rows and in the TAKE decision."""
    env = DiceEnv(rules={"supply": 1}, action_mask=False, action_features=True)
    rng = np.random.default_rng(0)
    seen = 0
    for seed in range(40):
        obs, _info = env.reset(seed=seed)
        done = False
        while not done:
            if env.decider is not None and env.decider.turn.phase == "take":
                check_rows(env, obs, rng, samples=50)
                seen += 1
            obs, _r, terminated, truncated, _i = env.step(int(rng.choice(np.flatnonzero(env.action_masks()))))
            done = terminated or truncated
        if seen >= 3:
            break
    assert seen >= 3


def test_space_bounds_and_forms() -> None:
    bounds = feature_bounds(10, 20)
    assert (bounds >= 1.0).all() and bounds[FEATURES.index("points")] == 4.0
    env = gymnasium.make("tabletris:tabletris/Dice-v0", action_features=True)  # env checker on
    obs, _info = env.reset(seed=3)
    assert set(obs) == {"observation", "action_mask", KEY}
    assert (obs[KEY].any(axis=1) == obs["action_mask"].astype(bool)).all()
    image = DiceEnv(observation="image", action_mask=False, action_features=True)
    obs, _info = image.reset(seed=3)
    assert obs["observation"].shape == image.codec.image_shape and image.observation_space.contains(obs)
    plain = DiceEnv(action_mask=False)
    assert isinstance(plain.reset(seed=3)[0], np.ndarray)  # off by default: the Box as before


def test_policy_opponents_see_their_own_features() -> None:
    """A policy opponent gets the same observation form, with its own legal rows."""
    seen: list[bool] = []

    def opponent(obs: dict[str, np.ndarray], mask: np.ndarray) -> int:
        seen.append(bool((obs[KEY].any(axis=1) == mask).all()))
        return int(np.flatnonzero(mask)[0])

    env = DiceEnv(seat=1, opponents=opponent, action_mask=False, action_features=True)
    env.reset(seed=1)
    assert seen and all(seen)


# ------------------------------------------------------------------ the policy

def model_on(n_envs: int = 2, n_steps: int = 16) -> sb3_contrib.MaskablePPO:
    kwargs = {"reward": "shaped", "action_mask": False, "action_features": True}
    env = make_vec_env("tabletris:tabletris/Dice-v0", n_envs=n_envs, env_kwargs=kwargs)
    return sb3_contrib.MaskablePPO(
        ActionScorePolicy, env, n_steps=n_steps, batch_size=16, n_epochs=2, seed=0,
        policy_kwargs={"score_arch": [8], "value_arch": [16]},
    )


def test_logits_are_one_scorer_per_row_and_illegal_ids_are_masked() -> None:
    torch.set_num_threads(1)
    model = model_on()
    policy = model.policy
    env = DiceEnv(action_mask=False, action_features=True)
    obs, _info = env.reset(seed=4)
    mask = env.action_masks()
    tensor, _ = policy.obs_to_tensor(obs)
    dist = policy.get_distribution(tensor, action_masks=mask[None])
    probs = dist.distribution.probs[0].detach().numpy()
    assert probs[~mask].max() < 1e-12 and probs[mask].sum() == pytest.approx(1.0, abs=1e-5)
    # The logit of an id is the scorer on its row alone: the same row elsewhere, the same logit.
    feats = obs[KEY].copy()
    legal = np.flatnonzero(mask)
    a, b = legal[0], legal[-1]
    feats[b] = feats[a]
    moved, _ = policy.obs_to_tensor({**obs, KEY: feats})
    logits = policy.mlp_extractor.forward_actor(policy.extract_features(moved))[0]
    assert logits[a].item() == pytest.approx(logits[b].item())
    direct = policy.mlp_extractor.scorer_out(policy.mlp_extractor.scorer_hidden(torch.as_tensor(feats[a])))
    assert logits[a].item() == pytest.approx(direct.item(), rel=1e-5)
    # No Linear(n_actions, n_actions) head: the parameters are the scorer's and the value's.
    assert sum(p.numel() for p in policy.parameters()) < 20_000


def test_learn_smoke_changes_the_scorer_and_round_trips(tmp_path) -> None:
    torch.set_num_threads(1)
    model = model_on()
    before = [p.detach().clone() for p in model.policy.mlp_extractor.scorer_hidden.parameters()]
    model.learn(total_timesteps=64)
    after = list(model.policy.mlp_extractor.scorer_hidden.parameters())
    assert any(not torch.equal(x, y) for x, y in zip(before, after, strict=True))
    env = DiceEnv(action_mask=False, action_features=True)
    obs, _info = env.reset(seed=7)
    action, _ = model.predict(obs, deterministic=True, action_masks=env.action_masks())
    assert env.action_masks()[int(action)]
    model.save(tmp_path / "m.zip")
    loaded = sb3_contrib.MaskablePPO.load(tmp_path / "m.zip")
    again, _ = loaded.predict(obs, deterministic=True, action_masks=env.action_masks())
    assert int(again) == int(action)
    assert loaded.policy.score_arch == [8] and loaded.policy.value_arch == [16]


def test_action_features_take_the_python_path_even_where_the_kernel_could_play() -> None:
    """Random opponents and the ``score`` reward would put the game in the dice kernel, but the
    features measure each option on the engine's game: the env stays on the Python path and
    steps (the merge of the two features failed here: no game to measure on)."""
    env = DiceEnv(opponents="random", reward="score", action_features=True)
    assert not env.fast_path
    obs, _ = env.reset(seed=3)
    for _ in range(10):
        legal = np.flatnonzero(env.action_masks())
        assert obs[KEY][legal].any()
        obs, _, terminated, truncated, _ = env.step(int(legal[0]))
        if terminated or truncated:
            break
    assert DiceEnv(opponents="random", reward="score").fast_path == supports(DiceEnv().rules)
