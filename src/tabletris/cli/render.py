"""Boards and scoreboards as Rich renderables, shared by the line-based front ends."""

from __future__ import annotations

import os
import re
from collections.abc import Sequence

from babel.numbers import format_decimal, format_percent
from rich.table import Table
from rich.text import Text

from tabletris.engine.shapes import COLOURS, Shape
from tabletris.i18n import _, locale_of
from tabletris.table.positions import shown

# Rich colour names for the guideline colours (purple and orange are not ANSI basics).
RICH_COLOURS: dict[str, str] = {
    "cyan": "bright_cyan",
    "yellow": "bright_yellow",
    "purple": "magenta",
    "green": "bright_green",
    "red": "bright_red",
    "blue": "blue",
    "orange": "dark_orange",
    "grey": "grey62",
}


def decimal(value: float, digits: int = 2, sign: bool = False) -> str:
    """``value`` with ``digits`` decimals in the player's locale (``1,25`` in Czech, ``1.25`` in
    English); ``sign`` shows ``+`` on positive numbers as ``{:+.2f}`` does."""
    pattern = "#,##0" + ("." + "0" * digits if digits else "")
    if sign:
        pattern = f"+{pattern};-{pattern}"
    return format_decimal(value, format=pattern, locale=locale_of())


def percent(value: float, digits: int = 1, sign: bool = False) -> str:
    """A share as a percentage with ``digits`` decimals in the player's locale (``52,5 %`` in
    Czech, ``52.5%`` in English and Chinese)."""
    locale = locale_of()
    pattern = locale.percent_formats[None].pattern
    if digits:
        pattern = re.sub(r"0(?=[^0-9#,.]*%)", "0." + "0" * digits, pattern, count=1)
    if sign:
        pattern = f"+{pattern};-{pattern}"
    return format_percent(value, format=pattern, locale=locale)


def color_wanted(flag: bool) -> bool:
    """``--color`` unless ``--no-color`` or ``NO_COLOR`` (set and not empty, no-color.org) says no."""
    return flag and not os.environ.get("NO_COLOR")


def shape_style(letter: str) -> str:
    try:
        return "bold " + RICH_COLOURS[COLOURS[Shape(letter.upper())]]
    except ValueError:
        return ""


def board_text(
    rows: Sequence[str],
    color: bool = True,
    marks: dict[tuple[int, int], str] | None = None,
    numbered: bool = True,
) -> Text:
    """A board from its row strings (top row first) with row and column numbers, counted from 1
    as people count them (``table.positions``).

    ``marks`` overlays characters at cells (x, y), e.g. a ghost piece or icons.
    """
    height = len(rows)
    width = len(rows[0]) if rows else 0
    text = Text()
    for i, row in enumerate(rows):
        y = height - 1 - i
        if numbered:
            text.append(f"{shown(y):>2} ", style="dim")
        for x, ch in enumerate(row):
            mark = (marks or {}).get((x, y))
            if mark is not None:
                text.append(mark + " ", style="bold white on grey23" if color else "")
            elif ch == ".":
                text.append(". ", style="grey35" if color else "")
            else:
                text.append(ch + " ", style=shape_style(ch) if color else "")
        text.append("\n")
    if numbered:
        text.append("   " + "".join(f"{shown(x) % 10} " for x in range(width)), style="dim")
        text.append("\n")
    return text


def scoreboard(names: Sequence[str], scores: Sequence[int], winners: Sequence[str] = (), to_move: int | None = None) -> Table:
    table = Table(show_header=True, header_style="bold", box=None, padding=(0, 2))
    table.add_column(_("player"))
    table.add_column(_("score"), justify="right")
    for i, (name, score) in enumerate(zip(names, scores, strict=True)):
        label = name
        if to_move == i:
            label = f"▶ {name}"
        if name in winners:
            label += " ★"
        table.add_row(label, str(score))
    return table
