"""Server start-up time against the size of its history (issue 12: "startup time does not grow
with history").

Fills a fresh SQLite database with N finished dice games (copies of one real bot game: a room,
its two seats and every move, as the server stores them) and a few rooms still playing, then
times the lobby's start-up (``Lobby.open``: what ``tabletris serve`` does before it answers) and
its memory. ``--src`` serves from another tree's ``src`` folder, to measure the code before.

    .venv/bin/python benchmarks/startup.py                      # 0, 1,000 and 10,000 games
    .venv/bin/python benchmarks/startup.py --games 10000 --src /tmp/old/src
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import resource
import sqlite3
import sys
import tempfile
import time
from pathlib import Path
from typing import Any


def one_game() -> tuple[dict[str, Any], list[str]]:
    """A finished two-bot dice game: its start record (moves empty) and its moves as JSON."""
    from tabletris.engine.dice import DiceGame

    try:
        from tabletris.engine.records import record_of
    except ImportError:  # the code before issue 10 (benchmarked with --src)
        record_of = DiceGame.to_record  # type: ignore[attr-defined]

    game = DiceGame(["Ann", "Bob"], {"width": 8, "height": 12}, seed=7)
    while not game.over:
        if game.roll_face is None:
            game.roll()
            if game.over:
                break
        option = random.Random(len(game.moves)).choice(game.turn_options())
        game.play(option.placement, shape=option.shape, take=option.take)
    record = record_of(game)
    moves = [json.dumps(m, separators=(",", ":")) for m in record["moves"]]
    record["moves"] = []
    return record, moves


def fill(db: Path, games: int, playing: int) -> None:
    start, moves = one_game()
    now = time.time()
    with sqlite3.connect(db) as conn:
        rows, seat_rows, event_rows = [], [], []
        for i in range(games + playing):
            room = f"r{i:07d}"
            status = "over" if i < games else "playing"
            events = moves if i < games else moves[:3]
            config = json.dumps({"rules": {"width": 8, "height": 12}, "timer": None, "rematch_of": None})
            rows.append((room, "dice", config, json.dumps(start), status, now - games + i, now, None))
            seat_rows += [(room, 0, "human", "Ann", None, "x" * 64), (room, 1, "human", "Bob", None, "y" * 64)]
            event_rows += [(room, k, e, now) for k, e in enumerate(events)]
        conn.executemany("INSERT INTO rooms VALUES (?, ?, ?, ?, ?, ?, ?, ?)", rows)
        conn.executemany("INSERT INTO seats VALUES (?, ?, ?, ?, ?, ?)", seat_rows)
        conn.executemany("INSERT INTO events VALUES (?, ?, ?, ?)", event_rows)


async def start_up(url: str) -> tuple[float, int]:
    from tabletris.server.lobby import Lobby
    from tabletris.server.storage import Storage

    lobby = Lobby(Storage(url))
    t0 = time.perf_counter()
    await lobby.open()
    took = time.perf_counter() - t0
    in_memory = len(lobby.rooms)
    await lobby.close()
    return took, in_memory


async def create(storage_class: Any, url: str) -> None:
    """The tables, as the server makes them."""
    storage = storage_class(url)
    await storage.open()
    await storage.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, action="append", help="finished games (repeatable); default 0, 1000, 10000")
    parser.add_argument("--playing", type=int, default=10, help="rooms still playing")
    parser.add_argument("--src", type=Path, help="serve from this src folder (the code before a change)")
    args = parser.parse_args()
    if args.src:
        sys.path.insert(0, str(args.src))
    from tabletris.server.storage import Storage

    # max RSS is the process's peak: run one size per invocation to read it for that size.
    print(f"{'finished games':>14} {'playing':>7} {'start-up s':>10} {'rooms in memory':>15} {'max RSS MiB':>11}")
    for games in args.games or [0, 1000, 10000]:
        with tempfile.TemporaryDirectory() as tmp:
            db = Path(tmp) / "history.sqlite3"
            url = f"sqlite+aiosqlite:///{db}"

            asyncio.run(create(Storage, url))
            fill(db, games, args.playing)
            took, in_memory = asyncio.run(start_up(url))
            rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
            print(f"{games:>14} {args.playing:>7} {took:>10.2f} {in_memory:>15} {rss:>11.0f}")


if __name__ == "__main__":
    main()
