"""Small drawings of pieces and the die for side panels and logs."""

from __future__ import annotations

from rich.style import Style
from rich.text import Text

from tabletris.engine.shapes import Cell, Shape, normalise
from tabletris.table.positions import cells_text
from tabletris.tui import palette


def piece_picture(shape: Shape, cells: tuple[Cell, ...] | None = None, width: int = 4) -> Text:
    """Two text lines (or more for tall forms) drawing ``cells`` (default the spawn form) in colour."""
    from tabletris.engine.shapes import BASE_CELLS

    cells = normalise(cells if cells is not None else BASE_CELLS[shape])
    height = 1 + max(y for _, y in cells)
    text = Text(no_wrap=True)
    filled = set(cells)
    style = Style(bgcolor=palette.shape_hex(shape))
    for y in range(max(height, 2) - 1, -1, -1):
        for x in range(width):
            if (x, y) in filled:
                text.append("  ", style)
            else:
                text.append("  ")
        if y:
            text.append("\n")
    return text


def format_cells_short(cells: tuple[Cell, ...] | list[list[int]] | None) -> str:
    """Cells compactly for logs, counted from 1 as people count them: ``5,8 6,8 7,8 6,9``."""
    return cells_text(cells)


def shape_letter(shape: Shape | str) -> Text:
    """A shape's letter in its colour; ``*`` (the choice face) in white."""
    value = shape.value if isinstance(shape, Shape) else str(shape)
    if value in Shape.__members__:
        return Text(value, palette.shape_style(Shape(value)))
    return Text(value, Style(color=palette.INK, bold=True))
