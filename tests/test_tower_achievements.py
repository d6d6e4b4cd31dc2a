"""The twelve achievement cards and the race for their spaces (rules.md section 3).

Every card is checked with a position that meets it and one that does not; positions are drawn
as pictures (bottom line = row 0) and the deciding piece is dropped through the engine, so the
check runs exactly where the game runs it: at the end of the round.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest

from tabletris.engine.achievements import ACHIEVEMENTS
from tabletris.engine.tower import TowerAction, TowerGame
from tower_helpers import drop, fill, find_drop, game_with

FULL = "########"


def solo(card: str, prefix: str, picture: Sequence[str] = (), **rules: Any) -> TowerGame:
    """A one-player game playing only ``card``, deck starting ``prefix``, tower drawn as ``picture``."""
    game = game_with(prefix, rules={"achievements": [card], **rules})
    fill(game, 0, picture)
    return game


def scored(game: TowerGame, card: str, seat: int = 0) -> int | None:
    """Points ``seat`` holds on ``card``, or None without a space."""
    return game.score(seat)["achievements"].get(card)


def test_all_twelve_cards_exist_with_their_points() -> None:
    """Achievements: the table of rules.md, ids and points."""
    assert {k: v.points for k, v in ACHIEVEMENTS.items()} == {
        "tetris": (8, 5, 2), "six-lines": (7, 4, 1), "three-rows": (8, 5, 2), "two-rows": (8, 5, 2),
        "seven-on-a-side": (7, 4, 1), "full-column": (7, 4, 1), "five-bonus": (7, 4, 1),
        "four-diamonds": (7, 4, 1), "four-pairs": (8, 5, 2), "connect-lj": (8, 5, 2),
        "connect-sz": (8, 5, 2), "connect-io": (7, 4, 1),
    }


# ---------------------------------------------------------------- tetris


def test_tetris_an_i_completing_four_rows() -> None:
    """tetris: this round an I completed 4 rows, all containing a cell of it."""
    game = solo("tetris", "I", ["#######."] * 4)
    game.submit(0, drop([(7, 0), (7, 1), (7, 2), (7, 3)]))
    assert scored(game, "tetris") == 8


def test_tetris_minos_may_help() -> None:
    """tetris: minos dropped this round may help complete the I's rows."""
    game = solo("tetris", "I", [".######."] * 4, start_minos=4)
    game.submit(0, drop([(7, 0), (7, 1), (7, 2), (7, 3)], minos=[0, 0, 0, 0]))
    assert scored(game, "tetris") == 8


def test_tetris_not_met_when_the_i_is_not_in_all_four_new_rows() -> None:
    """tetris: four rows complete this round, but a mino completed one before the I fell."""
    game = solo("tetris", "I", [".######."] * 3 + [".#######"], start_minos=4)
    # Minos fill column 0: row 0 is complete before the I falls; the I (rows 1-4) completes 1-3.
    game.submit(0, drop([(7, 1), (7, 2), (7, 3), (7, 4)], minos=[0, 0, 0, 0]))
    assert game.towers[0].lines == 4
    assert scored(game, "tetris") is None


def test_tetris_not_met_by_minos_completing_rows_under_a_flat_i() -> None:
    """tetris: rows the minos completed before the piece fell do not contain the piece."""
    game = solo("tetris", "I", ["....####"] + [".#######"] * 3, start_minos=3)
    game.submit(0, drop([(0, 3), (1, 3), (2, 3), (3, 3)], minos=[0, 0, 0]))
    assert game.towers[0].lines == 4
    assert scored(game, "tetris") is None


def test_tetris_rows_complete_at_the_start_of_the_round_do_not_count() -> None:
    """tetris: only rows not complete at the start of the round count."""
    game = solo("tetris", "I", ["#######."] * 3 + [FULL])
    game.submit(0, drop([(7, 1), (7, 2), (7, 3), (7, 4)]))
    assert game.towers[0].lines == 4
    assert scored(game, "tetris") is None


# ------------------------------------------------------- three / two rows


def test_three_rows_with_a_j() -> None:
    """three-rows: an L or J completed 3 rows, all containing a cell of it."""
    game = solo("three-rows", "J", ["######..", "######.#", "######.#"])
    game.submit(0, drop([(6, 0), (6, 1), (6, 2), (7, 2)]))
    assert scored(game, "three-rows") == 8


def test_three_rows_with_an_l() -> None:
    """three-rows: L counts as well as J."""
    game = solo("three-rows", "L", ["######..", "#######.", "#######."])
    game.submit(0, drop([(7, 0), (7, 1), (7, 2), (6, 2)]))
    assert scored(game, "three-rows") == 8


def test_three_rows_not_met_by_an_i() -> None:
    """three-rows: only L or J; an I completing 3 rows does not count."""
    game = solo("three-rows", "I", ["#######."] * 3)
    game.submit(0, drop([(7, 0), (7, 1), (7, 2), (7, 3)]))
    assert game.towers[0].lines == 3
    assert scored(game, "three-rows") is None


def test_three_rows_not_met_by_two_rows() -> None:
    """three-rows: an L completing only 2 rows is not enough."""
    game = solo("three-rows", "L", ["#######.", "#######."])
    game.submit(0, drop([(7, 0), (7, 1), (7, 2), (6, 2)]))
    assert game.towers[0].lines == 2
    assert scored(game, "three-rows") is None


def test_two_rows_with_an_o() -> None:
    """two-rows: an O completed 2 rows, both containing it."""
    game = solo("two-rows", "O", ["######..", "######.."])
    game.submit(0, drop([(6, 0), (7, 0), (6, 1), (7, 1)]))
    assert scored(game, "two-rows") == 8


def test_two_rows_not_met_by_one_row() -> None:
    """two-rows: an O completing one row does not count."""
    game = solo("two-rows", "O", ["####....", "######.."])
    game.submit(0, drop([(6, 0), (7, 0), (6, 1), (7, 1)]))
    assert game.towers[0].lines == 1
    assert scored(game, "two-rows") is None


# ----------------------------------------------------------- state cards


def test_six_lines_met_with_six_rows() -> None:
    """six-lines: 6 or more complete rows anywhere at the end of the round."""
    game = solo("six-lines", "I", ["....####"] + [FULL] * 5)
    game.submit(0, drop([(0, 5), (1, 5), (2, 5), (3, 5)]))
    assert scored(game, "six-lines") == 7


def test_six_lines_not_met_with_five_rows() -> None:
    """six-lines: five rows are not enough."""
    game = solo("six-lines", "I", ["....####"] + [FULL] * 4)
    game.submit(0, drop([(0, 4), (1, 4), (2, 4), (3, 4)]))
    assert game.towers[0].lines == 5
    assert scored(game, "six-lines") is None


def _wall_game(sides: str, mode: str = "one-wall") -> TowerGame:
    """Drop I O T S Z J L, each against the wall named in ``sides`` (L or R), lowest first."""
    game = game_with("IOTSZJL", rules={"achievements": ["seven-on-a-side"], "seven_on_a_side": mode})
    for side in sides:
        width = game.towers[0].board.width
        touching = [
            p for p in game.legal_drops(0)
            if (min(x for x, _ in p.cells) == 0 if side == "L" else max(x for x, _ in p.cells) == width - 1)
        ]
        best = min(touching, key=lambda p: (max(y for _, y in p.cells), p.x))
        game.submit(0, TowerAction.drop(best))
    return game


def test_seven_on_a_side_all_on_the_left_wall() -> None:
    """seven-on-a-side: a cell of each of the seven shapes touches the same wall."""
    game = _wall_game("LLLLLLL")
    assert scored(game, "seven-on-a-side") == 7
    assert game.towers[0].wall_shapes()[0] == set(game.deck[:7])


def test_seven_on_a_side_not_met_when_split_between_both_walls() -> None:
    """seven-on-a-side [interpretation one-wall]: pieces split between both walls do not count."""
    game = _wall_game("LLLRRRR")
    assert scored(game, "seven-on-a-side") is None


def test_seven_on_a_side_both_walls_option_counts_a_split() -> None:
    """seven-on-a-side, option both-walls: each shape on either wall is enough."""
    game = _wall_game("LLLRRRR", mode="both-walls")
    assert scored(game, "seven-on-a-side") == 7


def test_seven_on_a_side_six_shapes_are_not_enough() -> None:
    """seven-on-a-side: all seven shapes are needed (minos never count)."""
    game = game_with("IOTSZJL", rules={"achievements": ["seven-on-a-side"], "start_minos": 1})
    for i in range(6):
        minos = [0] if i == 5 else []  # a mino on the left wall does not stand in for the L
        p = min((p for p in game.legal_drops(0, minos) if min(x for x, _ in p.cells) == 0), key=lambda p: (p.y, p.x))
        game.submit(0, TowerAction.drop(p, minos))
    assert len(game.towers[0].wall_shapes()[0]) == 6
    assert scored(game, "seven-on-a-side") is None


def test_full_column_met() -> None:
    """full-column: a column with all 15 cells filled."""
    game = solo("full-column", "I", ["#......."] * 11)
    game.submit(0, drop([(0, 11), (0, 12), (0, 13), (0, 14)]))
    assert scored(game, "full-column") == 7


def test_full_column_not_met_one_short() -> None:
    """full-column: 14 cells are not a full column."""
    game = solo("full-column", "I", ["#......."] * 10)
    game.submit(0, drop([(0, 10), (0, 11), (0, 12), (0, 13)]))
    assert scored(game, "full-column") is None


def _bonus_layout(shape: str) -> dict[str, Any]:
    cells = [[0, 0], [1, 0], [2, 0], [1, 1], [4, 0]]
    return {"bonus": [{"cell": c, "shape": shape} for c in cells], "diamonds": []}


def test_five_bonus_met_on_the_fifth_matching_icon() -> None:
    """five-bonus: 5 bonus icons covered by tetrominoes of their own shape."""
    game = game_with("TT", rules={"achievements": ["five-bonus"]}, towers=[_bonus_layout("T")])
    game.submit(0, drop([(0, 0), (1, 0), (2, 0), (1, 1)]))
    assert game.towers[0].bonus == 4 and scored(game, "five-bonus") is None
    game.submit(0, drop([(3, 0), (4, 0), (5, 0), (4, 1)]))
    assert scored(game, "five-bonus") == 7


def test_five_bonus_not_met_by_icons_of_another_shape() -> None:
    """five-bonus: icons covered by the wrong shape do not count."""
    game = game_with("TT", rules={"achievements": ["five-bonus"]}, towers=[_bonus_layout("O")])
    game.submit(0, drop([(0, 0), (1, 0), (2, 0), (1, 1)]))
    game.submit(0, drop([(3, 0), (4, 0), (5, 0), (4, 1)]))
    assert game.towers[0].bonus == 0 and scored(game, "five-bonus") is None


def test_four_diamonds_minos_included() -> None:
    """four-diamonds: 4 diamonds covered by any pieces, minos included."""
    layout = {"bonus": [], "diamonds": [[0, 0], [1, 0], [2, 0], [3, 0]]}
    game = game_with("O", rules={"achievements": ["four-diamonds"], "start_minos": 2}, towers=[layout])
    game.submit(0, drop([(2, 0), (3, 0), (2, 1), (3, 1)], minos=[0, 1]))
    assert scored(game, "four-diamonds") == 7
    assert game.towers[0].minos == 2  # the O's two diamonds; the minos' two give nothing


def test_four_diamonds_not_met_with_three() -> None:
    """four-diamonds: three are not enough."""
    layout = {"bonus": [], "diamonds": [[0, 0], [1, 0], [2, 0], [3, 0]]}
    game = game_with("O", rules={"achievements": ["four-diamonds"], "start_minos": 1}, towers=[layout])
    game.submit(0, drop([(2, 0), (3, 0), (2, 1), (3, 1)], minos=[0]))
    assert game.towers[0].diamonds_covered() == 3
    assert scored(game, "four-diamonds") is None


# ------------------------------------------------- pairs and connections

O_CYCLE = ["ooOO", "ooOO", "OOoo", "OOoo"]
"""Four O pieces in a 4x4 square: 4 touching pairs, but only 2 disjoint ones."""
I_CHAIN = ["i", "I", "i", "I"]
"""Four flat I pieces stacked: a chain of 3 touching pairs, 2 disjoint ones."""


def _pairs_game(picture: Sequence[str], mode: str) -> TowerGame:
    game = solo("four-pairs", "T", picture, four_pairs=mode)
    game.submit(0, TowerAction.drop(max(game.legal_drops(0), key=lambda p: p.y)))  # a lone T on top
    return game


def test_four_pairs_matching_met_with_four_disjoint_pairs() -> None:
    """four-pairs [interpretation matching]: 4 disjoint touching same-shape pairs."""
    picture = [a + b * 4 for a, b in zip(O_CYCLE, I_CHAIN, strict=True)]
    assert scored(_pairs_game(picture, "matching"), "four-pairs") == 8


def test_four_pairs_matching_not_met_by_four_overlapping_pairs() -> None:
    """four-pairs [interpretation matching]: a piece may be in one pair only."""
    picture = [row + "...." for row in O_CYCLE]
    assert scored(_pairs_game(picture, "matching"), "four-pairs") is None


def test_four_pairs_pairs_option_counts_overlapping_pairs() -> None:
    """four-pairs, option pairs: any 4 touching same-shape pairs."""
    picture = [row + "...." for row in O_CYCLE]
    assert scored(_pairs_game(picture, "pairs"), "four-pairs") == 8


def test_four_pairs_pairs_option_not_met_with_three() -> None:
    """four-pairs, option pairs: three touching pairs are not enough."""
    picture = ["........", "IIII....", "iiii....", "IIII....", "iiii...."][1:]
    assert scored(_pairs_game(picture, "pairs"), "four-pairs") is None


def _connect(card: str, picture: Sequence[str]) -> TowerGame:
    game = solo(card, "T", picture)
    game.submit(0, TowerAction.drop(max(game.legal_drops(0), key=lambda p: (p.y, -p.x))))
    return game


LJ_FOUR = ["j....l..", "jjjlll..", "J....L..", "JJJLLL.."]
SZ_FOUR = [".sszz...", "ss..zz..", ".SSZZ...", "SS..ZZ.."]
IO_FOUR = ["iiiiOOoo", "IIIIOOoo"]


@pytest.mark.parametrize(
    ("card", "picture"),
    [("connect-lj", LJ_FOUR), ("connect-sz", SZ_FOUR), ("connect-io", IO_FOUR)],
)
def test_connect_four_in_one_group(card: str, picture: list[str]) -> None:
    """connect-lj/sz/io: 4 or more of the pair's tetrominoes in one edge-connected group."""
    points = ACHIEVEMENTS[card].points[0]
    assert scored(_connect(card, picture), card) == points


@pytest.mark.parametrize(
    ("card", "picture"),
    [
        ("connect-lj", ["j.......", "jjj.....", "J....L..", "JJJLLL.."]),
        ("connect-sz", [".ss.....", "ss......", ".SSZZ...", "SS..ZZ.."]),
        ("connect-io", ["iiiiOO..", "IIIIOO.."]),
        ("connect-lj", ["J....L..", "JJJLLL..", "........", "j....l..", "jjjlll.."]),
    ],
)
def test_connect_not_met_with_three_or_split_groups(card: str, picture: list[str]) -> None:
    """connect-*: three pieces, or four split in groups, are not enough."""
    assert scored(_connect(card, picture), card) is None


# ------------------------------------------------------------- the race

SIX_MINUS_ONE = ["....####"] + [FULL] * 5
"""Five complete rows and a sixth missing a flat I: the I there meets six-lines."""


def _flat(y: int = 5) -> TowerAction:
    return drop([(0, y), (1, y), (2, y), (3, y)])


def _aside(column: int) -> TowerAction:
    """A vertical I standing on row 5, away from the gap: meets nothing."""
    return drop([(column, 6), (column, 7), (column, 8), (column, 9)])


def _race(players: int, plan: list[list[int]]) -> TowerGame:
    """Round r: the seats in plan[r] fill their sixth row, the others put the I aside."""
    game = game_with("IIII", players=players)
    for seat in range(players):
        fill(game, seat, SIX_MINUS_ONE)
    for r, meeting in enumerate(plan):
        for seat in range(players):
            game.submit(seat, _flat() if seat in meeting else _aside(7 - r))
    return game


def test_players_meeting_in_the_same_round_share_the_highest_vacant_space() -> None:
    """Race: two players meeting the card in the same round share the high space; the next gets the middle."""
    game = _race(3, [[0, 1], [2]])
    card = game.achievements[0]
    assert card.holders == [[0, 1], [2], []]
    assert [scored(game, "six-lines", s) for s in range(3)] == [7, 7, 4]


def test_two_player_game_never_uses_the_high_space() -> None:
    """Race: in a 2-player game the first to meet a card takes the middle space."""
    game = _race(2, [[1], [0]])
    assert game.achievements[0].holders == [[], [1], [0]]
    assert [scored(game, "six-lines", s) for s in range(2)] == [1, 4]


def test_fourth_player_scores_nothing_when_the_spaces_are_gone() -> None:
    """Race: each space serves one round; later players score nothing."""
    game = _race(4, [[2], [0], [3], [1]])
    card = game.achievements[0]
    assert card.holders == [[2], [0], [3]]
    assert [scored(game, "six-lines", s) for s in range(4)] == [4, None, 7, 1]
    assert 1 in card.met
    assert "six-lines" not in game.summary()["players"][1]["achievements"]


def test_a_player_scores_a_card_once() -> None:
    """Race: one token per player per card; meeting it again changes nothing."""
    game = game_with("IIII", players=2, rules={"achievements": ["six-lines"]})
    fill(game, 0, ["....####", "....####"] + [FULL] * 5)
    fill(game, 1, SIX_MINUS_ONE)
    game.submit(0, _flat(5))
    game.submit(1, _aside(7))
    game.submit(0, _flat(6))  # a seventh row: still six or more
    game.submit(1, _flat())
    assert game.achievements[0].holders == [[], [0], [1]]
    assert [scored(game, "six-lines", s) for s in range(2)] == [4, 1]


def test_advanced_game_scores_both_cards() -> None:
    """Advanced: two cards in play, a player may score both."""
    game = game_with("I", rules={"preset": "advanced", "achievements": ["six-lines", "tetris"]})
    fill(game, 0, ["#######."] * 4 + [FULL] * 2)
    game.submit(0, find_drop(game, 0, {(7, 2), (7, 3), (7, 4), (7, 5)}))
    assert game.score(0)["achievements"] == {"six-lines": 7, "tetris": 8}
    assert game.score(0)["total"] == 12 + 15
