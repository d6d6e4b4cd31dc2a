"""The whole kit in its three sizes, through the command, sliced by PrusaSlicer (slow: minutes).

Mini and Medium are built for the seed's small 180 mm printer, Big for a 256 mm one; every plate
must slice, put material only on the bed, and have its estimates in ``kit.json``.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import trimesh
from typer.testing import CliRunner

from tabletris.cli.app import app
from tabletris.engine.dice import DiceRules
from tabletris.kit import PRINTERS

pytestmark = pytest.mark.slow

STANDARD = DiceRules()


@pytest.mark.parametrize(
    ("size", "printer", "previews"),
    [("mini", "a1-mini", False), ("medium", "a1-mini", True), ("big", "bambu-x1", False)],
)
def test_full_kit_builds_and_every_plate_slices_on_its_bed(size: str, printer: str, previews: bool, tmp_path: Path) -> None:
    out = tmp_path / size
    args = ["kit", "--size", size, "--players", "4", "--printer", printer, "--out", str(out), "--slice"]
    result = CliRunner().invoke(app, [*args, "--previews" if previews else "--no-previews"])
    assert result.exit_code == 0, result.output
    doc = json.loads((out / "kit.json").read_text())
    bed = PRINTERS[printer]
    assert doc["board"]["rows"] == STANDARD.height and doc["board"]["columns"] == STANDARD.width
    readme = (out / "README.md").read_text()
    for plate in doc["plates"]:
        sliced = plate["slicer"]
        x0, y0, x1, y1 = sliced["extent_mm"]
        assert 0 <= x0 < x1 <= bed.width and 0 <= y0 < y1 <= bed.depth, plate["key"]
        assert sliced["filament_g"] > 0 and sliced["time_s"] > 0
        loaded = trimesh.load(out / plate["file"])
        assert len(loaded.geometry) == sum(plate["parts"].values())
        assert plate["file"] in readme
    totals = doc["totals"]
    assert totals["filament_g"] == pytest.approx(
        sum(p["slicer"]["filament_g"] * p["copies"] for p in doc["plates"]), abs=0.05
    )
    pieces = sum(p["total"] for p in doc["parts"] if p["kind"] == "piece")
    assert pieces == 4 * STANDARD.supply * len(STANDARD.shapes)
    for part in doc["parts"]:
        mesh = trimesh.load(out / part["stl"])
        assert mesh.is_watertight and mesh.volume > 0, part["key"]
    if previews:
        assert len(doc["previews"]) == len(doc["parts"]) + 1 + len(doc["plates"])
        for name in doc["previews"]:
            data = (out / name).read_bytes()
            assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 10_000, name
