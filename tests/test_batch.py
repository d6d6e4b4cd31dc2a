"""Batched placements: the arrays say what ``Board.placements`` says, on both engines."""

from __future__ import annotations

import random

import numpy as np
import pytest

from tabletris.engine import board as board_module
from tabletris.engine.batch import Layout, legal_anchors, placements_from
from tabletris.engine.board import ACCESS_MODES, Board
from tabletris.engine.shapes import ORIENTATION_MODES, Shape

ENGINES = [False, True] if board_module.native_available() else [False]


def _boards(rng: random.Random, width: int, height: int, count: int) -> list[Board]:
    boards = []
    for _ in range(count):
        b = Board(width, height)
        density, top = rng.random(), rng.randint(0, height)
        for y in range(top):
            for x in range(width):
                if rng.random() < density:
                    b.occupied |= 1 << (y * (width + 1) + x)
        boards.append(b)
    return boards


@pytest.mark.parametrize("native", ENGINES)
@pytest.mark.parametrize("access", ACCESS_MODES)
@pytest.mark.parametrize("mode", ORIENTATION_MODES)
def test_batch_matches_board_placements(native: bool, access: str, mode: str) -> None:
    rng = random.Random(f"{access}{mode}")
    was = board_module.native_module() is not None
    board_module.use_native(native)
    try:
        for width, height in ((10, 20), (4, 6), (37, 30)):
            layout = Layout(width, height, orientation=mode, access=access)  # type: ignore[arg-type]
            boards = _boards(rng, width, height, 12)
            legal = legal_anchors(boards, layout)
            assert legal.shape == (12, len(layout.forms), height, width) and legal.dtype == np.bool_
            for b, board in enumerate(boards):
                expected = [p for s in layout.shapes for p in board.placements_py(s, mode, access)]  # type: ignore[arg-type]
                assert placements_from(legal[b], layout) == expected
    finally:
        board_module.use_native(was)


def test_bitboards_work_as_boards_and_sizes_are_checked() -> None:
    layout = Layout(10, 20, shapes=(Shape.O,), orientation="rotate", access="drop")
    board = Board(10, 20)
    assert (legal_anchors([board.occupied], layout) == legal_anchors([board], layout)).all()
    assert legal_anchors([0], layout)[0, 0, 0].tolist() == [True] * 9 + [False]
    with pytest.raises(ValueError, match=r"boards\[1\] is 8x20, the layout is 10x20"):
        legal_anchors([board, Board(8, 20)], layout)
    with pytest.raises(ValueError, match="unknown access mode 'fly'"):
        Layout(10, 20, access="fly")  # type: ignore[arg-type]
