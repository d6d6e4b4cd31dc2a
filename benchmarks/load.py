"""Load benchmark for the game server (a script, not a test).

Starts ``tabletris serve`` as a child process on 127.0.0.1 with a fresh SQLite database, then for
each room count N: creates N dice rooms (two scripted people and one ``random`` bot each), opens
one websocket per person, and lets every person play for ``--duration`` seconds, thinking
``--think`` seconds (uniformly 50-150%) before each move. It reports accepted moves per second
(people's and bots'), the move round trip (send -> ack, which the server sends only after the
move is committed) at p50 and p99, and errors. At the end it reads the database and checks that
every acknowledged move is stored exactly once, in its place, with no gap in any room's log.

    .venv/bin/python benchmarks/load.py                 # 10, 100 and 500 rooms
    .venv/bin/python benchmarks/load.py --rooms 500 --duration 30 --think 1.0
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import os
import random
import signal
import socket
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import websockets

ROOT = Path(__file__).resolve().parent.parent


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class Stats:
    rtts: list[float] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    acked: list[tuple[str, int, int, str]] = field(default_factory=list)  # room, seq, seat, place as JSON
    rematches: int = 0


def legal_moves(state: dict[str, Any]) -> list[dict[str, Any]]:
    moves = []
    for opt in state["private"]["options"]:
        for form in opt["orientations"]:
            for x, y in form["places"]:
                move: dict[str, Any] = {"place": [[x + dx, y + dy] for dx, dy in form["cells"]], "shape": opt["shape"]}
                if opt["take"]:
                    move["take"] = opt["take"]["cells"]
                moves.append(move)
    return moves


async def person(
    ws_url: str, room: str, seat: int, token: str, think: float, until: float, stats: Stats, rng: random.Random,
    rematch: bool = True,
) -> None:
    """One scripted person: on each state that gives them the move, pick a legal move, think, send it
    and wait for its ``ack``; when the game is over, ask for the rematch and go on playing there, so
    the server keeps ``rooms`` games running however long the run.

    The move is picked as the state arrives and the state is not kept, so a thousand idle
    connections do not hold a thousand parsed states (the client's own garbage collector would
    then stall it, and the stall would be counted as server latency)."""
    while room:
        room, seat, token = await play_room(ws_url, room, seat, token, think, until, stats, rng, rematch)


async def play_room(
    ws_url: str, room: str, seat: int, token: str, think: float, until: float, stats: Stats, rng: random.Random,
    rematch: bool,
) -> tuple[str, int, str]:
    """Play in one room until the time is up (returns an empty room) or the game is over (returns
    the rematch room, seat and token, or an empty room without ``rematch``)."""
    async with websockets.connect(f"{ws_url}/ws/{room}", max_size=2**22) as ws:
        await ws.send(json.dumps({"type": "hello", "token": token}))
        next_id = 1
        over = False  # the game ended (seen in a state, perhaps while waiting for an ack)
        while time.monotonic() < until:
            if over:
                if not rematch:
                    break
                await ws.send(json.dumps({"type": "rematch", "id": "rematch"}))
                while True:
                    reply = json.loads(await asyncio.wait_for(ws.recv(), 30))
                    if reply.get("id") == "rematch":
                        break
                if reply["type"] != "rematch":
                    stats.errors.append(f"rematch: {reply.get('error')}: {reply.get('message')}")
                    break
                stats.rematches += 1
                return reply["room"], reply["seat"], reply["token"]
            try:
                text = await asyncio.wait_for(ws.recv(), max(0.05, until - time.monotonic()))
            except TimeoutError:
                break
            msg = json.loads(text)
            if msg["type"] != "state" or msg["game"] is None:
                continue
            game = msg["game"]
            over = game["over"]
            if over or game["to_move"] != seat or msg["private"] is None:
                continue
            move = {**rng.choice(legal_moves(msg)), "turn": game["turn"]}
            del msg, game
            await asyncio.sleep(think * rng.uniform(0.5, 1.5))
            if time.monotonic() >= until:
                break
            msg_id = next_id
            next_id += 1
            out = json.dumps({"type": "move", "id": msg_id, **move})
            sent = time.perf_counter()
            await ws.send(out)
            while True:
                reply = json.loads(await asyncio.wait_for(ws.recv(), 30))
                if reply.get("id") == msg_id and reply["type"] in ("ack", "error"):
                    break
                if reply["type"] == "state" and reply["game"] is not None:
                    over = reply["game"]["over"]
            if reply["type"] == "ack":
                stats.rtts.append(time.perf_counter() - sent)
                stats.acked.append((room, reply["seq"], seat, json.dumps(move["place"])))
            else:
                stats.errors.append(f"{reply['error']}: {reply['message']}")
    return "", seat, ""


async def loop_lag(lags: list[float], every: float = 0.01) -> None:
    """Record how late the client's event loop wakes up: a late wake-up delays reading acks, and
    would be counted as server latency, so the benchmark reports it."""
    while True:
        t = time.perf_counter()
        await asyncio.sleep(every)
        lags.append(time.perf_counter() - t - every)


def events_between(db: Path, start: float, end: float) -> int:
    """Moves (people's, bots' and the rolls that end games) the server stored in a time window."""
    con = sqlite3.connect(db)
    try:
        return int(con.execute("SELECT COUNT(*) FROM events WHERE created >= ? AND created < ?", (start, end)).fetchone()[0])
    finally:
        con.close()


async def run_level(
    base: str, db: Path, rooms: int, duration: float, think: float, seed: int, rematch: bool
) -> dict[str, Any]:
    rng = random.Random(seed)
    stats = Stats()
    seats: list[tuple[str, int, str]] = []
    # Drop idle connections well before uvicorn's 5 s keep-alive timeout: with httpx's default
    # (also 5 s) a request now and then went out on a connection the server was closing (ReadError).
    limits = httpx.Limits(max_connections=50, keepalive_expiry=1.0)
    async with httpx.AsyncClient(base_url=base, timeout=60, limits=limits) as http:
        sem = asyncio.Semaphore(50)

        async def make() -> None:
            async with sem:
                r = await http.post("/api/rooms", json={"game": "dice", "seats": [{"kind": "open"}, {"kind": "random"}, {"kind": "open"}]})
                room = r.json()["id"]
                for name in ("Ann", "Bob"):
                    j = (await http.post(f"/api/rooms/{room}/join", json={"name": name})).json()
                    seats.append((room, j["seat"], j["token"]))

        t0 = time.perf_counter()
        await asyncio.gather(*(make() for _ in range(rooms)))
        setup = time.perf_counter() - t0
    ws_url = base.replace("http", "ws")
    # Everything alive now lives to the end: keep the collector from walking it again and again,
    # and collect the young objects less often, so that few of them reach the old generation,
    # whose full collections would stall every connection of this client at once.
    gc.collect()
    gc.freeze()
    thresholds = gc.get_threshold()
    gc.set_threshold(10_000, 10, 100)
    lags: list[float] = []
    monitor = asyncio.create_task(loop_lag(lags))
    until = time.monotonic() + duration
    start, wall_start = time.perf_counter(), time.time()
    results = await asyncio.gather(
        *(person(ws_url, room, seat, token, think, until, stats, random.Random(rng.random()), rematch)
          for room, seat, token in seats),
        return_exceptions=True,
    )
    elapsed, wall_end = time.perf_counter() - start, time.time()
    monitor.cancel()
    gc.set_threshold(*thresholds)
    gc.unfreeze()
    lags.sort()
    for r in results:
        if isinstance(r, BaseException):
            stats.errors.append(f"client: {type(r).__name__}: {r}")
    all_moves = events_between(db, wall_start, wall_end)
    rtts = sorted(stats.rtts)
    return {
        "rooms": rooms,
        "connections": len(seats),
        "setup_s": round(setup, 2),
        "seconds": round(elapsed, 1),
        "people_moves_acked": len(rtts),
        "rematches": stats.rematches // 2,
        "all_moves_stored": all_moves,
        "moves_per_s": round(all_moves / elapsed, 1),
        "p50_ms": round(1000 * statistics.median(rtts), 1) if rtts else None,
        "p99_ms": round(1000 * rtts[min(len(rtts) - 1, int(0.99 * len(rtts)))], 1) if rtts else None,
        "max_ms": round(1000 * rtts[-1], 1) if rtts else None,
        "client_lag_p99_ms": round(1000 * lags[int(0.99 * (len(lags) - 1))], 1) if lags else None,
        "client_lag_max_ms": round(1000 * lags[-1], 1) if lags else None,
        "errors": len(stats.errors),
        "error_samples": stats.errors[:5],
        "acked": stats.acked,
    }


def loop_factory() -> Callable[[], asyncio.AbstractEventLoop] | None:
    """uvloop when it is installed (it comes with uvicorn[standard]): the client then spends less
    of the shared CPUs than the server it measures."""
    try:
        import uvloop
    except ImportError:
        return None
    return uvloop.new_event_loop


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of a process so far (Linux /proc), to report CPU per move."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError):
        return float("nan")


def check_store(db: Path, acked: list[tuple[str, int, int, str]]) -> dict[str, int]:
    """Every acknowledged move stored once at its sequence number, and no gaps in any room."""
    con = sqlite3.connect(db)
    rows = con.execute("SELECT room_id, seq, data FROM events ORDER BY room_id, seq").fetchall()
    con.close()
    stored: dict[tuple[str, int], dict[str, Any]] = {}
    gaps = 0
    last: dict[str, int] = {}
    for room, seq, data in rows:
        if seq != last.get(room, -1) + 1:
            gaps += 1
        last[room] = seq
        stored[(room, seq)] = json.loads(data)
    lost = duplicated = 0
    seen: set[tuple[str, int]] = set()
    for room, seq, seat, place in acked:
        key = (room, seq - 1)
        if key in seen:
            duplicated += 1
        seen.add(key)
        event = stored.get(key)
        if event is None or event.get("player") != seat or event.get("place") != json.loads(place):
            lost += 1
    return {"stored_events": len(rows), "lost": lost, "duplicated": duplicated, "gaps": gaps}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rooms", type=int, nargs="*", default=[10, 100, 500])
    parser.add_argument("--duration", type=float, default=20.0, help="seconds of play per level")
    parser.add_argument("--think", type=float, default=1.0, help="mean seconds a person thinks before a move")
    parser.add_argument("--bot-delay", type=float, default=0.5, help="the server's pause before a bot moves")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--no-rematch", action="store_true", help="let finished games end instead of playing the rematch")
    args = parser.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="tabletris-load-"))
    db = tmp / "load.sqlite3"
    port = free_port()
    server = subprocess.Popen(
        [sys.executable, "-c", "from tabletris.cli.app import main; main()", "serve", "--port", str(port),
         "--db", str(db), "--bot-delay", str(args.bot_delay), "--log-level", "warning",
         "--no-client-limits"],
        cwd=str(ROOT), env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    base = f"http://127.0.0.1:{port}"
    try:
        for _ in range(100):
            try:
                if httpx.get(base + "/api/meta", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                time.sleep(0.1)
        print(f"server pid {server.pid} on {base}; database {db}; think {args.think}s; bot delay {args.bot_delay}s; "
              f"{os.cpu_count()} CPUs (shared)", flush=True)
        acked_all = []
        for n in args.rooms:
            server_cpu, client_cpu = cpu_seconds(server.pid), time.process_time()
            with asyncio.Runner(loop_factory=loop_factory()) as runner:
                result = runner.run(run_level(base, db, n, args.duration, args.think, args.seed + n, not args.no_rematch))
            acked_all.extend(result.pop("acked"))
            moves = max(1, result["all_moves_stored"])
            result["server_cpu_s"] = round(cpu_seconds(server.pid) - server_cpu, 1)
            result["client_cpu_s"] = round(time.process_time() - client_cpu, 1)
            result["server_cpu_ms_per_move"] = round(1000 * result["server_cpu_s"] / moves, 2)
            print(json.dumps(result), flush=True)
        print(json.dumps({"store_check": check_store(db, acked_all)}), flush=True)
    finally:
        server.send_signal(signal.SIGTERM)
        try:
            server.wait(15)
        except subprocess.TimeoutExpired:
            server.kill()


if __name__ == "__main__":
    main()
