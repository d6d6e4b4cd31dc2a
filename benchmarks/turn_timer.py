"""What a turn's timer costs the server (issue 28): start it as a turn begins, cancel it at the move.

A room with a timer starts one as each turn begins and a move cancels it; the moment seldom
comes. Two ways, both through ``timesource`` (the clocks tests move): a task that waits in
``sleep_until`` (the turn clock before 6 December), and an ``Alarm`` (``timesource.call_at``: a
timer handle; the task starts only when the time is up). ``WAITING`` other rooms' timers wait
meanwhile, as on a busy server. Prints the CPU per turn (start and cancel, the event loop's
work in between included) and the objects the collector tracks per waiting timer, which it
walks while they wait (a turn lasts seconds: they outlive the young generation).

    .venv/bin/python benchmarks/turn_timer.py [--turns 30000] [--waiting 500] [--loop uvloop|asyncio]
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import time
from collections.abc import Callable
from typing import Any

from tabletris.server import timesource

LATER = 3600.0
"""Seconds ahead a timer is set: never reached during the run."""


def _nothing() -> None:
    pass


def _task_way(loop: asyncio.AbstractEventLoop) -> Callable[[], Callable[[], Any]]:
    def start() -> Callable[[], Any]:
        task = loop.create_task(timesource.sleep_until(timesource.now() + LATER))
        return task.cancel

    return start


def _alarm_way(loop: asyncio.AbstractEventLoop) -> Callable[[], Callable[[], Any]]:
    def start() -> Callable[[], Any]:
        return timesource.call_at(timesource.now() + LATER, _nothing).cancel

    return start


async def _run(way: str, turns: int, waiting: int) -> dict[str, Any]:
    loop = asyncio.get_running_loop()
    start = (_task_way if way == "task" else _alarm_way)(loop)
    gc.collect()
    before = len(gc.get_objects())
    others = [start() for _ in range(waiting)]
    await asyncio.sleep(0)
    gc.collect()
    per_timer = (len(gc.get_objects()) - before) / waiting
    cpu = time.process_time()
    for _ in range(turns):
        stop = start()
        await asyncio.sleep(0)  # the turn: the loop runs (a task's first step)
        stop()
        await asyncio.sleep(0)  # the move: the loop runs the cancellation
    cpu = time.process_time() - cpu
    for stop in others:
        stop()
    await asyncio.sleep(0)
    return {"way": way, "us_per_turn": round(cpu / turns * 1e6, 2), "gc_objects_per_waiting_timer": round(per_timer, 1)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=30_000)
    parser.add_argument("--waiting", type=int, default=500)
    parser.add_argument("--loop", choices=("uvloop", "asyncio"), default="uvloop")
    args = parser.parse_args()
    if args.loop == "uvloop":
        import uvloop

        run: Callable[[Any], Any] = uvloop.run
    else:
        run = asyncio.run
    for way in ("task", "alarm", "task", "alarm"):
        print(json.dumps({"loop": args.loop, "turns": args.turns, "waiting": args.waiting, **run(_run(way, args.turns, args.waiting))}))


if __name__ == "__main__":
    main()
