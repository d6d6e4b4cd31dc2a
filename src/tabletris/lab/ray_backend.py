"""The simulation lab on a Ray cluster: the same games, as Ray tasks (``--backend ray``).

Each task runs a batch of ``GameTask`` values through ``run_games``, the very function the local
and process backends use; every game's seeds come from the task itself and results are put back
in task order, so a run gives the same figures as ``--backend local`` for the same seed.

Without an address a local Ray instance is started for the run (and shut down after it); with
``--address`` (``ray://host:10001`` for Ray Client, ``host:6379`` or ``auto`` from a cluster node)
the run joins an existing cluster, whose workers must have the same tabletris version
installed (see ``docs/ray.md``). Ray is an optional extra: ``pip install tabletris[ray]``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from tabletris.lab.tasks import GameResult, GameTask, run_games

BATCH_LIMIT = 16
"""Games per Ray task at most: few round trips, yet enough tasks to keep every worker busy."""


def _import_ray() -> Any:
    try:
        import ray
    except ImportError:
        raise ValueError(
            "--backend ray needs Ray: pip install 'tabletris[ray]' (or pip install ray)"
        ) from None
    return ray


def batch_size(tasks: int, workers: int) -> int:
    """Games per Ray task for ``tasks`` games on about ``workers`` CPUs."""
    return max(1, min(BATCH_LIMIT, tasks // (max(1, workers) * 8) or 1))


def run_ray(
    tasks: Sequence[GameTask],
    address: str | None = None,
    jobs: int = 1,
    progress: Callable[[int], None] | None = None,
) -> list[GameResult]:
    """Run ``tasks`` as Ray tasks; results in task order. ``jobs`` caps a local instance's CPUs."""
    ray = _import_ray()
    started = False
    if not ray.is_initialized():
        options: dict[str, Any] = {
            "include_dashboard": False,
            "log_to_driver": False,
            "logging_level": "ERROR",
            "configure_logging": False,
        }
        if address:
            options["address"] = address
        elif jobs > 1:
            options["num_cpus"] = jobs
        try:
            ray.init(**options)
        except (ConnectionError, RuntimeError, ValueError) as e:
            where = f"the Ray cluster at {address}" if address else "a local Ray instance"
            raise ValueError(f"--backend ray: cannot start or reach {where}: {e}") from None
        started = True
    try:
        workers = int(ray.cluster_resources().get("CPU", 1))
        size = batch_size(len(tasks), workers)
        remote = ray.remote(num_cpus=1)(run_games)
        batches = [list(tasks[i : i + size]) for i in range(0, len(tasks), size)]
        refs = [remote.remote(batch) for batch in batches]
        index = {ref: i for i, ref in enumerate(refs)}
        done: list[list[GameResult] | None] = [None] * len(refs)
        pending = list(refs)
        while pending:
            ready, pending = ray.wait(pending, num_returns=1)
            for ref in ready:
                batch = ray.get(ref)
                done[index[ref]] = batch
                if progress:
                    progress(len(batch))
        return [result for batch in done if batch is not None for result in batch]
    finally:
        if started:
            ray.shutdown()
