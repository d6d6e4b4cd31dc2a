"""Issue 11, the dice rules' second reading: point tokens, the two clear_rows readings, rewards
settled before clearing, and must_close. Example tests quote the rule text they play; the
hypothesis properties at the end check the rules over random games.
"""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from helpers import O_LEFT, O_RIGHT, ROW0, assert_rejected, narrow, turn
from tabletris.engine.dice import DICE_PRESETS, DiceAction, DiceGame, DiceRules
from tabletris.engine.errors import RulesError
from tabletris.engine.records import record_of, replay
from tabletris.engine.shapes import Shape, find_orientation

O_LEFT_UP = [[0, 2], [1, 2], [0, 3], [1, 3]]





# ------------------------------------------------------------ point tokens


def test_each_point_takes_a_token_out_of_the_supply() -> None:
    """Seed 000: 'If he creates a continuous row by placing a stone, he takes one piece of his color
    from the stack of pieces ... These pieces are no longer used in the game, they are only used to
    count points.' The token's shape, when not named, is the one with the most stones left."""
    game = narrow(die=["I", "O"], supply=1)  # I: 2, O: 2
    turn(game, "I", ROW0)
    assert game.scores == [1, 0]
    assert game.supply == {Shape.I: 1, Shape.O: 1}  # the I placed, an O as the token
    assert game.tokens == [[Shape.O], []]
    assert game.moves[-1].tokens == (Shape.O,)
    assert game.moves[-1].to_dict()["tokens"] == ["O"]


def test_default_token_ties_go_in_die_order() -> None:
    """rules.md 2.4: default token 'the shape with the most stones left, ties in die order'."""
    game = narrow(die=["O", "I"], supply=2)  # O: 4, I: 4
    game.roll("I")
    assert game.default_token() is Shape.O  # die order: O first, both 4
    game.play(ROW0)
    assert game.supply == {Shape.O: 3, Shape.I: 3}
    assert game.tokens[0] == [Shape.O]


def test_the_scorer_names_the_token() -> None:
    """rules.md 2.4: 'The scorer names the token's shape' [interpretation]."""
    game = narrow(die=["I", "O"], supply=1)
    turn(game, "O", O_LEFT)
    game.roll("O")
    game.play(O_RIGHT, tokens=["I", "I"])  # two rows, two tokens, both I
    assert game.supply == {Shape.I: 0, Shape.O: 0}
    assert game.tokens[1] == [Shape.I, Shape.I]
    assert game.moves[-1].to_dict()["tokens"] == ["I", "I"]


def test_token_choices_are_checked() -> None:
    """A token comes out of the supply: a shape with none left, a wrong count, or tokens while the
    option is off are refused, and nothing changes."""
    game = narrow(die=["I", "O"], supply=1)
    turn(game, "O", O_LEFT)  # O: 1 left
    game.roll("O")  # O_RIGHT scores 2 rows and empties O
    assert_rejected(game, "no O left for a token", O_RIGHT, tokens=["O", "I"])
    assert_rejected(game, "2 point tokens to take .* got 1", O_RIGHT, tokens=["I"])
    assert_rejected(game, "M is not a shape of the supply", O_RIGHT, tokens=["M", "I"])
    off = narrow(die=["I"], tokens_from_supply=False)
    off.roll("I")
    assert_rejected(off, "only taken with tokens_from_supply", ROW0, tokens=["I"])


def test_an_empty_supply_point_counts_without_a_token() -> None:
    """rules.md 2.4: 'when the supply is empty the point still counts, without a token'."""
    game = narrow(players=1, die=["I"], supply=1)
    game.roll("I")
    game.play(ROW0, tokens=[])  # the last I was placed: nothing left for the token
    assert game.scores == [1] and game.tokens == [[]] and game.supply == {Shape.I: 0}
    assert "tokens" not in game.moves[-1].to_dict()


def test_tokens_make_the_take_rule_start_sooner() -> None:
    """Seed 000 'What if you run out of stones?': tokens empty the supply, so the next I is taken
    off the board (with tokens off, the supply would still have one)."""
    for tokens, take_needed in ((True, True), (False, False)):
        game = narrow(players=1, die=["I"], supply=2, tokens_from_supply=tokens)
        turn(game, "I", ROW0)
        game.roll("I")
        assert (game.take_candidates(Shape.I) != []) is take_needed


def test_complete_fills_the_default_tokens_and_act_plays_them() -> None:
    """DiceGame.complete: a decision that names no token gets the default rule's."""
    game = narrow(die=["I", "O"], supply=1)
    game.roll("I")
    option = next(o for o in game.turn_options() if sorted(o.placement.cells) == sorted(map(tuple, ROW0)))
    completed = game.complete(option)
    assert completed.tokens == (Shape.O,)
    assert game.complete(DiceAction(option.shape, option.placement, tokens=(Shape.I,))).tokens == (Shape.I,)
    game.act(completed)
    assert game.tokens[0] == [Shape.O]


def test_a_new_game_names_tokens_from_supply_in_its_record() -> None:
    """record-format.md: 'a new game writes every option it used into its record'."""
    game = DiceGame(["Ann", "Bob"], {"preset": "standard"}, seed=3)
    assert record_of(game)["rules"] == {"preset": "standard", "tokens_from_supply": True}
    assert record_of(DiceGame(["Ann"], DiceRules(), seed=3))["rules"]["tokens_from_supply"] is True
    assert DiceRules().tokens_from_supply


def test_a_record_without_tokens_from_supply_replays_with_it_off() -> None:
    """record-format.md: 'A record that does not name tokens_from_supply replays with it off, as
    records did before the option existed'."""
    doc = {
        "format": "tabletris/1", "game": "dice", "players": ["Ann"],
        "rules": {"width": 4, "height": 6, "die": ["I"], "supply": 2},
        "moves": [{"roll": "I", "place": ROW0}],
    }
    game = replay(doc)
    assert not game.rules.tokens_from_supply
    assert game.supply == {Shape.I: 1} and game.tokens == [[]] and game.scores == [1]
    assert record_of(game)["rules"] == doc["rules"]  # the record's rules stay as written
    with_tokens = replay({**doc, "rules": {**doc["rules"], "tokens_from_supply": True}})
    assert with_tokens.supply == {Shape.I: 0} and with_tokens.tokens == [[Shape.I]]
    assert with_tokens.scores == [1]


def test_recorded_tokens_replay_and_are_checked() -> None:
    """record-format.md: `tokens` per move, optional; a wrong one is rejected naming the move."""
    game = narrow(die=["I", "O"], supply=1)
    turn(game, "O", O_LEFT)
    turn(game, "O", O_RIGHT, tokens=["I", "I"])
    doc = record_of(game)
    assert replay(doc).tokens == game.tokens
    bad = {**doc, "moves": [doc["moves"][0], {**doc["moves"][1], "tokens": ["O", "I"]}]}
    with pytest.raises(Exception, match=r"move 2 \(Bob\): tokens: the supply has no O left"):
        replay(bad)
    with pytest.raises(Exception, match=r"moves\[1\]\.tokens'?: expected a list of shape letters"):
        replay({**doc, "moves": [doc["moves"][0], {**doc["moves"][1], "tokens": "II"}]})


# -------------------------------------------------------- clear_rows readings


def test_clear_rows_true_means_cells_and_both_presets_exist() -> None:
    """rules.md house rules: `clear_rows` has two readings, `cells` (the default) and `stones`; a
    preset for each."""
    assert DiceRules(clear_rows=True).clear_rows == "cells"
    assert DiceRules.preset_named("clear-rows").clear_rows == "cells"
    assert DiceRules.preset_named("clear-stones").clear_rows == "stones"
    assert DiceRules.preset_named("clear-stones").limited_supply
    assert not DiceRules.preset_named("clear-rows").limited_supply
    assert {"clear-rows", "clear-stones", "must-close"} <= set(DICE_PRESETS)
    with pytest.raises(RulesError, match=r'rules.clear_rows: "rows": expected false, "cells" or "stones"'):
        DiceRules.from_dict({"clear_rows": "rows"})


GARBAGE_OS = [
    {"shape": "O", "cells": O_LEFT},
    {"shape": "O", "cells": [[1, 2], [2, 2], [1, 3], [2, 3]]},  # above the row, on the left O
]


@pytest.mark.parametrize("mode", ["cells", "stones"])
def test_clear_rows_readings(mode: str) -> None:
    """rules.md house rules, `clear_rows`: `cells` — 'the row's cells vanish and everything above
    moves down one row per cleared row, so stones may be cut'; `stones` — 'every stone with a cell in
    a completed row goes back to the supply whole, and nothing else moves'."""
    game = narrow(die=["O"], clear_rows=mode, garbage=GARBAGE_OS, access="free")
    turn(game, "O", O_RIGHT)
    assert game.scores == [2, 0]
    if mode == "cells":
        assert game.board.rows()[-2:] == [".OO.", ".OO."]  # fell two rows
        assert game.supply == {Shape.O: 10}  # unlimited: nothing counted
    else:
        assert game.board.rows()[-4:] == [".OO.", ".OO.", "....", "...."]  # did not move
        # 10 - 2 garbage - 1 placed - 2 tokens + 2 stones back whole = 7
        assert game.supply == {Shape.O: 7}
        assert all(len(s.cells) == 4 for s in game.board.stones.values())


def test_clear_stones_returns_a_stone_spanning_two_rows_whole() -> None:
    """`stones`: a stone with only one cell in the completed row still goes back whole."""
    game = narrow(players=1, die=["I", "O"], clear_rows="stones", access="free",
                  garbage=[{"shape": "I", "cells": [[0, 0], [0, 1], [0, 2], [0, 3]]}])
    turn(game, "O", [[1, 0], [2, 0], [1, 1], [2, 1]])
    turn(game, "I", [[3, 0], [3, 1], [3, 2], [3, 3]])  # completes rows 0 and 1
    assert game.board.stones == {}
    # I: 5 - 1 garbage - 1 placed - 1 token + 2 back = 4; O: 5 - 1 placed - 1 token + 1 back = 4
    assert game.supply == {Shape.I: 4, Shape.O: 4}
    assert game.tokens == [[Shape.O, Shape.I]]  # most left first (O 4 > I 3), then the tie: die order


# ------------------------------------------------------- rewards before clearing


def test_choose_with_clear_rows_removal_names_cells_before_the_fall() -> None:
    """rules.md house rules, `row_reward: choose`: 'Rewards are settled on the board as it stands
    right after the placement, before any row is cleared: a removal names the stone's cells before
    the fall'. (Defect: the engine wanted the cells after the fall, so a person's removal of a
    stone above a cleared row was refused.)"""
    game = narrow(die=["O"], row_reward="choose", clear_rows=True)
    turn(game, "O", O_LEFT, rewards=[])  # Ann
    turn(game, "O", O_LEFT_UP, rewards=[])  # Bob, on Ann's O
    game.roll("O")
    assert_rejected(game, "only a stone another player placed", O_RIGHT,
                    rewards=["point", {"remove": O_LEFT}])  # where Bob's O would have fallen: Ann's own
    game.play(O_RIGHT, rewards=["point", {"remove": O_LEFT_UP}])
    assert game.scores == [1, 0]
    assert game.board.stones == {}  # Bob's O removed, rows 0 and 1 cleared
    point, removed = game.moves[-1].rewards or ()
    assert point == "point" and sorted(removed) == sorted(map(tuple, O_LEFT_UP))
    assert replay(record_of(game)).board == game.board


def test_removed_stone_returns_before_the_point_token_in_row_order() -> None:
    """Rewards in row order, bottom first: a removal returns its stone to the supply, a point takes
    its token then."""
    game = narrow(die=["O"], row_reward="choose", supply=1)  # O: 2
    turn(game, "O", O_LEFT, rewards=[])
    game.roll("O")
    game.play(O_RIGHT, rewards=[{"remove": O_LEFT}, "point"])  # Bob removes Ann's O, then a point
    assert game.supply == {Shape.O: 0} and game.tokens[1] == [Shape.O]


# ---------------------------------------------------------------- must_close


def test_must_close_allows_only_placements_that_complete_a_row() -> None:
    """Seed 000: 'If possible, he places the piece so that it closes the entire row' — read as a
    duty with `must_close`."""
    game = narrow(die=["O"], must_close=True)
    turn(game, "O", O_LEFT)
    game.roll("O")
    assert game.must_close_applies()
    assert [sorted(p.cells) for p in game.legal_placements(Shape.O)] == [sorted(map(tuple, O_RIGHT))]
    assert all(sorted(o.placement.cells) == sorted(map(tuple, O_RIGHT)) for o in game.turn_options())
    assert game.placement_error(Shape.O, O_LEFT_UP) is not None
    assert "must_close" in (game.placement_error(Shape.O, O_LEFT_UP) or "")
    assert_rejected(game, r"must_close: O at .* completes no row", O_LEFT_UP)
    game.play(O_RIGHT)
    assert game.scores == [0, 2]


def test_must_close_is_advice_when_off_and_silent_when_nothing_closes() -> None:
    """`must_close` is off by default (the sentence is advice); when no placement completes a row
    every legal placement stays legal."""
    off = narrow(die=["O"])
    turn(off, "O", O_LEFT)
    off.roll("O")
    off.play(O_LEFT_UP)
    on = narrow(die=["O"], must_close=True)
    on.roll("O")
    assert not on.must_close_applies()
    assert len(on.legal_placements(Shape.O)) == 3


def test_must_close_on_a_choice_face_binds_across_the_shapes() -> None:
    """On `*` the duty covers every shape the player may name [interpretation]: an I that closes
    nothing is refused when an O would close a row."""
    columns = [[[x, y] for y in range(4)] for x in range(3)]
    game = narrow(die=["O", "I", "*"], must_close=True, width=5, height=8, access="free",
                  garbage=[{"shape": "I", "cells": c} for c in columns])
    game.roll("*")
    assert game.must_close_applies()
    assert game.legal_placements(Shape.I) == []  # no I completes a row here
    assert_rejected(game, "must_close", [[3, 0], [3, 1], [3, 2], [3, 3]], shape="I")
    assert {o.shape for o in game.turn_options()} == {Shape.O}


# ------------------------------------------------------------- properties

PROPERTY_SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])

TOKEN_VARIANTS: list[dict[str, Any]] = [
    {"width": 4, "height": 8, "supply": 1, "access": "free"},
    {"width": 5, "height": 8, "supply": 1, "die": ["I", "O", "T", "*"]},
    {"width": 4, "height": 8, "supply": 1, "access": "free", "row_reward": "choose"},
    {"width": 4, "height": 6, "supply": 1, "access": "free", "clear_rows": "stones", "target": 6},
    {"width": 4, "height": 6, "supply": 2, "access": "free", "clear_rows": "stones", "row_reward": "choose"},
    {"width": 5, "height": 8, "supply": 1, "garbage": 2, "must_close": True},
]


def _random_game(rules: dict[str, Any], players: int, seed: int) -> DiceGame:
    return DiceGame([f"P{i}" for i in range(players)], rules, seed=seed)


def _step(game: DiceGame, rng: random.Random) -> bool:
    """One random legal turn: random placement, random rewards (removals too), random tokens."""
    if game.over:
        return False
    game.roll()
    if game.over:
        return False
    options = game.turn_options()
    option = rng.choice(options)
    rewards: list[Any] | None = None
    if game.rules.row_reward == "choose":
        rewards = []
        taken = option.take.number if option.take else None
        targets = [s for s in game.rewardable_stones() if s.number != taken]
        for _ in game.scoring_rows_after(option.placement, option.take):
            if targets and rng.random() < 0.5:
                victim = targets.pop(rng.randrange(len(targets)))
                rewards.append({"remove": [list(c) for c in victim.cells]})
            else:
                rewards.append("point")
    action = game.complete(DiceAction(option.shape, option.placement, option.take,
                                      None if rewards is None else tuple(rewards)))
    tokens = action.tokens
    if tokens and rewards is None and rng.random() < 0.5:
        # Name other tokens: any shape with a stone left once the piece is placed.
        left = dict(game.supply)
        if option.take is None:
            left[option.shape] -= 1
        named: list[Shape] = []
        for _ in tokens:
            shape = rng.choice([s for s, n in left.items() if n > 0])
            named.append(shape)
            left[shape] -= 1
        tokens = tuple(named)
    game.play(option.placement, option.shape if game.roll_face == "*" else None, option.take,
              rewards, tokens)
    return True


games = st.fixed_dictionaries({
    "rules": st.sampled_from(TOKEN_VARIANTS),
    "players": st.integers(1, 4),
    "seed": st.integers(0, 2**32 - 1),
    "choices": st.integers(0, 2**32 - 1),
})


@PROPERTY_SETTINGS
@given(games)
def test_tokens_never_make_the_supply_negative_and_stones_are_conserved(g: dict[str, Any]) -> None:
    """Tokens come out of a finite supply: it never goes below zero, and every stone is in the
    supply, on the board, or a token (stones mode returns whole stones; removals return them)."""
    game = _random_game(g["rules"], g["players"], g["seed"])
    rng = random.Random(g["choices"])
    total = sum(game.supply.values()) + len(game.board.stones)
    for _ in range(200):
        if not _step(game, rng):
            break
        assert min(game.supply.values()) >= 0
        assert sum(game.supply.values()) + len(game.board.stones) + sum(map(len, game.tokens)) == total
        for seat, mine in enumerate(game.tokens):
            assert len(mine) <= game.scores[seat]  # a token per point at most
    assert replay(record_of(game)).summary() == game.summary()


@PROPERTY_SETTINGS
@given(games)
def test_score_is_points_and_stones_mode_never_cuts_a_stone(g: dict[str, Any]) -> None:
    """Tokens only count points: a seat's score is its points (rows scored, less the rows it traded
    for a removal); with `stones`, every stone on the board is whole (4 cells of its shape)."""
    game = _random_game(g["rules"], g["players"], g["seed"])
    rng = random.Random(g["choices"])
    points = [0] * len(game.players)
    for _ in range(200):
        before = len(game.moves)
        if not _step(game, rng):
            break
        for move in game.moves[before:]:
            if move.place is None:
                continue
            if move.rewards is None:
                points[move.player] = game.rows_completed[move.player]
            else:
                points[move.player] += sum(1 for r in move.rewards if r == "point")
        assert game.scores == points
        if game.rules.clear_rows == "stones":
            for stone in game.board.stones.values():
                assert len(stone.cells) == 4
                assert find_orientation(stone.shape, stone.cells, "free") is not None


@PROPERTY_SETTINGS
@given(games, st.booleans())
def test_must_close_options_are_the_closing_ones(g: dict[str, Any], must: bool) -> None:
    """`must_close`: its options are a subset of all options, and each completes a row whenever
    any option does."""
    rules = {**g["rules"], "must_close": must}
    game = _random_game(rules, g["players"], g["seed"])
    free = DiceGame(list(game.players), {**rules, "must_close": False}, seed=g["seed"])
    rng = random.Random(g["choices"])
    for _ in range(40):
        if game.over:
            break
        face = game.rng.choice(game.rules.die)
        game.roll(face)
        free.roll(face)
        if game.over:
            assert free.over
            break
        every = free.turn_options()
        mine = game.turn_options()
        key = lambda o: (o.shape, tuple(sorted(o.placement.cells)), o.take.number if o.take else None)  # noqa: E731
        assert {key(o) for o in mine} <= {key(o) for o in every}
        closing = [o for o in every if _completes(free, o)]
        if must and closing:
            assert mine and all(_completes(free, o) for o in mine)
            assert {key(o) for o in mine} == {key(o) for o in every if _completes(free, o)}
        else:
            assert {key(o) for o in mine} == {key(o) for o in every}
        option = rng.choice(mine)
        action = game.complete(DiceAction(option.shape, option.placement, option.take))
        game.act(action)
        free.act(action)


def _completes(game: DiceGame, option: DiceAction) -> bool:
    """Plain check: after the take and the placement, a row the placement touches is full."""
    filled = {(x, y) for s in game.board.stones.values() if option.take is None or s.number != option.take.number
              for x, y in s.cells}
    filled |= set(option.placement.cells)
    return any(all((x, y) in filled for x in range(game.board.width)) for _, y in option.placement.cells)


def test_the_expert_chooses_tokens_to_starve_the_next_player() -> None:
    """Bots choose tokens with purpose: the expert names a token the next player needs (a shape
    they could complete a row with), where the default rule would take the most plentiful one."""
    from tabletris.bots.dice_eval import shape_outlook
    from tabletris.bots.registry import make_bot
    from tabletris.table.driver import Table

    game = DiceGame(["A", "B"], {"preset": "standard"}, seed=0)
    table = Table(game, [make_bot("expert", seed=1), make_bot("greedy", seed=2)])
    chosen: list[tuple[tuple[Shape, ...], tuple[Shape, ...], int]] = []
    while not game.over and len(chosen) < 3:
        for seat in table.to_act():
            action = table.bot_action(seat)
            if seat == 0 and action.tokens:
                default = game.complete(DiceAction(action.shape, action.placement, action.take, action.rewards)).tokens
                assert default is not None
                after = game.view()
                after.act(action)
                need = shape_outlook(after, action.tokens[0], (1 << after.board.height) - 1 & ~after.scored_rows)
                chosen.append((action.tokens, default, need))
            table.act(seat, action)
    assert chosen, "the expert scored no point in this game"
    starved = [c for c in chosen if c[0] != c[1]]
    assert starved, f"the expert always took the default tokens: {chosen}"
    assert all(need >= 1 for _, _, need in starved)  # each starved shape could complete a row for B


@pytest.mark.parametrize("mode", ["cells", "stones"])
def test_the_bots_measure_the_board_each_clearing_reading_leaves(mode: str) -> None:
    """The bots' immediate board cost after a clearing placement is the cost of the board the engine
    really leaves: with `stones` whole stones leave and nothing falls."""
    from tabletris.bots.dice_eval import immediate
    from tabletris.bots.heuristics import DEFAULT_WEIGHTS, features_of

    game = narrow(die=["O"], clear_rows=mode, garbage=GARBAGE_OS, access="free")
    game.roll("O")
    option = next(o for o in game.turn_options() if sorted(o.placement.cells) == sorted(map(tuple, O_RIGHT)))
    after = game.view()
    after.act(option)
    board = after.board
    assert immediate(game, option).cost == DEFAULT_WEIGHTS.cost(features_of(board.occupied, board.width, board.height))
