"""The server's bot worker processes end with the server, also when it is killed (kill -9):
they waited on their job queue, whose pipe each worker holds open itself, so they never saw
the server go and stayed, idle, for as long as the machine ran (two per crash; CI found twenty
after two runs of the test suite)."""

from __future__ import annotations

import os
import time
from pathlib import Path

import httpx

from server_helpers import ServeProcess


def stat_fields(pid: int | str) -> list[str] | None:
    """A process's /proc stat after its name (state, parent, ...); None when it is gone."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return stat[stat.rindex(")") + 2:].split()


def children_of(pid: int) -> set[int]:
    """The running processes whose parent is ``pid`` (Linux /proc)."""
    return {int(entry) for entry in os.listdir("/proc") if entry.isdigit()
            and (fields := stat_fields(entry)) is not None and int(fields[1]) == pid and fields[0] != "Z"}


def alive(pid: int) -> bool:
    fields = stat_fields(pid)
    return fields is not None and fields[0] != "Z"


def test_the_bot_workers_end_when_the_server_is_killed(tmp_path: Path) -> None:
    server = ServeProcess(tmp_path / "workers.sqlite3").start()
    assert server.proc is not None
    try:
        # a greedy bot thinks in a worker process: a game against it starts them
        room = httpx.post(server.url + "/api/rooms", json={"game": "dice", "seats": [{"kind": "greedy"}, {"kind": "greedy"}]}).json()["id"]
        deadline = time.monotonic() + 60
        while len(httpx.get(f"{server.url}/api/rooms/{room}").json()["game"]["log"]) < 2:
            assert time.monotonic() < deadline, "the bots did not move"
            time.sleep(0.05)
        workers = {p for p in children_of(server.proc.pid)
                   if "multiprocessing" in Path(f"/proc/{p}/cmdline").read_bytes().decode(errors="replace")}
        assert len(workers) >= 2, f"the server's worker processes: {workers}"
    finally:
        server.kill9()
    deadline = time.monotonic() + 20
    while any(alive(p) for p in workers):
        assert time.monotonic() < deadline, f"bot workers still running after the server was killed: {[p for p in workers if alive(p)]}"
        time.sleep(0.05)
