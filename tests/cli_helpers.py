"""What the command-line tests share: finding colour in captured terminal output."""

from __future__ import annotations

import re

SGR = re.compile(r"\x1b\[([0-9;]*)m")
COLOUR_CODES = {*range(30, 39), *range(40, 49), *range(90, 98), *range(100, 108)}


def colour_codes(text: str) -> set[int]:
    """The colour parameters (not bold, dim...) of every ANSI SGR sequence in ``text``."""
    return {int(p) for m in SGR.finditer(text) for p in m.group(1).split(";") if p} & COLOUR_CODES
