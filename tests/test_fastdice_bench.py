"""``tabletris bench --only playouts``: the dice kernel's rows beside both engines' (figures are
never asserted, only that each is there)."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from tabletris.cli.app import app
from tabletris.engine import board as board_module

runner = CliRunner()


def test_playouts_rows_for_the_engines_and_the_kernel() -> None:
    result = runner.invoke(app, ["bench", "--seconds", "0.01", "--only", "playouts", "--json"])
    assert result.exit_code == 0, result.output
    engines = json.loads(result.output)["engines"]
    for label, figures in engines.items():
        for pair in ("random", "greedy"):
            f = figures["playouts"][pair]
            assert f["engine_games_per_s"] > 0 and f["mean_turns"] > 0
            # the kernel runs only on the compiled core, and is reported in its column
            assert ("kernel_games_per_s" in f) is (label == "native")
    table = runner.invoke(app, ["bench", "--seconds", "0.01", "--only", "playouts"], env={"COLUMNS": "220"})
    assert table.exit_code == 0, table.output
    assert "playouts greedy vs random, dice, engine (games/s)" in table.output
    if board_module.native_available():
        assert "the same games in the dice kernel" in table.output


def test_the_pure_engine_shows_no_kernel_rows() -> None:
    """Without the compiled core the kernel rows would repeat the pure figure: they are left out."""
    import os
    import subprocess
    import sys

    tabletris = os.path.join(os.path.dirname(sys.executable), "tabletris")
    out = subprocess.run(
        [tabletris, "bench", "--seconds", "0.01", "--only", "playouts"],
        env={**os.environ, "TABLETRIS_PURE": "1", "COLUMNS": "220"}, capture_output=True, text=True, check=True,
    )
    assert "playouts random vs random, dice, engine (games/s)" in out.stdout
    assert "dice kernel" not in out.stdout
