"""The lab's structure (issue 10, R5): the task model apart from the backends, and no import loop."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tabletris.lab import simulate as simulate_module
from tabletris.lab import tasks
from tabletris.lab.stats import mean_ci, t95


def _modules_after_import(module: str) -> set[str]:
    code = f"import sys, {module}; print(' '.join(m for m in sys.modules if m.startswith('tabletris.lab')))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    return set(out.split())


def test_the_task_model_and_the_ray_backend_do_not_import_the_local_backends() -> None:
    """`lab/simulate` <-> `lab/ray_backend` was an import loop; both now import `lab/tasks` only."""
    assert "tabletris.lab.simulate" not in _modules_after_import("tabletris.lab.tasks")
    assert "tabletris.lab.simulate" not in _modules_after_import("tabletris.lab.ray_backend")
    assert "tabletris.lab.simulate" not in _modules_after_import("tabletris.lab.stats")


def test_simulate_keeps_its_names_for_callers() -> None:
    for name in ("SimConfig", "GameTask", "GameResult", "derive_seed", "make_tasks", "run_game", "run_games"):
        assert getattr(simulate_module, name) is getattr(tasks, name)


@pytest.mark.parametrize(("df", "quantile"), [(1, 12.706), (4, 2.776), (30, 2.042), (40, 2.021), (120, 1.980)])
def test_t95_matches_published_quantiles(df: int, quantile: float) -> None:
    assert t95(df) == pytest.approx(quantile, abs=0.001)


def test_mean_ci_is_the_t_interval() -> None:
    low, high = mean_ci([1.0, 2.0, 3.0, 4.0])
    half = 3.182 * (1.2909944487358056 / 2)  # t(3) * sd / sqrt(n)
    assert low == pytest.approx(2.5 - half) and high == pytest.approx(2.5 + half)
    assert mean_ci([7.0]) == (7.0, 7.0)
    assert mean_ci([]) == (0.0, 0.0)
