"""How long a Play now pairing takes with 20 queued players (a benchmark, not a test).

Starts ``tabletris serve`` on 127.0.0.1 (``--setup sqlite``: one instance on a fresh SQLite file;
``pg2``: two instances on a throw-away PostgreSQL and Redis, the players posting and polling on
alternate instances), registers ``--players`` accounts, gives them spread ratings (written to the
``ratings`` table: uniform in ``--low``..``--high`` from ``--seed``), and then, per round, every
account presses Play now at once (``POST /api/queue``) and polls its ticket (``GET /api/queue``
every ``--poll`` seconds) until it is matched. Between rounds every account resigns its game.

Prints, per round and over all rounds: the time from the POST to the first GET that saw the
ticket matched (client side, p50 / p99 / max), the server's own ``waited`` at the match, the
rating gap of each table and the window each ticket had when it was matched (half-width
``50 + 10 * waited``), the tables made, and the server's CPU seconds over the rounds.

    .venv/bin/python benchmarks/playnow_queue.py                          # 20 players, 3 rounds, SQLite
    .venv/bin/python benchmarks/playnow_queue.py --setup pg2 --rounds 3
    .venv/bin/python benchmarks/playnow_queue.py --bot-after 5 --table 3
"""

from __future__ import annotations

import sys
from pathlib import Path

# This script's name shadows the standard library's ``queue`` (which asyncio's thread pool
# imports) while its folder is first on the path: take the folder off before anything imports it.
if sys.path and Path(sys.path[0] or ".").resolve() == Path(__file__).resolve().parent:
    del sys.path[0]

import argparse
import asyncio
import contextlib
import json
import os
import random
import signal
import sqlite3
import statistics
import subprocess
import tempfile
import time
from collections.abc import Iterator
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
PASSWORD = "correct horse battery"


def free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Instance:
    """One ``tabletris serve`` child process on a free local port."""

    def __init__(self, db_url: str, redis: str | None) -> None:
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        extra = ["--redis", redis] if redis else []
        self.proc = subprocess.Popen(
            [sys.executable, "-c", "from tabletris.cli.app import main; main()", "serve", "--port", str(self.port),
             "--db", db_url, "--bot-delay", "0.4", "--log-level", "warning", "--no-client-limits", *extra],
            cwd=str(ROOT), env={**os.environ, "PYTHONUNBUFFERED": "1"},
        )

    def wait_ready(self, timeout: float = 120) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                sys.exit(f"queue.py: tabletris serve exited with {self.proc.returncode}")
            with contextlib.suppress(httpx.HTTPError):
                if httpx.get(self.base + "/readyz", timeout=2).status_code == 200:
                    return
            time.sleep(0.2)
        sys.exit(f"queue.py: tabletris serve on {self.base} not ready within {timeout:g} s")

    def cpu(self) -> float:
        """The process's CPU seconds (user + system) so far."""
        fields = Path(f"/proc/{self.proc.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def stop(self) -> None:
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(15)
        except subprocess.TimeoutExpired:
            self.proc.kill()


@contextlib.contextmanager
def backing(setup: str, tmp: Path) -> Iterator[tuple[str, str | None]]:
    if setup == "sqlite":
        yield f"sqlite+aiosqlite:///{tmp / 'queue.sqlite3'}", None
        return
    import services

    with services.postgres_server() as pg, services.redis_server() as redis:
        yield services.new_database(pg), redis


def set_ratings(db_url: str, rows: list[tuple[str, str, float]]) -> None:
    """Give each account (id, username) a shown rating in the dice game (mu, sigma consistent
    with it: ``shown = 1000 + 40 * (mu - 3 * sigma)``, sigma 3)."""
    now = time.time()
    values = [(a, "dice", u, (r - 1000) / 40 + 9.0, 3.0, r, 10, now) for a, u, r in rows]
    sql = "INSERT INTO ratings (account_id, game, username, mu, sigma, shown, games, updated) VALUES "
    if db_url.startswith("sqlite"):
        with contextlib.closing(sqlite3.connect(db_url.split("///", 1)[1])) as conn:
            conn.executemany(sql + "(?, ?, ?, ?, ?, ?, ?, ?)", values)
            conn.commit()
        return
    import asyncpg

    async def write() -> None:
        conn = await asyncpg.connect(db_url.replace("postgresql+asyncpg://", "postgresql://"))
        try:
            await conn.executemany(sql + "($1, $2, $3, $4, $5, $6, $7, $8)", values)
        finally:
            await conn.close()

    asyncio.run(write())


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


async def one_round(clients: list[httpx.AsyncClient], wish: dict[str, Any], poll: float, timeout: float) -> list[dict[str, Any]]:
    start = asyncio.Event()

    async def player(c: httpx.AsyncClient) -> dict[str, Any]:
        await start.wait()
        sent = time.perf_counter()
        r = await c.post("/api/queue", json=wish)
        assert r.status_code == 201, r.text
        ticket = r.json()
        while ticket["status"] != "matched":
            if time.perf_counter() - sent > timeout:
                return {"timeout": True, **ticket}
            await asyncio.sleep(poll)
            r = await c.get("/api/queue")
            assert r.status_code == 200, r.text
            ticket = r.json()
        return {"seen": time.perf_counter() - sent, **ticket}

    tasks = [asyncio.create_task(player(c)) for c in clients]
    await asyncio.sleep(0.1)
    start.set()
    return list(await asyncio.gather(*tasks))


async def resign_all(clients: list[httpx.AsyncClient], tickets: list[dict[str, Any]]) -> None:
    for c, t in zip(clients, tickets, strict=True):
        if t.get("room"):
            await c.post(f"/api/rooms/{t['room']}/leave")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--setup", choices=["sqlite", "pg2"], default="sqlite")
    parser.add_argument("--players", type=int, default=20)
    parser.add_argument("--table", type=int, default=2, help="seats per table (2 to 4)")
    parser.add_argument("--bot-after", type=float, default=None, help="seconds; left out: never bots")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--low", type=float, default=700.0)
    parser.add_argument("--high", type=float, default=1700.0)
    parser.add_argument("--seed", type=int, default=25)
    parser.add_argument("--poll", type=float, default=0.1, help="seconds between a page's GETs")
    parser.add_argument("--timeout", type=float, default=180.0)
    args = parser.parse_args()

    tmp = Path(tempfile.mkdtemp(prefix="tabletris-queue-"))
    with backing(args.setup, tmp) as (db_url, redis):
        instances = []
        try:
            for _ in range(2 if args.setup == "pg2" else 1):
                instances.append(Instance(db_url, redis))
                instances[-1].wait_ready()
            rng = random.Random(args.seed)
            names = [f"q{i:02d}{rng.randrange(10**4)}" for i in range(args.players)]
            accounts = []
            for i, name in enumerate(names):
                base = instances[i % len(instances)].base
                r = httpx.post(base + "/api/auth/register", json={"username": name, "password": PASSWORD}, timeout=30)
                assert r.status_code == 201, r.text
                accounts.append(r.json())
            ratings = [round(rng.uniform(args.low, args.high)) for _ in names]
            set_ratings(db_url, [(a["id"], a["username"], float(r)) for a, r in zip(accounts, ratings, strict=True)])
            rating_of = {a["id"]: r for a, r in zip(accounts, ratings, strict=True)}

            async def run() -> list[list[dict[str, Any]]]:
                clients = [httpx.AsyncClient(base_url=instances[i % len(instances)].base, timeout=30) for i in range(args.players)]
                try:
                    for i, (c, name) in enumerate(zip(clients, names, strict=True)):
                        # as from 20 machines: logins are limited per address (a proxy on
                        # loopback is believed, as deploy.md's is)
                        r = await c.post("/api/auth/login", json={"username": name, "password": PASSWORD},
                                         headers={"X-Forwarded-For": f"10.25.0.{i + 1}"})
                        assert r.status_code == 204, r.text
                    rounds = []
                    wish = {"game": "dice", "preset": "standard", "players": args.table, "bot_after": args.bot_after}
                    for _ in range(args.rounds):
                        got = await one_round(clients, wish, args.poll, args.timeout)
                        rounds.append(got)
                        await resign_all(clients, got)
                    return rounds
                finally:
                    for c in clients:
                        await c.aclose()

            cpu_before = sum(i.cpu() for i in instances)
            load_before = " ".join(Path("/proc/loadavg").read_text().split()[:3])
            rounds = asyncio.run(run())
            cpu = sum(i.cpu() for i in instances) - cpu_before
            load_after = " ".join(Path("/proc/loadavg").read_text().split()[:3])
        finally:
            for instance in instances:
                instance.stop()

    ids = [a["id"] for a in accounts]
    all_seen: list[float] = []
    all_waited: list[float] = []
    for n, got in enumerate(rounds, 1):
        matched = [t for t in got if not t.get("timeout")]
        seen = [t["seen"] for t in matched]
        waited = [t["waited"] for t in matched]
        all_seen += seen
        all_waited += waited
        tables: dict[str, list[int]] = {}
        for i, t in enumerate(got):
            if t.get("room"):
                tables.setdefault(t["room"], []).append(rating_of[ids[i]])
        print(json.dumps({
            "round": n, "matched": len(matched), "unmatched": len(got) - len(matched), "tables": len(tables),
            "post_to_seen_matched_s": {"p50": round(pct(seen, 0.5), 3), "p99": round(pct(seen, 0.99), 3), "max": round(max(seen), 3)},
            "server_waited_s": {"p50": pct(waited, 0.5), "p99": pct(waited, 0.99), "max": max(waited)},
            "tables_by_gap": sorted(
                ({"ratings": sorted(r), "gap": max(r) - min(r)} for r in tables.values()), key=lambda x: x["gap"]),
            "window_half_width_at_match": sorted({(t["window"][1] - t["window"][0]) // 2 for t in matched}),
        }))
    print(json.dumps({
        "setup": args.setup, "players": args.players, "table": args.table, "bot_after": args.bot_after, "rounds": args.rounds,
        "ratings": sorted(ratings), "poll_s": args.poll,
        "post_to_seen_matched_s": {"p50": round(pct(all_seen, 0.5), 3), "p99": round(pct(all_seen, 0.99), 3),
                                   "max": round(max(all_seen), 3), "mean": round(statistics.fmean(all_seen), 3)},
        "server_waited_s": {"p50": pct(all_waited, 0.5), "p99": pct(all_waited, 0.99), "max": max(all_waited)},
        "server_cpu_s": round(cpu, 2), "load_before": load_before, "load_after": load_after,
    }))


if __name__ == "__main__":
    main()
