"""The one turn driver: who acts, rolling, bot actions, applying, for both games."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tabletris.bots.registry import make_bot
from tabletris.engine.dice import DiceAction, DiceGame
from tabletris.engine.errors import IllegalMove
from tabletris.engine.records import record_of, replay
from tabletris.engine.tower import TowerAction, TowerGame
from tabletris.table.driver import Table


def test_dice_turn_starts_with_a_roll_and_names_the_player_to_move() -> None:
    game = DiceGame(["Ann", "Bob"], seed=4)
    table = Table(game, {1: make_bot("random", seed=1)})
    assert game.roll_face is None
    assert table.to_act() == [0]
    assert game.roll_face is not None  # the driver rolled: chance is the table's job
    assert table.humans_to_act() == [0] and table.bots_to_act() == []


def test_dice_act_refuses_the_wrong_seat_and_leaves_the_game_alone() -> None:
    game = DiceGame(["Ann", "Bob"], seed=4)
    table = Table(game)
    table.to_act()
    option = game.turn_options()[0]
    before = (game.board.rows(), game.turn, game.roll_face)
    with pytest.raises(IllegalMove, match="it is Ann's turn"):
        table.act(1, option)
    assert (game.board.rows(), game.turn, game.roll_face) == before
    events = table.act(0, option)
    assert events == [game.moves[-1].to_dict()] and table.log == events


def test_bots_play_until_a_person_must_act() -> None:
    game = DiceGame(["Ann", "Bot"], seed=9)
    table = Table(game, {1: make_bot("greedy", seed=2)})
    table.to_act()
    table.act(0, game.turn_options()[0])
    events = table.play_bots()
    assert len(events) == 1 and events[0]["player"] == 1
    assert game.over or table.humans_to_act() == [0]


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), players=st.integers(1, 4), game_name=st.sampled_from(["dice", "tower"]))
def test_a_bot_game_played_by_the_driver_replays_from_its_record(seed: int, players: int, game_name: str) -> None:
    names = [f"P{i}" for i in range(players)]
    game: DiceGame | TowerGame = DiceGame(names, seed=seed) if game_name == "dice" else TowerGame(names, seed=seed)
    table = Table(game, [make_bot("random", seed=seed + i) for i in range(players)])
    table.play_out()
    assert game.over
    assert replay(record_of(game)).summary() == game.summary()


def test_choose_rewards_are_completed_by_the_engine() -> None:
    game = DiceGame(["Ann", "Bob"], {"preset": "choose"}, seed=3)
    table = Table(game, [make_bot("random", seed=1), make_bot("random", seed=2)])
    while not game.over:
        table.play_bots(max_actions=1)
        if game.moves and game.moves[-1].place is not None:
            assert game.moves[-1].rewards is not None  # every completed row got its reward
    assert all(m.rewards is not None for m in game.moves if m.place is not None)


def test_tower_bots_submit_and_people_keep_the_round_open() -> None:
    game = TowerGame(["Ann", "Bot"], seed=5)
    table = Table(game, [None, make_bot("greedy", seed=1)])
    events = table.play_bots()
    assert [e["seat"] for e in events] == [1] and events[0]["round"] == 1
    assert table.to_act() == [0] and game.round == 1  # the round waits for Ann
    drop = game.legal_drops(0)[0]
    table.act(0, TowerAction.drop(drop))
    assert game.round == 2


def test_the_oracle_is_handed_the_game_and_others_a_view() -> None:
    seen: list[object] = []

    class Spy(type(make_bot("random"))):  # type: ignore[misc]
        def choose_tower(self, view: TowerGame) -> TowerAction:
            seen.append(view)
            return super().choose_tower(view)

    game = TowerGame(["A"], seed=1)
    Table(game, [Spy(seed=1)]).play_bot(0)
    assert seen and seen[0] is not game and seen[0].seed == 0  # a view: no seed, no deck


def test_play_out_refuses_a_table_with_people() -> None:
    with pytest.raises(ValueError, match="people at the table"):
        Table(DiceGame(["Ann", "Bob"], seed=1), {1: make_bot("random")}).play_out()


def test_a_dice_action_must_be_a_dice_action() -> None:
    table = Table(DiceGame(["Ann"], seed=1))
    table.to_act()
    with pytest.raises(TypeError, match="DiceAction"):
        table.act(0, TowerAction(hold=True))
    assert isinstance(table.game.turn_options()[0], DiceAction)
