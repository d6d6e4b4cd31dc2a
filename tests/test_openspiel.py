"""Both games as OpenSpiel Python games, checked by pyspiel's own consistency tests."""

from __future__ import annotations

import pyspiel
import pytest

import tabletris.envs.openspiel_games as osg
from tabletris.engine.options import RulesError


@pytest.mark.parametrize(
    "params",
    [
        {},
        {"players": 3, "preset": "classic", "rules": "stuck_penalty:true;height:12"},
        {"players": 2, "preset": "clear-rows", "rules": "target:3;supply:1"},
        {"players": 2, "rules": "row_reward:\"choose\";supply:1;height:10;garbage:3", "seed": 9},
    ],
)
def test_dice_random_simulation_with_serialization(params: dict) -> None:
    game = pyspiel.load_game("python_tabletris_dice", params)
    pyspiel.random_sim_test(game, num_sims=2, serialize=True, verbose=False)


def test_dice_chance_outcomes_follow_the_die() -> None:
    game = pyspiel.load_game("python_tabletris_dice", {"rules": "die:\"IIO*\""})
    state = game.new_initial_state()
    assert state.is_chance_node()
    outcomes = dict(state.chance_outcomes())
    assert [state.action_to_string(pyspiel.PlayerId.CHANCE, a) for a in outcomes] == [
        "roll I",
        "roll O",
        "roll *",
    ]
    assert list(outcomes.values()) == [0.5, 0.25, 0.25]


def test_dice_state_plays_like_the_engine() -> None:
    game = pyspiel.load_game("python_tabletris_dice", {"players": 2})
    state = game.new_initial_state()
    state.apply_action(0)  # roll I
    assert state.current_player() == 0
    legal = state.legal_actions()
    # A vertical or flat I: 7 flat positions on the floor and 10 upright ones.
    assert len(legal) == 17
    state.apply_action(legal[0])
    assert state.is_chance_node() and state.returns() == [0.0, 0.0]
    obs = state.observation_tensor(0)
    assert sum(obs[:200]) == 4  # own plane: the four cells just placed


def test_flat_rules_parameters() -> None:
    assert osg.parse_flat_rules("long", "die:IO*;stuck_penalty:true") == {
        "preset": "long",
        "die": ["I", "O", "*"],
        "stuck_penalty": True,
    }
    with pytest.raises(RulesError, match="key:value"):
        osg.parse_flat_rules("standard", "height")
    with pytest.raises(RulesError, match="rules.height"):
        pyspiel.load_game("python_tabletris_dice", {"rules": "height:2"})


@pytest.mark.parametrize(
    "params",
    [
        {},
        {"players": 3, "preset": "advanced", "seed": 4},
        {"players": 4, "rules": "start_minos:3;minos_in_box:12"},
        {"players": 1, "rules": "height:6;minos_in_box:4"},
    ],
)
def test_tower_random_simulation_with_serialization(params: dict) -> None:
    game = pyspiel.load_game("python_tabletris_tower", params)
    pyspiel.random_sim_test(game, num_sims=2, serialize=True, verbose=False)


def test_tower_deck_is_dealt_by_chance_and_hidden_until_next() -> None:
    game = pyspiel.load_game("python_tabletris_tower", {"players": 2})
    state = game.new_initial_state()
    outcomes = state.chance_outcomes()
    assert [p for _, p in outcomes] == [4 / 28] * 7
    for _ in range(4):
        state.apply_action(0)  # all four I cards
    assert 0 not in dict(state.chance_outcomes())
    rest = [1] * 4 + [2] * 4 + [3] * 4 + [4] * 4 + [5] * 4 + [6] * 3
    for a in rest:
        state.apply_action(a)
    assert state.current_player() == pyspiel.PlayerId.SIMULTANEOUS
    assert state.game.play_card.value == "I" and state.game.next_card.value == "I"
    # Two states that differ only below NEXT look the same to both players.
    other = game.new_initial_state()
    for a in [0, 0, 6, 6, 6, 5, 5, 5, 5, 4, 4, 4, 4, 3, 3, 3, 3, 2, 2, 2, 2, 1, 1, 1, 1, 0, 0]:
        other.apply_action(a)
    assert state.game.deck != other.game.deck
    for player in range(2):
        assert state.observation_tensor(player) == other.observation_tensor(player)
        assert state.observation_string(player) == other.observation_string(player)


def test_tower_simultaneous_round() -> None:
    game = pyspiel.load_game("python_tabletris_tower", {"players": 2})
    state = game.new_initial_state()
    while state.is_chance_node():
        state.apply_action(state.chance_outcomes()[0][0])
    legal = [state.legal_actions(p) for p in range(2)]
    assert all(1 in actions and 0 not in actions for actions in legal)  # hold, no wait
    state.apply_actions([legal[0][1], legal[1][1]])
    assert state.game.round == 2 and state.returns() == [float(s) for s in state.game.scores()]
