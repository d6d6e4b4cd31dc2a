"""Many bot-against-bot games, reproducibly, locally or in worker processes.

The games themselves are ``lab/tasks.py`` (``run_game`` is a pure function of its task); this
module only runs a list of tasks on a backend — this process, a process pool, or Ray
(``lab/ray_backend.py``) — and puts the results back in task order, so a run gives identical
figures whatever ``jobs`` is.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor, as_completed
from typing import Any, Literal

from tabletris.lab.tasks import (
    GAMES,
    GameResult,
    GameTask,
    SeatBot,
    SimConfig,
    SimulationResults,
    config_from,
    derive_seed,
    make_tasks,
    parse_seat_bots,
    run_game,
    run_games,
)

Backend = Literal["local", "process", "ray"]
BACKENDS: tuple[str, ...] = ("local", "process", "ray")
PROCESS_BATCH_LIMIT = 4
"""Games per worker round trip at most. A game takes tens of milliseconds (random bots) to about
a second (expert), a round trip well under one, so small batches cost nothing measurable, and the
progress bar moves every few games instead of sitting still for 16 expert games per worker."""


def _chunks(tasks: list[GameTask], size: int) -> Iterator[list[GameTask]]:
    for start in range(0, len(tasks), size):
        yield tasks[start : start + size]


def simulate(
    config: SimConfig,
    backend: str = "local",
    jobs: int = 1,
    progress: Callable[[int], None] | None = None,
    address: str | None = None,
) -> SimulationResults:
    """Run every game of ``config``; ``progress(k)`` is called as k more games finish.

    ``backend``: ``local`` (this process) or ``process`` (a pool of ``jobs`` worker processes).
    The results are the same for both and for any ``jobs``.
    """
    if backend not in BACKENDS:
        raise ValueError(f"--backend: {backend!r}: expected one of {', '.join(BACKENDS)}")
    if jobs < 1:
        raise ValueError(f"--jobs: {jobs}: at least 1")
    tasks = make_tasks(config)
    if backend == "ray":  # Ray tasks, local or on the cluster at ``address`` (lab/ray_backend.py)
        from tabletris.lab.ray_backend import run_ray

        return SimulationResults(config, run_ray(tasks, address, jobs, progress))
    results: list[GameResult] = []
    if backend == "local" or jobs == 1:
        for task in tasks:
            results.append(run_game(task))
            if progress:
                progress(1)
        return SimulationResults(config, results)
    # Small batches: few round trips, yet enough of them to keep every worker busy to the end.
    # Batches are counted as they finish (not in task order), so the progress bar moves with the
    # work; the results go back into task order afterwards.
    size = max(1, min(PROCESS_BATCH_LIMIT, len(tasks) // (jobs * 8) or 1))
    batches = list(_chunks(tasks, size))
    done: list[list[GameResult]] = [[] for _ in batches]
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        futures = {pool.submit(run_games, batch): k for k, batch in enumerate(batches)}
        for future in as_completed(futures):
            batch_results = future.result()
            done[futures[future]] = batch_results
            if progress:
                progress(len(batch_results))
    results = [r for batch_results in done for r in batch_results]
    return SimulationResults(config, results)


def save_records(results: SimulationResults, directory: Any) -> list[Any]:
    """Write each kept record as ``DIR/records/PRESET-INDEX.json`` (readable by ``replay``)."""
    from pathlib import Path

    from tabletris.engine.records import dumps

    out = Path(directory) / "records"
    out.mkdir(parents=True, exist_ok=True)
    paths = []
    for r in results.results:
        if r.record is None:
            continue
        path = out / f"{r.preset}-{r.index:05d}.json"
        path.write_text(dumps(r.record), encoding="utf-8")
        paths.append(path)
    return paths



__all__ = [
    "BACKENDS",
    "GAMES",
    "Backend",
    "GameResult",
    "GameTask",
    "SeatBot",
    "SimConfig",
    "SimulationResults",
    "config_from",
    "derive_seed",
    "make_tasks",
    "parse_seat_bots",
    "run_game",
    "run_games",
    "save_records",
    "simulate",
]
