"""``tabletris bench``: engine speed, measured and printed (never asserted in tests).

- ``placements``: all placements of one rolled shape (every orientation, mirrors included, as the
  dice game's ``free`` orientation asks) on a fixed set of mid-game 10x20 boards, per access mode.
- ``dice-games``: whole 4-player dice games between random bots, per second.
- ``tower-games``: whole 4-player tower games between random bots, per second.
Each runs in this one process, so on one core.
"""

from __future__ import annotations

import json
import platform
import random
import statistics
import time
from collections.abc import Callable
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.table import Table

from tabletris.bots.registry import make_bot
from tabletris.engine.board import ACCESS_MODES, Board
from tabletris.engine.dice import DiceGame
from tabletris.engine.shapes import Shape
from tabletris.table.driver import Table as GameTable

DIE_SHAPES = (Shape.I, Shape.O, Shape.T, Shape.S, Shape.L)


def midgame_boards(count: int = 24, seed: int = 2026) -> list[Board]:
    """Boards from random 4-player games stopped between turns 15 and 30: the same every run."""
    rng = random.Random(seed)
    boards: list[Board] = []
    while len(boards) < count:
        game = DiceGame(["A", "B", "C", "D"], seed=rng.getrandbits(32))
        bot = make_bot("random", seed=rng.getrandbits(32))
        stop = rng.randint(15, 30)
        table = GameTable(game, [bot] * 4)
        while not game.over and game.turn < stop:
            table.play_bots(max_actions=1)
        if not game.over:
            boards.append(game.board.copy())
    return boards


def bench_placements(seconds: float = 2.0) -> dict[str, Any]:
    """Median time to generate every placement of one shape, per access mode."""
    boards = midgame_boards()
    result: dict[str, Any] = {"boards": len(boards), "shapes": [s.value for s in DIE_SHAPES]}
    budget = seconds / len(ACCESS_MODES)
    for access in ACCESS_MODES:
        per_call: list[float] = []
        per_shape: dict[str, list[float]] = {s.value: [] for s in DIE_SHAPES}
        counts: list[int] = []
        calls = max(1, int(budget / (len(boards) * len(DIE_SHAPES)) / 100e-6) // 3)
        for board in boards:
            for shape in DIE_SHAPES:
                counts.append(len(board.placements(shape, "free", access)))
                best = float("inf")
                for _ in range(3):
                    t0 = time.perf_counter()
                    for _ in range(calls):
                        board.placements(shape, "free", access)
                    best = min(best, (time.perf_counter() - t0) / calls)
                per_call.append(best)
                per_shape[shape.value].append(best)
        per_call.sort()
        result[access] = {
            "median_us": round(statistics.median(per_call) * 1e6, 1),
            "p90_us": round(per_call[int(0.9 * (len(per_call) - 1))] * 1e6, 1),
            "max_us": round(per_call[-1] * 1e6, 1),
            "per_shape_median_us": {k: round(statistics.median(v) * 1e6, 1) for k, v in per_shape.items()},
            "mean_placements": round(statistics.mean(counts), 1),
        }
    return result


def bench_dice_games(seconds: float = 3.0, players: int = 4) -> dict[str, Any]:
    """Random-bot games played back to back for ``seconds``."""
    rng = random.Random(7)
    names = [f"P{i}" for i in range(players)]
    games = turns = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        game = DiceGame(names, seed=rng.getrandbits(32))
        bot = make_bot("random", seed=rng.getrandbits(32))
        GameTable(game, [bot] * len(names)).play_out()
        games += 1
        turns += game.turn
    elapsed = time.perf_counter() - start
    return {
        "games": games,
        "seconds": round(elapsed, 2),
        "games_per_s": round(games / elapsed, 1),
        "mean_turns": round(turns / max(games, 1), 1),
    }


def bench_tower(seconds: float = 3.0) -> dict[str, Any]:
    from tabletris.lab.bench_tower import bench_tower_games

    return bench_tower_games(seconds)


BENCHES: dict[str, Callable[[float], dict[str, Any]]] = {
    "placements": bench_placements,
    "dice-games": bench_dice_games,
    "tower-games": bench_tower,
}


def register(app: typer.Typer) -> None:
    @app.command()
    def bench(
        only: Annotated[
            list[str] | None, typer.Option("--only", help=f"Run only these: {', '.join(BENCHES)}.")
        ] = None,
        seconds: Annotated[float, typer.Option(help="Time budget per benchmark.")] = 3.0,
        as_json: Annotated[bool, typer.Option("--json", help="Print the figures as JSON.")] = False,
    ) -> None:
        """Measure the engine's speed on this machine (one process, one core)."""
        names = only or list(BENCHES)
        for name in names:
            if name not in BENCHES:
                typer.echo(f"error: unknown benchmark {name!r}: expected {', '.join(BENCHES)}", err=True)
                raise typer.Exit(2)
        figures: dict[str, Any] = {
            "python": platform.python_version(),
            "machine": platform.machine(),
        }
        for name in names:
            try:
                figures[name] = BENCHES[name](seconds)
            except ModuleNotFoundError as e:
                figures[name] = {"error": f"not available: {e.name}"}
        if as_json:
            typer.echo(json.dumps(figures, indent=2))
            return
        _print(figures)


def _print(figures: dict[str, Any]) -> None:
    console = Console(highlight=False)
    console.print(f"Python {figures['python']} on {figures['machine']}, one process")
    if "placements" in figures:
        p = figures["placements"]
        table = Table(title=f"All placements of one rolled shape, orientation free, {p['boards']} mid-game 10x20 boards")
        table.add_column("access")
        table.add_column("median µs", justify="right")
        table.add_column("p90 µs", justify="right")
        table.add_column("max µs", justify="right")
        table.add_column("median per shape (µs)")
        table.add_column("placements", justify="right")
        for access in ACCESS_MODES:
            a = p[access]
            shapes = " ".join(f"{k}:{v}" for k, v in a["per_shape_median_us"].items())
            table.add_row(access, str(a["median_us"]), str(a["p90_us"]), str(a["max_us"]), shapes, str(a["mean_placements"]))
        console.print(table)
    for name, label in (("dice-games", "dice, 4 random bots"), ("tower-games", "tower, 4 random bots")):
        if name in figures:
            f = figures[name]
            if "error" in f:
                console.print(f"{label}: {f['error']}")
            else:
                console.print(f"{label}: {f['games_per_s']} games/s ({f['games']} games in {f['seconds']} s)")
