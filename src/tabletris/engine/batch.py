"""Legal placements for many boards at once, as NumPy arrays: what learners and vector envs want.

``legal_anchors(boards, layout)`` answers, for every board of a batch and every (shape,
orientation) of the layout, which anchors are legal: a ``bool`` array ``[board, form, y, x]``
(``form`` indexes ``layout.forms``; the anchor is the lower-left corner of the piece's box). It is
``Board.positions`` for each pair, so the rules stay in one place; the compiled core fills the
array in one call per batch, and the pure engine fills it board by board when the core is not
built (same answers, see tests/test_batch.py).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from tabletris.engine import board as board_module
from tabletris.engine.board import ACCESS_CODE, NATIVE_MAX_WIDTH, Access, Board, Placement
from tabletris.engine.shapes import Orientation, OrientationMode, Shape


@dataclass(frozen=True)
class Layout:
    """Which placements a batch asks about: board size, rules of movement and the shapes."""

    width: int
    height: int
    shapes: tuple[Shape, ...] = tuple(s for s in Shape if s is not Shape.M)
    orientation: OrientationMode = "free"
    access: Access = "slide"
    forms: tuple[tuple[Shape, Orientation], ...] = field(init=False)
    """Every (shape, orientation) in order: the second axis of ``legal_anchors``."""

    def __post_init__(self) -> None:
        board_module.geometry(self.width, self.height)  # checks the size, with the engine's error
        if self.access not in ACCESS_CODE:
            raise ValueError(f"unknown access mode {self.access!r}: expected drop, slide or free")
        forms = tuple((s, o) for s in self.shapes for o in s.orientations(self.orientation))
        object.__setattr__(self, "forms", forms)

    @property
    def spec(self) -> bytes:
        return b"".join(board_module.shape_spec(s, self.orientation) for s in self.shapes)

    def placement(self, form: int, x: int, y: int) -> Placement:
        """The Placement that index ``[form, y, x]`` of a board's slice stands for."""
        shape, o = self.forms[form]
        return Placement(shape, o, x, y)


def _occupied(b: Board | int) -> int:
    return b.occupied if isinstance(b, Board) else int(b)


def legal_anchors(boards: Sequence[Board | int], layout: Layout) -> np.ndarray:
    """``bool[len(boards), len(layout.forms), height, width]``: the legal anchors of each form.

    ``boards`` are Boards of the layout's size or their ``occupied`` bitboards.
    """
    w, h = layout.width, layout.height
    for i, b in enumerate(boards):
        if isinstance(b, Board) and (b.width, b.height) != (w, h):
            raise ValueError(f"boards[{i}] is {b.width}x{b.height}, the layout is {w}x{h}")
    occupied = [_occupied(b) for b in boards]
    out = np.zeros((len(occupied), len(layout.forms), h, w), dtype=np.uint8)
    nat = board_module.native_module()
    if nat is not None and w <= NATIVE_MAX_WIDTH:
        nat.batch_positions(occupied, w, h, ACCESS_CODE[layout.access], layout.spec, out)
        return out.view(np.bool_)
    stride = w + 1
    nbytes = (stride * h + 7) // 8
    for i, occ in enumerate(occupied):
        for k, (_, o) in enumerate(layout.forms):
            bits = board_module.positions_of(occ, w, h, o, layout.access)
            flat = np.unpackbits(np.frombuffer(bits.to_bytes(nbytes, "little"), np.uint8), bitorder="little")
            out[i, k] = flat[: stride * h].reshape(h, stride)[:, :w]
    return out.view(np.bool_)


def placements_from(legal: np.ndarray, layout: Layout) -> list[Placement]:
    """The Placements of one board's slice of ``legal_anchors``, in ``Board.placements`` order
    (form, then row, then column)."""
    return [layout.placement(int(k), int(x), int(y)) for k, y, x in np.argwhere(legal)]
