"""What a kit is built for: the game's rules (from the engine), a size, a printer, a tolerance.

Every game number (board width and rows, the shapes on the die, the supply per player) is read
from the engine's ``DiceRules``, so the printed game and the digital one cannot drift apart. Only
the physical choices live here: the cell pitch, the fit clearance, the number of colour sets and
the printer's bed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from tabletris.engine.dice import MAX_PLAYERS, DiceRules
from tabletris.engine.options import RulesError
from tabletris.engine.shapes import Shape


class KitError(ValueError):
    """Options a kit cannot be built from, or a part that can never fit the printer.

    ``str()`` is one line that names the option or part, the value and what would work;
    ``option`` is the command-line option to blame.
    """

    def __init__(self, message: str, option: str = "--printer") -> None:
        super().__init__(message)
        self.option = option


SIZES: dict[str, float] = {"mini": 10.0, "medium": 15.0, "big": 20.0}
"""The seed's three sizes: the side of one square in mm (seed 000: 1 x 1, 1.5 x 1.5, 2 x 2 cm)."""


@dataclass(frozen=True)
class Printer:
    """A build volume in mm; ``name`` is what the maker knows it by."""

    name: str
    width: float
    depth: float
    height: float

    @property
    def label(self) -> str:
        return f"{self.name} ({self.width:g} x {self.depth:g} x {self.height:g} mm)"


PRINTERS: dict[str, Printer] = {
    "a1-mini": Printer("Bambu Lab A1 Mini", 180, 180, 180),
    "prusa-mini": Printer("Prusa MINI", 180, 180, 180),
    "ender-3": Printer("Creality Ender-3", 220, 220, 250),
    "mk4": Printer("Prusa MK4", 250, 210, 220),
    "bambu-x1": Printer("Bambu Lab X1/P1/A1", 256, 256, 256),
    "prusa-xl": Printer("Prusa XL", 360, 360, 360),
}
"""Common beds. ``--printer`` also takes ``WxD`` or ``WxDxH`` in mm."""

DEFAULT_PRINTER = "a1-mini"
"""The seed's reference printer: Mini and Medium fit it, Big needs a bigger bed."""
DEFAULT_CLEARANCE = 0.25
MAX_CLEARANCE = 1.0
DIE_FACES_ALLOWED = 6


def parse_printer(text: str) -> Printer:
    """A printer from the table, or a custom ``WxD[xH]`` bed (height defaults to the width)."""
    key = text.strip().lower()
    if key in PRINTERS:
        return PRINTERS[key]
    match = re.fullmatch(r"(\d+(?:\.\d+)?)x(\d+(?:\.\d+)?)(?:x(\d+(?:\.\d+)?))?", key)
    if not match:
        raise KitError(
            f"unknown printer {text!r}: expected one of {', '.join(PRINTERS)} or a bed size WxD or WxDxH in mm"
        )
    w, d = float(match[1]), float(match[2])
    h = float(match[3]) if match[3] else w
    if min(w, d, h) < 50 or max(w, d, h) > 2000:
        raise KitError(f"printer {text!r}: every bed side must be 50 to 2000 mm")
    return Printer(f"custom {w:g} x {d:g} x {h:g}", w, d, h)


@dataclass(frozen=True)
class KitOptions:
    """One kit: the rules it is printed for and how big, for how many colours, on which printer."""

    rules: DiceRules = field(default_factory=DiceRules)
    cell: float = SIZES["medium"]
    players: int = 4
    printer: Printer = field(default_factory=lambda: PRINTERS[DEFAULT_PRINTER])
    clearance: float = DEFAULT_CLEARANCE
    size_name: str | None = "medium"

    def __post_init__(self) -> None:
        if not (6.0 <= self.cell <= 40.0):
            raise KitError(f"cell: {self.cell:g} mm is out of range: a square must be 6 to 40 mm", "--cell")
        if not (1 <= self.players <= MAX_PLAYERS):
            raise KitError(
                f"players: {self.players} colour sets: the dice game takes 1 to {MAX_PLAYERS} players",
                "--players",
            )
        if not (0.0 <= self.clearance <= MAX_CLEARANCE):
            raise KitError(
                f"clearance: {self.clearance:g} mm is out of range (0 to {MAX_CLEARANCE:g} mm)", "--clearance"
            )
        if len(self.rules.die) != DIE_FACES_ALLOWED:
            raise KitError(
                f"rules.die: a printed die is a cube with 6 faces, these rules have {len(self.rules.die)}",
                "--preset",
            )
        if self.rules.supply < 1:
            raise KitError("supply: a printed kit needs at least 1 piece of each shape per colour", "--supply")

    @property
    def width(self) -> int:
        """Board columns, from the rules."""
        return self.rules.width

    @property
    def rows(self) -> int:
        """Board rows, from the rules (the ``height`` option; the ``long`` preset's 30)."""
        return self.rules.height

    @property
    def shapes(self) -> tuple[Shape, ...]:
        """The shapes printed: the die's shapes, in die order (a J or Z is an L or S turned over)."""
        return self.rules.shapes

    @property
    def die_faces(self) -> tuple[str, ...]:
        return self.rules.die

    @property
    def supply(self) -> int:
        """Pieces of each shape per colour set: the engine's supply per player."""
        return self.rules.supply

    @property
    def size_label(self) -> str:
        return self.size_name or f"{self.cell:g} mm"

    def summary(self) -> dict[str, Any]:
        return {
            "size": self.size_label,
            "cell_mm": self.cell,
            "players": self.players,
            "board": [self.width, self.rows],
            "shapes": [s.value for s in self.shapes],
            "die": list(self.die_faces),
            "supply_per_shape_per_colour": self.supply,
            "clearance_mm": self.clearance,
            "printer": {
                "name": self.printer.name,
                "bed_mm": [self.printer.width, self.printer.depth, self.printer.height],
            },
            "rules": self.rules.to_dict(),
        }


def kit_options(
    *,
    size: str | None = None,
    cell: float | None = None,
    players: int = 4,
    preset: str | None = None,
    height: int | None = None,
    supply: int | None = None,
    printer: str = DEFAULT_PRINTER,
    clearance: float = DEFAULT_CLEARANCE,
) -> KitOptions:
    """Options from command-line values; the rules go through the engine's own validation."""
    if size is not None and cell is not None:
        raise KitError("size and cell: give one of them, not both", "--cell")
    size_name: str | None
    if cell is None:
        name = (size or "medium").lower()
        if name not in SIZES:
            raise KitError(f"unknown size {size!r}: expected one of {', '.join(SIZES)} (or a cell in mm)", "--size")
        cell, size_name = SIZES[name], name
    else:
        size_name = next((n for n, mm in SIZES.items() if mm == cell), None)
    raw: dict[str, Any] = {}
    if preset is not None:
        raw["preset"] = preset
    if height is not None:
        raw["height"] = height
    if supply is not None:
        raw["supply"] = supply
    try:
        rules = DiceRules.from_dict(raw)
    except RulesError as e:
        option = next((f"--{k}" for k in ("height", "supply") if str(e).startswith(f"rules.{k}")), "--preset")
        raise KitError(str(e), option) from None
    return KitOptions(
        rules=rules,
        cell=cell,
        players=players,
        printer=parse_printer(printer),
        clearance=clearance,
        size_name=size_name,
    )
