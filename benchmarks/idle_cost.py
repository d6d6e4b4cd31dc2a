"""Does the same work cost more CPU when the core rests between its pieces? (issue 28)

One server instance costs more CPU per move at a lower load (docs/api.md, "Seventh round":
1.29-1.40 ms a move at 250 rooms against 1.02-1.18 at 500), the engine's pure computation
too, with the same system calls per move. A server at a low load sleeps between moves; at a
high load it goes from one move to the next. This measures that alone, without a server: a
piece of a move's work (the engine rolls, lists the turn's options, plays one and renders the
public state, as ``Room.act`` does) run back to back, and the same pieces with a pause after
each: the thread sleeps (the core is left idle, or to whatever else runs), or spins in a
loop of a few instructions (the core is kept). Only the pieces' own CPU time is counted (the
thread's clock around each piece), not the pauses.

    .venv/bin/python benchmarks/idle_cost.py [--pieces 4000] [--pause-ms 0 0.2 1 5] [--rounds 3]

Prints one JSON line per pause: microseconds of CPU per piece (median of the rounds) and the
ratio to back to back. On a machine whose cores keep their caches warm through short idle
spells the ratio stays near 1.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import time
from typing import Any

from tabletris.engine.dice import DiceGame


def _pieces(seed: int) -> Any:
    """An endless run of pieces of work: a move of a random game each, with its state."""
    rng = random.Random(seed)
    while True:
        game = DiceGame(["Ann", "Bob", "Cy"], seed=rng.randrange(2**32))
        while not game.over:

            def piece(game: DiceGame = game) -> None:
                game.roll()
                if game.over:
                    return
                options = game.turn_options()
                game.act(options[rng.randrange(len(options))])
                json.dumps(game.public_state())

            yield piece


def measure(pieces: int, pause_s: float, seed: int, spin: bool = False) -> float:
    """Microseconds of thread CPU time per piece, pausing ``pause_s`` after each: asleep (the
    core left to others or idle), or with ``spin`` busy in a loop of a few instructions (the
    core kept, its caches hardly touched)."""
    work = _pieces(seed)
    spent = 0
    for _ in range(pieces):
        piece = next(work)
        start = time.thread_time_ns()
        piece()
        spent += time.thread_time_ns() - start
        if pause_s and spin:
            until = time.perf_counter() + pause_s
            while time.perf_counter() < until:
                pass
        elif pause_s:
            time.sleep(pause_s)
    return spent / pieces / 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pieces", type=int, default=4000)
    parser.add_argument("--pause-ms", type=float, nargs="+", default=[0.0, 0.2, 1.0, 5.0])
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    measure(500, 0.0, 0)  # warm up: imports, the engine's caches
    ways = [(p, spin) for p in args.pause_ms for spin in ((False, True) if p else (False,))]
    results: dict[tuple[float, bool], list[float]] = {way: [] for way in ways}
    for round_ in range(args.rounds):  # interleaved, so a slow spell of the host hits every way alike
        for pause, spin in ways:
            results[pause, spin].append(measure(args.pieces, pause / 1000, seed=round_, spin=spin))
    base = statistics.median(results[ways[0]])
    for (pause, spin), runs in results.items():
        us = statistics.median(runs)
        print(json.dumps({
            "pause_ms": pause, "pause": "spin" if spin else "sleep", "cpu_us_per_piece": round(us, 1),
            "runs": [round(r, 1) for r in runs], "ratio_to_first": round(us / base, 3),
        }))


if __name__ == "__main__":
    main()
