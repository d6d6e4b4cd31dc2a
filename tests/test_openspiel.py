"""Both games as OpenSpiel Python games, checked by pyspiel's own consistency tests."""

from __future__ import annotations

import numpy as np
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


def deal(state: pyspiel.State, cards: list[int]) -> None:
    for card in cards:
        assert state.is_chance_node()
        state.apply_action(card)


def test_tower_cards_are_dealt_one_at_a_time_and_never_held_ahead() -> None:
    """PLAY and NEXT are dealt before the first round, then one card after each round; the
    state never holds a card below NEXT (the old state dealt all 27 up front)."""
    game = pyspiel.load_game("python_tabletris_tower", {"players": 2})
    state = game.new_initial_state()
    assert [p for _, p in state.chance_outcomes()] == [4 / 28] * 7
    deal(state, [0, 0])  # PLAY I, NEXT I
    assert state.current_player() == pyspiel.PlayerId.SIMULTANEOUS
    assert state.game.play_card.value == "I" and state.game.next_card.value == "I"
    assert len(state.game.dealt()) == 2 and state.game.deck_left == 26
    assert dict(state.chance_outcomes()) == {i: (4 if i else 2) / 26 for i in range(7)}
    legal = [state.legal_actions(p) for p in range(2)]
    state.apply_actions([legal[0][1], legal[1][1]])
    assert state.is_chance_node() and state.game.round == 2 and state.game.next_card is None
    deal(state, [6])
    assert state.game.next_card.value == "L" and len(state.game.dealt()) == 3
    assert not state.is_chance_node()


def test_tower_hidden_cards_do_not_exist_so_observations_cannot_leak_them() -> None:
    game = pyspiel.load_game("python_tabletris_tower", {"players": 2})
    one, two = game.new_initial_state(), game.new_initial_state()
    deal(one, [0, 1])
    deal(two, [0, 1])
    for player in range(2):
        assert one.observation_tensor(player) == two.observation_tensor(player)
        assert one.information_state_string(player) == two.information_state_string(player)


def test_tower_simultaneous_round() -> None:
    game = pyspiel.load_game("python_tabletris_tower", {"players": 2})
    state = game.new_initial_state()
    while state.is_chance_node():
        state.apply_action(state.chance_outcomes()[0][0])
    legal = [state.legal_actions(p) for p in range(2)]
    assert all(1 in actions and 0 not in actions for actions in legal)  # hold, no wait
    state.apply_actions([legal[0][1], legal[1][1]])
    assert state.game.round == 2 and state.returns() == [float(s) for s in state.game.scores()]


# ------------------------------------------------------------- stock search


def test_stock_mcts_refuses_the_rewards_form_and_plays_the_terminal_form() -> None:
    from open_spiel.python.algorithms import mcts

    evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=np.random.RandomState(1))
    with pytest.raises(ValueError, match="terminal rewards"):
        mcts.MCTSBot(pyspiel.load_game("python_tabletris_dice"), 2, 4, evaluator)
    game = pyspiel.load_game("python_tabletris_dice", {"terminal_rewards": True, "returns": "win", "rules": "height:8"})
    assert game.get_type().reward_model == pyspiel.GameType.RewardModel.TERMINAL
    assert game.get_type().utility == pyspiel.GameType.Utility.ZERO_SUM
    bot = mcts.MCTSBot(game, 2, 8, evaluator, random_state=np.random.RandomState(2))
    state = game.new_initial_state()
    moves = 0
    while not state.is_terminal() and moves < 4:
        if state.is_chance_node():
            state.apply_action(state.chance_outcomes()[0][0])
            continue
        action = bot.step(state)
        assert action in state.legal_actions()
        state.apply_action(action)
        moves += 1
    assert moves == 4 and state.rewards() == [0.0, 0.0]


def play_to_end(state: pyspiel.State, rng: np.random.RandomState) -> pyspiel.State:
    while not state.is_terminal():
        if state.is_chance_node():
            actions, probs = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(int(rng.choice(actions, p=probs)))
        else:
            state.apply_action(int(rng.choice(state.legal_actions())))
    return state


@pytest.mark.parametrize("returns", ["score", "difference", "win"])
def test_terminal_returns_forms(returns: str) -> None:
    game = pyspiel.load_game("python_tabletris_dice", {"terminal_rewards": True, "returns": returns, "rules": "height:6"})
    state = play_to_end(game.new_initial_state(), np.random.RandomState(3))
    scores, winners = state.game.scores, state.game.winners()
    expected = {
        "score": [float(s) for s in scores],
        "difference": [float(scores[0] - scores[1]), float(scores[1] - scores[0])],
        "win": [1.0 if winners == [i] else 0.0 if i in winners else -1.0 for i in range(2)],
    }[returns]
    assert state.returns() == expected == state.rewards()


TURN_BASED = {"players": 2, "turn_based": True, "terminal_rewards": True, "returns": "win"}


def test_turn_based_tower_passes_random_simulation() -> None:
    for params in (TURN_BASED, {"players": 3, "turn_based": True, "rules": "start_minos:2"}):
        game = pyspiel.load_game("python_tabletris_tower", params)
        assert game.get_type().dynamics == pyspiel.GameType.Dynamics.SEQUENTIAL
        pyspiel.random_sim_test(game, num_sims=2, serialize=True, verbose=False)


def test_turn_based_round_hides_earlier_choices_and_resampling_keeps_the_infostate() -> None:
    game = pyspiel.load_game("python_tabletris_tower", TURN_BASED)
    state = game.new_initial_state()
    deal(state, [2, 3])
    assert state.current_player() == 0 and 0 not in state.legal_actions()  # no WAIT
    before = state.information_state_string(1)
    state.apply_action(state.legal_actions()[-1])  # seat 0 drops (or takes a mino first)
    while state.current_player() == 0:
        state.apply_action(state.legal_actions()[-1])
    assert state.current_player() == 1
    after = state.information_state_string(1)
    assert after != before and after.endswith("chosen 10")  # seat 1 knows that, not what
    sampler = np.random.RandomState(5).random_sample
    seen = set()
    for _ in range(12):
        other = state.resample_from_infostate(1, sampler)
        assert other.current_player() == 1
        assert other.information_state_string(1) == after
        assert other.legal_actions() == state.legal_actions()
        seen.add(str(other._round_moves))
    assert len(seen) > 1  # seat 0's hidden choice is really redrawn


def test_stock_ismcts_plays_the_turn_based_tower_game() -> None:
    from open_spiel.python.algorithms import ismcts, mcts

    game = pyspiel.load_game("python_tabletris_tower", TURN_BASED)
    rng = np.random.RandomState(4)
    evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=rng)
    bot = ismcts.ISMCTSBot(game, evaluator, uct_c=2.0, max_simulations=10, random_state=rng)
    state = game.new_initial_state()
    moves = 0
    while not state.is_terminal() and moves < 6:
        if state.is_chance_node():
            actions, probs = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(int(rng.choice(actions, p=probs)))
            continue
        action = bot.step(state)
        assert action in state.legal_actions()
        state.apply_action(action)
        moves += 1
    assert moves == 6
