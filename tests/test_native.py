"""The compiled core against the pure-Python reference: the same answers, bit for bit.

Boards are random bitboards (any density, any fill height, widths 1-63, heights 1-100), so the
generators meet overhangs, caves, full rows and out-of-reach pockets that games rarely make.
Every access mode, both orientation modes and every shape are compared on each board.
"""

from __future__ import annotations

import os
import random
import subprocess
import sys

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tabletris.bots import heuristics
from tabletris.bots.heuristics import features_of, max_rows_of
from tabletris.engine import board as board_module
from tabletris.engine.board import ACCESS_MODES, Board, complete_rows_of
from tabletris.engine.shapes import ORIENTATION_MODES, Shape

if not board_module.native_available():
    if os.environ.get("TABLETRIS_PURE", "") not in ("", "0"):
        pytest.skip("TABLETRIS_PURE is set: only the pure engine runs", allow_module_level=True)
    pytest.fail(
        f"the compiled core is not loaded ({board_module.engine_name()}); "
        "reinstall with a C compiler, or set TABLETRIS_PURE=1 to test the pure engine alone",
        pytrace=False,
    )


engine = board_module.engine


def both(fn):  # type: ignore[no-untyped-def]
    """``fn()`` on the compiled core and on the reference."""
    with engine(True):
        fast = fn()
    with engine(False):
        slow = fn()
    return fast, slow


def random_board(rng: random.Random, width: int, height: int) -> Board:
    """Cells filled with a random density up to a random height, some rows made complete."""
    board = Board(width, height)
    stride = width + 1
    density = rng.random()
    top = rng.randint(0, height)
    occ = 0
    for y in range(top):
        if rng.random() < 0.1:
            occ |= ((1 << width) - 1) << (y * stride)
            continue
        for x in range(width):
            if rng.random() < density:
                occ |= 1 << (y * stride + x)
    board.occupied = occ
    return board


boards = st.builds(
    random_board,
    st.randoms(use_true_random=False),
    st.one_of(st.integers(4, 12), st.integers(4, 40), st.integers(1, 63)),
    st.one_of(st.integers(4, 24), st.integers(1, 100)),
)

SETTINGS = settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@pytest.mark.parametrize("access", ACCESS_MODES)
@pytest.mark.parametrize("mode", ORIENTATION_MODES)
@SETTINGS
@given(board=boards)
def test_placements_agree(board: Board, mode: str, access: str) -> None:
    for shape in Shape:
        fast, slow = both(lambda s=shape: board.placements(s, mode, access))  # type: ignore[arg-type]
        assert fast == slow, (shape, board.width, board.height)
        has = both(lambda s=shape: board.has_placement(s, mode, access))  # type: ignore[arg-type]
        assert has == (bool(slow), bool(slow)), shape
        for o in shape.orientations(mode):  # type: ignore[arg-type]
            assert board.positions(o, access) == board.positions_py(o, access)  # type: ignore[arg-type]


@settings(max_examples=2000, deadline=None)
@given(board=boards)
def test_rows_and_features_agree(board: Board) -> None:
    w, h = board.width, board.height
    rows, rows_py = both(lambda: complete_rows_of(board.occupied, w, h))
    assert rows == rows_py
    assert board.complete_rows() == [y for y in range(h) if rows >> y & 1]
    assert features_of(board.occupied, w, h) == heuristics.features_of_py(board.occupied, w, h)


@settings(max_examples=600, deadline=None)
@given(
    board=boards,
    shape=st.sampled_from(list(Shape)),
    mode=st.sampled_from(ORIENTATION_MODES),
    access=st.sampled_from(ACCESS_MODES),
    max_gaps=st.integers(1, 6),
    data=st.data(),
)
def test_row_threats_agree(
    board: Board, shape: Shape, mode: str, access: str, max_gaps: int, data: st.DataObject
) -> None:
    """The most threatened rows one placement completes, on the rows asked about."""
    w, h = board.width, board.height
    candidates = data.draw(st.integers(0, (1 << h) - 1), label="candidate rows")
    fast, slow = both(
        lambda: max_rows_of(board.occupied, w, h, shape, mode, access, candidates, max_gaps)  # type: ignore[arg-type]
    )
    assert fast == slow


def test_a_known_board() -> None:
    """A worked example: a cave only a slide reaches, a row one I completes."""
    board = Board.from_rows(
        [
            "......",
            "##....",
            "#.....",
            "#.###.",
        ]
    )
    (i,) = (o for o in Shape.I.orientations("rotate") if o.width == 4)
    with engine(True):
        slide = {(p.x, p.y) for p in board.placements(Shape.I, "rotate", "slide") if p.orientation is i}
        drop = {(p.x, p.y) for p in board.placements(Shape.I, "rotate", "drop") if p.orientation is i}
        threat = max_rows_of(board.occupied, 6, 4, Shape.M, "rotate", "slide", 0b1111)
    assert (1, 1) in slide and (1, 1) not in drop  # slid in under the overhang at row 2
    assert (1, 3) in drop and (2, 1) in drop  # the drop at x=1 stops on the overhang
    assert threat == 0  # a mino can be placed but completes no row (row 0 misses two cells)
    with engine(False):
        assert threat == max_rows_of(board.occupied, 6, 4, Shape.M, "rotate", "slide", 0b1111)


def test_bad_input_is_refused_clearly() -> None:
    from tabletris.engine import _native  # type: ignore[attr-defined]

    with pytest.raises(ValueError, match="out of range"):
        _native.positions(0, 70, 10, 1, b"\x01\x01\x01\x00\x00")
    with pytest.raises(ValueError, match="access code 7"):
        _native.positions(0, 10, 10, 7, b"\x01\x01\x01\x00\x00")
    with pytest.raises(ValueError, match="malformed orientation spec"):
        _native.positions(0, 10, 10, 1, b"\x01\x01")
    with pytest.raises(ValueError, match="negative"):
        _native.complete_rows(-1, 10, 10)
    with pytest.raises(OverflowError, match=r"board bits beyond a 10x10 board \(highest bit 5000; 112 bits fit\)"):
        _native.complete_rows(1 << 5000, 10, 10)


def test_wide_boards_stay_in_python() -> None:
    """64 columns do not fit the core's one word per row: the reference answers, the same way."""
    board = Board(64, 6)
    board.occupied = random_board(random.Random(3), 64, 6).occupied
    with engine(True):
        fast = board.placements(Shape.T, "free", "slide")
    assert fast == board.placements_py(Shape.T, "free", "slide")


@pytest.mark.parametrize(
    ("env", "expected"),
    [
        ({"TABLETRIS_PURE": "1"}, "pure Python (TABLETRIS_PURE is set)"),
        ({"TABLETRIS_PURE": "0"}, "native"),
    ],
)
def test_engine_is_reported(env: dict[str, str], expected: str) -> None:
    code = "from tabletris.engine.board import engine_name; print(engine_name())"
    out = subprocess.run(
        [sys.executable, "-c", code], env={**os.environ, **env}, capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == expected


def test_a_machine_without_the_core_runs_pure() -> None:
    """As if the compile had failed at install: the import fails, the engine says why and plays."""
    code = (
        "import sys; sys.modules['tabletris.engine._native'] = None\n"
        "from tabletris.engine.board import engine_name\n"
        "from tabletris.engine.dice import DiceGame\n"
        "g = DiceGame(['a', 'b'], seed=1); g.roll(); print(engine_name()); print(len(g.turn_options()) > 0)"
    )
    env = {k: v for k, v in os.environ.items() if k != "TABLETRIS_PURE"}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    name, played = out.stdout.strip().splitlines()
    assert name.startswith("pure Python (the compiled core is not built: ")
    assert played == "True"


def test_switching_needs_the_core() -> None:
    with engine(False):
        assert board_module.engine_name() == "pure Python (switched off with use_native(False))"
    assert board_module.engine_name() == "native"


def _outcome(board: Board, shape: Shape, cells: object, mode: str, access: str) -> object:
    try:
        return board.validate(shape, cells, mode, access)  # type: ignore[arg-type]
    except Exception as e:  # the exact error is what is compared
        return (type(e).__name__, str(e))


@settings(max_examples=400, deadline=None)
@given(
    board=boards,
    shape=st.sampled_from(list(Shape)),
    mode=st.sampled_from(ORIENTATION_MODES),
    access=st.sampled_from(ACCESS_MODES),
    data=st.data(),
)
def test_validate_fast_path_words_everything_as_validate(
    board: Board, shape: Shape, mode: str, access: str, data: st.DataObject
) -> None:
    """``validate`` on int pairs goes through a bitboard fast path: same placement, same error."""
    legal = board.placements_py(shape, "free", "free")
    pick = st.sampled_from([p.cells for p in legal]) if legal else st.nothing()
    coord = st.integers(-2, max(board.width, board.height) + 2)
    cells = data.draw(
        st.one_of(
            pick,
            st.lists(st.tuples(coord, coord), min_size=0, max_size=5),
            st.lists(st.lists(coord, min_size=2, max_size=2).map(tuple), min_size=1, max_size=4).map(tuple),
            st.just(((0, 0), (1.0, 0), (2, 0), (3, 0))),
            st.just(((True, 0), (1, 0), (2, 0), (3, 0))),
        ),
        label="cells",
    )
    slow = Board.__new__(Board)
    slow.__dict__.update({k: getattr(board, k) for k in ("geometry", "width", "height", "occupied")})
    slow.stones, slow._grid = board.stones, board._grid
    slow._validate_fast = lambda *a: None  # type: ignore[method-assign]
    assert _outcome(board, shape, cells, mode, access) == _outcome(slow, shape, cells, mode, access)


def test_validate_fast_path_takes_legal_placements() -> None:
    board = Board.from_rows(["....", "....", "#..#"])
    for p in board.placements(Shape.T, "rotate", "slide"):
        assert board._validate_fast(Shape.T, p.cells, "rotate", "slide") == p
        assert board._validate_fast(Shape.T, [list(c) for c in p.cells], "rotate", "slide") is None
