"""The print kit: the dice game as 3D-printable parts, built from the engine's own rules.

``make_kit(kit_options(size="medium"))`` gives the solids and plates; ``write_kit`` writes STL,
3MF, previews, PrusaSlicer's estimates, ``kit.json`` and a README for the maker. The command line
is ``tabletris kit``.
"""

from tabletris.kit.build import Kit, make_kit, write_kit
from tabletris.kit.options import (
    PRINTERS,
    SIZES,
    KitError,
    KitOptions,
    Printer,
    kit_options,
    parse_printer,
)

__all__ = [
    "PRINTERS",
    "SIZES",
    "Kit",
    "KitError",
    "KitOptions",
    "Printer",
    "kit_options",
    "make_kit",
    "parse_printer",
    "write_kit",
]
