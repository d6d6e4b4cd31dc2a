"""rules.md section 1 on the board: resting, access, validation, complete rows, push and pop.

The example tests draw boards as pictures (top row first). The property tests build random boards
from random legal moves and check the bitboard move generator against ``reference_positions``, a
plain breadth-first search written in ``tests/helpers.py`` that shares no code with it.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from helpers import board_from_rows, filled_cells, reference_positions, rests
from tabletris.engine.board import ACCESS_MODES, Board, IllegalPlacement, Placement
from tabletris.engine.shapes import ORIENTATION_MODES, Shape, find_orientation


def anchors(board: Board, shape: Shape, orientation: str = "rotate", access: str = "slide") -> set:
    """The engine's legal placements as comparable (cells) tuples."""
    return {p.cells for p in board.placements(shape, orientation, access)}  # type: ignore[arg-type]


def reason(
    board: Board, shape: Shape, cells: list, orientation: str = "rotate", access: str = "slide"
) -> str:
    with pytest.raises(IllegalPlacement) as info:
        board.validate(shape, cells, orientation, access)  # type: ignore[arg-type]
    return info.value.reason


# ------------------------------------------------------------------ pictures


def test_board_from_rows_reads_pictures_top_row_first() -> None:
    """Rule 'Coordinates': x is the column from the left, y the row from the bottom."""
    board = board_from_rows(
        [
            "T.....",
            "TTiiii",
            "TIIII#",
        ]
    )
    assert board.rows() == ["T.....", "TTIIII", "TIIIIM"]
    assert board.stone_at((0, 0)) is board.stone_at((0, 2))
    assert board.stone_at((0, 0)).shape is Shape.T  # type: ignore[union-attr]
    assert board.stone_at((2, 1)) is not board.stone_at((2, 0))
    assert len(board.stones) == 4


def test_board_size_out_of_range_is_rejected() -> None:
    """A board has a size the bitboard can hold; nonsense sizes are an error naming the size."""
    with pytest.raises(ValueError, match="0x5"):
        Board(0, 5)


# ------------------------------------------------------------------- resting


def test_rest_on_row_zero() -> None:
    """Rule 'Resting': a placement rests when at least one of its cells is on row 0."""
    board = Board(6, 4)
    assert board.validate(Shape.I, [[0, 0], [1, 0], [2, 0], [3, 0]], access="free").y == 0
    assert (
        reason(board, Shape.I, [[0, 1], [1, 1], [2, 1], [3, 1]], access="free") == "does not rest"
    )


def test_rest_by_face_contact() -> None:
    """Rule 'Resting': ... or directly above a filled cell (face contact)."""
    board = board_from_rows(
        [
            "......",
            "......",
            "##....",
        ]
    )
    # T with one cell over the filled (1,0): rests, although three cells hang over nothing.
    placement = board.validate(Shape.T, [[1, 1], [2, 1], [3, 1], [2, 2]], "rotate", "free")
    assert placement.cells == ((1, 1), (2, 1), (2, 2), (3, 1))


def test_corner_contact_is_not_enough() -> None:
    """Rule 'Resting': a corner is not enough (seed 000: 'touching only the corner is not enough')."""
    board = board_from_rows(
        [
            "......",
            "......",
            "##....",
        ]
    )
    # (2,1) touches the filled (1,0) only at a corner, and touches (1,1)'s empty face.
    assert (
        reason(board, Shape.I, [[2, 1], [3, 1], [4, 1], [5, 1]], access="free") == "does not rest"
    )
    assert (
        reason(board, Shape.I, [[2, 1], [3, 1], [4, 1], [5, 1]], access="slide") == "does not rest"
    )
    # Side contact is not resting either: the I beside the wall of stones hangs in the air.
    tall = board_from_rows(["#.....", "#.....", "#....."])
    assert reason(tall, Shape.I, [[1, 1], [2, 1], [3, 1], [4, 1]], access="free") == "does not rest"


def test_placements_never_float(empty_board: Board) -> None:
    """Rule 'Resting': pieces are never placed in the air: on an empty board, only on row 0."""
    for shape in Shape:
        for access in ACCESS_MODES:
            placements = empty_board.placements(shape, "free", access)
            assert placements
            assert all(p.y == 0 for p in placements)


# -------------------------------------------------------------------- access


def test_drop_only_where_it_lands() -> None:
    """Rule 'Access drop': it falls straight down; the only legal placement is where it lands."""
    board = board_from_rows(
        [
            "......",
            "......",
            "......",
            "#.....",
        ]
    )
    vertical = [[0, 1], [0, 2], [0, 3], [0, 4]]
    small = Board(6, 6)
    for stone in board.stones.values():
        small.add(stone)
    assert small.validate(Shape.I, vertical, "rotate", "drop").y == 1
    assert reason(small, Shape.I, [[0, 2], [0, 3], [0, 4], [0, 5]], access="drop") == (
        "is not where a straight drop lands (access drop)"
    )
    # One placement per orientation and column, at the landing row.
    o_drops = board.placements(Shape.O, "rotate", "drop")
    assert sorted((p.x, p.y) for p in o_drops) == [(0, 1), (1, 0), (2, 0), (3, 0), (4, 0)]


def test_drop_cannot_go_under_an_overhang(overhang_board: Board) -> None:
    """Rule 'Access drop': a straight fall stops on the shelf; under it is not a drop placement."""
    under = [[0, 0], [1, 0], [0, 1], [1, 1]]
    assert overhang_board.validate(Shape.O, under, access="free").cells == (
        (0, 0),
        (0, 1),
        (1, 0),
        (1, 1),
    )
    assert reason(overhang_board, Shape.O, under, access="drop") == (
        "is not where a straight drop lands (access drop)"
    )
    assert {(p.x, p.y) for p in overhang_board.placements(Shape.O, "rotate", "drop")} == {
        (0, 3),
        (1, 3),
        (2, 3),
        (3, 3),
        (4, 3),
    }


def test_slide_reaches_under_an_overhang_sideways(overhang_board: Board) -> None:
    """Rule 'Access slide': moved by one-cell steps left, right and down through empty cells.

    A mino goes down the open column 5 and slides left under the shelf.
    """
    assert overhang_board.validate(Shape.M, [[0, 0]], access="slide").cells == ((0, 0),)
    assert reason(overhang_board, Shape.M, [[0, 0]], access="drop") == (
        "is not where a straight drop lands (access drop)"
    )
    # A vertical I comes down column 5; it cannot turn under the shelf (no rotation in flight).
    assert overhang_board.validate(Shape.I, [[5, 0], [5, 1], [5, 2], [5, 3]], access="slide")


def test_slide_space_under_overhang_that_no_path_reaches(overhang_board: Board) -> None:
    """Rule 'Access slide': spaces under overhangs that no such path reaches cannot be filled.

    The space under the shelf is open, but a horizontal I is too wide for the one-cell gap.
    """
    lying = [[0, 0], [1, 0], [2, 0], [3, 0]]
    assert reason(overhang_board, Shape.I, lying, access="slide") == (
        "cannot be reached from the top (access slide)"
    )
    assert overhang_board.validate(Shape.I, lying, access="free")
    assert not any(
        p.y < 2 and p.orientation.width == 4
        for p in overhang_board.placements(Shape.I, "rotate", "slide")
    )


def test_slide_cannot_fill_an_enclosed_hole() -> None:
    """Rule 'Access slide': enclosed holes cannot be filled (seed 000: access closed)."""
    board = board_from_rows(
        [
            "......",
            "######",
            "#....#",
            "######",
        ]
    )
    hole = [[1, 1], [2, 1], [3, 1], [4, 1]]
    assert (
        reason(board, Shape.I, hole, access="slide")
        == "cannot be reached from the top (access slide)"
    )
    assert (
        reason(board, Shape.M, [[2, 1]], access="slide")
        == "cannot be reached from the top (access slide)"
    )
    assert board.validate(Shape.I, hole, access="free").y == 1
    assert all(p.y == 3 for p in board.placements(Shape.M, "rotate", "slide"))


def test_slide_cannot_move_up() -> None:
    """Rule 'Access slide': steps are left, right and down only: a piece never climbs over a lip."""
    board = board_from_rows(
        [
            ".....",
            ".....",
            "###..",
            "#.#..",
            "#....",
        ]
    )
    # (1,1) opens only downwards through (1,0), which opens only to the right under the shelf:
    # reaching (1,1) would need an upward step.
    assert reason(board, Shape.M, [[1, 1]], access="free") == "does not rest"
    assert board.validate(Shape.M, [[1, 0]], access="slide")
    up = board_from_rows(
        [
            ".....",
            ".....",
            "###..",
            "...#.",
            "#....",
        ]
    )
    # (0,1) rests on (0,0) but the way there runs along row 0 and then up: closed to sliding.
    assert up.validate(Shape.M, [[0, 1]], access="free")
    assert (
        reason(up, Shape.M, [[0, 1]], access="slide")
        == "cannot be reached from the top (access slide)"
    )
    assert up.validate(Shape.M, [[1, 0]], access="slide")


def test_free_access_is_any_resting_fit() -> None:
    """Rule 'Access free': any in-bounds, non-overlapping, resting position (a house rule)."""
    board = board_from_rows(
        [
            "......",
            "######",
            "#....#",
            "######",
        ]
    )
    free = anchors(board, Shape.I, "rotate", "free")
    assert ((1, 1), (2, 1), (3, 1), (4, 1)) in free
    filled = filled_cells(board)
    for cells in free:
        assert rests(cells, filled)
        assert not set(cells) & filled


def test_no_part_above_the_top_edge() -> None:
    """A placement lies on the board: a vertical I on a 5-high column of 2 does not fit."""
    board = board_from_rows(
        [
            "....",
            "....",
            "....",
            "#...",
            "#...",
        ]
    )
    assert (
        reason(board, Shape.I, [[0, 2], [0, 3], [0, 4], [0, 5]], access="free")
        == "is out of bounds"
    )
    assert not any(
        p.x == 0 for p in board.placements(Shape.I, "rotate", "drop") if p.orientation.height == 4
    )
    for access in ACCESS_MODES:
        assert all(
            max(y for _, y in p.cells) < 5 for p in board.placements(Shape.I, "free", access)
        )


# ---------------------------------------------------------------- validation


@pytest.mark.parametrize(
    ("cells", "expected"),
    [
        ([[0, 0], [1, 0], [2, 0], [1, 1]], "overlaps stone 1 (M)"),
        ([[-1, 0], [0, 0], [1, 0], [0, 1]], "is out of bounds"),
        ([[4, 0], [5, 0], [6, 0], [5, 1]], "is out of bounds"),
        ([[2, 2], [3, 2], [4, 2], [3, 3]], "does not rest"),
        ([[0, 0], [1, 0], [2, 0], [3, 0]], "is not the shape of a T"),
        ([[1, 0], [2, 0], [3, 0]], "needs 4 distinct cells"),
        ([[1, 0], [2, 0], [3, 0], [2, 1], [2, 2]], "needs 4 distinct cells"),
        ([[1, 0], [2, 0], [2, 0], [2, 1]], "needs 4 distinct cells"),
        (
            [[1, 0], [2], [3, 0], [2, 1]],
            "needs cells as [x, y] pairs, got [[1, 0], [2], [3, 0], [2, 1]]",
        ),
        (
            [[1, 0], [2.5, 0], [3, 0], [2, 1]],
            "needs cells as [x, y] pairs, got [[1, 0], [2.5, 0], [3, 0], [2, 1]]",
        ),
    ],
)
def test_validation_reasons(cells: list, expected: str) -> None:
    """Validation names the rule broken: overlap, bounds, resting, shape, number of cells, format."""
    board = board_from_rows(
        [
            "......",
            "......",
            "......",
            "#.....",
        ]
    )
    assert reason(board, Shape.T, cells, "free", "free") == expected


def test_mirrored_piece_under_rotate() -> None:
    """Rule 'Orientation': under `rotate` an S may not be laid as a Z (it would have to be mirrored)."""
    board = Board(6, 4)
    z_cells = [[0, 1], [1, 1], [1, 0], [2, 0]]
    assert (
        reason(board, Shape.S, z_cells, "rotate", "free")
        == "would have to be mirrored (orientation rotate)"
    )
    placement = board.validate(Shape.S, z_cells, "free", "free")
    assert placement.shape is Shape.S and placement.orientation.mirrored


def test_illegal_placement_message_is_the_record_wording() -> None:
    """record-format.md: the error reads like `T does not rest at [[4,7],[5,7],[6,7],[5,8]]`."""
    board = Board(10, 20)
    with pytest.raises(IllegalPlacement) as info:
        board.validate(Shape.T, [[4, 7], [5, 7], [6, 7], [5, 8]], "free", "slide")
    assert str(info.value) == "T does not rest at [[4,7],[5,7],[6,7],[5,8]]"
    assert info.value.shape == "T" and info.value.cells == [[4, 7], [5, 7], [6, 7], [5, 8]]
    with pytest.raises(IllegalPlacement) as malformed:
        board.validate(Shape.T, 5)  # type: ignore[arg-type]
    assert str(malformed.value) == "T needs cells as [x, y] pairs, got 5"  # no empty "at []"


def test_validate_returns_the_generated_placement(empty_board: Board) -> None:
    """Validation and generation agree: a generated placement validates to itself."""
    for p in empty_board.placements(Shape.L, "free", "slide"):
        assert (
            empty_board.validate(Shape.L, [list(c) for c in reversed(p.cells)], "free", "slide")
            == p
        )


# ------------------------------------------------------------- complete rows


def test_complete_row_detection() -> None:
    """Rule 'Complete row': a row whose `width` cells are all filled."""
    board = board_from_rows(
        [
            "#.....",
            "######",
            "#####.",
            "######",
        ]
    )
    assert board.complete_rows() == [0, 2]
    assert board.complete_rows_mask() == 0b101
    assert board.column_heights() == [4, 3, 3, 3, 3, 3]


def test_complete_rows_on_a_push() -> None:
    """Rule 'Complete row': the piece that fills the last cells completes the rows."""
    board = board_from_rows(
        [
            "......",
            "##.###",
            "##.###",
        ]
    )
    assert board.complete_rows() == []
    p = board.validate(Shape.J, [[2, 0], [2, 1], [2, 2], [1, 2]], "free", "slide")
    board.push(p, owner=0)
    assert board.complete_rows() == [0, 1]


def test_clear_rows_cells_fall_cell_by_cell() -> None:
    """House rule 'clear_rows': rows are removed and the rows above move down, cell by cell."""
    board = board_from_rows(
        [
            ".T....",
            "TTT...",
            "######",
            "J.....",
            "JJJ###",
        ]
    )
    t = board.stone_at((1, 3))
    board.clear_rows([0, 2])
    assert board.rows() == [
        "......",
        "......",
        ".T....",
        "TTT...",
        "J.....",
    ]
    # The J lost its bottom cells and fell by one row; the T fell by two and kept its number.
    assert board.stone_at((0, 0)).cells == ((0, 0),)  # type: ignore[union-attr]
    assert board.stone_at((1, 2)).number == t.number  # type: ignore[union-attr]
    assert board.complete_rows() == []


# ----------------------------------------------------------------- push, pop


def test_push_and_pop() -> None:
    """Push puts a stone with its owner and the next number; pop takes exactly that stone back."""
    board = board_from_rows(["......", "#....."])
    before = board.copy()
    p = board.validate(Shape.L, [[1, 0], [2, 0], [3, 0], [3, 1]], "rotate", "slide")
    stone = board.push(p, owner=2)
    assert stone.owner == 2 and stone.number == 2 and stone.shape is Shape.L
    assert board.stone_at((3, 1)) == stone
    assert board != before
    assert board.pop() == stone
    assert board == before
    assert board.rows() == before.rows()
    assert board.push(p, owner=2).number == 2


def test_push_onto_a_stone_is_rejected_and_changes_nothing() -> None:
    """Push does not check rules, but it never lays a stone over another: the board stays as it was."""
    board = board_from_rows(["......", "#....."])
    before = board.copy()
    o = Shape.O.orientations()[0]
    with pytest.raises(IllegalPlacement, match="overlaps"):
        board.push(Placement(Shape.O, o, 0, 0))
    assert board == before
    assert board.push(Placement(Shape.O, o, 1, 0)).number == 2  # the number was not used up


def test_board_rows_use_shape_letters() -> None:
    """record-format.md: rows top first, `.` empty, the stone's shape letter for a filled cell."""
    board = Board(4, 3)
    mirrored = find_orientation(Shape.S, [(0, 1), (1, 1), (1, 0), (2, 0)], "free")
    assert mirrored is not None
    board.push(Placement(Shape.S, mirrored, 0, 0))
    assert board.rows() == ["....", "SS..", ".SS."]


# ---------------------------------------------------------------- properties


@st.composite
def random_boards(draw: st.DrawFn) -> Board:
    """A board built by random legal moves (free access, so it has holes and overhangs)."""
    width = draw(st.integers(4, 10))
    height = draw(st.integers(4, 12))
    board = Board(width, height)
    for _ in range(draw(st.integers(0, 30))):
        shape = draw(st.sampled_from(list(Shape)))
        access = draw(st.sampled_from(ACCESS_MODES))
        options = board.placements(shape, "free", access)
        if options:
            board.push(
                options[draw(st.integers(0, len(options) - 1))], owner=draw(st.integers(0, 3))
            )
    return board


PROPERTY_SETTINGS = settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)


@PROPERTY_SETTINGS
@given(board=random_boards(), shape=st.sampled_from(list(Shape)))
def test_generated_placements_match_reference_search(board: Board, shape: Shape) -> None:
    """Rules 'Resting' and 'Access': generated placements are exactly those the plain rules allow.

    The reference is an independent breadth-first search over (orientation, x, y); every generated
    placement also validates, rests, lies on the board and overlaps nothing.
    """
    filled = filled_cells(board)
    for orientation_mode in ORIENTATION_MODES:
        for access in ACCESS_MODES:
            generated = board.placements(shape, orientation_mode, access)
            expected = {
                (o, x, y)
                for o in shape.orientations(orientation_mode)
                for x, y in reference_positions(board.width, board.height, filled, o, access)
            }
            assert {(p.orientation, p.x, p.y) for p in generated} == expected
            assert board.has_placement(shape, orientation_mode, access) == bool(expected)
            for p in generated:
                assert board.validate(shape, p.cells, orientation_mode, access) == p
                assert rests(p.cells, filled)
                assert not set(p.cells) & filled
                assert all(board.in_bounds(c) for c in p.cells)


@PROPERTY_SETTINGS
@given(
    board=random_boards(),
    shape=st.sampled_from(list(Shape)),
    orientation_mode=st.sampled_from(ORIENTATION_MODES),
    access=st.sampled_from(ACCESS_MODES),
    index=st.integers(0, 7),
    x=st.integers(-2, 11),
    y=st.integers(-2, 13),
)
def test_validate_accepts_exactly_the_reference_positions(
    board: Board, shape: Shape, orientation_mode: str, access: str, index: int, x: int, y: int
) -> None:
    """Validation accepts a placement if and only if the plain rules allow it, else names why."""
    forms = shape.orientations(orientation_mode)  # type: ignore[arg-type]
    o = forms[index % len(forms)]
    cells = o.at(x, y)
    legal = (x, y) in reference_positions(board.width, board.height, filled_cells(board), o, access)
    if legal:
        assert board.validate(shape, cells, orientation_mode, access).cells == cells  # type: ignore[arg-type]
    else:
        with pytest.raises(IllegalPlacement) as info:
            board.validate(shape, cells, orientation_mode, access)  # type: ignore[arg-type]
        assert info.value.reason in {
            "is out of bounds",
            "does not rest",
            "cannot be reached from the top (access slide)",
            "is not where a straight drop lands (access drop)",
        } or info.value.reason.startswith("overlaps stone")


@PROPERTY_SETTINGS
@given(board=random_boards(), shape=st.sampled_from(list(Shape)), pick=st.integers(0, 10_000))
def test_push_pop_restores_the_board_exactly(board: Board, shape: Shape, pick: int) -> None:
    """Push then pop leaves the board exactly as it was (cells, stones, rows, next number)."""
    options = board.placements(shape, "free", "free")
    if not options:
        return
    before = board.copy()
    before_rows = board.rows()
    before_grid = {c: board.stone_at(c) for c in filled_cells(board)}
    p = options[pick % len(options)]
    stone = board.push(p, owner=1)
    assert set(stone.cells) <= filled_cells(board)
    board.pop()
    assert board == before
    assert board.occupied == before.occupied
    assert board.rows() == before_rows
    assert {c: board.stone_at(c) for c in filled_cells(board)} == before_grid
    assert board.push(p, owner=1).number == stone.number


@PROPERTY_SETTINGS
@given(
    board=random_boards(),
    shape=st.sampled_from(list(Shape)),
    orientation_mode=st.sampled_from(ORIENTATION_MODES),
)
def test_drop_within_slide_within_free(board: Board, shape: Shape, orientation_mode: str) -> None:
    """Rule 'Access': a straight drop is one way of sliding, and every slide target rests: drop ⊆ slide ⊆ free."""
    drop = set(board.placements(shape, orientation_mode, "drop"))  # type: ignore[arg-type]
    slide = set(board.placements(shape, orientation_mode, "slide"))  # type: ignore[arg-type]
    free = set(board.placements(shape, orientation_mode, "free"))  # type: ignore[arg-type]
    assert drop <= slide <= free
