"""``tabletris bench``'s tower rows (issue 29): each benchmark runs on every engine, the figures
the goals read are there, and the goal rows say met or not (the figures are never asserted)."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from tabletris.cli.app import app
from tabletris.cli.bench import goal_status
from tabletris.engine import board as board_module
from tabletris.engine import fasttower

runner = CliRunner()


def test_the_tower_rows_have_their_figures_on_every_engine() -> None:
    args = ["bench", "--seconds", "0.01", "--json"]
    for name in ("tower-games", "tower-expert", "tower-env", "tower-vector", "tower-simulate"):
        args += ["--only", name]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    figures = json.loads(result.output)
    assert figures["tower_engine"] == fasttower.engine_name()
    engines = figures["engines"]
    assert list(engines) == (["pure", "native"] if board_module.native_available() else ["pure"])
    for label, f in engines.items():
        assert f["tower-expert"]["decisions"] >= 1 and f["tower-expert"]["median_ms"] > 0
        assert f["tower-env"]["steps_per_s"] > 0 and f["tower-env"]["cartpole_steps_per_s"] > 0
        assert f["tower-env"]["cartpole_ratio"] > 0
        assert f["tower-vector"]["two_cores_steps_per_s"] > 0
        assert f["tower-simulate"]["games_per_s"] > 0
        core = label == "native" and fasttower.built_module() is not None
        assert ("python_path_median_ms" in f["tower-expert"]) is core
        assert ("core_games_per_s" in f["tower-games"]) is core


def test_the_tower_goals_are_worded_with_their_issue() -> None:
    assert goal_status("tower-env/steps_per_s", 2000.0, 30_000.0, False) == "issue 29: ≥ 20,000/s: met"
    assert goal_status("tower-env/cartpole_ratio", 0.02, 0.1, False) == "issue 29: ≥ 0.16x: not met"
    assert goal_status("tower-expert/median_ms", 40.0, 0.2, True) == "issue 29: ≤ 5 ms: met"
    assert goal_status("tower-simulate/games_per_s", 0.5, 49.0, False) == "issue 29: ≥ 50/s: not met"
    table = runner.invoke(app, ["bench", "--seconds", "0.01", "--only", "tower-env"], env={"COLUMNS": "200"})
    assert table.exit_code == 0, table.output
    assert "tabletris/Tower-v0 vs random, one env (steps/s)" in table.output
    assert f"tower core: {fasttower.engine_name()}" in table.output
