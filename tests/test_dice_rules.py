"""rules.md section 2, the dice game: one example test per rule and house rule.

Positions are set up the way a table would: by playing moves, or with listed ``garbage`` stones
drawn as pictures (``garbage_from_rows``). Each test's docstring quotes the rule it checks.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from helpers import (
    O_LEFT,
    O_RIGHT,
    ROW0,
    ROW1,
    assert_rejected,
    garbage_from_rows,
    narrow,
    play_random_game,
    state_of,
    turn,
)
from tabletris.engine.board import Stone
from tabletris.engine.dice import DICE_PRESETS, DiceGame, DiceMatch, DiceRules
from tabletris.engine.dice_rules import DEFAULT_DIE, RULE_HELP
from tabletris.engine.errors import IllegalMove
from tabletris.engine.options import RulesError
from tabletris.engine.records import record_of
from tabletris.engine.shapes import Shape

# ----------------------------------------------------------------- setup


def test_standard_setup() -> None:
    """§2 Setup: board 10x20; seat 0 starts; §2 Pieces: die I O T S L *, free orientation, slide."""
    game = DiceGame(["Ann", "Bob"], seed=3)
    assert (game.board.width, game.board.height) == (10, 20)
    assert game.to_move == 0 and game.player_name == "Ann"
    assert game.rules.die == ("I", "O", "T", "S", "L", "*") == DEFAULT_DIE
    assert game.rules.orientation == "free" and game.rules.access == "slide"
    assert game.scores == [0, 0] and not game.over and game.roll_face is None


@pytest.mark.parametrize("count", [1, 8])
def test_player_count_range_accepted(count: int) -> None:
    """§2 Setup: 2-4 players is the intended range; the engine accepts 1-8."""
    game = DiceGame([f"P{i}" for i in range(count)], seed=1)
    assert game.player_count == count


@pytest.mark.parametrize("names", [[], [f"P{i}" for i in range(9)], ["Ann", " "]])
def test_player_count_or_names_out_of_range_rejected(names: list[str]) -> None:
    """§2 Setup: 1-8 players, each with a name; anything else is an error naming `players`."""
    with pytest.raises(RulesError, match="players"):
        DiceGame(names, seed=1)


# ------------------------------------------------------------- the die


def test_rolls_come_from_the_die_faces() -> None:
    """§2 Pieces: die faces are an option; every roll is one of them."""
    game = DiceGame(["Ann"], {"die": ["I", "Z"]}, seed=5)
    faces = set()
    for _ in range(40):
        faces.add(game.roll())
        if game.over:
            break
        option = game.turn_options()[0]
        game.play(option.placement, take=option.take)
    assert faces <= {"I", "Z"}
    assert game.rules.shapes == (Shape.I, Shape.Z)


def test_star_lets_the_player_name_a_shape() -> None:
    """§2 A turn, 1: 'Roll the die. On * the player names a shape' (any shape on the die)."""
    game = DiceGame(["Ann", "Bob"], seed=2)
    game.roll("*")
    assert game.shapes_for_roll() == (Shape.I, Shape.O, Shape.T, Shape.S, Shape.L)
    assert_rejected(game, r"the die shows \*: name one of I O T S L", O_LEFT)
    assert_rejected(
        game, r"\* names one of I O T S L, not Z", [[0, 1], [1, 1], [1, 0], [2, 0]], shape="Z"
    )
    assert_rejected(game, "unknown shape 'Q'", O_LEFT, shape="Q")
    move = game.play(O_LEFT, shape="O")
    assert move.shape is Shape.O and move.roll == "*"
    assert game.board.stone_at((0, 0)).shape is Shape.O  # type: ignore[union-attr]


def test_rolled_face_fixes_the_shape() -> None:
    """§2 A turn: the die names the piece; naming another shape on a plain face is rejected."""
    game = DiceGame(["Ann", "Bob"], seed=2)
    game.roll("O")
    assert_rejected(game, "the die shows O, not T", O_LEFT, shape="T")
    assert_rejected(game, "is not the shape of an O", [[0, 0], [1, 0], [2, 0], [1, 1]])
    game.play(O_LEFT, shape="O")


def test_roll_of_a_face_not_on_the_die_is_rejected_and_changes_nothing() -> None:
    """§2 Pieces: the die's faces; a roll naming another face is an error that changes nothing."""
    game = DiceGame(["Ann", "Bob"], seed=2)
    twin = DiceGame(["Ann", "Bob"], seed=2)
    with pytest.raises(IllegalMove, match="'Z' is not a face of the die"):
        game.roll("Z")
    assert game.roll_face is None
    assert game.roll() == twin.roll()


def test_turn_order_roll_then_play(two_player_game: DiceGame) -> None:
    """§2 A turn: roll, then place; the next seat plays. Out-of-order actions are rejected."""
    game = two_player_game
    with pytest.raises(IllegalMove, match="roll the die first"):
        game.play(O_LEFT)
    game.roll("O")
    with pytest.raises(IllegalMove, match="already shows O"):
        game.roll()
    game.play(O_LEFT)
    assert game.to_move == 1 and game.roll_face is None and game.turn == 1


# ------------------------------------------------------------- the supply


def test_shared_supply_five_per_shape_per_player() -> None:
    """§2 Pieces: the shared supply holds 5 stones of each of the five shapes per player."""
    game = DiceGame(["Ann", "Bob", "Cid"], seed=1)
    assert game.supply == {s: 15 for s in (Shape.I, Shape.O, Shape.T, Shape.S, Shape.L)}
    turn(game, "O", O_LEFT)
    turn(game, "O", O_RIGHT)
    assert game.supply[Shape.O] == 13  # both players drew from the one shared supply
    assert game.supply[Shape.I] == 15


def test_supply_is_an_option() -> None:
    """§2 Pieces: 'Die faces and supply are options.'"""
    game = DiceGame(["Ann", "Bob"], {"supply": 2, "die": ["T", "*"]}, seed=1)
    assert game.supply == {Shape.T: 4}


def test_empty_supply_requires_a_take() -> None:
    """§2 A turn, 2: with no stone of the shape in the supply the player takes one off the board."""
    game = narrow(supply=1, die=["O"])
    turn(game, "O", O_LEFT)
    turn(game, "O", [[2, 0], [3, 0], [2, 1], [3, 1]])
    assert game.supply[Shape.O] == 0
    game.roll("O")
    assert_rejected(
        game,
        r"the supply has no O left: take one from the lowest rows",
        [[0, 2], [1, 2], [0, 3], [1, 3]],
    )
    game.play([[0, 2], [1, 2], [0, 3], [1, 3]], take=O_RIGHT)
    assert game.board.stone_at((3, 0)) is None
    assert game.supply[Shape.O] == 0


def test_take_is_rejected_while_the_supply_has_the_shape() -> None:
    """§2 A turn, 2: a stone is taken only 'if the supply has no stone of that shape'."""
    game = narrow()
    turn(game, "O", O_LEFT)
    game.roll("O")
    assert_rejected(game, "the supply still has O: there is nothing to take", O_RIGHT, take=O_LEFT)


def test_take_from_the_lowest_rows_only() -> None:
    """§2 A turn, 2: 'one of the stones of that shape whose lowest cell is lowest' [interpretation]."""
    game = narrow(players=1, supply=3, die=["O", "I"])
    turn(game, "O", [[0, 0], [1, 0], [0, 1], [1, 1]])  # lowest row 0
    turn(game, "I", [[2, 0], [2, 1], [2, 2], [2, 3]])
    turn(game, "O", [[0, 2], [1, 2], [0, 3], [1, 3]])  # lowest row 2
    turn(game, "O", [[0, 4], [1, 4], [0, 5], [1, 5]])  # lowest row 4
    game.roll("O")
    assert [s.cells for s in game.take_candidates(Shape.O)] == [((0, 0), (0, 1), (1, 0), (1, 1))]
    assert_rejected(
        game,
        r"cannot take \[\[0,2\],\[1,2\],\[0,3\],\[1,3\]\]: not one of the lowest O stones",
        [[2, 4], [3, 4], [2, 5], [3, 5]],
        take=[[0, 2], [1, 2], [0, 3], [1, 3]],
    )
    # Only stones of the rolled shape may be taken, however low they lie.
    assert_rejected(
        game,
        "not one of the lowest O stones",
        [[2, 4], [3, 4], [2, 5], [3, 5]],
        take=[[2, 0], [2, 1], [2, 2], [2, 3]],
    )
    game.play([[2, 4], [3, 4], [2, 5], [3, 5]], take=[[1, 1], [0, 0], [1, 0], [0, 1]])
    assert game.board.stone_at((0, 0)) is None


def test_take_lowest_offers_every_stone_tied_for_lowest() -> None:
    """§2 A turn, 2: when several stones share the lowest row, any one of them may be taken."""
    game = narrow(supply=1, die=["O"])
    turn(game, "O", O_LEFT)
    turn(game, "O", O_RIGHT)
    game.roll("O")
    candidates = game.take_candidates(Shape.O)
    assert [s.owner for s in candidates] == [0, 1]
    assert game.take_options(Shape.O) == candidates


def test_take_any_option() -> None:
    """§2 option `take: any`: with an empty supply, any stone of that shape may be taken."""
    game = narrow(players=1, supply=2, die=["O", "I"], take="any")
    turn(game, "O", O_LEFT)
    turn(game, "O", [[0, 2], [1, 2], [0, 3], [1, 3]])
    game.roll("O")
    assert len(game.take_candidates(Shape.O)) == 2
    game.play([[2, 0], [3, 0], [2, 1], [3, 1]], take=[[0, 2], [1, 2], [0, 3], [1, 3]])
    assert game.board.stone_at((0, 2)) is None and game.board.stone_at((0, 0)) is not None


def test_removing_a_stone_never_takes_points_away() -> None:
    """§2 A turn, 2: 'Removing a stone never takes points away. No gravity: nothing moves.'"""
    game = narrow(supply=1, die=["O"])
    turn(game, "O", O_LEFT)
    turn(game, "O", O_RIGHT)
    assert game.scores == [0, 2]
    game.roll("O")
    anns = game.board.stone_at((0, 0))
    game.play([[0, 2], [1, 2], [0, 3], [1, 3]], take=O_RIGHT)
    assert game.scores == [0, 2]
    assert game.board.complete_rows() == []
    assert game.board.stone_at((0, 0)) == anns  # nothing moved
    assert game.board.rows()[-2:] == ["OO..", "OO.."]  # nothing fell into the hole


# --------------------------------------------------------------- scoring


def test_a_completed_row_scores_one_point_for_the_placer() -> None:
    """§2 A turn, 4: every row that becomes complete through this placement scores 1 point for the placer."""
    game = narrow(die=["I", "O"])
    turn(game, "O", O_LEFT)
    assert game.scores == [0, 0]
    turn(game, "I", [[2, 0], [2, 1], [2, 2], [2, 3]])
    assert game.scores == [0, 0]
    turn(game, "I", [[3, 0], [3, 1], [3, 2], [3, 3]])
    assert game.scores == [2, 0]  # Ann placed the last I: rows 0 and 1 are hers
    assert game.rows_completed == [2, 0]


def test_multi_row_completion_scores_every_row() -> None:
    """§2 A turn, 4: every row completed by one placement scores (an O can complete two)."""
    game = narrow(die=["O"])
    turn(game, "O", O_LEFT)
    turn(game, "O", O_RIGHT)
    assert game.scores == [0, 2]
    assert game.rows_completed == [0, 2]


def test_scoring_rows_after_predicts_the_points() -> None:
    """§2 A turn, 4: the rows a placement would score, asked before playing it."""
    game = narrow(die=["O"])
    turn(game, "O", O_LEFT)
    game.roll("O")
    placement = game.board.validate(Shape.O, O_RIGHT, "free", "slide")
    assert game.scoring_rows_after(placement) == [0, 1]
    game.play(placement)
    assert game.scores == [0, 2]


def test_each_row_scores_once_per_game() -> None:
    """§2 A turn, 4: 'Each row scores once per game: a row reopened by a removal and completed again
    scores nothing' [interpretation]."""
    game = narrow(supply=1, die=["O"])
    turn(game, "O", O_LEFT)
    turn(game, "O", O_RIGHT)
    assert game.scores == [0, 2]
    game.roll("O")
    game.play(O_RIGHT, take=O_RIGHT)  # Ann lifts Bob's O and puts it straight back
    assert game.board.complete_rows() == [0, 1]
    assert game.scores == [0, 2]
    assert game.rows_completed == [0, 2]


def test_rescore_reopened_option() -> None:
    """§2 A turn, 4: option `rescore_reopened`: a reopened row scores again when completed again."""
    game = narrow(supply=1, die=["O"], rescore_reopened=True)
    turn(game, "O", O_LEFT)
    turn(game, "O", O_RIGHT)
    game.roll("O")
    game.play(O_RIGHT, take=O_RIGHT)
    assert game.scores == [2, 2]


def test_equal_points_share_the_win() -> None:
    """§2 End: 'Most points wins; equal points share the win.'"""
    game = DiceGame(["Ann", "Bob", "Cid"], {"supply": 0}, seed=1)
    assert game.winners() == []
    game.roll("O")
    assert game.over
    assert game.winners() == [0, 1, 2]
    assert game.summary()["winners"] == ["Ann", "Bob", "Cid"]


def test_most_points_wins() -> None:
    """§2 End: most points wins."""
    game = narrow(die=["O", "I"], height=4)
    turn(game, "O", O_LEFT)
    turn(game, "O", O_RIGHT)
    turn(game, "O", [[0, 2], [1, 2], [0, 3], [1, 3]])
    turn(game, "O", [[2, 2], [3, 2], [2, 3], [3, 3]])
    game.roll("I")
    assert game.over
    assert game.scores == [0, 4] and game.winners() == [1]
    assert game.summary()["winners"] == ["Bob"]


# ------------------------------------------------------------------- end


FULL_BUT_TOP_ROW = ["....", "IIII", "iiii", "IIII"]


def test_game_ends_at_once_when_the_rolled_shape_cannot_be_placed() -> None:
    """§2 End: 'When a player rolls a shape that cannot be placed anywhere ... the game ends at once.'"""
    game = narrow(die=["I", "O"], height=4, garbage=garbage_from_rows(FULL_BUT_TOP_ROW))
    game.roll("O")
    assert game.over and game.stuck == 0
    assert game.roll_face == "O" and game.turn == 1
    assert game.moves[-1].place is None
    with pytest.raises(IllegalMove, match="the game is over"):
        game.play(ROW1)
    with pytest.raises(IllegalMove, match="the game is over"):
        game.roll()


def test_game_goes_on_when_the_rolled_shape_fits() -> None:
    """§2 End: only a roll that cannot be placed ends the game (the I still fits the top row)."""
    game = narrow(die=["I", "O"], height=4, garbage=garbage_from_rows(FULL_BUT_TOP_ROW))
    game.roll("I")
    assert not game.over
    assert [p.cells for p in game.legal_placements(Shape.I)] == [((0, 3), (1, 3), (2, 3), (3, 3))]


def test_star_ends_only_when_no_shape_can_be_placed() -> None:
    """§2 End: 'On * the game ends only when none of the shapes can be placed.'"""
    game = narrow(die=["I", "O", "*"], height=4, garbage=garbage_from_rows(FULL_BUT_TOP_ROW))
    game.roll("*")
    assert not game.over
    assert_rejected(game, "O ", [[0, 3], [1, 3], [0, 4], [1, 4]], shape="O")
    game.play([[0, 3], [1, 3], [2, 3], [3, 3]], shape="I")
    game.roll("*")
    assert game.over and game.stuck == 1


def test_empty_supply_and_no_stone_to_take_ends_the_game() -> None:
    """§2 End: with no stone in the supply and none of that shape on the board, it cannot be placed."""
    game = DiceGame(["Ann", "Bob"], {"supply": 0}, seed=4)
    game.roll("T")
    assert game.over and game.stuck == 0


HOLES_UNDER_O = ["OOoo", "OOoo", "ooOO", "ooOO"]


def test_a_placement_possible_after_a_take_does_not_end_the_game() -> None:
    """§2 End: the game ends 'after any removal that step 2 allows, if one would make a placement
    possible': a full board with an O to take is not the end."""
    # Four O garbage stones fill the 4x4 board; the supply (4) went into them.
    rules = {"width": 4, "height": 4, "die": ["O"], "supply": 4, "take": "any"}
    game = DiceGame(["Ann"], {**rules, "garbage": garbage_from_rows(HOLES_UNDER_O)}, seed=1)
    assert game.supply[Shape.O] == 0 and len(game.board.stones) == 4
    game.roll("O")
    assert not game.over
    assert {s.lowest_row for s in game.take_candidates(Shape.O)} == {0, 2}
    assert all(option.take is not None for option in game.turn_options())


def test_only_the_allowed_takes_count_for_the_end() -> None:
    """§2 End + A turn, 2: if only taking a higher stone would make room, `take: lowest` ends the game.

    Taking a bottom O leaves a hole covered by the O above it, which no slide reaches.
    """
    rules = {"width": 4, "height": 4, "die": ["O"], "supply": 4}
    garbage = garbage_from_rows(HOLES_UNDER_O)
    lowest = DiceGame(["Ann"], {**rules, "garbage": garbage}, seed=1)
    lowest.roll("O")
    assert lowest.over
    free_access = DiceGame(["Ann"], {**rules, "garbage": garbage, "access": "free"}, seed=1)
    free_access.roll("O")
    assert not free_access.over  # with access free the bottom hole may be filled


def test_stuck_penalty() -> None:
    """House rule `stuck_penalty`: the player who cannot place loses 1 point."""
    game = narrow(
        die=["I", "O"], height=4, stuck_penalty=True, garbage=garbage_from_rows(FULL_BUT_TOP_ROW)
    )
    turn(game, "I", [[0, 3], [1, 3], [2, 3], [3, 3]])
    game.roll("O")
    assert game.over and game.stuck == 1
    assert game.scores == [1, -1]
    plain = narrow(die=["I", "O"], height=4, garbage=garbage_from_rows(FULL_BUT_TOP_ROW))
    plain.roll("O")
    assert plain.scores == [0, 0]


# ------------------------------------------------------------ house rules


def test_long_board() -> None:
    """House rule `height`: an extra-long board (preset `long`: 10x30)."""
    game = DiceGame(["Ann", "Bob"], {"preset": "long"}, seed=1)
    assert (game.board.width, game.board.height) == (10, 30)
    assert len(game.summary()["rows"]) == 30
    custom = DiceGame(["Ann"], {"height": 40}, seed=1)
    assert custom.board.height == 40


def test_clear_rows_removes_rows_and_cells_above_fall() -> None:
    """House rule `clear_rows`: completed rows are removed and the rows above move down, cell by cell."""
    game = narrow(die=["I", "O"], clear_rows=True)
    turn(game, "O", O_LEFT)
    turn(game, "I", [[2, 0], [2, 1], [2, 2], [2, 3]])
    turn(game, "I", [[3, 0], [3, 1], [3, 2], [3, 3]])
    assert game.scores == [2, 0]
    assert game.board.rows() == ["....", "....", "....", "....", "..II", "..II"]
    assert game.board.complete_rows() == []


def test_clear_rows_ends_at_the_target() -> None:
    """House rule `clear_rows` with `target`: the game ends when a player reaches the target."""
    game = narrow(die=["I"], clear_rows=True, target=2)
    turn(game, "I", ROW0)
    turn(game, "I", ROW0)
    assert not game.over and game.scores == [1, 1]
    turn(game, "I", ROW0)
    assert game.over and game.scores == [2, 1] and game.winners() == [0]
    assert game.stuck is None


def test_clear_rows_supply_is_unlimited() -> None:
    """House rule `clear_rows`: 'The supply is unlimited in this variant' [interpretation]."""
    game = narrow(players=1, die=["I"], clear_rows=True, supply=0)
    for _ in range(5):
        turn(game, "I", ROW0)
    assert game.scores == [5] and not game.over
    assert game.take_candidates(Shape.I) == []


def test_clear_rows_preset() -> None:
    """record-format.md: preset `clear-rows` is `clear_rows` with target 20."""
    rules = DiceRules.preset_named("clear-rows")
    assert rules.clear_rows and rules.target == 20 and not rules.limited_supply


def test_row_reward_choose_point_or_remove() -> None:
    """House rule `row_reward: choose`: for each completed row the player takes the point or removes
    any one stone that another player placed."""
    game = narrow(die=["I", "O"], row_reward="choose")
    bob_i = [[0, 2], [0, 3], [0, 4], [0, 5]]
    turn(game, "O", O_LEFT)  # Ann
    turn(game, "I", bob_i, rewards=[])  # Bob completes nothing: no rewards
    game.roll("O")  # Ann completes rows 0 and 1
    game.play(O_RIGHT, rewards=["point", {"remove": bob_i}])
    assert game.scores == [1, 0]
    assert game.rows_completed == [2, 0]
    assert game.board.stone_at((0, 2)) is None
    assert game.moves[-1].rewards == ("point", ((0, 2), (0, 3), (0, 4), (0, 5)))


def test_row_reward_choose_rejections() -> None:
    """House rule `row_reward: choose`: one reward per completed row; only another player's stone,
    never one's own, never garbage."""
    game = narrow(
        die=["I", "O"],
        row_reward="choose",
        height=8,
        access="free",
        garbage=[{"shape": "I", "cells": [[0, 7], [1, 7], [2, 7], [3, 7]]}],
    )
    bobs_o = [[0, 2], [1, 2], [0, 3], [1, 3]]
    anns_o = [[0, 4], [1, 4], [0, 5], [1, 5]]
    garbage_i = [[0, 7], [1, 7], [2, 7], [3, 7]]
    turn(game, "O", O_LEFT, rewards=[])  # Ann
    turn(game, "O", bobs_o, rewards=[])  # Bob
    turn(game, "O", anns_o, rewards=[])  # Ann
    game.roll("O")  # Bob completes rows 0 and 1
    assert_rejected(game, "2 rows scored: rewards needs 2 entries", O_RIGHT)
    assert_rejected(game, "2 rows scored: rewards needs 2 entries", O_RIGHT, rewards=["point"])
    assert_rejected(
        game, "only a stone another player placed", O_RIGHT, rewards=["point", {"remove": bobs_o}]
    )
    assert_rejected(
        game,
        "only a stone another player placed",
        O_RIGHT,
        rewards=["point", {"remove": garbage_i}],
    )
    assert_rejected(
        game, "only a stone another player placed", O_RIGHT, rewards=["point", {"remove": O_RIGHT}]
    )
    assert_rejected(
        game, "no stone has exactly those cells", O_RIGHT, rewards=["point", {"remove": [[3, 5]]}]
    )
    assert_rejected(game, "a reward is 'point' or", O_RIGHT, rewards=["point", {"remove": 7}])
    assert sorted(s.lowest_row for s in game.rewardable_stones()) == [0, 4]  # Ann's two Os
    game.play(O_RIGHT, rewards=[{"remove": anns_o}, {"remove": O_LEFT}])
    assert game.scores == [0, 0]
    assert game.board.stone_at((0, 0)) is None and game.board.stone_at((0, 4)) is None


def test_rewards_only_with_choose() -> None:
    """record-format.md: `rewards` only with `row_reward: choose`."""
    game = narrow(die=["O"])
    game.roll("O")
    assert_rejected(game, "rewards are only chosen with row_reward: choose", O_LEFT, rewards=[])


def test_random_garbage_comes_from_the_seed() -> None:
    """House rule `garbage`: N stones placed anywhere before the game (random shapes, positions and
    orientations from the seed, no resting needed)."""
    a = DiceGame(["Ann", "Bob"], {"garbage": 6}, seed=11)
    b = DiceGame(["Ann", "Bob"], {"garbage": 6}, seed=11)
    c = DiceGame(["Ann", "Bob"], {"garbage": 6}, seed=12)
    assert len(a.garbage) == 6
    assert a.board == b.board and a.board.rows() == b.board.rows()
    assert a.board.rows() != c.board.rows()
    assert all(s.owner is None for s in a.garbage)
    assert {s.shape for s in a.garbage} <= set(a.rules.shapes)
    # No resting needed: over a few seeds some garbage stone hangs in the air.
    floating = False
    for seed in range(10):
        g = DiceGame(["Ann"], {"garbage": 6}, seed=seed)
        cells = {c for s in g.garbage for c in s.cells}
        floating |= any(
            all(y > 0 and (x, y - 1) not in cells for x, y in s.cells) for s in g.garbage
        )
    assert floating


def test_listed_garbage_is_placed_as_listed() -> None:
    """House rule `garbage`: 'or at positions listed in the record'."""
    listed = [
        {"shape": "T", "cells": [[3, 9], [4, 9], [5, 9], [4, 10]]},
        {"shape": "I", "cells": [[0, 0], [0, 1], [0, 2], [0, 3]]},
    ]
    game = DiceGame(["Ann"], {"garbage": listed}, seed=1)
    assert [(s.shape, sorted(s.cells)) for s in game.garbage] == [
        (Shape.T, [(3, 9), (4, 9), (4, 10), (5, 9)]),
        (Shape.I, [(0, 0), (0, 1), (0, 2), (0, 3)]),
    ]
    assert game.board.rows()[-11] == "....T....."


@pytest.mark.parametrize(
    ("item", "match"),
    [
        (
            {"shape": "T", "cells": [[0, 0], [1, 0], [2, 0], [3, 0]]},
            r"rules.garbage\[0\]: .* is not the shape of a T",
        ),
        (
            {"shape": "T", "cells": [[8, 0], [9, 0], [10, 0], [9, 1]]},
            r"rules.garbage\[0\]: .* is out of bounds",
        ),
        (
            {"shape": "Z", "cells": [[0, 1], [1, 1], [1, 0], [2, 0]]},
            r"rules.garbage\[0\]: Z is not a shape of this game's die",
        ),
        ({"shape": "T"}, r"rules.garbage\[0\]: expected"),
        ({"shape": "Q", "cells": [[0, 0]]}, r"rules.garbage\[0\]: unknown shape"),
        ({"shape": "T", "cells": [[0.5, 0], [1, 0], [2, 0], [1, 1]]}, r"rules.garbage\[0\]"),
    ],
)
def test_bad_listed_garbage_is_rejected(item: dict[str, Any], match: str) -> None:
    """House rule `garbage`: a listed stone must be a stone of the game, on the board."""
    with pytest.raises(RulesError, match=match):
        DiceGame(["Ann"], {"garbage": [item]}, seed=1)


def test_overlapping_listed_garbage_is_rejected() -> None:
    """House rule `garbage`: listed stones may not overlap each other."""
    item = {"shape": "O", "cells": [[0, 0], [1, 0], [0, 1], [1, 1]]}
    with pytest.raises(RulesError, match=r"rules.garbage\[1\]: .* overlaps another garbage stone"):
        DiceGame(["Ann"], {"garbage": [item, item]}, seed=1)


def test_garbage_completed_rows_score_for_nobody() -> None:
    """House rule `garbage`: rows complete before the game belong to nobody (they never score)."""
    game = narrow(
        die=["I", "O"], garbage=garbage_from_rows(["....", "....", "....", "....", "....", "IIII"])
    )
    assert game.board.complete_rows() == [0]
    turn(game, "O", [[0, 1], [1, 1], [0, 2], [1, 2]])
    turn(game, "O", [[2, 1], [3, 1], [2, 2], [3, 2]])
    assert game.scores == [0, 2]  # rows 1 and 2 are Bob's; row 0 was never anyone's


def test_garbage_uses_the_supply() -> None:
    """House rule `garbage`: garbage stones are stones from the box, so they leave the supply."""
    game = DiceGame(
        ["Ann"], {"garbage": [{"shape": "I", "cells": [[0, 0], [1, 0], [2, 0], [3, 0]]}]}, seed=1
    )
    assert game.supply[Shape.I] == 4 and game.supply[Shape.O] == 5


# ---------------------------------------------------------------- presets


def test_required_presets_exist() -> None:
    """record-format.md: presets `standard`, `long` and `clear-rows` must exist."""
    standard = DiceRules.preset_named("standard")
    assert standard == DiceRules()
    assert (standard.width, standard.height, standard.supply) == (10, 20, 5)
    assert not (standard.stuck_penalty or standard.clear_rows or standard.rescore_reopened)
    assert standard.row_reward == "point" and standard.garbage == 0 and standard.take == "lowest"
    assert DiceRules.preset_named("long").height == 30
    assert DiceRules.preset_named("clear-rows").clear_rows


@pytest.mark.parametrize("name", sorted(DICE_PRESETS))
def test_every_preset_plays(name: str) -> None:
    """Every preset in DICE_PRESETS builds a game that plays to the end under its own rules."""
    rules = DiceRules.preset_named(name)
    for key, value in DICE_PRESETS[name].items():
        assert getattr(rules, key) == (tuple(value) if isinstance(value, list) else value)
    game = DiceGame(["Ann", "Bob"], {"preset": name}, seed=3)
    play_random_game(game, random.Random(3), max_turns=300)
    assert game.over or game.rules.clear_rows
    # A new game names tokens_from_supply, which records before it did not (record-format.md).
    assert record_of(game)["rules"] == {"preset": name, "tokens_from_supply": True}


def test_preset_with_overrides() -> None:
    """record-format.md: `{"preset": NAME}` and/or individual options that override the preset."""
    rules = DiceRules.from_dict({"preset": "long", "height": 25, "stuck_penalty": True})
    assert rules.height == 25 and rules.stuck_penalty and rules.preset == "long"


def test_every_option_has_help() -> None:
    """Every rules option is documented for the front ends."""
    from dataclasses import fields

    assert {f.name for f in fields(DiceRules)} - {"preset"} == set(RULE_HELP)


@pytest.mark.parametrize(
    ("raw", "key"),
    [
        ({"colour": "red"}, "rules.colour: unknown option"),
        ({"preset": "huge"}, "rules.preset: unknown preset"),
        ({"width": "10"}, "rules.width: expected an integer"),
        ({"width": 2}, "rules.width: 2 is out of range"),
        ({"height": 1000}, "rules.height: 1000 is out of range"),
        ({"die": ["I", "Q"]}, "rules.die: unknown face 'Q'"),
        ({"die": ["*"]}, "rules.die: the die needs at least one shape face"),
        ({"die": []}, "rules.die: the die needs at least one face"),
        ({"die": "IOTSL*"}, "rules.die: expected a list"),
        ({"supply": -1}, "rules.supply: -1 is negative"),
        ({"orientation": "upside"}, "rules.orientation: 'upside'"),
        ({"access": "teleport"}, "rules.access: 'teleport'"),
        ({"stuck_penalty": 1}, "rules.stuck_penalty: expected true or false"),
        ({"rescore_reopened": "yes"}, "rules.rescore_reopened: expected true or false"),
        ({"clear_rows": None}, 'rules.clear_rows: null: expected false, "cells" or "stones"'),
        ({"target": 0}, "rules.target: 0 must be at least 1"),
        ({"row_reward": "cash"}, "rules.row_reward: 'cash'"),
        ({"garbage": -2}, "rules.garbage: -2 is negative"),
        ({"garbage": "lots"}, "rules.garbage: expected a list"),
        ({"take": "highest"}, "rules.take: 'highest'"),
    ],
)
def test_bad_rules_are_rejected_naming_the_key(raw: dict[str, Any], key: str) -> None:
    """record-format.md: unknown keys are an error; a bad value gets an error naming the option."""
    with pytest.raises(RulesError) as info:
        DiceRules.from_dict(raw)
    assert str(info.value).startswith(key)


def test_first_player_out_of_range_is_rejected() -> None:
    """Setup: the starting seat must exist."""
    with pytest.raises(
        RulesError, match="rules.first_player: seat 2 does not exist with 2 players"
    ):
        DiceGame(["Ann", "Bob"], {"first_player": 2}, seed=1)


def test_classic_preset_is_rotate_and_drop() -> None:
    """Preset `classic`: computer-Tetris handling; under `rotate` an S cannot be laid as a Z."""
    game = DiceGame(["Ann"], {"preset": "classic"}, seed=1)
    game.roll("S")
    assert_rejected(game, "would have to be mirrored", [[0, 1], [1, 1], [1, 0], [2, 0]])
    assert_rejected(game, "is not where a straight drop lands", [[0, 1], [1, 1], [1, 2], [2, 2]])
    game.play([[0, 0], [1, 0], [1, 1], [2, 1]])


# -------------------------------------------------------- seeded generator


def test_same_seed_same_rolls() -> None:
    """record-format.md `seed`: chance outcomes are drawn from a generator seeded with it."""

    def rolls(seed: int) -> list[str]:
        game = DiceGame(["Ann", "Bob"], {"garbage": 3}, seed=seed)
        out = []
        for _ in range(60):
            out.append(game.roll())
            if game.over:
                break
            option = game.turn_options()[0]
            game.play(option.placement, shape=option.shape, take=option.take)
        return out

    assert rolls(21) == rolls(21)
    assert rolls(21) != rolls(22)


def test_global_random_is_never_used(monkeypatch: pytest.MonkeyPatch) -> None:
    """Determinism: the engine draws only from its own seeded generator, never the global `random`."""
    reference = DiceGame(["Ann", "Bob"], {"garbage": 4}, seed=5)
    play_random_game(reference, random.Random(9), max_turns=40)

    def forbidden(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("the global random generator was used")

    random.seed(12345)
    for name in (
        "random",
        "choice",
        "randrange",
        "randint",
        "shuffle",
        "getrandbits",
        "sample",
        "seed",
    ):
        monkeypatch.setattr(random, name, forbidden)
    again = DiceGame(["Ann", "Bob"], {"garbage": 4}, seed=5)
    play_random_game(again, random.Random(9), max_turns=40)
    assert record_of(again) == record_of(reference)
    assert again.summary() == reference.summary()
    assert (
        DiceMatch(["Ann", "Bob"], seed=5).new_game().seed
        == DiceMatch(["Ann", "Bob"], seed=5).new_game().seed
    )


# --------------------------------------------------------------------- undo


def test_undo_restores_the_exact_state_and_the_same_roll() -> None:
    """Undo takes back the last placement: same position, same roll showing, same future rolls."""
    game = DiceGame(["Ann", "Bob"], {"garbage": 2}, seed=8)
    play_random_game(game, random.Random(1), max_turns=6)
    face = game.roll()
    if game.over:
        pytest.fail("seed 8 should not end this early")
    before = state_of(game)
    option = game.turn_options()[-1]
    game.play(option.placement, shape=option.shape if face == "*" else None, take=option.take)
    after = state_of(game)
    next_face = game.roll()
    assert game.undo().place == tuple(option.placement.cells)
    assert state_of(game) == before
    assert game.roll_face == face
    game.play(option.placement, shape=option.shape if face == "*" else None, take=option.take)
    assert state_of(game) == after
    assert game.roll() == next_face


def test_undo_reopens_a_game_ended_by_a_roll() -> None:
    """Undo after the end: back to the last placement before the roll that ended the game."""
    game = narrow(die=["I", "O"], height=4, garbage=garbage_from_rows(FULL_BUT_TOP_ROW))
    game.roll("I")
    before = state_of(game)
    game.play([[0, 3], [1, 3], [2, 3], [3, 3]])
    game.roll("O")
    assert game.over
    game.undo()
    assert state_of(game) == before and not game.over


def test_undo_with_nothing_to_undo() -> None:
    """Undo at the start is an error, not a crash, and changes nothing, even after a first-roll end."""
    game = DiceGame(["Ann"], seed=1)
    with pytest.raises(IllegalMove, match="no move to undo"):
        game.undo()
    ended = DiceGame(["Ann", "Bob"], {"supply": 0}, seed=1)
    ended.roll("O")
    before = state_of(ended)
    with pytest.raises(IllegalMove, match="no move to undo"):
        ended.undo()
    assert state_of(ended) == before and ended.over


def test_a_stale_take_is_rejected_and_changes_nothing() -> None:
    """A take must be a stone on the board now: a stale Stone (from an old view) is an error, and
    asking about it never lifts another stone's cells."""
    game = narrow(supply=1, die=["O"])
    turn(game, "O", O_LEFT)
    turn(game, "O", O_RIGHT)
    game.roll("O")
    real = game.take_options(Shape.O)[0]
    assert real is not None
    stale = Stone(Shape.O, ((0, 2), (1, 2), (0, 3), (1, 3)), real.owner, real.number)
    before = state_of(game)
    with pytest.raises(IllegalMove, match="no such stone on the board"):
        game.legal_placements(Shape.O, stale)
    some = game.legal_placements(Shape.O, real)[0]
    with pytest.raises(IllegalMove, match="no such stone on the board"):
        game.scoring_rows_after(some, stale)
    assert state_of(game) == before


def test_view_is_a_blind_independent_copy() -> None:
    """A view for a bot is the same position; playing on it never touches the real game."""
    game = DiceGame(["Ann", "Bob"], seed=8)
    game.roll("O")
    before = state_of(game)
    view = game.view()
    assert view.summary() == game.summary() and view.roll_face == "O"
    assert view.seed != game.seed
    view.play(O_LEFT)
    view.roll()
    assert state_of(game) == before


# ------------------------------------------------------ illegal play is inert


def test_illegal_plays_leave_the_game_unchanged() -> None:
    """An illegal `play` raises IllegalMove and leaves the game exactly as it was."""
    game = DiceGame(["Ann", "Bob"], seed=8)
    turn(game, "O", O_LEFT)
    game.roll("T")
    cases: list[tuple[Any, dict[str, Any], str]] = [
        (
            [[4, 7], [5, 7], [6, 7], [5, 8]],
            {},
            r"T does not rest at \[\[4,7\],\[5,7\],\[6,7\],\[5,8\]\]",
        ),
        ([[0, 0], [1, 0], [2, 0], [1, 1]], {}, "overlaps stone"),
        ([[9, 0], [10, 0], [11, 0], [10, 1]], {}, "out of bounds"),
        ([[0, 0], [1, 0]], {}, "needs 4 distinct cells"),
        ("T", {}, "needs cells as"),
        ([[3, 0], [4, 0], [5, 0], [4, 1]], {"shape": "O"}, "the die shows T, not O"),
        ([[3, 0], [4, 0], [5, 0], [4, 1]], {"take": O_LEFT}, "nothing to take"),
        ([[3, 0], [4, 0], [5, 0], [4, 1]], {"rewards": ["point"]}, "only chosen with row_reward"),
    ]
    for place, kwargs, match in cases:
        assert_rejected(game, match, place, **kwargs)
    game.play([[3, 0], [4, 0], [5, 0], [4, 1]])
    assert game.to_move == 0


# -------------------------------------------------------------------- match


def stuck_rules() -> dict[str, Any]:
    """4x4, free access, three garbage rows: an I on row 0 scores 1; an O can never be placed."""
    return {
        "width": 4,
        "height": 4,
        "die": ["I", "O"],
        "access": "free",
        "garbage": garbage_from_rows(["IIII", "iiii", "IIII", "...."]),
    }


def test_match_first_game_starts_with_seat_zero_then_the_loser() -> None:
    """§2 Match: game 1 starts with seat 0; each later game starts with the loser of the game before."""
    match = DiceMatch(["Ann", "Bob"], stuck_rules(), seed=1)
    first = match.new_game()
    assert first.to_move == 0
    with pytest.raises(IllegalMove, match="not over"):
        match.new_game()
    turn(first, "I", ROW0)  # Ann scores 1
    first.roll("O")  # Bob is stuck
    assert first.over and first.scores == [1, 0]
    second = match.new_game()
    assert second.to_move == 1  # Bob lost
    turn(second, "I", ROW0)  # Bob scores 1
    second.roll("O")
    assert second.scores == [0, 1]
    assert match.new_game().to_move == 0
    assert match.totals() == [1, 1]


def test_match_tied_losers_first_after_previous_starter() -> None:
    """§2 Match: 'among tied losers, the first after the previous starter in seat order' [interpretation]."""
    match = DiceMatch(["Ann", "Bob", "Cid"], stuck_rules(), seed=1)
    g1 = match.new_game()
    g1.roll("O")  # 0-0-0: everybody lost; seat 0 started, so seat 1 is next
    g2 = match.new_game()
    assert g2.to_move == 1
    turn(g2, "I", ROW0)  # Bob 1
    g2.roll("O")  # Cid stuck: losers Ann and Cid; Bob started, so Cid (seat 2) comes first
    g3 = match.new_game()
    assert g3.to_move == 2
    g3.roll("O")  # all tied again; Cid started, so Ann (seat 0, wrapping round) is next
    assert match.new_game().to_move == 0
    assert match.totals() == [2, 3, 2]  # shared wins count for every winner


def test_match_games_differ_but_replay() -> None:
    """§2 Match: each game of a match has its own seed, drawn from the match seed."""
    a = DiceMatch(["Ann", "Bob"], seed=4)
    b = DiceMatch(["Ann", "Bob"], seed=4)
    assert a.new_game().seed == b.new_game().seed
