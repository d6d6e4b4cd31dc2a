"""Boards as RGB arrays, for ``render_mode="rgb_array"`` (videos, notebooks)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from functools import cache

import numpy as np

from tabletris.engine.board import Board
from tabletris.engine.shapes import Shape

CELL_PIXELS = 12
EMPTY = (24, 24, 28)
GARBAGE = (110, 110, 110)
GAP = 4


@cache
def shape_rgb(shape: Shape) -> tuple[int, int, int]:
    """The engine's colour of a shape (one palette for every front end) as 0-255 RGB."""
    from matplotlib.colors import to_rgb

    r, g, b = to_rgb(shape.colour)
    return int(r * 255), int(g * 255), int(b * 255)


def board_rgb(board: Board, dim: Iterable[int] = ()) -> np.ndarray:
    """``board`` as ``(height * CELL_PIXELS, width * CELL_PIXELS, 3)`` uint8, row 0 at the bottom.

    Stones owned by a seat in ``dim`` are drawn at half brightness (the other players', seen
    from the player the picture is for); garbage is grey.
    """
    dimmed = set(dim)
    grid = np.empty((board.height, board.width, 3), dtype=np.uint8)
    grid[:] = EMPTY
    for stone in board.stones.values():
        colour = np.array(GARBAGE if stone.owner is None else shape_rgb(stone.shape), dtype=np.float32)
        if stone.owner is not None and stone.owner in dimmed:
            colour = colour * 0.5
        for x, y in stone.cells:
            grid[board.height - 1 - y, x] = colour.astype(np.uint8)
    return np.repeat(np.repeat(grid, CELL_PIXELS, axis=0), CELL_PIXELS, axis=1)


def side_by_side(pictures: Sequence[np.ndarray]) -> np.ndarray:
    """Pictures of equal height in a row, a dark gap between them."""
    height = max(p.shape[0] for p in pictures)
    gap = np.zeros((height, GAP * CELL_PIXELS // 4, 3), dtype=np.uint8)
    parts: list[np.ndarray] = []
    for i, p in enumerate(pictures):
        if i:
            parts.append(gap)
        parts.append(p)
    return np.concatenate(parts, axis=1)
