"""Board evaluation shared by the greedy and expert bots, all on the engine's bitboards.

Every feature is computed from ``board.occupied`` with a handful of shifts, masks and popcounts,
so a bot can score hundreds of candidate positions per decision in Python. Nothing here knows a
rule the engine does not already decide: legal positions come from the board's own generator,
scoring rows from the game's masks. This module only *measures* positions.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from functools import cache

from tabletris.engine.board import (
    ACCESS_CODE,
    NATIVE_MAX_WIDTH,
    Access,
    Board,
    Geometry,
    geometry,
    native_module,
    positions_of,
    shape_spec,
)
from tabletris.engine.shapes import Orientation, OrientationMode, Shape


@dataclass(frozen=True)
class Masks:
    """Masks for one board size that the features need beyond the engine's ``Geometry``."""

    geometry: Geometry
    columns: tuple[int, ...]
    """One mask per column, every row of the board."""
    wall: int
    """The spare column (x = width) on every board row: a wall on both sides once shifted."""
    with_wall: int
    """Board cells plus the spare column: where row transitions are counted."""
    left_col: int
    right_col: int


@cache
def masks_for(width: int, height: int) -> Masks:
    g = geometry(width, height)
    stride = g.stride
    columns = tuple(sum(1 << (y * stride + x) for y in range(height)) for x in range(width))
    wall = sum(1 << (y * stride + width) for y in range(height))
    return Masks(g, columns, wall, g.full | wall, columns[0], columns[-1])


def fill_down(occupied: int, stride: int, height: int) -> int:
    """Every cell at or below a filled cell of the same column (a log-step smear downwards)."""
    covered = occupied
    shift = stride
    span = 1
    while span < height:
        covered |= covered >> shift
        shift <<= 1
        span <<= 1
    return covered


@dataclass(frozen=True, slots=True)
class Features:
    """The classic Tetris position features (Dellacherie, El-Tetris), measured once."""

    holes: int
    """Empty cells with a filled cell somewhere above them in the same column."""
    hole_rows: int
    """Rows that contain at least one hole: rows made hard to complete."""
    bumpiness: int
    """Sum of height differences between neighbouring columns."""
    row_transitions: int
    """Filled/empty changes along each row, walls counted as filled."""
    column_transitions: int
    """Filled/empty changes up each column, the floor counted as filled."""
    wells: int
    """Sum over well columns of depth*(depth+1)/2: deep one-wide shafts only an I can fill."""
    max_height: int
    aggregate_height: int
    heights: tuple[int, ...]


def features(board: Board) -> Features:
    """Measure ``board`` (its occupied bitboard) for the heuristics."""
    return features_of(board.occupied, board.width, board.height)


def features_of(occupied: int, width: int, height: int) -> Features:
    """The features of the bitboard ``occupied``, by the compiled core when it is loaded."""
    nat = native_module()
    if nat is not None and width <= NATIVE_MAX_WIDTH:
        return Features(*nat.features(occupied, width, height))
    return features_of_py(occupied, width, height)


def features_of_py(occupied: int, width: int, height: int) -> Features:
    """The reference for ``features_of``: shifts, masks and popcounts on the whole bitboard."""
    m = masks_for(width, height)
    g = m.geometry
    stride = g.stride
    full = g.full
    occ = occupied & full
    covered = fill_down(occ, stride, height) & full
    holes_mask = covered & ~occ
    holes = holes_mask.bit_count()
    hole_rows = 0
    if holes_mask:
        for row in g.row_masks:
            if holes_mask & row:
                hole_rows += 1
    heights = tuple((covered & col).bit_count() for col in m.columns)
    bump = 0
    for a, b in zip(heights, heights[1:], strict=False):
        bump += abs(a - b)
    walled = occ | m.wall
    # ``| 1``: the left wall of row 0 (the other rows see the spare column of the row below).
    row_tr = ((walled ^ ((walled << 1) | 1)) & m.with_wall).bit_count()
    col_tr = ((occ ^ ((occ << stride) | g.bottom_row)) & full).bit_count()
    # A well cell: empty, not under anything, with a filled cell or a wall left and right of it.
    open_cells = full & ~covered
    left_filled = ((walled << 1) | m.left_col) & full
    right_filled = (walled >> 1) & full
    well_cells = open_cells & left_filled & right_filled
    wells = 0
    if well_cells:
        for col in m.columns:
            d = (well_cells & col).bit_count()
            wells += d * (d + 1) // 2
    return Features(
        holes,
        hole_rows,
        bump,
        row_tr,
        col_tr,
        wells,
        max(heights) if heights else 0,
        sum(heights),
        heights,
    )


@dataclass(frozen=True)
class Weights:
    """How much each feature costs (positive numbers are penalties) in points-of-score units."""

    holes: float = 0.35
    hole_rows: float = 0.25
    bumpiness: float = 0.04
    row_transitions: float = 0.03
    column_transitions: float = 0.08
    wells: float = 0.03
    max_height: float = 0.01
    aggregate_height: float = 0.0

    def cost(self, f: Features) -> float:
        return (
            self.holes * f.holes
            + self.hole_rows * f.hole_rows
            + self.bumpiness * f.bumpiness
            + self.row_transitions * f.row_transitions
            + self.column_transitions * f.column_transitions
            + self.wells * f.wells
            + self.max_height * f.max_height
            + self.aggregate_height * f.aggregate_height
        )


DEFAULT_WEIGHTS = Weights()


def board_cost(board: Board, weights: Weights = DEFAULT_WEIGHTS) -> float:
    """The shape penalty of ``board``: lower is a cleaner, more completable board. On the
    compiled core it is one call (its ``immediate`` with no piece: the weighted features, summed
    in ``Weights.cost``'s order, so the same float); ``board_cost_py`` is the reference."""
    nat = native_module()
    if nat is not None and board.width <= NATIVE_MAX_WIDTH:
        cost: float = nat.immediate(
            board.occupied, board.width, board.height, [0], 0, False, weights_tuple(weights)
        )[0][1]
        return cost
    return board_cost_py(board, weights)


def board_cost_py(board: Board, weights: Weights = DEFAULT_WEIGHTS) -> float:
    """The reference for ``board_cost``."""
    return weights.cost(features(board))


@cache
def weights_tuple(weights: Weights) -> tuple[float, ...]:
    """The weights in ``Weights.cost``'s order, as the core reads them."""
    return tuple(float(getattr(weights, f.name)) for f in fields(weights))


# ----------------------------------------------------------------- row threats


def gap_rows(board: Board, candidates: int, max_gaps: int = 4) -> list[tuple[int, int]]:
    """``(row, gap mask)`` for each row in the ``candidates`` bit set missing 1..max_gaps cells.

    These are the rows one piece could complete: what a player is about to score, or hands to the
    next player.
    """
    return gap_rows_of(board.occupied, board.geometry, candidates, max_gaps)


def gap_rows_of(occ: int, g: Geometry, candidates: int, max_gaps: int = 4) -> list[tuple[int, int]]:
    """``gap_rows`` for the bitboard ``occ``."""
    result = []
    y = 0
    rows = candidates
    while rows:
        if rows & 1:
            row = g.row_masks[y]
            gaps = row & ~occ
            if gaps and gaps.bit_count() <= max_gaps:
                result.append((y, gaps))
        rows >>= 1
        y += 1
    return result


@cache
def _offsets(width: int, height: int, o: Orientation) -> tuple[int, ...]:
    return geometry(width, height).anchors(o).offsets


def max_rows_completed(
    board: Board,
    shape: Shape,
    mode: OrientationMode,
    access: Access,
    rows: list[tuple[int, int]],
) -> int:
    """The most of ``rows`` one legal placement of ``shape`` completes; -1 if it has no placement.

    A placement completes a row when its cells cover all that row's gaps: for each orientation
    the anchors that cover a gap cell ``i`` are ``OR(bit i >> offset)``; AND over the gap cells
    gives the anchors that fill the row, AND with the legal anchors gives the real ones.
    """
    return _max_rows_py(board.occupied, board.width, board.height, shape, mode, access, rows)


def max_rows_of(
    occupied: int,
    width: int,
    height: int,
    shape: Shape,
    mode: OrientationMode,
    access: Access,
    candidates: int,
    max_gaps: int = 4,
) -> int:
    """``max_rows_completed`` over the ``gap_rows_of`` the candidate rows, for a bitboard: one
    call into the compiled core when it is loaded."""
    nat = native_module()
    if nat is not None and width <= NATIVE_MAX_WIDTH:
        best: int = nat.max_rows(
            occupied, width, height, ACCESS_CODE[access], shape_spec(shape, mode), candidates, max_gaps
        )
        return best
    rows = gap_rows_of(occupied, geometry(width, height), candidates, max_gaps)
    return _max_rows_py(occupied, width, height, shape, mode, access, rows)


def _max_rows_py(
    occupied: int,
    width: int,
    height: int,
    shape: Shape,
    mode: OrientationMode,
    access: Access,
    rows: list[tuple[int, int]],
) -> int:
    """The reference for ``max_rows_of`` (and the body of ``max_rows_completed``)."""
    best = -1
    w, h = width, height
    for o in shape.orientations(mode):
        legal = positions_of(occupied, w, h, o, access)
        if not legal:
            continue
        if best < 0:
            best = 0
        if not rows:
            continue
        offsets = _offsets(w, h, o)
        covers: list[int] = []
        for _, gaps in rows:
            anchors = legal
            bits = gaps
            while bits and anchors:
                low = bits & -bits
                index = low.bit_length() - 1
                reach = 0
                for off in offsets:
                    if index >= off:
                        reach |= 1 << (index - off)
                anchors &= reach
                bits ^= low
            if anchors:
                covers.append(anchors)
        if not covers:
            continue
        if len(covers) == 1 or best >= len(covers):
            best = max(best, 1)
            continue
        union = 0
        for c in covers:
            union |= c
        while union:
            low = union & -union
            n = sum(1 for c in covers if c & low)
            if n > best:
                best = n
            union ^= low
    return best


