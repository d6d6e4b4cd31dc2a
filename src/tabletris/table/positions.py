"""Positions as people count them: columns, rows and orientations from 1, row 1 at the bottom.

The board, records, the API and the engine's own messages index from 0 (record-format.md: a
cell is ``[x, y]`` with ``[0, 0]`` at the bottom left), because programs read them. Everything a
person reads or types at a front end counts from 1, as the web table always has: the terminal
app, line mode and the web agree, and each converts here and nowhere else.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from tabletris.engine.errors import format_cells


def shown(index: int) -> int:
    """A column, row or orientation index as a person reads it."""
    return index + 1


def typed(number: int) -> int:
    """A number a person typed (from 1) as the index the engine takes."""
    return number - 1


def numbers(indices: Iterable[int]) -> str:
    """Columns (or rows, orientations) for people: ``1 2 3``."""
    return " ".join(str(shown(i)) for i in indices)


def cells_text(cells: Iterable[Sequence[int]] | None) -> str:
    """Cells for people, column then row: ``5,8 6,8 7,8 6,9``."""
    if not cells:
        return ""
    return " ".join(f"{shown(c[0])},{shown(c[1])}" for c in cells)


def for_people(text: str | None, cells: Iterable[Sequence[int]]) -> str | None:
    """An engine sentence about ``cells`` (the engine quotes them as records write them:
    ``[[3,5],[4,5]]``) with those cells as people count them, for a front end that shows it next
    to its own positions (the ghost's reason, a typed move's)."""
    cells = list(cells)
    return None if text is None else text.replace(format_cells(cells), cells_text(cells))


__all__ = ["cells_text", "for_people", "numbers", "shown", "typed"]
