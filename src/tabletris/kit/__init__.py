"""The print kit: the dice game as 3D-printable parts, built from the engine's own rules.

``make_kit(kit_options(size="medium"))`` gives the solids and plates; ``write_kit`` writes STL,
3MF, previews, PrusaSlicer's estimates, ``kit.json`` and a README for the maker. The command line
is ``tabletris kit``. The geometry modules load on first use: trimesh takes seconds to import,
and every ``tabletris`` command imports this package's options.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from tabletris.kit.options import (
    PRINTERS,
    SIZES,
    KitError,
    KitOptions,
    Printer,
    kit_options,
    parse_printer,
)

if TYPE_CHECKING:
    from tabletris.kit.build import Kit, make_kit, write_kit

_LAZY = {"Kit": "tabletris.kit.build", "make_kit": "tabletris.kit.build", "write_kit": "tabletris.kit.build"}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'tabletris.kit' has no attribute {name!r}")


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
