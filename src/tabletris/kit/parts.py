"""The kit's solids, built with manifold3d: board parts, pieces, the die, the box and its lid.

Every solid is made of extruded 2D sections and booleans in manifold3d, whose results are always
closed and manifold, so the slicer never has to repair anything. Dimensions come from one
``Dimensions`` value derived from the cell pitch, so a size is one number and the fit between
board and pieces is the same at every size. Parts are built in their print orientation (flat face
on the bed); ``assembled`` places them as they sit on the table, for the preview.

Fit: the board has a square pocket under every cell, with ribs between; a piece stands on the ribs
and has a foot per square that drops into the pocket. The piece's outline is its cells shrunk by
the clearance, and each foot is its pocket shrunk by the clearance, so a piece drops in freely but
cannot slide out of its squares.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import numpy as np
from manifold3d import CrossSection, JoinType, Manifold, OpType

from tabletris.engine.dice import CHOICE
from tabletris.engine.shapes import Cell, Shape
from tabletris.i18n import N_
from tabletris.kit.options import KitOptions

STANDARD_CENTRE_ROWS = 10
"""Rows on one centre part: half the standard 20-row board, so the standard board is three parts
(5 + 10 + 5 rows) and every 10 rows more is one more identical centre part (the long preset's 30
rows are 5 + 10 + 10 + 5)."""
MIN_END_ROWS = 3


@dataclass(frozen=True)
class Dimensions:
    """Every length of the kit in mm, from the cell pitch and the fit clearance."""

    cell: float
    clearance: float

    @property
    def rib(self) -> float:
        """Width of the ribs between pockets: at least three 0.4 mm perimeters."""
        return max(1.2, 0.08 * self.cell)

    @property
    def base(self) -> float:
        """Board floor under the pockets; the joints' dovetails are half of it."""
        return max(2.4, 0.16 * self.cell)

    @property
    def pocket(self) -> float:
        """Depth of a cell's pocket (the height of the ribs)."""
        return max(1.6, 0.12 * self.cell)

    @property
    def frame(self) -> float:
        """Width of the frame around the play area."""
        return max(4.0, 0.35 * self.cell)

    @property
    def frame_rise(self) -> float:
        """How far the frame stands above the ribs, so edge pieces are held too."""
        return max(2.0, 0.2 * self.cell)

    @property
    def board_height(self) -> float:
        return self.base + self.pocket + self.frame_rise

    @property
    def body(self) -> float:
        """Thickness of a piece's body (above the ribs)."""
        return max(3.0, 0.3 * self.cell)

    @property
    def foot(self) -> float:
        """Height of a piece's feet: shorter than the pocket, so a piece rests on the ribs."""
        return self.pocket - 0.4

    @property
    def piece_height(self) -> float:
        return self.body + self.foot

    @property
    def foot_side(self) -> float:
        return self.cell - self.rib - 2 * self.clearance

    @property
    def pocket_side(self) -> float:
        return self.cell - self.rib

    @property
    def tab_length(self) -> float:
        return 0.6 * self.cell

    @property
    def tab_thickness(self) -> float:
        return self.base / 2

    @property
    def die(self) -> float:
        """The die's edge: never smaller than 12 mm, so the faces stay readable."""
        return max(12.0, self.cell)

    @property
    def wall(self) -> float:
        return max(1.6, 0.12 * self.cell)


@dataclass
class Part:
    """One distinct printed part, in print orientation with its lowest corner at the origin."""

    key: str
    title: str
    kind: str
    solid: Manifold
    count: int
    per_colour: bool = False
    meta: dict[str, Any] = field(default_factory=dict)

    @cached_property
    def size(self) -> tuple[float, float, float]:
        lo, hi = bounds(self.solid)
        return (hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2])

    @property
    def volume_cm3(self) -> float:
        return float(self.solid.volume()) / 1000.0


def bounds(solid: Manifold) -> tuple[np.ndarray, np.ndarray]:
    box = np.asarray(solid.bounding_box(), dtype=float)
    return box[:3], box[3:]


def _to_origin(solid: Manifold) -> Manifold:
    lo, _ = bounds(solid)
    return solid.translate((-float(lo[0]), -float(lo[1]), -float(lo[2])))


def _rect(x0: float, y0: float, x1: float, y1: float) -> CrossSection:
    return CrossSection.square((x1 - x0, y1 - y0)).translate((x0, y0))


def _slab(section: CrossSection, z0: float, z1: float) -> Manifold:
    return Manifold.extrude(section, z1 - z0).translate((0.0, 0.0, z0))


def _union(solids: Iterable[Manifold]) -> Manifold:
    items = list(solids)
    return Manifold.batch_boolean(items, OpType.Add) if len(items) > 1 else items[0]


def _cells_section(cells: Iterable[Cell], pitch: float) -> CrossSection:
    squares = [_rect(x * pitch, y * pitch, (x + 1) * pitch, (y + 1) * pitch) for x, y in cells]
    return CrossSection.batch_boolean(squares, OpType.Add)


# ---------------------------------------------------------------------------- board


@dataclass(frozen=True)
class BoardSection:
    """One board part: which rows it holds and which edges are frame ends or joints."""

    key: str
    title: str
    first_row: int
    rows: int
    frame_below: bool
    frame_above: bool


def board_sections(rows: int) -> list[BoardSection]:
    """The parts of a board of ``rows`` rows: bottom, identical centres, top.

    Ends get whatever the centres leave, split evenly, so any height the engine plays is a board
    (the engine's own ``height`` option, from 4 rows up).
    """
    centres = max(0, (rows - 2 * MIN_END_ROWS) // STANDARD_CENTRE_ROWS)
    ends = rows - centres * STANDARD_CENTRE_ROWS
    bottom = (ends + 1) // 2
    top = ends - bottom
    sections = [BoardSection("board-bottom", N_("Board bottom"), 0, bottom, True, False)]
    row = bottom
    for _ in range(centres):
        sections.append(BoardSection("board-centre", N_("Board centre"), row, STANDARD_CENTRE_ROWS, False, False))
        row += STANDARD_CENTRE_ROWS
    sections.append(BoardSection("board-top", N_("Board top"), row, top, False, True))
    return sections


def _dovetail(dim: Dimensions, centre_x: float, seam_y: float, grow: float, extra: float) -> CrossSection:
    """The joint's tab outline (narrow at the seam, wider at its end), grown by ``grow``."""
    narrow, wide, length = 0.5 * dim.cell, 0.9 * dim.cell, dim.tab_length
    points = [
        (centre_x - narrow / 2, seam_y - extra),
        (centre_x + narrow / 2, seam_y - extra),
        (centre_x + wide / 2, seam_y + length),
        (centre_x - wide / 2, seam_y + length),
    ]
    section = CrossSection([points])
    if grow > 0:
        section = section.offset(grow, JoinType.Miter)
    return section


def board_part(opts: KitOptions, dim: Dimensions, section: BoardSection) -> Manifold:
    """A board part in its own frame: play area from (0, 0), row 0 of the part at y = 0."""
    c, w, n = dim.cell, opts.width, section.rows
    fw = dim.frame
    y0 = -fw if section.frame_below else 0.0
    y1 = n * c + (fw if section.frame_above else 0.0)
    outer = _rect(-fw, y0, w * c + fw, y1)
    play = _rect(0.0, 0.0, w * c, n * c)
    top = dim.board_height
    floor_top = dim.base + dim.pocket
    body = _union([_slab(outer, 0.0, floor_top), _slab(outer - play, 0.0, top)])
    half = dim.rib / 2
    pockets = [
        _rect(i * c + half, j * c + half, (i + 1) * c - half, (j + 1) * c - half)
        for i in range(w)
        for j in range(n)
    ]
    body = body - _slab(CrossSection.compose(pockets), dim.base, top + 1.0)
    joint_xs = (0.25 * w * c, 0.75 * w * c)
    if not section.frame_above:  # tabs reach into the next part's slots
        tabs = [_dovetail(dim, x, n * c, 0.0, 0.5) for x in joint_xs]
        body = body + _slab(CrossSection.compose(tabs), 0.0, dim.tab_thickness)
    if not section.frame_below:  # slots take the part below's tabs
        slots = [_dovetail(dim, x, 0.0, dim.clearance, 1.0) for x in joint_xs]
        body = body - _slab(CrossSection.compose(slots), -1.0, dim.tab_thickness + 0.2)
    return body


# ---------------------------------------------------------------------------- pieces


def piece_cells(shape: Shape) -> tuple[Cell, ...]:
    """The engine's own first orientation of ``shape``: the piece's cells."""
    return shape.orientations("rotate")[0].cells


def piece_solid(cells: Sequence[Cell], dim: Dimensions, upright: bool = False) -> Manifold:
    """A piece over ``cells`` at the pitch: a body shrunk by the clearance and a foot per square.

    Print orientation (``upright=False``) has the top face on the bed and the feet up, so nothing
    overhangs; ``upright`` is how it stands on the board, feet down at z = 0, cells in place.
    """
    c, clr = dim.cell, dim.clearance
    outline = _cells_section(cells, c).offset(-clr, JoinType.Miter)
    s = dim.foot_side
    feet = CrossSection.compose(
        [_rect(x * c + (c - s) / 2, y * c + (c - s) / 2, x * c + (c + s) / 2, y * c + (c + s) / 2) for x, y in cells]
    )
    if upright:
        return _slab(feet, 0.0, dim.foot + 0.01) + _slab(outline, dim.foot, dim.piece_height)
    return _slab(outline, 0.0, dim.body) + _slab(feet, dim.body - 0.01, dim.piece_height)


# ---------------------------------------------------------------------------- die


def _star(radius: float, points: int = 5) -> CrossSection:
    inner = radius * 0.42
    outline = []
    for k in range(2 * points):
        r = radius if k % 2 == 0 else inner
        a = math.pi / 2 + k * math.pi / points
        outline.append((r * math.cos(a), r * math.sin(a)))
    return CrossSection([outline])


def face_glyph(face: str, side: float) -> CrossSection:
    """What a die face shows, centred on (0, 0): the shape's four squares, or a star for ``*``."""
    if face == CHOICE:
        return _star(0.34 * side)
    cells = piece_cells(Shape(face))
    cols = 1 + max(x for x, _ in cells)
    rows = 1 + max(y for _, y in cells)
    pitch = 0.68 * side / max(4, cols, rows)
    gap = max(0.35, 0.1 * pitch)
    squares = [
        _rect(x * pitch + gap / 2, y * pitch + gap / 2, (x + 1) * pitch - gap / 2, (y + 1) * pitch - gap / 2)
        for x, y in cells
    ]
    return CrossSection.compose(squares).translate((-cols * pitch / 2, -rows * pitch / 2))


# Rotations (degrees about x, y, z) that carry the +z face to each of the cube's six faces,
# in the order of the die's faces; opposite faces hold the first/last, second/fifth, third/fourth.
_FACE_ROTATIONS: tuple[tuple[float, float, float], ...] = (
    (0, 0, 0),
    (90, 0, 0),
    (0, 90, 0),
    (0, -90, 0),
    (-90, 0, 0),
    (180, 0, 0),
)


def die_solid(faces: Sequence[str], dim: Dimensions) -> Manifold:
    """A rounded cube with each face's glyph sunk in, readable in one colour."""
    s = dim.die
    depth = max(0.6, 0.05 * s)
    cube = Manifold.cube((s, s, s), center=True) ^ Manifold.sphere(0.8 * s, 96)
    cuts = []
    for face, rotation in zip(faces, _FACE_ROTATIONS, strict=False):
        glyph = _slab(face_glyph(face, s), s / 2 - depth, s / 2 + 1.0)
        cuts.append(glyph.rotate(rotation))
    return _to_origin(cube - _union(cuts))


# ---------------------------------------------------------------------------- box


def box_solids(dim: Dimensions, inner: tuple[float, float, float]) -> tuple[Manifold, Manifold]:
    """An open box (the pieces' tray at the table) and an inset lid, around ``inner`` mm."""
    ix, iy, iz = inner
    wall, floor = dim.wall, dim.wall
    ox, oy = ix + 2 * wall, iy + 2 * wall
    box = _slab(_rect(0, 0, ox, oy), 0.0, floor + iz) - _slab(
        _rect(wall, wall, wall + ix, wall + iy), floor, floor + iz + 1.0
    )
    lip_out = _rect(wall + dim.clearance, wall + dim.clearance, wall + ix - dim.clearance, wall + iy - dim.clearance)
    lip_in = lip_out.offset(-wall, JoinType.Miter)
    lid = _slab(_rect(0, 0, ox, oy), 0.0, floor) + _slab(lip_out - lip_in, floor - 0.01, floor + 4.0)
    return box, lid


def mesh_arrays(solid: Manifold) -> tuple[np.ndarray, np.ndarray]:
    """Vertices (n x 3, float) and triangles (m x 3, int) of a solid."""
    mesh = solid.to_mesh()
    verts = np.asarray(mesh.vert_properties, dtype=np.float64)[:, :3]
    faces = np.asarray(mesh.tri_verts, dtype=np.int64)
    return verts, faces
