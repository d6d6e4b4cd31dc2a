"""Colours and cell glyphs shared by every screen of the terminal app.

The engine names each shape's guideline colour (``Shape.colour``); terminals need exact values,
so this module maps the names to hex once, here. The text accents (``HIGHLIGHT``, ``GOOD``,
``BAD``, ``INK``) follow the app's theme: ``follow_theme`` takes them from Textual's theme
variables whenever the theme changes, so they read on light themes as on dark ones.
"""

from __future__ import annotations

from collections.abc import Mapping

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

HIGHLIGHT = "#feca57"
"""Points scored, winners, what is planned: the theme's warning text colour."""
GOOD = "#1dd1a1"
"""Free, open: the theme's success text colour."""
BAD = "#ff6b6b"
"""Empty supply, a move that ends the game: the theme's error text colour."""
INK = "#e8f6ff"
"""Marks drawn on empty cells (diamonds, the ★ face): the theme's foreground."""

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


def follow_theme(variables: Mapping[str, str]) -> None:
    """Take the text accents from a Textual theme's variables (``App.theme_variables``)."""
    global HIGHLIGHT, GOOD, BAD, INK
    HIGHLIGHT = variables.get("text-warning", HIGHLIGHT)
    GOOD = variables.get("text-success", GOOD)
    BAD = variables.get("text-error", BAD)
    INK = variables.get("foreground", INK)
