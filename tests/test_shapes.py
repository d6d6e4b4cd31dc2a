"""rules.md section 1: the shapes, their orientations and congruence."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tabletris.engine.shapes import (
    TETROMINOES,
    Shape,
    find_orientation,
    normalise,
    shape_of,
)

ROTATE_COUNTS = {"I": 2, "O": 1, "T": 4, "S": 2, "Z": 2, "J": 4, "L": 4, "M": 1}
FREE_COUNTS = {"I": 2, "O": 1, "T": 4, "S": 4, "Z": 4, "J": 8, "L": 8, "M": 1}


def test_shapes_are_the_seven_tetrominoes_and_the_mino() -> None:
    """Rule 'Shapes': I O T S Z J L (one-sided tetrominoes) and M, the single-square mino."""
    assert [s.value for s in Shape] == ["I", "O", "T", "S", "Z", "J", "L", "M"]
    assert [s.value for s in TETROMINOES] == ["I", "O", "T", "S", "Z", "J", "L"]
    for shape in TETROMINOES:
        assert shape.size == 4 and shape.is_tetromino
    assert Shape.M.size == 1 and not Shape.M.is_tetromino


def test_guideline_colours() -> None:
    """Rule 'Shapes': guideline colours I cyan, O yellow, T purple, S green, Z red, J blue, L orange."""
    expected = {
        "I": "cyan",
        "O": "yellow",
        "T": "purple",
        "S": "green",
        "Z": "red",
        "J": "blue",
        "L": "orange",
    }
    assert {s.value: s.colour for s in TETROMINOES} == expected


@pytest.mark.parametrize("shape", list(Shape))
def test_orientation_counts_rotate(shape: Shape) -> None:
    """Rule 'Orientation': `rotate` allows the four rotations of a shape (distinct forms only)."""
    forms = shape.orientations("rotate")
    assert len(forms) == ROTATE_COUNTS[shape.value]
    assert len({o.cells for o in forms}) == len(forms)
    assert not any(o.mirrored for o in forms)


@pytest.mark.parametrize("shape", list(Shape))
def test_orientation_counts_free(shape: Shape) -> None:
    """Rule 'Orientation': `free` allows rotations and mirror images."""
    forms = shape.orientations("free")
    assert len(forms) == FREE_COUNTS[shape.value]
    assert len({o.cells for o in forms}) == len(forms)
    assert set(shape.orientations("rotate")) <= set(forms)


def test_unknown_orientation_mode_is_rejected() -> None:
    """Orientation modes are `rotate` and `free` only; anything else is an error naming both."""
    with pytest.raises(ValueError, match="rotate.*free"):
        Shape.T.orientations("sideways")  # type: ignore[arg-type]


def test_orientations_are_interned() -> None:
    """Orientation objects are shared, so placements can compare and hash them cheaply."""
    assert Shape.L.orientations("free") is Shape.L.orientations("free")
    assert Shape.L.orientations("rotate")[1] is Shape.L.orientations("free")[1]


@pytest.mark.parametrize(("a", "b"), [("S", "Z"), ("J", "L")])
def test_free_makes_mirror_pairs_congruent(a: str, b: str) -> None:
    """Rule 'Orientation': `free` allows mirror images, so S≡Z and J≡L as physical pieces."""
    sa, sb = Shape(a), Shape(b)
    assert {o.cells for o in sa.orientations("free")} == {o.cells for o in sb.orientations("free")}
    for o in sb.orientations("rotate"):
        assert find_orientation(sa, o.cells, "free") is not None


@pytest.mark.parametrize(("a", "b"), [("S", "Z"), ("J", "L")])
def test_rotate_keeps_mirror_pairs_apart(a: str, b: str) -> None:
    """Rule 'Orientation': `rotate` allows rotations only, so an S is never a Z (nor a J an L)."""
    sa, sb = Shape(a), Shape(b)
    assert not {o.cells for o in sa.orientations("rotate")} & {
        o.cells for o in sb.orientations("rotate")
    }
    for o in sb.orientations("rotate"):
        assert find_orientation(sa, o.cells, "rotate") is None


def test_base_forms_look_like_their_letters() -> None:
    """Rule 'Coordinates': y is the row from the bottom, so an L's foot points up on the right."""
    assert find_orientation(Shape.L, [(0, 0), (1, 0), (2, 0), (2, 1)], "rotate") is not None
    assert find_orientation(Shape.J, [(0, 0), (1, 0), (2, 0), (0, 1)], "rotate") is not None
    assert find_orientation(Shape.L, [(0, 0), (1, 0), (2, 0), (0, 1)], "rotate") is None
    assert find_orientation(Shape.S, [(0, 0), (1, 0), (1, 1), (2, 1)], "rotate") is not None
    assert find_orientation(Shape.Z, [(0, 1), (1, 1), (1, 0), (2, 0)], "rotate") is not None


def test_find_orientation_rejects_non_congruent_cells() -> None:
    """Rule 'Orientation': a placement's cells must be congruent to the shape."""
    assert find_orientation(Shape.T, [(0, 0), (1, 0), (2, 0), (3, 0)], "free") is None
    assert find_orientation(Shape.I, [(0, 0), (1, 0), (2, 0)], "free") is None
    assert find_orientation(Shape.O, [(0, 0), (1, 1), (2, 2), (3, 3)], "free") is None


def test_shape_of_names_fixed_pieces() -> None:
    """`shape_of` reads a fixed (unmirrored) piece from its cells, or None."""
    assert shape_of([(5, 5), (6, 5), (7, 5), (8, 5)]) is Shape.I
    assert shape_of([(0, 1), (1, 1), (1, 0), (2, 0)]) is Shape.Z
    assert shape_of([(0, 0), (0, 1), (0, 2), (1, 2)]) is Shape.J
    assert shape_of([(0, 0), (2, 0), (1, 1), (3, 1)]) is None


def test_parse_is_case_insensitive_and_names_the_choices() -> None:
    """Shape letters are read case-insensitively; a bad letter says which letters exist."""
    assert Shape.parse(" t ") is Shape.T
    with pytest.raises(ValueError, match=r"unknown shape 'Q'.*I O T S Z J L M"):
        Shape.parse("Q")


@given(
    shape=st.sampled_from(list(Shape)),
    mode=st.sampled_from(["rotate", "free"]),
    index=st.integers(0, 7),
    dx=st.integers(-20, 20),
    dy=st.integers(-20, 20),
    turns=st.integers(0, 3),
)
def test_congruence_is_invariant_under_translation_and_allowed_turns(
    shape: Shape, mode: str, index: int, dx: int, dy: int, turns: int
) -> None:
    """Rule 'Orientation': any translation and rotation of an allowed form is still the shape."""
    forms = shape.orientations(mode)  # type: ignore[arg-type]
    cells = list(forms[index % len(forms)].cells)
    for _ in range(turns):
        cells = [(y, -x) for x, y in cells]
    cells = [(x + dx, y + dy) for x, y in cells]
    found = find_orientation(shape, cells, mode)  # type: ignore[arg-type]
    assert found is not None
    assert found.cells == normalise(cells)
    mirrored = [(-x, y) for x, y in cells]
    assert find_orientation(shape, mirrored, "free") is not None
    if mode == "rotate" and shape in (Shape.S, Shape.Z, Shape.J, Shape.L):
        assert find_orientation(shape, mirrored, "rotate") is None
