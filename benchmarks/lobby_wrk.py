"""The lobby list under wrk (issue 28 item 3): requests a second for ``GET /api/rooms``.

Starts ``tabletris serve`` on 127.0.0.1 with a fresh SQLite database (from this checkout, or
from ``--src`` another tree's ``src`` folder, to measure the code before a change), creates
``--rooms`` dice rooms (two open seats each: waiting rooms, as the lobby lists them), then runs
Debian's ``wrk`` (``apt-get install wrk``) at ``--connections`` connections against the full
list, a page of 5 and ``/healthz`` (the floor: what the HTTP stack itself serves), and prints
requests a second, latency, the answer's size and the server's CPU time per request (which a
busy machine disturbs less than the rate) for each. A benchmark, not a test.

``--instances 2``: two instances on a throw-away PostgreSQL and Redis (``tests/services.py``),
the rooms created on both, wrk against the second: its list holds the first one's rooms from the
entries published on the bus (the server CPU is the second instance's).

    .venv/bin/python benchmarks/lobby_wrk.py                          # 100 rooms, 50 connections
    .venv/bin/python benchmarks/lobby_wrk.py --src /tmp/old/src       # the code before
    .venv/bin/python benchmarks/lobby_wrk.py --instances 2            # PostgreSQL + Redis, two instances
"""

from __future__ import annotations

import argparse
import contextlib
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx
from serving import free_port, wait_ready

ROOT = Path(__file__).resolve().parent.parent


def wrk(url: str, connections: int, seconds: int, threads: int) -> dict[str, str]:
    out = subprocess.run(
        ["wrk", f"-t{threads}", f"-c{connections}", f"-d{seconds}s", "--latency", url],
        capture_output=True, text=True, check=True,
    ).stdout
    rate = re.search(r"Requests/sec:\s+([\d.]+)", out)
    total = re.search(r"(\d+) requests in", out)
    p50 = re.search(r"50%\s+(\S+)", out)
    p99 = re.search(r"99%\s+(\S+)", out)
    errors = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    return {
        "rate": rate.group(1) if rate else "?",
        "p50": p50.group(1) if p50 else "?",
        "p99": p99.group(1) if p99 else "?",
        "non2xx": errors.group(1) if errors else "0",
        "requests": total.group(1) if total else "0",
    }


def cpu_seconds(pid: int) -> float:
    """The process's user + system CPU time (Linux ``/proc``)."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rooms", type=int, default=100)
    parser.add_argument("--connections", type=int, default=50)
    parser.add_argument("--seconds", type=int, default=10)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--src", help="another tree's src folder (the code before a change)")
    parser.add_argument("--instances", type=int, choices=[1, 2], default=1,
                        help="2: two instances on PostgreSQL + Redis, wrk against the second")
    args = parser.parse_args()
    if shutil.which("wrk") is None:
        sys.exit("wrk is not installed: apt-get install wrk")
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    if args.src:
        env["PYTHONPATH"] = args.src
    with tempfile.TemporaryDirectory() as tmp, contextlib.ExitStack() as stack:
        extra: list[str] = []
        db = str(Path(tmp) / "lobby.sqlite3")
        if args.instances > 1:
            sys.path.insert(0, str(ROOT / "tests"))
            import services

            pg = stack.enter_context(services.postgres_server())
            extra = ["--redis", stack.enter_context(services.redis_server())]
            db = services.new_database(pg)
        procs, bases = [], []
        for _ in range(args.instances):  # one after the other: the first one creates the schema
            port = free_port()
            bases.append(f"http://127.0.0.1:{port}")
            procs.append(subprocess.Popen(
                [sys.executable, "-c", "from tabletris.cli.app import main; main()", "serve", "--host", "127.0.0.1",
                 "--port", str(port), "--db", db, "--log-level", "warning", "--no-client-limits", *extra],
                cwd=tmp, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            ))
            stack.callback(procs[-1].wait, 15)
            stack.callback(procs[-1].terminate)
            wait_ready(bases[-1], procs[-1])
        base, proc = bases[-1], procs[-1]
        for k in range(args.rooms):
            r = httpx.post(bases[k % len(bases)] + "/api/rooms", timeout=10,
                           json={"game": "dice", "seats": [{"kind": "open"}, {"kind": "open"}]})
            r.raise_for_status()
        with httpx.Client(base_url=base, timeout=10) as client:
            deadline = time.monotonic() + 30  # the other instance's rooms come over the bus
            while len(client.get("/api/rooms").json()) < args.rooms and time.monotonic() < deadline:
                time.sleep(0.1)
            listed = len(client.get("/api/rooms").json())
            sizes = {path: len(client.get(path).content) for path in ("/api/rooms", "/api/rooms?limit=5", "/healthz")}
        with open("/proc/loadavg") as f:
            print(f"load average before: {f.read().split()[:3]}; {args.rooms} rooms ({listed} listed), "
                  f"{args.instances} instance(s), {args.connections} connections, {args.seconds} s each")
        print(f"{'path':<22} {'req/s':>9} {'p50':>9} {'p99':>9} {'non-2xx':>8} {'bytes':>7} {'server CPU/request':>19}")
        for path in ("/api/rooms", "/api/rooms?limit=5", "/healthz"):
            before = cpu_seconds(proc.pid)
            got = wrk(base + path, args.connections, args.seconds, args.threads)
            per = (cpu_seconds(proc.pid) - before) / max(1, int(got["requests"]))
            print(f"{path:<22} {got['rate']:>9} {got['p50']:>9} {got['p99']:>9} {got['non2xx']:>8} {sizes[path]:>7} {per * 1e6:>15.0f} us")
        with open("/proc/loadavg") as f:
            print(f"load average after: {f.read().split()[:3]}")


if __name__ == "__main__":
    main()
