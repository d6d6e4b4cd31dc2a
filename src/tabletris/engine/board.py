"""The board: stones on a grid held as a bitboard, legal placements, push and pop.

Cell ``(x, y)`` is bit ``y * stride + x`` of a Python int, with ``stride = width + 1``: the spare
column at ``x = width`` is never a legal anchor, so shifting a set of positions one step left or
right can never wrap into the next row. Move generation works on whole sets of positions at once
(one int per orientation), which is what makes it cheap in Python.

The same loops exist compiled (``engine/_native.c``, built at install when a C compiler is there):
``positions``, ``placements``, ``has_placement`` and ``complete_rows_mask`` use it when it is
loaded and the board is at most 63 wide. This file stays the reference the compiled core is
tested against; ``TABLETRIS_PURE=1`` (or ``use_native(False)``) runs everything here.
"""

from __future__ import annotations

import importlib
import operator
import os
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from functools import cache, lru_cache
from types import ModuleType
from typing import Any, Literal, NamedTuple, cast

from tabletris.engine.errors import IllegalPlacement, MalformedMove, format_cells
from tabletris.engine.shapes import (
    Cell,
    Orientation,
    OrientationMode,
    Shape,
    find_orientation,
)
from tabletris.engine.texts import N_, Message

Access = Literal["drop", "slide", "free"]
ACCESS_MODES: tuple[Access, ...] = ("drop", "slide", "free")

ENTRY_ROWS = 4
"""Rows of open air above the top edge where a piece enters; as tall as the tallest piece."""

NATIVE_MAX_WIDTH = 63
"""Widest board the compiled core handles (one machine word per row); wider ones stay in Python."""

ACCESS_CODE: dict[str, int] = {"drop": 0, "slide": 1, "free": 2}


def _load_native() -> tuple[ModuleType | None, str]:
    """The compiled core, or None and why not (said by ``engine_name`` and ``tabletris bench``)."""
    if os.environ.get("TABLETRIS_PURE", "") not in ("", "0"):
        return None, "TABLETRIS_PURE is set"
    try:
        native = importlib.import_module("tabletris.engine._native")
    except ImportError as e:
        return None, f"the compiled core is not built: {e}"
    return native, ""


_AVAILABLE, _WHY_NOT = _load_native()
_NATIVE: ModuleType | None = _AVAILABLE


def native_module() -> ModuleType | None:
    """The compiled core when it is in use, else None (callers then run their Python code)."""
    return _NATIVE


def native_available() -> bool:
    return _AVAILABLE is not None


def use_native(on: bool) -> None:
    """Switch engines at run time (benchmarks, differential tests); ValueError if it is not built."""
    global _NATIVE
    if on and _AVAILABLE is None:
        raise ValueError(f"the native engine is not available: {_WHY_NOT}")
    _NATIVE = _AVAILABLE if on else None


@contextmanager
def engine(native: bool) -> Iterator[None]:
    """Run the block on one engine, then put back the one that was in use (the bench and the
    differential tests compare the two in one process)."""
    was = _NATIVE is not None
    use_native(native)
    try:
        yield
    finally:
        use_native(was)


def engine_name() -> str:
    """``native``, or ``pure Python (why)``: what ``tabletris bench`` reports."""
    if _NATIVE is not None:
        return "native"
    return f"pure Python ({_WHY_NOT or 'switched off with use_native(False)'})"


CELLS_EXPECTED = Message(N_("expected a list of [x, y] cells with integer x and y"))


def parse_cells(value: Any, where: str | None = None) -> tuple[Cell, ...]:
    """Cells from ``[[x, y], ...]`` data; the one check of cell data in the project.

    ``operator.index``, not ``int()``: a cell named 0.5, "1" or true is malformed, never rounded.
    Without ``where`` a ValueError shows the value; with it, a ``MalformedMove`` names the key at
    fault (``moves[3].place``), as records and protocols report it.
    """
    try:
        if isinstance(value, str | bytes | Mapping) or not all(
            isinstance(c, Sequence) and not isinstance(c, str | bytes) and len(c) == 2 for c in value
        ):
            raise ValueError
        if any(isinstance(v, bool) for c in value for v in c):
            raise ValueError
        return tuple((operator.index(c[0]), operator.index(c[1])) for c in value)
    except (TypeError, ValueError):
        if where is not None:
            raise MalformedMove(Message(N_("{where}: {error}"), where=where, error=CELLS_EXPECTED), where, CELLS_EXPECTED) from None
        raise ValueError(Message(N_("cells are [x, y] pairs of integers, got {value!r}"), value=value)) from None


@dataclass(frozen=True, slots=True)
class Stone:
    """One placed piece: its shape, cells, who placed it (None for garbage) and its number."""

    shape: Shape
    cells: tuple[Cell, ...]
    owner: int | None
    number: int

    @property
    def lowest_row(self) -> int:
        return min(y for _, y in self.cells)


class Placement(NamedTuple):
    """A piece of ``shape`` in ``orientation`` with its bounding box's lower-left at ``(x, y)``."""

    shape: Shape
    orientation: Orientation
    x: int
    y: int

    @property
    def cells(self) -> tuple[Cell, ...]:
        return self.orientation.at(self.x, self.y)

    def __str__(self) -> str:
        return f"{self.shape.value} {format_cells(self.cells)}"


class Geometry:
    """Masks for one board size, computed once and shared by every board of that size."""

    def __init__(self, width: int, height: int) -> None:
        if not (1 <= width <= 64 and 1 <= height <= 200):
            raise ValueError(f"board size {width}x{height} is out of range (1-64 x 1-200)")
        self.width = width
        self.height = height
        self.stride = stride = width + 1
        self.rows_ext = height + ENTRY_ROWS
        row = (1 << width) - 1
        self.row_masks = [row << (y * stride) for y in range(height)]
        self.full = sum(self.row_masks)
        self.full_ext = sum(row << (y * stride) for y in range(self.rows_ext))
        self.above = self.full_ext & ~self.full
        self.bottom_row = row

    def bit(self, x: int, y: int) -> int:
        return 1 << (y * self.stride + x)

    def mask(self, cells: Iterable[Cell]) -> int:
        stride = self.stride
        m = 0
        for x, y in cells:
            m |= 1 << (y * stride + x)
        return m

    def cell(self, index: int) -> Cell:
        y, x = divmod(index, self.stride)
        return (x, y)

    def anchors(self, orientation: Orientation) -> OrientationMasks:
        return _orientation_masks(self.width, self.height, orientation)


class OrientationMasks(NamedTuple):
    """Per orientation: bit offsets of its cells, and which anchors keep it on the board."""

    offsets: tuple[int, ...]
    shape_mask: int
    valid_ext: int
    """Anchors where the piece lies within the board or the open air above it."""
    in_bounds: int
    """Anchors where the piece lies entirely on the board."""
    entry: int
    """Anchors where the piece is entirely above the top edge: where sliding starts."""


@cache
def geometry(width: int, height: int) -> Geometry:
    return Geometry(width, height)


@cache
def _orientation_masks(width: int, height: int, o: Orientation) -> OrientationMasks:
    g = geometry(width, height)
    offsets = tuple(dy * g.stride + dx for dx, dy in o.cells)
    valid_ext = in_bounds = entry = 0
    for y in range(g.rows_ext - o.height + 1):
        for x in range(width - o.width + 1):
            b = 1 << (y * g.stride + x)
            valid_ext |= b
            if y + o.height <= height:
                in_bounds |= b
            if y >= height:
                entry |= b
    shape_mask = sum(1 << off for off in offsets)
    return OrientationMasks(offsets, shape_mask, valid_ext, in_bounds, entry)


def _spec_bytes(orientations: Iterable[Orientation]) -> bytes:
    out = bytearray()
    for o in orientations:
        out += bytes((len(o.cells), o.width, o.height))
        for dx, dy in o.cells:
            out += bytes((dx, dy))
    return bytes(out)


@cache
def _orientation_spec(o: Orientation) -> bytes:
    """One orientation as the compiled core reads it: (n, width, height, dx0, dy0, ...)."""
    return _spec_bytes((o,))


@cache
def shape_spec(shape: Shape, mode: OrientationMode) -> bytes:
    return _spec_bytes(shape.orientations(mode))


NativeCall = tuple[int, int, int, bytes, tuple[tuple[Placement, ...], ...]] | tuple[()]
_NATIVE_CALLS: dict[tuple[Shape, str, str, Geometry], NativeCall] = {}
"""(shape, orientation mode, access, board geometry) -> the arguments ``placements`` hands the
core after the board's bits (width, height, access code, spec, placement table), or ``()`` where
the core does not serve the board (too wide) or the access mode: one dict lookup per call, its
key built of objects whose hashes are cached (two cached calls cost as much as the generation)."""


def _native_call(shape: Shape, mode: str, access: str, g: Geometry) -> NativeCall:
    if len(_NATIVE_CALLS) >= 256:  # many board sizes: start again rather than grow without end
        _NATIVE_CALLS.clear()
    call: NativeCall = ()
    if g.width <= NATIVE_MAX_WIDTH and access in ACCESS_CODE:
        orientation = cast(OrientationMode, mode)
        call = (g.width, g.height, ACCESS_CODE[access], shape_spec(shape, orientation),
                _placement_table(shape, orientation, g.width, g.height))
    _NATIVE_CALLS[shape, mode, access, g] = call
    return call


@lru_cache(maxsize=64)
def _placement_table(
    shape: Shape, mode: OrientationMode, width: int, height: int
) -> tuple[tuple[Placement, ...], ...]:
    """Every anchor's Placement, per orientation (index ``y * width + x``), for the compiled core
    to hand out: placements are immutable values, so one object per anchor serves every call."""
    return tuple(
        tuple(Placement(shape, o, x, y) for y in range(height) for x in range(width))
        for o in shape.orientations(mode)
    )


@lru_cache(maxsize=8192)
def _locate(
    shape: Shape, cells: tuple[Cell, ...], mode: OrientationMode
) -> tuple[Orientation, int, int] | None:
    """The orientation and anchor of distinct ``cells`` forming ``shape`` under ``mode``, or None:
    ``validate``'s shape checks, remembered (a game asks about the same few hundred often)."""
    if len(cells) != shape.size or len(set(cells)) != shape.size:
        return None
    found = find_orientation(shape, cells, mode)
    if found is None:
        return None
    return found, min(c[0] for c in cells), min(c[1] for c in cells)


def complete_rows_of(occupied: int, width: int, height: int) -> int:
    """The complete rows of the bitboard ``occupied`` as a bit set of row indices.

    On a bare int, so evaluations can ask about a position they never build as a Board.
    """
    nat = _NATIVE
    if nat is not None and width <= NATIVE_MAX_WIDTH:
        result: int = nat.complete_rows(occupied, width, height)
        return result
    return _complete_rows_py(occupied, geometry(width, height))


def _complete_rows_py(occupied: int, g: Geometry) -> int:
    result = 0
    for y, m in enumerate(g.row_masks):
        if occupied & m == m:
            result |= 1 << y
    return result


def _fill(seed: int, room: int, shift: int, steps: int) -> int:
    """Every position reached from ``seed`` by repeated steps of ``shift`` bits inside ``room``.

    A Kogge-Stone occluded fill: log2(steps) rounds instead of one round per step. A positive
    shift moves up or right, a negative one down or left.
    """
    g = seed & room
    p = room
    s = shift
    span = 1
    if s > 0:
        while span < steps:
            g |= p & (g << s)
            p &= p << s
            s <<= 1
            span <<= 1
    else:
        s = -s
        while span < steps:
            g |= p & (g >> s)
            p &= p >> s
            s <<= 1
            span <<= 1
    return g


def positions_of(occupied: int, width: int, height: int, o: Orientation, access: Access) -> int:
    """``Board.positions`` for the bitboard ``occupied``: evaluations ask about positions they
    never build as a Board (a stone lifted off, a piece added)."""
    nat = _NATIVE
    if nat is not None and width <= NATIVE_MAX_WIDTH and access in ACCESS_CODE:
        result: int = nat.positions(occupied, width, height, ACCESS_CODE[access], _orientation_spec(o))
        return result
    return _positions_py(occupied, width, height, o, access)


def _positions_py(occupied: int, width: int, height: int, o: Orientation, access: Access) -> int:
    """The reference for ``positions_of``: Kogge-Stone fills on the whole bitboard."""
    g = geometry(width, height)
    m = _orientation_masks(width, height, o)
    empty = g.full_ext & ~occupied
    fits = m.valid_ext
    for off in m.offsets:
        fits &= empty >> off
    stride = g.stride
    if access == "free":
        return fits & m.in_bounds & _resting(occupied, g, m)
    rows = g.rows_ext
    reach = _fill(m.entry & fits, fits, -stride, rows)
    if access == "drop":
        # Where a straight fall stops: reachable, and the position below does not fit.
        return reach & ~(fits << stride) & m.in_bounds
    if access != "slide":
        raise ValueError(f"unknown access mode {access!r}: expected drop, slide or free")
    while True:
        grown = _fill(reach, fits, 1, width)
        grown = _fill(grown, fits, -1, width)
        grown = _fill(grown, fits, -stride, rows)
        if grown == reach:
            break
        reach = grown
    return reach & m.in_bounds & _resting(occupied, g, m)


def _resting(occupied: int, g: Geometry, m: OrientationMasks) -> int:
    """Anchors where some cell of the piece lies on the floor or on a stone."""
    support = (occupied << g.stride) | g.bottom_row
    rest = 0
    for off in m.offsets:
        rest |= support >> off
    return rest


class Board:
    """A ``width`` x ``height`` grid of stones with legal-move generation, push and pop."""

    def __init__(self, width: int = 10, height: int = 20) -> None:
        self.geometry = geometry(width, height)
        self.width = width
        self.height = height
        self.occupied = 0
        self.stones: dict[int, Stone] = {}
        self._grid: list[int | None] = [None] * (self.geometry.stride * height)
        self._stack: list[int] = []
        self._next_number = 1

    # ----------------------------------------------------------------- queries

    def copy(self) -> Board:
        other = Board.__new__(Board)
        other.geometry = self.geometry
        other.width = self.width
        other.height = self.height
        other.occupied = self.occupied
        other.stones = dict(self.stones)
        other._grid = list(self._grid)
        other._stack = list(self._stack)
        other._next_number = self._next_number
        return other

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Board):
            return NotImplemented
        return (
            self.width == other.width
            and self.height == other.height
            and self.occupied == other.occupied
            and self.stones == other.stones
        )

    def __hash__(self) -> int:
        return hash((self.width, self.height, self.occupied))

    def in_bounds(self, cell: Cell) -> bool:
        x, y = cell
        return 0 <= x < self.width and 0 <= y < self.height

    def is_filled(self, cell: Cell) -> bool:
        x, y = cell
        return bool(self.occupied >> (y * self.geometry.stride + x) & 1)

    def stone_at(self, cell: Cell) -> Stone | None:
        x, y = cell
        number = self._grid[y * self.geometry.stride + x]
        return None if number is None else self.stones[number]

    def complete_rows(self) -> list[int]:
        occ = self.occupied
        return [y for y, m in enumerate(self.geometry.row_masks) if occ & m == m]

    def complete_rows_mask(self) -> int:
        """Complete rows as a bit set of row indices, for cheap before/after comparisons."""
        return complete_rows_of(self.occupied, self.width, self.height)

    def column_heights(self) -> list[int]:
        """For each column, one more than its highest filled row (0 when empty)."""
        heights = []
        stride = self.geometry.stride
        for x in range(self.width):
            h = 0
            for y in range(self.height - 1, -1, -1):
                if self.occupied >> (y * stride + x) & 1:
                    h = y + 1
                    break
            heights.append(h)
        return heights

    def rows(self) -> list[str]:
        """The board top row first, ``.`` for empty, the stone's shape letter for a filled cell."""
        out = []
        for y in range(self.height - 1, -1, -1):
            line = []
            for x in range(self.width):
                stone = self.stone_at((x, y))
                line.append("." if stone is None else stone.shape.value)
            out.append("".join(line))
        return out

    def __str__(self) -> str:
        return "\n".join(self.rows())

    def __repr__(self) -> str:
        rows = ", ".join(repr(r) for r in self.rows())
        return f"Board.from_rows([{rows}])"

    @classmethod
    def from_rows(cls, rows: Sequence[str], owners: Mapping[str, int | None] | None = None) -> Board:
        """A board drawn as a picture, top row first, every row the same width: the inverse of
        ``rows()`` (as python-chess's ``Board(fen)`` is of ``fen()``), for tests, docs and bug reports.

        ``.`` is empty and ``#`` a one-cell stone (shape M, no owner: plain filler). A letter is a
        cell of a stone of that shape; the edge-connected cells with the same character form one
        stone (use lower case for a second stone of the same shape touching the first: ``i`` is an
        I stone too). ``owners`` maps a character to the seat that placed its stones (default:
        nobody, like garbage). Stones are numbered bottom row first.
        """
        if not rows or len({len(r) for r in rows}) != 1:
            raise ValueError("Board.from_rows: give at least one row, all of the same width")
        height = len(rows)
        board = cls(len(rows[0]), height)
        grid: dict[Cell, str] = {}
        for i, line in enumerate(rows):
            for x, ch in enumerate(line):
                if ch != ".":
                    grid[(x, height - 1 - i)] = ch
        owners = owners or {}
        seen: set[Cell] = set()
        for cell in sorted(grid, key=lambda c: (c[1], c[0])):
            if cell in seen:
                continue
            ch = grid[cell]
            if ch == "#":
                seen.add(cell)
                board.new_stone(Shape.M, (cell,), owners.get(ch))
                continue
            group = {cell}
            todo = [cell]
            while todo:
                x, y = todo.pop()
                for n in ((x + 1, y), (x - 1, y), (x, y + 1), (x, y - 1)):
                    if n not in group and grid.get(n) == ch:
                        group.add(n)
                        todo.append(n)
            seen |= group
            shape = Shape.parse(ch)
            if len(group) != shape.size:
                raise ValueError(f"Board.from_rows: {ch!r} group at {sorted(group)} is not {shape.size} cells")
            board.new_stone(shape, tuple(sorted(group)), owners.get(ch))
        return board

    # -------------------------------------------------------- move generation

    def positions(self, o: Orientation, access: Access) -> int:
        """Where ``o`` may legally be placed, as a bit set of anchors (bit ``y * stride + x``).

        The set form of ``placements``: bots and evaluations that only count or mask positions
        need no ``Placement`` objects.
        """
        return positions_of(self.occupied, self.width, self.height, o, access)

    def positions_py(self, o: Orientation, access: Access) -> int:
        """The reference for ``positions``."""
        return _positions_py(self.occupied, self.width, self.height, o, access)

    def placements(
        self, shape: Shape, orientation: OrientationMode = "rotate", access: Access = "slide"
    ) -> list[Placement]:
        """Every legal placement of ``shape``: each orientation, each position."""
        nat = _NATIVE
        if nat is not None:
            call = _NATIVE_CALLS.get((shape, orientation, access, self.geometry))
            if call is None:
                call = _native_call(shape, orientation, access, self.geometry)
            if call:
                native_result: list[Placement] = nat.placements(self.occupied, *call)
                return native_result
        return self.placements_py(shape, orientation, access)

    def placements_py(
        self, shape: Shape, orientation: OrientationMode = "rotate", access: Access = "slide"
    ) -> list[Placement]:
        """The reference for ``placements``."""
        result: list[Placement] = []
        stride = self.geometry.stride
        for o in shape.orientations(orientation):
            positions = self.positions_py(o, access)
            while positions:
                low = positions & -positions
                index = low.bit_length() - 1
                y, x = divmod(index, stride)
                result.append(Placement(shape, o, x, y))
                positions ^= low
        return result

    def has_placement(
        self, shape: Shape, orientation: OrientationMode = "rotate", access: Access = "slide"
    ) -> bool:
        nat = _NATIVE
        if nat is not None and self.width <= NATIVE_MAX_WIDTH and access in ACCESS_CODE:
            spec = shape_spec(shape, orientation)
            found: bool = nat.has_any(self.occupied, self.width, self.height, ACCESS_CODE[access], spec)
            return found
        return any(self.positions_py(o, access) for o in shape.orientations(orientation))

    def placement_mask(self, placement: Placement) -> int:
        m = _orientation_masks(self.width, self.height, placement.orientation)
        return m.shape_mask << (placement.y * self.geometry.stride + placement.x)

    def validate(
        self,
        shape: Shape,
        cells: Sequence[Sequence[int]],
        orientation: OrientationMode = "rotate",
        access: Access = "slide",
    ) -> Placement:
        """The placement that ``cells`` describe, or ``IllegalPlacement`` saying which rule fails."""
        legal = self._validate_fast(shape, cells, orientation, access)
        if legal is not None:
            return legal
        try:
            pts = list(parse_cells(cells))
        except ValueError:
            raise IllegalPlacement(shape, [], Message(N_("needs cells as [x, y] pairs, got {value!r}"), value=cells)) from None
        if len(set(pts)) != shape.size or len(pts) != shape.size:
            raise IllegalPlacement(shape, pts, Message(N_("needs {count} distinct cells"), count=shape.size))
        found = find_orientation(shape, pts, orientation)
        if found is None:
            if orientation == "rotate" and find_orientation(shape, pts, "free") is not None:
                raise IllegalPlacement(shape, pts, Message(N_("would have to be mirrored (orientation rotate)")))
            raise IllegalPlacement(shape, pts, Message(N_("is not the shape of {shape}"), shape=shape.with_article))
        for c in pts:
            if not self.in_bounds(c):
                raise IllegalPlacement(shape, pts, Message(N_("is out of bounds")))
        for c in pts:
            stone = self.stone_at(c)
            if stone is not None:
                raise IllegalPlacement(
                    shape, pts, Message(N_("overlaps stone {number} ({shape})"), number=stone.number, shape=stone.shape.value)
                )
        x = min(c[0] for c in pts)
        y = min(c[1] for c in pts)
        placement = Placement(shape, found, x, y)
        if access == "free" or access == "slide":
            resting = any(
                yy == 0 or self.is_filled((xx, yy - 1)) for xx, yy in pts
            )
            if not resting:
                raise IllegalPlacement(shape, pts, Message(N_("does not rest")))
            if access == "free":
                return placement
        bit = 1 << (y * self.geometry.stride + x)
        if not self.positions(found, access) & bit:
            if access == "slide":
                raise IllegalPlacement(shape, pts, Message(N_("cannot be reached from the top (access slide)")))
            raise IllegalPlacement(shape, pts, Message(N_("is not where a straight drop lands (access drop)")))
        return placement

    def check_placement(
        self, placement: Placement, orientation: OrientationMode = "rotate", access: Access = "slide"
    ) -> Placement | None:
        """``placement`` when ``validate`` would accept its cells, else None (``validate`` then
        says why). For a ``Placement`` the engine made (a bot's, an env's): its orientation is one
        of the mode's own objects, so the shape lookup by cells is skipped; the board checks are
        ``_validate_fast``'s, in its order."""
        o = placement.orientation
        if not any(form is o for form in placement.shape.orientations(orientation)):
            return None
        return placement if self._board_allows(o, placement.x, placement.y, access) else None

    def _board_allows(self, o: Orientation, x: int, y: int, access: Access) -> bool:
        """The board's rules for ``o`` anchored at ``(x, y)``: on the board, no overlap, resting
        (slide, free), reachable (slide, drop)."""
        if x < 0 or y < 0 or x + o.width > self.width or y + o.height > self.height:
            return False
        stride = self.geometry.stride
        m = _orientation_masks(self.width, self.height, o)
        mask = m.shape_mask << (y * stride + x)
        occupied = self.occupied
        if occupied & mask:
            return False
        if (access == "free" or access == "slide") and not (y == 0 or (mask >> stride) & occupied):
            return False
        return access == "free" or bool(
            positions_of(occupied, self.width, self.height, o, access) >> (y * stride + x) & 1
        )

    def _validate_fast(
        self, shape: Shape, cells: Any, orientation: OrientationMode, access: Access
    ) -> Placement | None:
        """``validate`` for the common case, legal cells given as int pairs, on the bitboard;
        None whenever any check does not pass plainly, so that ``validate`` itself words the error.
        The rules checked, and their order, are ``validate``'s."""
        if type(cells) is not tuple and type(cells) is not list:
            return None
        for c in cells:
            if type(c) is not tuple or len(c) != 2 or type(c[0]) is not int or type(c[1]) is not int:
                return None
        found = _locate(shape, tuple(cells), orientation)
        if found is None:
            return None
        o, x, y = found
        return Placement(shape, o, x, y) if self._board_allows(o, x, y, access) else None

    # ---------------------------------------------------------------- changes

    def push(self, placement: Placement, owner: int | None = None) -> Stone:
        """Put a piece on the board without checking it; ``pop`` takes it back."""
        stone = Stone(placement.shape, placement.cells, owner, self._next_number)
        self.add(stone)  # raises on an overlap before anything changes; advances _next_number
        self._stack.append(stone.number)
        return stone

    def pop(self) -> Stone:
        """Undo the last ``push``."""
        number = self._stack.pop()
        stone = self.stones[number]
        self.remove(stone)
        self._next_number -= 1
        return stone

    def add(self, stone: Stone) -> None:
        """Put a stone on the board as it is (garbage, a restored stone); no rule is checked."""
        stride = self.geometry.stride
        for x, y in stone.cells:
            i = y * stride + x
            if self._grid[i] is not None:
                raise IllegalPlacement(stone.shape, stone.cells, Message(N_("overlaps at ({x},{y})"), x=x, y=y))
        for x, y in stone.cells:
            i = y * stride + x
            self._grid[i] = stone.number
            self.occupied |= 1 << i
        self.stones[stone.number] = stone
        self._next_number = max(self._next_number, stone.number + 1)

    def new_stone(self, shape: Shape, cells: tuple[Cell, ...], owner: int | None) -> Stone:
        """Add a stone with the next number (garbage, a taken stone placed again)."""
        stone = Stone(shape, cells, owner, self._next_number)
        self.add(stone)
        return stone

    def remove(self, stone: Stone) -> None:
        stride = self.geometry.stride
        for x, y in stone.cells:
            i = y * stride + x
            self._grid[i] = None
            self.occupied &= ~(1 << i)
        del self.stones[stone.number]

    def clear_rows(self, rows: Iterable[int]) -> None:
        """Remove ``rows``; everything above falls by the number of rows removed below it."""
        gone = sorted(set(rows))
        if not gone:
            return
        stones = list(self.stones.values())
        self.occupied = 0
        self.stones = {}
        self._grid = [None] * len(self._grid)
        gone_set = set(gone)
        for stone in stones:
            cells = tuple(
                (x, y - sum(1 for r in gone if r < y)) for x, y in stone.cells if y not in gone_set
            )
            if cells:
                self.add(Stone(stone.shape, cells, stone.owner, stone.number))
        self._stack = [n for n in self._stack if n in self.stones]

