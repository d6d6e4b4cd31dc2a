"""``simulate``: reproducible for any number of workers, and the files ``--out`` writes."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tabletris.cli.app import app
from tabletris.engine.records import replay
from tabletris.lab.simulate import (
    PROCESS_BATCH_LIMIT,
    config_from,
    derive_seed,
    make_tasks,
    run_game,
    simulate,
)

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def test_results_do_not_depend_on_jobs() -> None:
    config = config_from("dice", "greedy,random,greedy", 6, seed=42, presets=["standard", "classic"], swap=True)
    one = simulate(config, "local", jobs=1).results
    two = simulate(config, "process", jobs=2).results
    assert one == two
    assert [(r.preset, r.index) for r in two] == [(p, i) for p in ("standard", "classic") for i in range(6)]


def test_seeds_derive_from_seed_preset_and_index() -> None:
    config = config_from("dice", "random,random", 4, seed=7)
    tasks = make_tasks(config)
    assert len({t.seed for t in tasks}) == 4
    assert tasks[2].seed == derive_seed(7, "standard", 2)
    other = make_tasks(config_from("dice", "random,random", 4, seed=8))
    assert {t.seed for t in tasks}.isdisjoint({t.seed for t in other})


def test_swap_rotates_positions_over_the_same_deal() -> None:
    config = config_from("dice", "greedy,random", 4, seed=3, swap=True)
    tasks = make_tasks(config)
    assert [t.order for t in tasks] == [(0, 1), (1, 0), (0, 1), (1, 0)]
    assert tasks[0].seed == tasks[1].seed != tasks[2].seed == tasks[3].seed


def test_run_game_is_a_pure_function_and_keeps_scores_per_bot() -> None:
    config = config_from("dice", "greedy,random", 2, seed=5, swap=True, save_records=True)
    task = make_tasks(config)[1]  # seats swapped: greedy sits in position 1
    a, b = run_game(task), run_game(task)
    assert a == b
    assert a.record is not None
    game = replay(a.record)
    assert game.over
    assert list(game.scores) == [a.scores[1], a.scores[0]]
    assert game.players == ["random", "greedy"]


def test_bad_options_name_the_problem() -> None:
    with pytest.raises(ValueError, match="unknown bot 'nobody'"):
        config_from("dice", "nobody,random", 2)
    with pytest.raises(ValueError, match="--preset nope"):
        config_from("dice", "random", 2, presets=["nope"])
    with pytest.raises(ValueError, match="--games"):
        config_from("dice", "random", 0)
    with pytest.raises(ValueError, match="1 to 4 players"):
        config_from("tower", "random,random,random,random,random", 1)
    config = config_from("dice", "random", 1)
    with pytest.raises(ValueError, match="--backend"):
        simulate(config, "cloud")


def test_cli_writes_json_csv_png_and_records(tmp_path: Path) -> None:
    out = tmp_path / "run"
    result = CliRunner().invoke(
        app,
        [
            "simulate", "dice", "--seats", "greedy,random", "--games", "4", "--seed", "9",
            "--jobs", "1", "--swap", "--preset", "standard", "--preset", "long",
            "--out", str(out), "--save-records",
        ],
    )
    assert result.exit_code == 0, result.output
    assert "first-seat advantage" in result.output
    doc = json.loads((out / "results.json").read_text())
    assert [p["preset"] for p in doc["presets"]] == ["standard", "long"]
    assert doc["presets"][0]["games"] == 4
    low, high = doc["presets"][0]["seats"][0]["ci95"]
    assert 0 <= low <= doc["presets"][0]["seats"][0]["win_rate"] <= high <= 1
    with (out / "games.csv").open() as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == 8
    assert {r["preset"] for r in rows} == {"standard", "long"}
    assert all(int(r["length"]) > 0 for r in rows)
    for name in ("scores.png", "positions.png", "length.png"):
        assert (out / name).read_bytes()[:8] == PNG_SIGNATURE
    records = sorted((out / "records").glob("*.json"))
    assert len(records) == 8
    game = replay(records[0])
    assert game.over


def test_cli_rejects_bad_input_with_a_message() -> None:
    result = CliRunner().invoke(app, ["simulate", "dice", "--seats", "random,ghost", "--games", "2"])
    assert result.exit_code == 2
    assert "unknown bot 'ghost'" in result.output
    result = CliRunner().invoke(app, ["simulate", "dice", "--save-records"])
    assert result.exit_code == 2
    assert "--save-records needs --out" in result.output


def test_tower_results_do_not_depend_on_jobs_either() -> None:
    config = config_from("tower", "greedy,random", 3, seed=1, presets=["standard", "advanced"], swap=True)
    one = simulate(config, "local", jobs=1).results
    two = simulate(config, "process", jobs=2).results
    assert one == two
    assert all(1 <= r.length <= 27 for r in one)
    # Swapped pairs share a deal: games 0 and 1 one deck, game 2 the next.
    assert len({r.seed for r in one if r.preset == "standard"}) == 2


# ------------------------------------------------------------------- issue 15.5 and 15.12


def test_a_bad_out_path_is_refused_before_any_game(tmp_path: Path) -> None:
    """Issue 15.5: a bad --out failed with a traceback after all the games had been played."""
    blocker = tmp_path / "file"
    blocker.write_text("x")
    for bad, why in ((blocker, "is a file, not a folder"), (blocker / "run", "is not a folder")):
        result = CliRunner().invoke(app, ["simulate", "dice", "--seats", "random", "--games", "50", "--out", str(bad)])
        assert result.exit_code == 2
        assert result.output.startswith("error: --out: ") and why in result.output
        assert "games in" not in result.output  # refused before the run
        assert "Traceback" not in result.output


def test_first_seat_advantage_is_only_reported_with_swap(tmp_path: Path) -> None:
    """Issue 15.12: without --swap the first seat is always the same bot; its 'advantage' is that bot's."""
    args = ["simulate", "dice", "--seats", "greedy,random", "--games", "2", "--out", str(tmp_path / "run")]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    assert "first-seat advantage:" not in result.output
    assert "win rate by position" not in result.output
    doc = json.loads((tmp_path / "run" / "results.json").read_text())
    assert doc["presets"][0]["first_seat_advantage"] is None


def test_several_presets_get_one_comparison_table_with_intervals() -> None:
    """Issue 15.12: presets were printed one after another, never side by side."""
    result = CliRunner().invoke(
        app,
        ["simulate", "dice", "--seats", "greedy,random", "--games", "4", "--swap",
         "--preset", "standard", "--preset", "long"],
        env={"COLUMNS": "200"},
    )
    assert result.exit_code == 0, result.output
    table = result.output[result.output.index("presets side by side"):]
    header = table.splitlines()[2] + table.splitlines()[3]
    for column in ("preset", "games", "win rate", "mean score", "game length", "first-seat"):
        assert column in header
    rows = [line for line in table.splitlines() if line.startswith("│ standard") or line.startswith("│ long")]
    assert len(rows) == 2
    # Under each figure its interval: "low - high" once per measure (2 seats x 2, length, advantage).
    ci_lines = [line for line in table.splitlines() if line.count(" - ") == 6]
    assert len(ci_lines) == 2


def test_score_panels_share_one_y_axis_and_length_bins_sit_on_whole_numbers() -> None:
    """Issue 15.12: each score panel had its own y scale; length bins straddled whole numbers."""
    from tabletris.lab.charts import length_bins, length_figure, score_figure

    config = config_from("dice", "greedy,random", 3, seed=2, presets=["standard", "long"])
    run = simulate(config, "local")
    fig = score_figure(run)
    first, second = fig.axes
    assert first.get_shared_y_axes().joined(first, second)
    assert first.get_ylim() == second.get_ylim()
    fig = length_figure(run)
    lefts = {round(patch.get_x(), 6) for patch in fig.axes[0].patches}
    assert lefts and all(x % 1 == 0.5 for x in lefts)
    assert length_bins([34, 40]) == [33.5 + i for i in range(8)]
    wide = length_bins([10, 100])
    assert wide[0] == 9.5 and wide[-1] >= 100.5 and len(wide) <= 31
    assert all((b - a) == (wide[1] - wide[0]) and (b - a) % 1 == 0 for a, b in zip(wide, wide[1:], strict=False))


def test_the_process_backend_reports_progress_every_few_games() -> None:
    """Issue 15.12: the bar sat at 0/N, then jumped: workers ran up to 16 games per batch and
    the batches were counted in task order. Now a batch is at most a few games, counted as it
    finishes."""
    config = config_from("dice", "random,random", 100, seed=4)
    steps: list[int] = []
    simulate(config, "process", jobs=2, progress=steps.append)
    assert sum(steps) == 100
    assert max(steps) <= PROCESS_BATCH_LIMIT <= 4
