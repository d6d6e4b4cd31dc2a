"""The Ray backend of the simulation lab: the same results as the local backend, on a local 2-CPU Ray.

Ray takes several seconds to start, so one Ray instance serves the whole module.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
import ray
from typer.testing import CliRunner

from tabletris.cli.app import app
from tabletris.lab.ray_backend import batch_size, run_ray
from tabletris.lab.simulate import config_from, make_tasks, simulate


@pytest.fixture(scope="module")
def local_ray() -> Iterator[None]:
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, logging_level="ERROR")
    try:
        yield
    finally:
        ray.shutdown()


@pytest.mark.slow
@pytest.mark.parametrize("game", ["dice", "tower"])
def test_ray_backend_gives_the_local_results(local_ray: None, game: str) -> None:
    config = config_from(game, "random,greedy", games=6, seed=3, presets=["standard"], swap=True)
    local = simulate(config, "local")
    seen: list[int] = []
    remote = simulate(config, "ray", progress=seen.append)
    assert remote.results == local.results  # every score, win, length and seed, in task order
    assert sum(seen) == 6


@pytest.mark.slow
def test_ray_keeps_records_and_task_order(local_ray: None) -> None:
    config = config_from("dice", "random,random@0.5", games=5, seed=8, save_records=True)
    tasks = make_tasks(config)
    results = run_ray(tasks)
    assert [r.index for r in results] == [t.index for t in tasks]
    assert all(r.record is not None and r.record["seed"] == r.seed for r in results)


@pytest.mark.slow
def test_cli_simulate_backend_ray_writes_the_same_games(local_ray: None, tmp_path: Path) -> None:
    runner = CliRunner()
    common = ["simulate", "tower", "--seats", "random,greedy", "--games", "4", "--seed", "5"]
    local = runner.invoke(app, [*common, "--backend", "local", "--out", str(tmp_path / "local")])
    assert local.exit_code == 0, local.output
    remote = runner.invoke(app, [*common, "--backend", "ray", "--out", str(tmp_path / "ray")])
    assert remote.exit_code == 0, remote.output
    assert (tmp_path / "ray" / "games.csv").read_text() == (tmp_path / "local" / "games.csv").read_text()


def test_address_needs_the_ray_backend() -> None:
    result = CliRunner().invoke(app, ["simulate", "dice", "--games", "1", "--address", "auto"])
    assert result.exit_code == 2
    assert "--address only goes with --backend ray" in result.output


def test_batches_stay_small_enough_to_share_out() -> None:
    assert batch_size(10, 2) == 1
    assert batch_size(1000, 2) == 16
    assert batch_size(1000, 8) == 15
