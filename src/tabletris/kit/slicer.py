"""PrusaSlicer's command line as the kit's judge: it slices every plate for the chosen bed.

The G-code it writes is read back for two things: its own estimates (filament in mm, cm3 and g,
and the print time) and where it extrudes, which must lie on the bed. PrusaSlicer does not check
the bed with ``--dont-arrange`` (it keeps the plate's layout), so the extrusion extents are the
check. Without ``--dont-arrange`` it arranges on the bed and refuses a part larger than the bed
with "Objects could not fit on the bed": ``arranges_on_bed`` uses that to let the slicer itself
confirm which parts a bed cannot hold.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import tempfile
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from tabletris.kit.options import Printer

SLICER = "prusa-slicer"
PLA_DENSITY = 1.24
"""g/cm3: PrusaSlicer reports grams only when the filament's density is set."""
SETTINGS = (
    "--layer-height", "0.2",
    "--first-layer-height", "0.2",
    "--fill-density", "15%",
    "--perimeters", "2",
    "--skirts", "0",
    "--filament-diameter", "1.75",
    "--nozzle-diameter", "0.4",
    "--filament-density", str(PLA_DENSITY),
)  # fmt: skip
"""A plain PLA profile, 0.4 mm nozzle, 0.2 mm layers: what the kit's estimates assume."""
TIMEOUT = 600


class SlicerError(RuntimeError):
    """PrusaSlicer is missing, failed, or put material off the bed."""


@dataclass(frozen=True)
class SliceEstimate:
    """PrusaSlicer's own figures for one plate, once."""

    filament_mm: float
    filament_cm3: float
    filament_g: float
    time: str
    time_s: int
    extent_mm: tuple[float, float, float, float]

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def find_slicer() -> str | None:
    return shutil.which(SLICER)


def _bed_args(printer: Printer) -> list[str]:
    w, d = printer.width, printer.depth
    return ["--bed-shape", f"0x0,{w:g}x0,{w:g}x{d:g},0x{d:g}", "--max-print-height", f"{printer.height:g}"]


def _run(args: list[str]) -> subprocess.CompletedProcess[str]:
    exe = find_slicer()
    if exe is None:
        raise SlicerError(f"{SLICER} is not installed (Debian: apt-get install {SLICER})")
    return subprocess.run(
        [exe, "--loglevel", "1", *args], capture_output=True, text=True, timeout=TIMEOUT, check=False
    )


def _last_error(proc: subprocess.CompletedProcess[str]) -> str:
    lines = [line.strip() for line in (proc.stderr + proc.stdout).splitlines() if line.strip()]
    errors = [line for line in lines if "error" in line.lower() or "what()" in line]
    return (errors or lines or [f"exit status {proc.returncode}"])[-1]


_TIME_PART = re.compile(r"(\d+)([dhms])")


def parse_time(text: str) -> int:
    """Seconds in PrusaSlicer's ``1d 2h 3m 4s`` form."""
    unit = {"d": 86400, "h": 3600, "m": 60, "s": 1}
    return sum(int(n) * unit[u] for n, u in _TIME_PART.findall(text))


def parse_gcode(gcode: str) -> SliceEstimate:
    """The estimates from the G-code's closing comments and the extent of every extruding move."""
    values: dict[str, str] = {}
    for line in gcode.splitlines()[-400:]:
        if line.startswith("; ") and " = " in line:
            key, _, value = line[2:].partition(" = ")
            values[key.strip()] = value.strip()
    missing = [
        k
        for k in ("filament used [mm]", "filament used [cm3]", "filament used [g]", "estimated printing time (normal mode)")
        if k not in values
    ]
    if missing:
        raise SlicerError(f"the G-code has no {', '.join(repr(k) for k in missing)}")
    xs: list[float] = []
    ys: list[float] = []
    x = y = 0.0
    for line in gcode.splitlines():
        if not line.startswith("G1 "):
            continue
        words = dict((w[0], w[1:]) for w in line.split(";")[0].split()[1:] if len(w) > 1)
        x = float(words.get("X", x))
        y = float(words.get("Y", y))
        if "E" in words and float(words["E"]) > 0 and ("X" in words or "Y" in words):
            xs.append(x)
            ys.append(y)
    if not xs:
        raise SlicerError("the G-code extrudes nothing")
    time_text = values["estimated printing time (normal mode)"]
    return SliceEstimate(
        filament_mm=float(values["filament used [mm]"]),
        filament_cm3=float(values["filament used [cm3]"]),
        filament_g=float(values["filament used [g]"]),
        time=time_text,
        time_s=parse_time(time_text),
        extent_mm=(min(xs), min(ys), max(xs), max(ys)),
    )


def slice_plate(model: Path, printer: Printer) -> SliceEstimate:
    """Slice a placed plate as it is laid out; refuse if anything is extruded off the bed."""
    with tempfile.TemporaryDirectory(prefix="tabletris-slice-") as tmp:
        out = Path(tmp) / "plate.gcode"
        proc = _run(["--export-gcode", "--dont-arrange", *_bed_args(printer), *SETTINGS, "-o", str(out), str(model)])
        if proc.returncode != 0 or not out.exists():
            raise SlicerError(f"{SLICER} could not slice {model.name}: {_last_error(proc)}")
        estimate = parse_gcode(out.read_text(encoding="utf-8", errors="replace"))
    x0, y0, x1, y1 = estimate.extent_mm
    if x0 < 0 or y0 < 0 or x1 > printer.width or y1 > printer.depth:
        raise SlicerError(
            f"{model.name}: {SLICER} extrudes at x {x0:.1f}..{x1:.1f}, y {y0:.1f}..{y1:.1f} mm, "
            f"off the {printer.width:g} x {printer.depth:g} mm bed"
        )
    return estimate


def arranges_on_bed(model: Path, printer: Printer) -> tuple[bool, str]:
    """Whether PrusaSlicer's own arrange finds room for ``model`` on the bed, and what it said."""
    with tempfile.TemporaryDirectory(prefix="tabletris-slice-") as tmp:
        out = Path(tmp) / "arranged.gcode"
        proc = _run(["--export-gcode", *_bed_args(printer), *SETTINGS, "-o", str(out), str(model)])
        return proc.returncode == 0 and out.exists(), _last_error(proc) if proc.returncode else "sliced"
