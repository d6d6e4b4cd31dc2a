"""Shapes, their orientations and the geometry of congruence.

A shape is one of the seven one-sided tetrominoes or the single-square mino. An *orientation* is
one fixed form of a shape, its cells normalised so that the lowest row and leftmost column are 0.
Orientations are interned: every caller gets the same objects, so they compare cheaply and can be
used as dictionary keys and inside ``Placement`` values.
"""

from __future__ import annotations

from enum import StrEnum
from functools import cache
from typing import Literal

from tabletris.engine.texts import N_, Message

Cell = tuple[int, int]
"""A board cell ``(x, y)``: x is the column from the left, y the row from the bottom."""

OrientationMode = Literal["rotate", "free"]
ORIENTATION_MODES: tuple[OrientationMode, ...] = ("rotate", "free")


class Shape(StrEnum):
    """The pieces of both games, named as in the Tetris guideline, plus ``M`` for the mino."""

    I = "I"  # noqa: E741 - the guideline's name for the straight piece
    O = "O"  # noqa: E741
    T = "T"
    S = "S"
    Z = "Z"
    J = "J"
    L = "L"
    M = "M"

    @property
    def colour(self) -> str:
        """The guideline colour, used by every front end so the games look alike everywhere."""
        return COLOURS[self]

    @property
    def size(self) -> int:
        return len(BASE_CELLS[self])

    @property
    def with_article(self) -> str:
        """``an S``, ``a T``: the article goes by the letter's spoken name (ess, tee)."""
        return Message(N_("an {shape}") if self.value in "IOSLM" else N_("a {shape}"), shape=self.value)

    @property
    def is_tetromino(self) -> bool:
        return self is not Shape.M

    def orientations(self, mode: OrientationMode = "rotate") -> tuple[Orientation, ...]:
        """The distinct fixed forms this shape can take under ``mode``."""
        return _orientations(self, mode)

    @classmethod
    def parse(cls, text: str) -> Shape:
        """A shape from its letter, case-insensitive, with an error naming what was expected."""
        try:
            return cls(text.strip().upper())
        except ValueError:
            raise ValueError(
                Message(N_("unknown shape {text!r}: expected one of {shapes}"), text=text, shapes=" ".join(s.value for s in cls))
            ) from None


TETROMINOES: tuple[Shape, ...] = (Shape.I, Shape.O, Shape.T, Shape.S, Shape.Z, Shape.J, Shape.L)

COLOURS: dict[Shape, str] = {
    Shape.I: "cyan",
    Shape.O: "yellow",
    Shape.T: "purple",
    Shape.S: "green",
    Shape.Z: "red",
    Shape.J: "blue",
    Shape.L: "orange",
    Shape.M: "grey",
}

# Guideline spawn forms with y pointing up (row 0 at the bottom).
BASE_CELLS: dict[Shape, tuple[Cell, ...]] = {
    Shape.I: ((0, 0), (1, 0), (2, 0), (3, 0)),
    Shape.O: ((0, 0), (1, 0), (0, 1), (1, 1)),
    Shape.T: ((0, 0), (1, 0), (2, 0), (1, 1)),
    Shape.S: ((0, 0), (1, 0), (1, 1), (2, 1)),
    Shape.Z: ((1, 0), (2, 0), (0, 1), (1, 1)),
    Shape.J: ((0, 0), (1, 0), (2, 0), (0, 1)),
    Shape.L: ((0, 0), (1, 0), (2, 0), (2, 1)),
    Shape.M: ((0, 0),),
}


def normalise(cells: tuple[Cell, ...] | list[Cell]) -> tuple[Cell, ...]:
    """Cells moved so the lowest row and leftmost column are 0, sorted: a congruence key."""
    min_x = min(x for x, _ in cells)
    min_y = min(y for _, y in cells)
    return tuple(sorted((x - min_x, y - min_y) for x, y in cells))


def _rotate(cells: tuple[Cell, ...]) -> tuple[Cell, ...]:
    return normalise([(y, -x) for x, y in cells])


def _mirror(cells: tuple[Cell, ...]) -> tuple[Cell, ...]:
    return normalise([(-x, y) for x, y in cells])


class Orientation:
    """One fixed form of a shape: its normalised cells and bounding box."""

    __slots__ = ("cells", "height", "index", "mirrored", "shape", "width")

    def __init__(self, shape: Shape, cells: tuple[Cell, ...], index: int, mirrored: bool) -> None:
        self.shape = shape
        self.cells = cells
        self.index = index
        self.mirrored = mirrored
        self.width = 1 + max(x for x, _ in cells)
        self.height = 1 + max(y for _, y in cells)

    def at(self, x: int, y: int) -> tuple[Cell, ...]:
        """The cells of this form with its bounding box's lower-left corner at ``(x, y)``."""
        return tuple((x + dx, y + dy) for dx, dy in self.cells)

    def __repr__(self) -> str:
        return f"<Orientation {self.shape.value}#{self.index}{' mirrored' if self.mirrored else ''}>"

    def rotated(self, turns: int = 1) -> Orientation:
        """This form turned ``turns`` quarter turns clockwise (negative turns go back).

        Front ends turn a ghost piece with this, so no screen repeats the rotation arithmetic;
        whether the result is allowed under a rules' orientation mode is ``shape.orientations``'s to say.
        """
        cells = self.cells
        for _ in range(turns % 4):
            cells = _rotate(cells)
        return _form_with(self.shape, cells)

    def flipped(self) -> Orientation:
        """This form's mirror image (left and right swapped); named apart from the ``mirrored`` flag."""
        return _form_with(self.shape, _mirror(self.cells))


@cache
def _all_forms(shape: Shape) -> tuple[Orientation, ...]:
    """Every fixed form of ``shape``: its rotations first, then the mirror images not among them."""
    forms: list[Orientation] = []
    seen: set[tuple[Cell, ...]] = set()
    for mirrored in (False, True):
        cells = normalise(BASE_CELLS[shape])
        if mirrored:
            cells = _mirror(cells)
        for _ in range(4):
            if cells not in seen:
                seen.add(cells)
                forms.append(Orientation(shape, cells, len(forms), mirrored))
            cells = _rotate(cells)
    return tuple(forms)


def _form_with(shape: Shape, cells: tuple[Cell, ...]) -> Orientation:
    """The one ``Orientation`` object of ``shape`` whose normalised cells are ``cells``."""
    return next(o for o in _all_forms(shape) if o.cells == cells)


@cache
def _orientations(shape: Shape, mode: OrientationMode) -> tuple[Orientation, ...]:
    forms = _all_forms(shape)
    if mode == "free":
        return forms
    if mode == "rotate":
        return tuple(o for o in forms if not o.mirrored)
    raise ValueError(f"unknown orientation mode {mode!r}: expected 'rotate' or 'free'")


def find_orientation(
    shape: Shape, cells: tuple[Cell, ...] | list[Cell], mode: OrientationMode
) -> Orientation | None:
    """The orientation of ``shape`` under ``mode`` that ``cells`` form, or None."""
    key = normalise(cells)
    for orientation in _orientations(shape, mode):
        if orientation.cells == key:
            return orientation
    return None


def shape_of(cells: tuple[Cell, ...] | list[Cell]) -> Shape | None:
    """Which shape a set of cells forms as a fixed (unmirrored) piece, if any."""
    key = normalise(cells)
    for shape in Shape:
        for orientation in _orientations(shape, "rotate"):
            if orientation.cells == key:
                return shape
    return None
