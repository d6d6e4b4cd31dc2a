"""``tabletris bench --only expert --only simulate``: the expert's C path beside its Python paths
(figures are never asserted, only that each is there and where)."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from tabletris.cli.app import app

runner = CliRunner()


def test_expert_and_simulate_rows_for_both_paths() -> None:
    result = runner.invoke(app, ["bench", "--seconds", "0.01", "--only", "expert", "--only", "simulate", "--json"])
    assert result.exit_code == 0, result.output
    engines = json.loads(result.output)["engines"]
    for label, figures in engines.items():
        assert figures["expert"]["median_ms"] > 0
        assert figures["simulate"]["games_per_s"] > 0
        # the C decision and the kernel's playout exist only on the compiled core
        assert ("python_path_median_ms" in figures["expert"]) is (label == "native")
        assert ("python_path_games_per_s" in figures["simulate"]) is (label == "native")
        assert ("engine_games_per_s" in figures["simulate"]) is (label == "native")
    table = runner.invoke(app, ["bench", "--seconds", "0.01", "--only", "expert", "--only", "simulate"], env={"COLUMNS": "220"})
    assert table.exit_code == 0, table.output
    assert "simulate expert vs greedy, dice (games/s)" in table.output
    if "native" in engines:
        assert "the same with the C decision off" in table.output
        assert "through the engine, the Python expert" in table.output
