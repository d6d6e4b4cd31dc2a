"""Tower game setup, rounds and scoring (rules.md section 3), one rule per test."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from tabletris.engine.errors import IllegalMove
from tabletris.engine.options import RulesError
from tabletris.engine.records import record_of
from tabletris.engine.shapes import TETROMINOES, Shape
from tabletris.engine.tower import TowerAction, TowerGame, TowerRules, library_layout
from tabletris.engine.tower_layouts import LAYOUT_NAMES
from tower_helpers import deck_starting, drop, fill, find_drop, game_with

# ------------------------------------------------------------------ setup


def test_deck_has_27_cards_four_per_shape_minus_one_removed_unseen() -> None:
    """Setup: 28 cards (4 per shape) shuffled, one removed unseen, 27 played."""
    for seed in range(20):
        game = TowerGame(["A", "B"], seed=seed)
        counts = Counter(game.deck)
        assert len(game.deck) == 27
        assert set(counts) <= set(TETROMINOES)
        assert sorted(counts.values()) == [3, 4, 4, 4, 4, 4, 4]
        assert game.deck_left == 27 - 1  # the first card is already in PLAY
        assert game.play_card is game.deck[0] and game.next_card is game.deck[1]


def test_deck_comes_from_the_games_seed_not_global_random() -> None:
    """Setup: the shuffle uses the game's own seeded generator."""
    random.seed(1)
    a = TowerGame(["A"], seed=42).deck
    random.seed(2)
    b = TowerGame(["A"], seed=42).deck
    assert a == b
    assert TowerGame(["A"], seed=43).deck != a


def test_removed_card_stays_unseen_in_public_counts() -> None:
    """Setup: the removed card is never shown; unseen counts include it."""
    game = TowerGame(["A"], seed=5)
    unseen = game.cards_unseen()
    assert sum(unseen.values()) == 28 - 2  # PLAY and NEXT are seen
    missing = next(s for s in TETROMINOES if Counter(game.deck)[s] == 3)
    assert game.public_state()["deck_left"] == 26
    assert "deck" not in game.public_state()
    assert unseen[missing] >= 1


def test_each_player_starts_with_one_mino_and_the_box_keeps_the_rest() -> None:
    """Setup: 24 minos in the box minus one per player."""
    for n in range(1, 5):
        game = TowerGame([f"P{i}" for i in range(n)], seed=3)
        assert [t.minos for t in game.towers] == [1] * n
        assert game.supply == 24 - n


def test_player_count_is_one_to_four() -> None:
    """Setup: 1-4 players."""
    with pytest.raises(RulesError, match="1 to 4 players"):
        TowerGame(["A", "B", "C", "D", "E"])
    with pytest.raises(RulesError, match="1 to 4 players"):
        TowerGame([])


def test_library_layouts_have_equal_icons_over_all_heights_and_shapes() -> None:
    """Layouts: eight ends with the same icons, spread over all heights and all seven shapes."""
    for name in LAYOUT_NAMES:
        layout = library_layout(name)
        shapes = Counter(layout.bonus.values())
        assert shapes == {s: 2 for s in TETROMINOES}, name
        assert len(layout.diamonds) == 6, name
        rows = {y for _, y in [*layout.bonus, *layout.diamonds]}
        assert rows == set(range(15)), name
        assert not set(layout.bonus) & layout.diamonds


def test_default_layouts_are_different_towers_drawn_from_the_seed_and_recorded() -> None:
    """Layouts: without towers each seat gets its own physical tower (seeded), written to the record."""
    game = TowerGame(["A", "B", "C", "D"], seed=9)
    towers = [t["name"] for t in record_of(game)["towers"]]
    assert all(t in LAYOUT_NAMES for t in towers)
    assert len({t[0] for t in towers}) == 4  # four different physical towers
    assert TowerGame(["A", "B", "C", "D"], seed=9).layout_specs == towers == game.layout_specs


def test_custom_layout_from_record_and_named_layout() -> None:
    """Layouts: a towers entry is a name or an object of bonus icons and diamonds."""
    custom = {"bonus": [{"cell": [1, 2], "shape": "T"}], "diamonds": [[3, 4]]}
    game = TowerGame(["A", "B"], seed=1, towers=["2b", custom])
    assert game.towers[0].layout == library_layout("2b")
    assert dict(game.towers[1].layout.bonus) == {(1, 2): Shape.T}
    assert game.towers[1].layout.diamonds == frozenset({(3, 4)})
    assert record_of(game)["towers"] == [{"name": "2b", **library_layout("2b").to_dict()}, custom]


@pytest.mark.parametrize(
    ("towers", "message"),
    [
        (["9z"], r"towers\[0\]: unknown layout '9z'"),
        ([{"bonus": [{"cell": [8, 0], "shape": "T"}]}], r"towers\[0\]\.bonus\[0\]\.cell: \[8, 0\] is outside the 8x15 tower"),
        ([{"bonus": [{"cell": [0, 0], "shape": "X"}]}], r"towers\[0\]\.bonus\[0\]\.shape: unknown shape 'X'"),
        ([{"bonus": [{"cell": [0, 0], "shape": "M"}]}], r"a bonus icon shows a tetromino"),
        ([{"diamonds": [[0, 0], [0, 0]]}], r"towers\[0\]\.diamonds\[1\]: two diamonds"),
        ([{"diamonds": [[0, "a"]]}], r"towers\[0\]\.diamonds\[0\]: expected a cell"),
        ([{"colour": "red"}], r"towers\[0\]\.colour: unknown key"),
        (["1a", "1b"], r"towers: expected one layout per player \(1\), got 2"),
    ],
)
def test_bad_layouts_are_rejected_with_the_entry_named(towers: list[object], message: str) -> None:
    """Layouts: custom layouts are validated with specific errors."""
    with pytest.raises(RulesError, match=message):
        TowerGame(["A"], seed=1, towers=towers)


@pytest.mark.parametrize(
    ("deck", "message"),
    [
        (["I"] * 3, r"expected 27 cards"),
        (list("IIIII") + [c for c in deck_starting("") if c != "I"][:22], r"deck: 5 I cards"),
        (["M", *deck_starting("")[1:]], r"deck\[0\]: the cards show tetrominoes"),
        (["Q", *deck_starting("")[1:]], r"deck\[0\]: unknown shape"),
    ],
)
def test_bad_decks_are_rejected(deck: list[str], message: str) -> None:
    """Setup: a given deck is 27 tetromino cards, at most 4 per shape."""
    with pytest.raises(RulesError, match=message):
        TowerGame(["A"], seed=1, deck=deck)


def test_rules_options_are_checked() -> None:
    """Rules: unknown cards and interpretation values are rejected by name."""
    with pytest.raises(RulesError, match="rules.achievements: unknown card 'nope'"):
        TowerRules.from_dict({"achievements": ["nope"]})
    with pytest.raises(RulesError, match="rules.seven_on_a_side"):
        TowerRules.from_dict({"seven_on_a_side": "sideways"})
    with pytest.raises(RulesError, match="rules.four_pairs"):
        TowerRules.from_dict({"four_pairs": "triples"})
    with pytest.raises(RulesError, match="rules.colour: unknown option"):
        TowerRules.from_dict({"colour": 1})


def test_standard_plays_six_lines_and_advanced_draws_two_cards_from_the_seed() -> None:
    """Achievements: standard uses only six-lines; advanced draws two (seeded) or names them."""
    assert [c.id for c in TowerGame(["A"], seed=1).achievements] == ["six-lines"]
    drawn = [[c.id for c in TowerGame(["A"], {"preset": "advanced"}, seed=s).achievements] for s in range(30)]
    assert all(len(d) == 2 and d[0] != d[1] for d in drawn)
    assert len({tuple(d) for d in drawn}) > 5
    again = [c.id for c in TowerGame(["A"], {"preset": "advanced"}, seed=4).achievements]
    assert again == drawn[4]
    named = TowerGame(["A"], {"preset": "advanced", "achievements": ["tetris", "connect-io"]}, seed=1)
    assert [c.id for c in named.achievements] == ["tetris", "connect-io"]
    record = record_of(TowerGame(["A"], {"preset": "advanced"}, seed=4))
    assert record["rules"] == {"preset": "advanced", "achievements": drawn[4]}


# ----------------------------------------------------------------- rounds


def test_round_resolves_only_when_every_active_seat_has_submitted() -> None:
    """Simultaneous rounds: actions are stored until all seats are in."""
    game = game_with("OT", players=2)
    game.submit(0, drop([(0, 0), (1, 0), (0, 1), (1, 1)]))
    assert game.round == 1 and game.waiting_for() == [1]
    assert not game.towers[0].board.occupied  # nothing happens before the round resolves
    game.submit(1, drop([(6, 0), (7, 0), (6, 1), (7, 1)]))
    assert game.round == 2 and game.play_card is Shape.T
    assert game.towers[0].rows()[-1] == "OO......"
    assert game.towers[1].rows()[-1] == "......OO"


def test_a_seat_may_change_its_mind_before_the_round_resolves() -> None:
    """Simultaneous rounds: a later submission replaces the earlier one."""
    game = game_with("O", players=2)
    game.submit(0, drop([(0, 0), (1, 0), (0, 1), (1, 1)]))
    game.submit(0, drop([(4, 0), (5, 0), (4, 1), (5, 1)]))
    game.submit(1, TowerAction.holding())
    assert game.towers[0].rows()[-1] == "....OO.."


def test_view_hides_other_pending_actions_the_deck_and_the_seed() -> None:
    """Privacy: a view shows public state and the viewer's own pending action only."""
    game = TowerGame(["A", "B"], seed=8)
    mine = TowerAction.drop(game.legal_drops(0)[0])
    game.submit(0, mine)
    other = game.view(1)
    assert other.pending(0) is None and other.submitted(0) is True
    assert other.seed == 0
    assert other.deck == game.deck[:2]  # PLAY and NEXT only
    assert game.view(0).pending(0) == mine
    assert game.view(0).deck_left == game.deck_left


def test_views_can_play_ahead_without_touching_the_game() -> None:
    """Privacy: lookahead on a view never changes the real game."""
    game = TowerGame(["A", "B"], seed=8)
    before = record_of(game)
    view = game.view(0)
    while not view.over:
        for seat in view.waiting_for():
            view.submit(seat, TowerAction.drop(view.legal_drops(seat)[0]))
    assert record_of(game) == before
    assert view.round >= 1


def test_illegal_actions_raise_with_the_rule_and_change_nothing() -> None:
    """Validation at submit: IllegalMove names the player and the rule; the game is unchanged."""
    game = game_with("S", players=2)
    before = record_of(game)
    cases = [
        (drop([(0, 5), (1, 5), (1, 6), (2, 6)]), "not where a straight drop lands"),
        (drop([(0, 1), (1, 1), (1, 0), (2, 0)]), "mirrored"),  # a Z: S may not be flipped
        (drop([(0, 0), (1, 0), (1, 1), (2, 1)], minos=[3, 4]), "drops 2 minos but has 1"),
        (drop([(0, 0), (1, 0), (1, 1), (2, 1)], minos=[9]), r"column 10 is outside the tower \(1-8\)"),
        (drop([(0, 14), (1, 14), (1, 15), (2, 15)]), "above the skyline"),
        (TowerAction(minos=(1,), hold=True), "no minos"),
        ({"place": "x"}, "place: expected a list"),
        ({"jump": True}, "unknown key"),
    ]
    for action, reason in cases:
        with pytest.raises(IllegalMove, match=reason) as err:
            game.submit(0, action)  # type: ignore[arg-type]
        assert str(err.value).startswith("Ann")
        assert game.waiting_for() == [0, 1] and game.pending(0) is None
    assert record_of(game) == before


def test_no_piece_may_end_above_the_skyline_so_tall_columns_lose_drops() -> None:
    """Skyline: a drop that would stick out above row 14 is not legal."""
    game = game_with("I")
    fill(game, 0, ["#......."] * 12)  # column 0 is 12 high
    drops = game.legal_drops(0)
    assert all(y < 15 for p in drops for _, y in p.cells)
    assert not any(x == 0 and p.orientation.height == 4 for p in drops for x, _ in p.cells)
    with pytest.raises(IllegalMove, match="above the skyline"):
        game.submit(0, drop([(0, 12), (0, 13), (0, 14), (0, 15)]))


def test_minos_land_on_top_of_their_column_before_the_piece() -> None:
    """Minos: each lands on top of its column, in order, before the PLAY piece."""
    game = game_with("O", rules={"start_minos": 3})
    fill(game, 0, ["##......"])
    # Minos at (0,1), (1,1), then (0,2) on top of the first: the O lands on column 0's top.
    action = find_drop(game, 0, {(0, 3), (1, 3), (0, 4), (1, 4)}, minos=[0, 1, 0])
    game.submit(0, action)
    rows = game.towers[0].rows()
    assert rows[-5:] == ["OO......", "OO......", "M.......", "MM......", "MM......"]
    assert game.towers[0].minos == 0
    assert record_of(game)["rounds"][0] == [{"minos": [0, 1, 0], "place": [[0, 3], [0, 4], [1, 3], [1, 4]]}]


def test_a_mino_may_not_go_into_a_full_column() -> None:
    """Minos: none may end above the skyline."""
    game = game_with("O")
    fill(game, 0, ["#......."] * 15)
    with pytest.raises(IllegalMove, match="mino 1: column 1 is full"):
        game.submit(0, drop([(4, 0), (5, 0), (4, 1), (5, 1)], minos=[0]))


def test_diamonds_covered_by_a_tetromino_give_minos_usable_next_round() -> None:
    """Diamonds: one mino per diamond covered by the tetromino, from the supply, next round."""
    layout = {"bonus": [], "diamonds": [[0, 0], [1, 0], [5, 0]]}
    game = game_with("OO", towers=[layout])
    supply = game.supply
    game.submit(0, drop([(0, 0), (1, 0), (0, 1), (1, 1)]))
    assert game.towers[0].minos == 1 + 2
    assert game.supply == supply - 2


def test_a_mino_on_a_diamond_gives_nothing() -> None:
    """Diamonds: minos covering a diamond count only for four-diamonds, never give minos."""
    layout = {"bonus": [], "diamonds": [[5, 0]]}
    game = game_with("O", towers=[layout])
    game.submit(0, drop([(0, 0), (1, 0), (0, 1), (1, 1)], minos=[5]))
    assert game.towers[0].minos == 0
    assert game.towers[0].diamonds_covered() == 1


def test_short_mino_supply_serves_seats_in_seat_order_whatever_the_submission_order() -> None:
    """Diamonds: when the supply is short, seats are served in seat order; none when empty."""
    layout = {"bonus": [], "diamonds": [[0, 0], [1, 0]]}
    game = game_with("OO", players=3, rules={"minos_in_box": 6}, towers=[layout] * 3)
    assert game.supply == 3
    o = drop([(0, 0), (1, 0), (0, 1), (1, 1)])
    for seat in (2, 1, 0):
        game.submit(seat, o)
    assert [t.minos for t in game.towers] == [3, 2, 1]
    assert game.supply == 0
    for seat in range(3):
        game.submit(seat, drop([(0, 2), (1, 2), (0, 3), (1, 3)]))
    assert [t.minos for t in game.towers] == [3, 2, 1]  # empty box: none given


def test_bonus_icon_scores_only_for_a_tetromino_of_its_shape() -> None:
    """Bonus icons: +1 per icon covered by a tetromino of the icon's shape."""
    layout = {"bonus": [{"cell": [0, 0], "shape": "O"}, {"cell": [1, 1], "shape": "O"},
                        {"cell": [4, 0], "shape": "T"}], "diamonds": []}
    game = game_with("OO", towers=[layout])
    game.submit(0, drop([(0, 0), (1, 0), (0, 1), (1, 1)]))
    game.submit(0, drop([(4, 0), (5, 0), (4, 1), (5, 1)]))  # an O on a T icon: nothing
    assert game.towers[0].bonus == 2
    assert game.score(0)["bonus"] == 2
    assert sorted(game.towers[0].covered_bonus_cells()) == [(0, 0), (1, 1)]


def test_hold_is_once_per_game_and_allows_no_minos() -> None:
    """Hold: skips the piece, once per game, no minos that round."""
    game = game_with("OT")
    game.submit(0, TowerAction.holding())
    assert game.towers[0].held is Shape.O and not game.can_hold(0)
    assert game.towers[0].board.occupied == 0
    with pytest.raises(IllegalMove, match="used the hold already"):
        game.submit(0, TowerAction.holding())
    with pytest.raises(IllegalMove, match="no minos"):
        game.submit(0, TowerAction(minos=(0,), hold=True))


def test_no_legal_drop_forces_the_hold_then_puts_the_player_out() -> None:
    """Forced hold / out: the engine holds for a seat with no drop, and outs it once the hold is used."""
    game = game_with("IOOO", players=2)
    fill(game, 1, ["########"] * 14)
    game.submit(0, drop([(0, 0), (1, 0), (2, 0), (3, 0)]))
    game.submit(1, drop([(0, 14), (1, 14), (2, 14), (3, 14)]))
    # Round 2 (O): seat 1 has only row 14 half empty: no drop, so the engine holds for it.
    assert game.play_card is Shape.O
    assert game.waiting_for() == [0] and game.forced(1)
    assert game.pending(1) == TowerAction(hold=True)
    with pytest.raises(IllegalMove, match="no legal drop"):
        game.submit(1, drop([(4, 14), (5, 14), (4, 15), (5, 15)]))
    game.submit(0, drop([(0, 1), (1, 1), (0, 2), (1, 2)]))
    # Round 3 (O): the hold is used: seat 1 is out, its tower frozen, its score kept.
    assert game.towers[1].out and game.active_seats() == [0]
    with pytest.raises(IllegalMove, match="Bob is out"):
        game.submit(1, TowerAction.holding())
    score = game.score(1)
    assert score["lines"] == 14
    game.submit(0, drop([(4, 0), (5, 0), (4, 1), (5, 1)]))
    rounds = record_of(game)["rounds"]
    assert rounds[1][1] == {"hold": True}
    assert rounds[2][1] is None
    assert game.score(1) == score


def test_game_ends_when_every_player_is_out() -> None:
    """End: the game ends when every player is out."""
    game = game_with("IOO")
    fill(game, 0, ["########"] * 14)
    game.submit(0, drop([(0, 14), (1, 14), (2, 14), (3, 14)]))
    # O: forced hold (resolves by itself: nobody has a choice); next O: out; game over.
    assert game.over
    assert game.round == 2
    assert record_of(game)["rounds"] == [[{"place": [[0, 14], [1, 14], [2, 14], [3, 14]]}], [{"hold": True}]]
    assert game.winners() == [0]


def test_game_ends_after_the_27th_card() -> None:
    """End: after the 27th card is played (a tall tower so nobody goes out first)."""
    game = TowerGame(["A", "B"], {"height": 40}, seed=2)
    while not game.over:
        assert game.round == len(game.rounds) + 1 <= 27
        for seat in game.waiting_for():
            game.submit(seat, TowerAction.drop(min(game.legal_drops(seat), key=lambda p: (p.y, p.x))))
    assert not any(t.out for t in game.towers)
    assert game.round == 27 and len(game.rounds) == 27
    assert game.play_card is None and game.next_card is None and game.deck_left == 0
    assert sum(len(t.board.stones) for t in game.towers) == 2 * 27
    assert game.winners()


# ---------------------------------------------------------------- scoring


def test_score_is_two_per_row_plus_bonus_plus_achievements() -> None:
    """Scoring: 2 per complete row + bonus + achievements."""
    layout = {"bonus": [{"cell": [6, 0], "shape": "O"}], "diamonds": []}
    game = game_with("O", towers=[layout])
    fill(game, 0, ["######.."] * 6)
    game.submit(0, drop([(6, 0), (7, 0), (6, 1), (7, 1)]))
    s = game.score(0)
    assert s["lines"] == 2 and s["line_points"] == 4 and s["bonus"] == 1
    assert s["achievements"] == {}
    assert s["total"] == 5


CHECKERS = ["#.#.#.#.", ".#.#.#.#"]
"""Two rows no tetromino can enter or pass (no two empty cells touch), and neither is complete."""


def _finish_by_holding(game: TowerGame) -> None:
    """End the game the rules' way: no seat can drop any more, everyone holds, then all are out."""
    for seat in range(game.player_count):
        fill(game, seat, CHECKERS + ["........"] * 13)
    for seat in game.waiting_for():
        assert game.legal_drops(seat) == []
        game.submit(seat, TowerAction.holding())
    assert game.over and all(t.out for t in game.towers)


def test_tie_on_points_goes_to_more_complete_rows() -> None:
    """Scoring: highest total wins; a tie on points goes to the player with more complete rows."""
    plain = {"bonus": [], "diamonds": []}
    icons = {"bonus": [{"cell": [0, 2], "shape": "I"}, {"cell": [1, 2], "shape": "I"}], "diamonds": []}
    game = game_with("I", players=2, towers=[plain, icons])
    fill(game, 0, ["....####"] + ["########"] * 3)  # the I makes 4 rows: 8 points
    fill(game, 1, ["....####"] + ["########"] * 2)  # the I makes 3 rows and covers 2 icons: 8
    game.submit(0, drop([(0, 3), (1, 3), (2, 3), (3, 3)]))
    game.submit(1, drop([(0, 2), (1, 2), (2, 2), (3, 2)]))
    _finish_by_holding(game)
    assert [(game.score(s)["total"], game.score(s)["lines"]) for s in (0, 1)] == [(8, 4), (8, 3)]
    assert game.winners() == [0]
    assert game.summary()["winners"] == ["Ann"]


def test_tie_on_points_and_rows_is_a_shared_win() -> None:
    """Scoring: still tied after complete rows, the win is shared."""
    game = game_with("I", players=3)
    for seat in range(3):
        fill(game, seat, ["....####", "########"] if seat < 2 else ["....####"])
        y = 1 if seat < 2 else 0
        game.submit(seat, drop([(0, y), (1, y), (2, y), (3, y)]))
    _finish_by_holding(game)
    assert [game.score(s)["total"] for s in range(3)] == [4, 4, 2]
    assert game.winners() == [0, 1]
    assert game.summary()["winners"] == ["Ann", "Bob"]
