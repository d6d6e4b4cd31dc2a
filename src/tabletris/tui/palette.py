"""Colours and cell glyphs shared by every screen of the terminal app.

The engine names each shape's guideline colour (``Shape.colour``); terminals need exact values
that read well on a dark background, so this module maps the names to hex once, here.
"""

from __future__ import annotations

from rich.style import Style

from tabletris.engine.shapes import Shape

HEX: dict[str, str] = {
    "cyan": "#19c3d6",
    "yellow": "#f0cc1c",
    "purple": "#a550d8",
    "green": "#45bd4b",
    "red": "#e2413a",
    "blue": "#3d6fe3",
    "orange": "#f08a24",
    "grey": "#9a9aa4",
}
"""Guideline colour names (from ``Shape.colour``) as terminal colours."""

LIGHT = {"cyan", "yellow", "green", "orange", "grey"}
"""Colours light enough that text drawn on them must be dark."""

EMPTY_BG = "#15161d"
EMPTY_BG_ALT = "#1b1c25"
GHOST_OK = "#2fd16a"
GHOST_BAD = "#ff4d4d"
SEAT_MARKS = "123456789"

SEAT_COLOURS = ("#ff9f43", "#54a0ff", "#1dd1a1", "#ff6bcb", "#feca57", "#48dbfb", "#c8d6e5", "#ee5253")
"""One colour per seat for names and markers, distinct from the shape colours' roles."""


def shape_hex(shape: Shape) -> str:
    """The terminal colour of ``shape``."""
    return HEX.get(shape.colour, shape.colour)


def shape_style(shape: Shape, bold: bool = True) -> Style:
    """Text in the shape's colour, for letters in logs and supply lists."""
    return Style(color=shape_hex(shape), bold=bold)


def stone_style(shape: Shape) -> Style:
    """A filled cell: the shape's colour as background, readable text on it."""
    fg = "#101010" if shape.colour in LIGHT else "#f5f5f5"
    return Style(bgcolor=shape_hex(shape), color=fg, bold=True)


def seat_mark(seat: int | None) -> str:
    """The marker of the seat that placed a stone (1-based), a dot for garbage stones."""
    if seat is None:
        return "·"
    return SEAT_MARKS[seat] if seat < len(SEAT_MARKS) else "+"


def seat_colour(seat: int) -> str:
    return SEAT_COLOURS[seat % len(SEAT_COLOURS)]
