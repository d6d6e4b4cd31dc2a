"""Build plates: which parts print together, placed on the bed by rectpack's MaxRects packer.

Parts go on plates in two groups, as the seed prints them: the board parts with the box and lid
(one colour, printed once), and one colour set (a player's pieces and die), printed once per
colour. Each part is packed by its footprint plus a gap; rectpack may turn a part by 90 degrees.
A part that no orientation fits on the bed is refused here, with its name and the shortfall.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import rectpack
from manifold3d import Manifold

from tabletris.kit.options import PRINTERS, KitError, Printer
from tabletris.kit.parts import Part, bounds

BED_MARGIN = 3.0
"""Kept free at the bed's edges (mm): a placed part's outline stays this far inside the bed."""
GAP = 3.0
"""Between two parts on a plate (mm)."""
_SCALE = 100
"""rectpack packs integers: footprints in hundredths of a mm."""


@dataclass
class Placed:
    """A part on a plate: the solid moved (and perhaps turned) to its place on the bed."""

    part: Part
    solid: Manifold
    turned: bool
    x: float
    y: float


@dataclass
class Plate:
    """One print job: placed parts, printed ``copies`` times (in different colours for a set)."""

    key: str
    title: str
    copies: int
    colour: str
    placed: list[Placed] = field(default_factory=list)

    @property
    def part_counts(self) -> dict[str, int]:
        counts: dict[str, int] = {}
        for item in self.placed:
            counts[item.part.key] = counts.get(item.part.key, 0) + 1
        return counts


def usable(printer: Printer) -> tuple[float, float]:
    return printer.width - 2 * BED_MARGIN, printer.depth - 2 * BED_MARGIN


def shortfall(part: Part, printer: Printer) -> str | None:
    """How a part misses the bed (by how many mm, in its best orientation), or None if it fits."""
    w, d, h = part.size
    uw, ud = usable(printer)
    if h > printer.height:
        return f"{part.title} is {h:.1f} mm tall, {h - printer.height:.1f} mm more than the printer's height"
    short = min(max(w - uw, d - ud), max(d - uw, w - ud))
    if short > 0:
        return f"{part.title} ({w:.1f} x {d:.1f} mm) is {short:.1f} mm too long even turned"
    return None


def check_fits(parts: Sequence[Part], printer: Printer) -> None:
    """Refuse parts no orientation on the bed can hold, naming each and by how much it misses."""
    misses = [m for m in (shortfall(p, printer) for p in parts) if m]
    if misses:
        uw, ud = usable(printer)
        big_enough = [key for key, p in PRINTERS.items() if not any(shortfall(part, p) for part in parts)]
        hint = f" (e.g. --printer {big_enough[0]})" if big_enough else ""
        raise KitError(
            f"the {printer.label} bed (usable {uw:g} x {ud:g} mm, {BED_MARGIN:g} mm kept at each edge) "
            f"cannot hold {'; '.join(misses)}; choose a bigger printer{hint} or a smaller size"
        )


def pack(
    parts: Sequence[tuple[Part, int]], printer: Printer, key: str, title: str, copies: int, colour: str
) -> list[Plate]:
    """Plates holding ``count`` of each part; as few as MaxRects (best short side fit) manages."""
    check_fits([part for part, _ in parts], printer)
    uw, ud = usable(printer)
    packer = rectpack.newPacker(
        mode=rectpack.PackingMode.Offline,
        bin_algo=rectpack.PackingBin.BFF,
        pack_algo=rectpack.MaxRectsBssf,
        rotation=True,
    )
    items: list[Part] = []
    for part, count in parts:
        w, d, _ = part.size
        for _ in range(count):
            packer.add_rect(_int(w + GAP), _int(d + GAP), rid=len(items))
            items.append(part)
    packer.add_bin(_int(uw + GAP), _int(ud + GAP), count=float("inf"))
    packer.pack()
    placed_by_bin: dict[int, list[Placed]] = {}
    for b, x, y, w, _d, rid in packer.rect_list():
        part = items[rid]
        turned = w != _int(part.size[0] + GAP)
        solid = part.solid.rotate((0.0, 0.0, 90.0)) if turned else part.solid
        lo, _ = bounds(solid)
        px, py = BED_MARGIN + x / _SCALE, BED_MARGIN + y / _SCALE
        solid = solid.translate((px - float(lo[0]), py - float(lo[1]), -float(lo[2])))
        placed_by_bin.setdefault(b, []).append(Placed(part, solid, turned, px, py))
    if len(packer.rect_list()) != len(items):  # pragma: no cover - check_fits guarantees a place
        raise KitError(f"{title}: the packer could not place every part")
    plates = []
    for n, b in enumerate(sorted(placed_by_bin), start=1):
        suffix = f"-{n}" if len(placed_by_bin) > 1 else ""
        name = f"{title} {n}/{len(placed_by_bin)}" if len(placed_by_bin) > 1 else title
        plates.append(Plate(f"{key}{suffix}", name, copies, colour, placed_by_bin[b]))
    return plates


def _int(mm: float) -> int:
    return int(round(mm * _SCALE))
