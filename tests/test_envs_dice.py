"""The dice game's PettingZoo AEC environment and its action/observation encoding."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pettingzoo.test import api_test, seed_test

from tabletris.engine.dice import DiceGame, DiceRules
from tabletris.envs import dice_v0
from tabletris.envs.dice_codec import DiceCodec, DiceDecider

RULE_SETS = [
    {"preset": "standard"},
    {"preset": "classic", "stuck_penalty": True, "height": 10},
    {"preset": "choose", "supply": 1, "height": 10},
    {"preset": "clear-rows", "target": 3, "width": 6, "height": 8},
]


@pytest.mark.parametrize("rules", RULE_SETS)
def test_pettingzoo_api_test(rules: dict) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the checker's style hints (dict observations) are not failures
        api_test(dice_v0.env(players=3, rules=rules), num_cycles=300)


def test_pettingzoo_seed_test() -> None:
    seed_test(lambda: dice_v0.env(players=2, rules={"preset": "standard"}), num_cycles=200)


def play_random(env, seed: int, pick_seed: int) -> tuple[dict[str, float], DiceGame]:
    """A whole game with masked random actions; returns the reward totals and the game."""
    env.reset(seed=seed)
    rng = np.random.default_rng(pick_seed)
    totals: dict[str, float] = dict.fromkeys(env.possible_agents, 0.0)
    game = env.unwrapped.game
    for agent in env.agent_iter():
        obs, reward, terminated, truncated, _info = env.last()
        totals[agent] += reward
        if terminated or truncated:
            env.step(None)
            continue
        legal = np.flatnonzero(obs["action_mask"])
        env.step(int(rng.choice(legal)))
    return totals, game


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), rules=st.sampled_from(RULE_SETS), players=st.integers(1, 4))
def test_rewards_add_up_to_the_scores(seed: int, rules: dict, players: int) -> None:
    """Rewards are score changes: over a game they sum to each seat's final score."""
    env = dice_v0.env(players=players, rules=rules)
    totals, game = play_random(env, seed, seed)
    assert game.over
    assert [totals[a] for a in env.possible_agents] == [float(s) for s in game.scores]


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), rules=st.sampled_from(RULE_SETS), turns=st.integers(0, 30))
def test_mask_is_exactly_the_engines_legal_moves(seed: int, rules: dict, turns: int) -> None:
    """Every masked action plays in the engine, and every engine placement has its action."""
    game = DiceGame(["A", "B"], rules, seed=seed)
    codec = DiceCodec(game.rules, 2)
    rng = np.random.default_rng(seed)
    for _ in range(turns):
        if game.over:
            break
        if game.roll_face is None:
            game.roll()
            continue
        choices = codec.choices(game)
        expected = {codec.encode(o.placement) for o in game.turn_options()}
        assert set(choices) == expected
        mask = codec.mask(choices)
        assert int(mask.sum()) == len(expected)
        action = int(rng.choice(sorted(choices)))
        choice = choices[action]
        assert codec.describe(action) == str(choice.placement)
        rewards = None
        if game.rules.row_reward == "choose":
            rewards = ["point"] * len(game.scoring_rows_after(choice.placement, choice.take))
        game.play(choice.placement, choice.shape, choice.take, rewards)


def test_star_face_folds_the_shape_choice_into_the_action() -> None:
    game = DiceGame(["A", "B"], {"preset": "standard"}, seed=1)
    game.roll("*")
    codec = DiceCodec(game.rules, 2)
    shapes = {c.shape for c in codec.choices(game).values()}
    assert shapes == set(game.rules.shapes)


def test_take_is_folded_in_when_the_supply_is_empty() -> None:
    rules = {"supply": 1, "garbage": [{"shape": "O", "cells": [[0, 0], [1, 0], [0, 1], [1, 1]]}]}
    game = DiceGame(["A"], rules, seed=3)
    assert game.supply[game.rules.shapes[1]] == 0  # the garbage O was the only one
    game.roll("O")
    codec = DiceCodec(game.rules, 1)
    choices = codec.choices(game)
    assert choices and all(c.take is not None for c in choices.values())
    # The lifted O may go right back where it was: its own cells are free once it is taken.
    back = [a for a, c in choices.items() if set(c.placement.cells) == {(0, 0), (1, 0), (0, 1), (1, 1)}]
    assert len(back) == 1


def test_observation_planes_show_own_and_other_stones() -> None:
    env = dice_v0.raw_env(players=2, rules={"preset": "standard"})
    env.reset(seed=5)
    first = env.agent_selection
    obs = env.observe(first)
    action = int(np.flatnonzero(obs["action_mask"])[0])
    cells = env.codec.placements[action].cells
    env.step(action)
    codec = env.codec
    mine = env.observe(first)["observation"][codec.layout["board"]].reshape(4, 20, 10)
    theirs = env.observe(env.agent_selection)["observation"][codec.layout["board"]].reshape(4, 20, 10)
    assert {(x, y) for y, x in zip(*np.nonzero(mine[0]), strict=True)} == set(cells)
    assert {(x, y) for y, x in zip(*np.nonzero(theirs[1]), strict=True)} == set(cells)
    assert not mine[1].any() and not theirs[0].any()
    # Only the agent to move has legal actions.
    assert not env.observe(first)["action_mask"].any()
    assert env.observe(env.agent_selection)["action_mask"].any()


def test_illegal_action_raise_policy_names_the_move_and_leaves_the_game() -> None:
    env = dice_v0.raw_env(players=2, illegal_action="raise")
    env.reset(seed=2)
    mask = env.observe(env.agent_selection)["action_mask"]
    bad = int(np.flatnonzero(mask == 0)[0])
    before = env.game.board.rows()
    with pytest.raises(ValueError, match="is not a legal move for roll"):
        env.step(bad)
    assert env.game.board.rows() == before and env.game.turn == 0


def test_illegal_action_replace_policy_plays_a_legal_move_and_says_so() -> None:
    env = dice_v0.raw_env(players=2, illegal_reward=-1.0)
    env.reset(seed=2)
    agent = env.agent_selection
    mask = env.observe(agent)["action_mask"]
    env.step(int(np.flatnonzero(mask == 0)[0]))
    assert env.game.turn == 1
    assert "illegal_action" in env.infos[agent]
    assert env._cumulative_rewards[agent] <= -1.0


def test_bad_configuration_is_refused_with_the_option_named() -> None:
    with pytest.raises(ValueError, match="rules.width"):
        dice_v0.env(rules={"width": 2})
    with pytest.raises(ValueError, match="illegal_action"):
        dice_v0.env(illegal_action="ignore")
    with pytest.raises(ValueError, match="players"):
        dice_v0.env(players=9)


def test_max_turns_truncates() -> None:
    env = dice_v0.env(players=2, max_turns=4)
    env.reset(seed=1)
    steps = 0
    for _agent in env.agent_iter():
        obs, _r, terminated, truncated, _ = env.last()
        if terminated or truncated:
            assert truncated and not terminated
            env.step(None)
            continue
        env.step(int(np.flatnonzero(obs["action_mask"])[0]))
        steps += 1
    assert steps == 4


def in_bounds_forms(rules: DiceRules) -> int:
    """Counted independently of the codec: every distinct form of every die shape at every
    lower-left corner that keeps it on the board."""
    total = 0
    for shape in rules.shapes:
        for form in shape.orientations(rules.orientation_mode):
            total += (rules.width - form.width + 1) * (rules.height - form.height + 1)
    return total


def test_codec_sizes_follow_the_rules() -> None:
    free = DiceCodec(DiceRules(), 2)
    assert free.n_place == in_bounds_forms(DiceRules()) == 2993
    assert free.n_actions == 2993 + 2 * 200 + 1 + 5  # PLACE, TAKE, POINT, REMOVE, TOKEN
    classic = DiceRules.from_dict({"preset": "classic"})
    rotate = DiceCodec(classic, 4)
    assert rotate.n_place == in_bounds_forms(classic)
    assert rotate.obs_size == 4 * 200 + 8 + 4 + 7 + 4 + 4 + 1 + 1
    assert rotate.image_shape == (4 + 8 + 4 + 7 + 4 + 4 + 1 + 1, 20, 10)


def test_every_place_id_is_an_in_bounds_placement_and_encodes_back() -> None:
    """The compact layout: no id is out of the board (the old 8000-id space had 63% such)."""
    codec = DiceCodec(DiceRules(), 2)
    for a, p in enumerate(codec.placements):
        assert all(0 <= x < 10 and 0 <= y < 20 for x, y in p.cells)
        assert codec.encode(p) == a
        assert codec.describe(a) == str(p)


def test_take_is_a_decision_when_several_stones_make_room() -> None:
    """Supply empty, two lowest O stones: after the PLACE id the player picks which to take."""
    o_at = lambda x: {"shape": "O", "cells": [[x, 0], [x + 1, 0], [x, 1], [x + 1, 1]]}  # noqa: E731
    game = DiceGame(["A", "B"], {"supply": 1, "garbage": [o_at(0), o_at(4)]}, seed=3)
    game.roll("O")
    codec = DiceCodec(game.rules, 2)
    decider = DiceDecider(codec, game)
    place = next(a for a in decider.legal if codec.placements[a].cells[0] == (8, 0))
    assert len(decider.legal[place]) == 2
    assert decider.apply(place) is None and decider.turn.phase == "take"
    assert set(decider.legal) == {codec.cell_id(codec.take_base, (0, 0)), codec.cell_id(codec.take_base, (4, 0))}
    choice = decider.apply(codec.cell_id(codec.take_base, (4, 0)))
    assert choice is not None and choice.take is not None and choice.take.cells[0] == (4, 0)
    assert game.board.stone_at((4, 0)) is None and game.board.stone_at((0, 0)) is not None
    assert game.board.stone_at((8, 0)) is not None


def test_choose_rewards_are_decisions_point_or_remove() -> None:
    """row_reward choose: each scoring row asks point or remove another player's stone."""
    game = DiceGame(["A", "B"], {"width": 4, "height": 8, "die": ["O"], "row_reward": "choose"}, seed=1)
    codec = DiceCodec(game.rules, 2)
    decider = DiceDecider(codec, game)
    game.roll("O")
    decider.refresh()
    decider.apply(next(a for a in decider.legal if codec.placements[a].cells[0] == (0, 0)))
    game.roll("O")
    decider.refresh()
    assert decider.apply(next(a for a in decider.legal if codec.placements[a].cells[0] == (2, 0))) is None
    assert decider.turn.phase == "reward" and decider.turn.rows == 2
    remove = codec.cell_id(codec.remove_base, (0, 0))
    assert set(decider.legal) == {codec.point_id, remove}
    # The second row's reward has nothing left to remove: the codec takes the point itself.
    choice = decider.apply(remove)
    assert choice is not None and choice.rewards is not None and choice.rewards[1] == "point"
    assert set(choice.rewards[0]) == {(0, 0), (1, 0), (0, 1), (1, 1)}
    assert game.scores == [0, 1] and game.board.stone_at((0, 0)) is None


def test_each_point_token_is_a_decision_when_the_supply_offers_a_choice() -> None:
    """tokens_from_supply (issue 11): B's O completes two rows, so two points take two tokens;
    with O and I stones left, each token's shape is B's choice, and the engine takes those."""
    game = DiceGame(["A", "B"], {"width": 4, "height": 8, "die": ["O", "I"]}, seed=1)
    codec = DiceCodec(game.rules, 2)
    decider = DiceDecider(codec, game)
    for x in (0, 2):
        game.roll("O")
        decider.refresh()
        result = decider.apply(next(a for a in decider.legal if codec.placements[a].cells[0] == (x, 0)))
        if x == 0:
            assert result is not None  # no point, no token: nothing more to ask
    assert decider.turn.phase == "token" and decider.turn.n_tokens == 2
    token = {s.value: codec.token_base + i for i, s in enumerate(codec.shapes)}
    assert set(decider.legal) == set(token.values())
    assert codec.describe(token["I"]) == "token: I"
    assert decider.apply(token["I"]) is None
    choice = decider.apply(token["O"])
    assert choice is not None and [t.value for t in choice.tokens] == ["I", "O"]
    assert [t.value for t in game.tokens[1]] == ["I", "O"] and game.scores == [0, 2]


def test_image_observation_holds_the_vectors_facts() -> None:
    env = dice_v0.raw_env(players=2)
    env.reset(seed=4)
    vector = env.observe(env.agent_selection)["observation"]
    image = env.codec.image(vector)
    assert image.shape == env.codec.image_shape
    np.testing.assert_array_equal(image[:4].reshape(-1), vector[env.codec.layout["board"]])
    face = env.codec.layout["face"]
    assert [image[4 + i, 0, 0] for i in range(face.stop - face.start)] == list(vector[face])


def test_pettingzoo_state_is_every_seats_observation() -> None:
    env = dice_v0.raw_env(players=3)
    env.reset(seed=2)
    state = env.state()
    assert env.state_space.contains(state)
    size = env.codec.obs_size
    for seat, agent in enumerate(env.possible_agents):
        part = state[seat * size : (seat + 1) * size]
        np.testing.assert_array_equal(part, env.observe(agent)["observation"])


def test_win_rewards_are_zero_until_the_end_then_the_outcome() -> None:
    env = dice_v0.env(players=2, reward="win")
    totals, game = play_random(env, 5, 5)
    expected = [1.0 if w == [i] else 0.0 if i in w else -1.0 for i, w in enumerate([game.winners()] * 2)]
    assert [totals[a] for a in env.possible_agents] == expected


def test_rgb_array_render_is_the_board_in_pixels() -> None:
    env = dice_v0.raw_env(render_mode="rgb_array")
    env.reset(seed=0)
    picture = env.render()
    assert picture.shape == (20 * 12, 10 * 12, 3) and picture.dtype == np.uint8
    env.step(int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[0]))
    assert (env.render() != picture).any()


def test_render_ansi_shows_the_board() -> None:
    env = dice_v0.raw_env(render_mode="ansi")
    env.reset(seed=0)
    text = env.render()
    assert text is not None and text.splitlines()[0] == "." * 10
    assert "die shows" in text
