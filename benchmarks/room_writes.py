"""A room's writes outside its moves, timed through ``Storage`` (a script, not a test).

A rematch (and any new game) writes its room, its seats, each person taking a seat, the start,
and at the end its status; these go through SQLAlchemy, not the moves' fast path. The load
benchmark makes a rematch every ~36 moves, so their cost shows in its CPU per move. This plays
``--rooms`` rooms' lives in a row on a fresh SQLite file (or ``--db URL``) in batches of
``--together`` rooms at once (rooms whose games end together share the writer's commits) and
prints the event loop's CPU per room, the writer thread's included (process CPU time).

    .venv/bin/python benchmarks/room_writes.py
    PYTHONPATH=/tmp/old/src .venv/bin/python benchmarks/room_writes.py   # another tree's code
"""

from __future__ import annotations

import argparse
import asyncio
import json
import tempfile
import time
from pathlib import Path

import uvloop

from tabletris.server.storage import Storage

SEATS = [
    {"seat": 0, "kind": "open", "name": None, "strength": None, "token_hash": None},
    {"seat": 1, "kind": "open", "name": None, "strength": None, "token_hash": None},
    {"seat": 2, "kind": "bot:random", "name": "random", "strength": None, "token_hash": None},
]


async def life(storage: Storage, room: str, game: str | None) -> None:
    """One room's writes: created (the rematch of ``game``), two people seated, started, ended."""
    await storage.create_room(room, "dice", {"rules": {"width": 10}, "rematch_of": game}, SEATS, rematch_of=game)
    for seat, name in enumerate(("Ann", "Bob")):
        await storage.take_seat(room, seat, name, f"hash-{room}-{seat}")
    await storage.start_room(room, {"players": ["Ann", "Bob", "random"], "seed": 1})
    await storage.set_status(room, "over")


async def run(url: str, rooms: int, together: int) -> dict[str, float]:
    storage = Storage(url)
    await storage.open()
    try:
        games: list[str | None] = [None] * together
        await asyncio.gather(*(life(storage, f"warm-{i}", None) for i in range(together)))
        start_cpu, start = time.process_time(), time.perf_counter()
        done = 0
        while done < rooms:
            ids = [f"r{done + i}" for i in range(together)]
            await asyncio.gather(*(life(storage, room, game) for room, game in zip(ids, games, strict=True)))
            games = list(ids)
            done += together
        cpu, wall = time.process_time() - start_cpu, time.perf_counter() - start
    finally:
        await storage.close()
    return {"rooms": done, "together": together, "cpu_ms_per_room": round(1000 * cpu / done, 3),
            "wall_ms_per_room": round(1000 * wall / done, 3), "commits": storage.commits}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rooms", type=int, default=2000)
    parser.add_argument("--together", type=int, nargs="*", default=[1, 20])
    parser.add_argument("--db", default=None, help="a database URL (default: a fresh SQLite file)")
    args = parser.parse_args()
    for together in args.together:
        with tempfile.TemporaryDirectory(prefix="tabletris-room-writes-") as tmp:
            url = args.db or f"sqlite+aiosqlite:///{Path(tmp) / 'rooms.sqlite3'}"
            print(json.dumps(uvloop.run(run(url, args.rooms, together))), flush=True)


if __name__ == "__main__":
    main()
