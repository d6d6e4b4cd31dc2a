"""``tabletris bench``: its options and its report (the figures themselves are never asserted)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from typer.testing import CliRunner

from tabletris.cli.app import app
from tabletris.engine import board as board_module

runner = CliRunner()
TABLETRIS = os.path.join(os.path.dirname(sys.executable), "tabletris")


@pytest.mark.parametrize("seconds", ["0", "-1", "-0.5", "nan", "inf"])
def test_a_budget_that_is_not_positive_is_refused(seconds: str) -> None:
    """Issue 15: ``bench --seconds 0`` (and negative) ran every benchmark once, silently."""
    result = runner.invoke(app, ["bench", "--seconds", seconds, "--only", "placements"])
    assert result.exit_code == 2
    assert "--seconds" in result.output and "greater than 0" in result.output


def test_json_has_both_engines_side_by_side() -> None:
    result = runner.invoke(app, ["bench", "--seconds", "0.01", "--only", "expert", "--json"])
    assert result.exit_code == 0, result.output
    figures = json.loads(result.output)
    assert figures["engine"] == board_module.engine_name()
    engines = figures["engines"]
    assert list(engines) == (["pure", "native"] if board_module.native_available() else ["pure"])
    for f in engines.values():
        assert f["expert"]["decisions"] >= 1 and f["expert"]["median_ms"] > 0


def test_placements_are_measured_on_every_engine_in_turns() -> None:
    """The placements row measures both engines itself, board by board (a ratio of two
    microsecond figures taken seconds apart swung from 7x to 18x on a busy machine): both
    engines' figures are there, for the same boards and the same placements."""
    result = runner.invoke(app, ["bench", "--seconds", "0.01", "--only", "placements", "--json"])
    assert result.exit_code == 0, result.output
    engines = json.loads(result.output)["engines"]
    assert list(engines) == (["pure", "native"] if board_module.native_available() else ["pure"])
    first = engines["pure"]["placements"]
    for figures in engines.values():
        placements = figures["placements"]
        assert placements["boards"] == first["boards"] > 0
        for access in ("drop", "slide", "free"):
            assert placements[access]["median_us"] > 0
            assert set(placements[access]["per_shape_median_us"]) == set(first[access]["per_shape_median_us"])
            assert placements[access]["mean_placements"] == first[access]["mean_placements"]


def test_the_table_names_the_engine_and_the_speed_up() -> None:
    result = runner.invoke(app, ["bench", "--seconds", "0.01", "--only", "dice-games"], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    assert f"engine: {board_module.engine_name()}" in result.output
    assert "dice, 4 random bots (games/s)" in result.output
    if board_module.native_available():
        assert "speed-up" in result.output


def test_the_pure_engine_is_reported_with_why() -> None:
    env = {**os.environ, "TABLETRIS_PURE": "1", "COLUMNS": "200"}
    out = subprocess.run(
        [TABLETRIS, "bench", "--seconds", "0.01", "--only", "dice-games"],
        env=env, capture_output=True, text=True, check=True,
    )
    assert "engine: pure Python (TABLETRIS_PURE is set)" in out.stdout
    assert "speed-up" not in out.stdout  # one engine: nothing to compare


@pytest.mark.skipif(not board_module.native_available(), reason="the coloured column is the speed-up")
@pytest.mark.parametrize("no_color", [True, False])
def test_no_color_is_honoured(no_color: bool) -> None:
    env = {k: v for k, v in os.environ.items() if k != "NO_COLOR"}
    env["FORCE_COLOR"] = "1"
    if no_color:
        env["NO_COLOR"] = "1"
    out = subprocess.run(
        [TABLETRIS, "bench", "--seconds", "0.01", "--only", "dice-games"],
        env=env, capture_output=True, text=True, check=True,
    )
    green = "\x1b[32m"  # the speed-up column's colour (colour only: bold is not colour)
    assert (green in out.stdout) is not no_color


def test_help_shows_examples() -> None:
    result = runner.invoke(app, ["bench", "--help"], env={"COLUMNS": "200"})
    assert result.exit_code == 0
    assert "Examples" in result.output
    assert "tabletris bench --seconds 1 --json" in result.output


def test_the_batched_env_row_and_the_goals_are_reported() -> None:
    """Issue 19: the batched env in one process and on two, and each goal row says met or not."""
    result = runner.invoke(app, ["bench", "--seconds", "0.01", "--only", "vector", "--json"])
    assert result.exit_code == 0, result.output
    for f in json.loads(result.output)["engines"].values():
        assert f["vector"]["steps_per_s"] > 0 and f["vector"]["two_cores_steps_per_s"] > 0
    table = runner.invoke(app, ["bench", "--seconds", "0.01", "--only", "expert"], env={"COLUMNS": "200"})
    assert table.exit_code == 0, table.output
    assert "goal (issue 19)" in table.output
    assert "≤ 1 ms: met" in table.output or "≤ 1 ms: not met" in table.output


def test_goal_status_words() -> None:
    from tabletris.cli.bench import goal_status

    assert goal_status("expert/median_ms", 5.0, 0.9, True) == "≤ 1 ms: met"
    assert goal_status("expert/median_ms", 5.0, 1.1, True) == "≤ 1 ms: not met"
    assert goal_status("env/steps_per_s", 1000.0, 30_000.0, False) == "≥ 20,000/s: met"
    # placements need the 10x over the pure engine as well as the bound
    assert goal_status("placements/slide/median_us", 20.0, 1.6, True) == "≤ 2 µs, ≥ 10x: met"
    assert goal_status("placements/slide/median_us", 8.0, 1.6, True) == "≤ 2 µs, ≥ 10x: not met"
    assert goal_status("batch/boards_per_s", 1.0, 2.0, False) == ""
