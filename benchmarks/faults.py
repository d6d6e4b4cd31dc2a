"""The fault table of issue 30, re-run: for each fault, the rooms it hit, the rooms frozen, the
acknowledged moves lost and the recovery time (from the end of the fault until every room played
on: a move stored, a game started, a turn shown).

Real services on 127.0.0.1: a PostgreSQL cluster and a redis-server of the script's own (it stops
and starts them), ``tabletris serve`` processes for the signals, a 2 MiB tmpfs in a mount
namespace for SQLite's full disk. A room counts as frozen when it has not played on 30 s after
the fault ended. "Acknowledged" is what a person was told: a move whose ``act`` (or HTTP 200)
answered; each is looked up in the stored log at its number afterwards.

    .venv/bin/python benchmarks/faults.py                       # every fault
    .venv/bin/python benchmarks/faults.py --fault pg-restart --fault redis-down
    .venv/bin/python benchmarks/faults.py --json                # one JSON line per fault

Faults:
  pg-restart    6 rooms (3 of bots, 3 of a person and a bot) while PostgreSQL stops for 5 s
  start-outage  6 rooms whose last seat is stored and then PostgreSQL stops for 5 s, before the start
  rematch-race  6 finished games; both players ask for the rematch at once on two instances
  redis-down    6 rooms over two instances; Redis stops for 10 s; seat 0 (instance A) moves meanwhile
  sigterm       SIGTERM of one of two instances under 4 rooms (a person each, playing over HTTP)
  kill-9        kill -9 of one of two instances under 4 rooms (a person each, playing over HTTP)
  sqlite-full   4 rooms of bots on SQLite on a 2 MiB tmpfs filled to the last byte, then freed
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

import httpx  # noqa: E402

from server_helpers import ServeProcess, dice_moves  # noqa: E402
from services import PostgresCluster, RedisProcess, new_database  # noqa: E402
from tabletris.server.bus import RedisBus  # noqa: E402
from tabletris.server.errors import ActionError  # noqa: E402
from tabletris.server.leases import RedisLeases  # noqa: E402
from tabletris.server.limits import Limits  # noqa: E402
from tabletris.server.lobby import Lobby  # noqa: E402
from tabletris.server.rooms import Room  # noqa: E402
from tabletris.server.storage import Storage  # noqa: E402

FROZEN_AFTER = 30.0
"""Seconds after the fault's end within which a room must play on, else it counts as frozen."""
SMALL = {"width": 4, "height": 4}

Row = dict[str, Any]


def lobby_on(url: str, redis_url: str | None = None, bot_delay: float = 0.05, lease_ttl: float = 2.0) -> Lobby:
    if redis_url is None:
        return Lobby(Storage(url), bot_delay=bot_delay, limits=Limits.unlimited_clients())
    bus = RedisBus(redis_url)
    return Lobby(Storage(url), bot_delay=bot_delay, limits=Limits.unlimited_clients(), bus=bus,
                 leases=RedisLeases(redis_url, bus.instance, ttl=lease_ttl))


async def wait_all(rooms: list[Any], played_on: Callable[[Any], bool], limit: float = FROZEN_AFTER) -> tuple[int, float]:
    """Poll until every room ``played_on``; (rooms that did not within ``limit``, seconds the last took)."""
    start = time.monotonic()
    done: dict[int, float] = {}
    while time.monotonic() - start < limit and len(done) < len(rooms):
        for i, room in enumerate(rooms):
            if i not in done and played_on(room):
                done[i] = time.monotonic() - start
        await asyncio.sleep(0.02)
    return len(rooms) - len(done), max(done.values(), default=0.0)


async def person(room: Room, seat: int, acked: list[tuple[str, int, str]], stop: asyncio.Event) -> None:
    """A person playing ``seat``: a random legal move when it is their turn; a refused move
    (``storage``, stale) is tried again a moment later, as the web client does."""
    rng = random.Random(room.id)
    while not stop.is_set() and room.status in ("waiting", "playing"):
        state = room.state(seat)
        if state["private"] and state["private"]["options"] and state["game"]["to_move"] == seat:
            try:
                seq = await room.act(seat, rng.choice(dice_moves(state)))
                acked.append((room.id, seq, room.events[seq - 1]))
            except ActionError:
                await asyncio.sleep(0.2)
        else:
            await asyncio.sleep(0.02)


async def lost_moves(storage: Storage, acked: list[tuple[str, int, str]]) -> int:
    """Acknowledged moves not in the stored log at their number."""
    lost = 0
    logs: dict[str, list[str]] = {}
    for room_id, seq, text in acked:
        if room_id not in logs:
            stored = await storage.load_room(room_id)
            logs[room_id] = stored.events if stored is not None else []
        if len(logs[room_id]) < seq or logs[room_id][seq - 1] != text:
            lost += 1
    return lost


async def memory_ahead(storage: Storage, rooms: list[Room]) -> int:
    """Events a room's memory holds (and so showed as accepted) that the database does not."""
    ahead = 0
    for room in rooms:
        memory = list(room.events)  # before the read: bots may commit more meanwhile
        stored = await storage.load_room(room.id)
        events = stored.events if stored is not None else []
        ahead += sum(1 for i, e in enumerate(memory) if i >= len(events) or events[i] != e)
    return ahead


# ---------------------------------------------------------------------- the faults


async def pg_restart(pg: PostgresCluster, outage: float = 5.0) -> Row:
    lobby = lobby_on(pg.url)
    await lobby.open()
    stop = asyncio.Event()
    acked: list[tuple[str, int, str]] = []
    try:
        rooms = [await lobby.create("dice", {}, [{"kind": "random"}, {"kind": "greedy"}]) for _ in range(3)]
        people = [await lobby.create("dice", {}, [{"kind": "open"}, {"kind": "random"}]) for _ in range(3)]
        for room in people:
            await room.join(0, "Ann")
        players = [asyncio.create_task(person(room, 0, acked, stop)) for room in people]
        rooms += people
        await wait_all(rooms, lambda r: len(r.events) >= 4)
        await asyncio.to_thread(pg.stop)
        await asyncio.sleep(outage)
        await asyncio.to_thread(pg.start)
        marks = {r.id: len(r.events) for r in rooms}
        frozen, took = await wait_all(rooms, lambda r: r.status != "playing" or len(r.events) > marks[r.id] + 1)
        stop.set()
        await asyncio.gather(*players)
        lost = await lost_moves(lobby.storage, acked) + await memory_ahead(lobby.storage, rooms)
        return {"fault": "pg-restart", "what": f"PostgreSQL stopped {outage:g} s", "rooms": len(rooms),
                "frozen": frozen, "lost": lost, "acknowledged": len(acked), "recovery_s": round(took, 2)}
    finally:
        stop.set()
        await lobby.close()


async def start_outage(pg: PostgresCluster, outage: float = 5.0) -> Row:
    lobby = lobby_on(pg.url)
    await lobby.open()
    try:
        rooms = [await lobby.create("dice", {}, [{"kind": "open"}, {"kind": "random"}]) for _ in range(6)]
        start_room = lobby.storage.start_room
        stopped = asyncio.Event()

        async def stop_first(room_id: str, start: dict[str, Any]) -> float:
            if not stopped.is_set():
                stopped.set()
                await asyncio.to_thread(pg.stop)
            return await start_room(room_id, start)

        lobby.storage.start_room = stop_first  # type: ignore[method-assign]
        joined = 0
        for room in rooms:
            try:
                await room.join(0, "Ann")
                joined += 1
            except ActionError as e:
                assert e.code == "storage", e.code
        refused = len(rooms) - joined
        lobby.storage.start_room = start_room  # type: ignore[method-assign]
        await asyncio.sleep(outage)
        await asyncio.to_thread(pg.start)
        back = time.monotonic()
        for room in rooms:  # the players whose join was refused (storage) join again
            while not room.full():
                try:
                    await room.join(0, "Ann")
                except ActionError:
                    await asyncio.sleep(0.2)
        frozen, _ = await wait_all(rooms, lambda r: r.status == "playing")
        took = time.monotonic() - back
        return {"fault": "start-outage", "what": f"PostgreSQL stopped {outage:g} s as the last seat was taken",
                "rooms": len(rooms), "frozen": frozen, "lost": await memory_ahead(lobby.storage, rooms),
                "refused_joins": refused, "recovery_s": round(took, 2)}
    finally:
        await lobby.close()


async def rematch_race(db: str, redis_url: str, games: int = 6) -> Row:
    a, b = lobby_on(db, redis_url, bot_delay=0), lobby_on(db, redis_url, bot_delay=0)
    await a.open()
    await b.open()
    made: list[int] = []
    rematches: list[tuple[Room, Room]] = []
    took = 0.0
    try:
        for _ in range(games):
            room = await a.create("dice", SMALL, [{"kind": "open"}, {"kind": "open"}])
            tokens = [(await room.join(i, f"P{i}"))[1] for i in range(2)]
            while room.status == "playing":
                assert room.table is not None
                seat = room.table.to_act()[0]
                await room.act(seat, dice_moves(room.state(seat))[0])
            copy = await b.find(room.id)
            await wait_all([copy], lambda r: r.status == "over", 10)
            asked = time.monotonic()
            (ra, _, _), (rb, _, _) = await asyncio.gather(a.rematch(room, 0, tokens[0]), b.rematch(copy, 1, tokens[1]))
            async with a.storage.engine.connect() as conn:
                from sqlalchemy import text

                found = (await conn.execute(
                    text("SELECT count(*) FROM rooms WHERE config::jsonb ->> 'rematch_of' = :old"), {"old": room.id}
                )).scalar()
            made.append(int(found or 0))
            rematches.append((ra, rb))
            took = max(took, time.monotonic() - asked)
        frozen, _ = await wait_all(rematches, lambda p: p[0].id == p[1].id and p[0].status == "playing" and p[1].status == "playing", 10)
        return {"fault": "rematch-race", "what": "both players ask for the rematch at once on two instances",
                "rooms": games, "frozen": frozen, "lost": 0, "rematch_rooms_made": sum(made), "recovery_s": round(took, 2)}
    finally:
        await a.close()
        await b.close()


async def redis_down(db: str, redis: RedisProcess, outage: float = 10.0) -> Row:
    a = lobby_on(db, redis.url, bot_delay=0, lease_ttl=60.0)
    b = lobby_on(db, redis.url, bot_delay=0, lease_ttl=60.0)
    await a.open()
    await b.open()
    pairs: list[tuple[Room, Room]] = []
    acked: list[tuple[str, int, str]] = []
    try:
        for _ in range(6):
            room = await a.create("dice", {}, [{"kind": "open"}, {"kind": "open"}])
            await room.join(0, "Ann")
            copy = await b.find(room.id)
            await copy.join(1, "Bob")
            await wait_all([(room, copy)], lambda p: p[0].status == "playing" and len(p[0].events) == len(p[1].events), 10)
            if room.table is not None and 1 in room.table.to_act():
                seq = await copy.act(1, dice_moves(copy.state(1))[0])
                acked.append((room.id, seq, copy.events[seq - 1]))
                await wait_all([(room, copy)], lambda p: len(p[0].events) == len(p[1].events), 10)
            pairs.append((room, copy))
        redis.stop()
        outage_start = time.monotonic()
        for room, _ in pairs:  # seat 0 moves on A while Redis is down: stored, acknowledged
            seq = await room.act(0, dice_moves(room.state(0))[0])
            acked.append((room.id, seq, room.events[seq - 1]))
        await asyncio.sleep(max(0.0, outage - (time.monotonic() - outage_start)))
        redis.start()
        frozen, took = await wait_all(
            pairs, lambda p: len(p[1].events) == len(p[0].events) and p[1].table is not None and p[1].table.to_act() == [1]
        )
        lost = await lost_moves(a.storage, acked)
        return {"fault": "redis-down", "what": f"Redis stopped {outage:g} s under two instances", "rooms": len(pairs),
                "frozen": frozen, "lost": lost, "acknowledged": len(acked), "recovery_s": round(took, 2)}
    finally:
        await a.close()
        await b.close()


def signal_fault(db: str, redis_url: str, how: str, rooms_n: int = 4) -> Row:
    """Two ``tabletris serve`` instances; a person per room plays over HTTP on the first; it gets
    SIGTERM or SIGKILL; the person goes on on the second (as the proxy would send them)."""
    extra = ["--redis", redis_url, "--lease-ttl", "2", "--bot-delay", "0.1"]
    first = ServeProcess(db, extra=extra).start()  # type: ignore[arg-type,unused-ignore]  # a database URL
    second = ServeProcess(db, extra=extra).start()  # type: ignore[arg-type,unused-ignore]  # a database URL
    acked: list[tuple[str, int]] = []
    stop = threading.Event()
    target = {"url": first.url}
    rooms: list[tuple[str, str]] = []
    try:
        for _ in range(rooms_n):
            r = httpx.post(first.url + "/api/rooms", json={"game": "dice", "seats": [{"kind": "open"}, {"kind": "random"}]}, timeout=10).json()
            token = httpx.post(f"{first.url}/api/rooms/{r['id']}/join", json={"name": "Ann"}, timeout=10).json()["token"]
            rooms.append((r["id"], token))

        def play(room_id: str, token: str) -> None:
            rng = random.Random(room_id)
            while not stop.is_set():
                try:
                    state = httpx.get(f"{target['url']}/api/rooms/{room_id}", headers={"X-Seat-Token": token}, timeout=5).json()
                    if state.get("room", {}).get("status") != "playing":
                        if state.get("room", {}).get("status") in ("over", "stopped"):
                            return
                        time.sleep(0.05)
                        continue
                    if state["private"] and state["private"]["options"] and state["game"]["to_move"] == 0:
                        r = httpx.post(f"{target['url']}/api/rooms/{room_id}/moves", json=rng.choice(dice_moves(state)),
                                       headers={"X-Seat-Token": token}, timeout=5)
                        if r.status_code == 200:
                            acked.append((room_id, int(r.json()["seq"])))
                    else:
                        time.sleep(0.05)
                except (httpx.HTTPError, KeyError, ValueError):
                    time.sleep(0.1)

        threads = [threading.Thread(target=play, args=room, daemon=True) for room in rooms]
        for t in threads:
            t.start()
        deadline = time.monotonic() + 30
        while len(acked) < 3 * rooms_n and time.monotonic() < deadline:
            time.sleep(0.05)

        def counts() -> dict[str, int]:
            out = {}
            for room_id, _ in rooms:
                try:
                    out[room_id] = int(httpx.get(f"{second.url}/api/rooms/{room_id}", timeout=5).json()["room"]["events"])
                except (httpx.HTTPError, KeyError, ValueError):
                    out[room_id] = -1
            return out

        if how == "kill-9":
            first.kill9()
        else:
            assert first.proc is not None
            first.proc.terminate()
            first.proc.wait(30)
        ended = time.monotonic()
        target["url"] = second.url
        marks = counts()
        done: dict[str, float] = {}
        while time.monotonic() - ended < FROZEN_AFTER and len(done) < len(rooms):
            now = counts()
            for room_id, n in now.items():
                if room_id not in done and n > marks[room_id] + 1:
                    done[room_id] = time.monotonic() - ended
            time.sleep(0.1)
        stop.set()
        for t in threads:
            t.join(10)
        import asyncpg

        async def stored() -> dict[str, set[int]]:
            conn = await asyncpg.connect(db.replace("postgresql+asyncpg://", "postgresql://"))
            try:
                out: dict[str, set[int]] = {}
                for room_id, _ in rooms:
                    rows = await conn.fetch("SELECT seq FROM events WHERE room_id = $1", room_id)
                    out[room_id] = {int(r["seq"]) for r in rows}
                return out
            finally:
                await conn.close()

        have = asyncio.run(stored())
        lost = sum(1 for room_id, seq in acked if seq - 1 not in have[room_id])
        return {"fault": how, "what": f"{'SIGKILL' if how == 'kill-9' else 'SIGTERM'} of one of two instances",
                "rooms": len(rooms), "frozen": len(rooms) - len(done), "lost": lost, "acknowledged": len(acked),
                "recovery_s": round(max(done.values(), default=0.0), 2)}
    finally:
        stop.set()
        first.stop()
        second.stop()


def sqlite_full() -> Row:
    from test_server_faults import CHILD, namespaced

    folder = Path(tempfile.mkdtemp(prefix="tabletris-full-")) / "small"
    folder.mkdir()
    prefix = namespaced(folder)
    if prefix is None:
        return {"fault": "sqlite-full", "what": "skipped: no mount namespace for a tmpfs here"}
    done = subprocess.run([*prefix, sys.executable, "-c", CHILD, str(folder), str(ROOT / "tests")],
                          capture_output=True, text=True, timeout=180)
    lines = [line for line in done.stdout.splitlines() if line.startswith("RESULT ")]
    if not lines:
        return {"fault": "sqlite-full", "what": "failed: " + done.stderr[-500:]}
    r = json.loads(lines[-1][len("RESULT "):])
    return {"fault": "sqlite-full", "what": "SQLite on a 2 MiB tmpfs filled, then freed", "rooms": r["rooms"],
            "frozen": 0, "lost": r["lost"], "recovery_s": r["recovery_s"], "ready_while_full": r["ready_while_full"],
            "largest_wal": r["largest_wal"], "log_lines": r["log_lines"], "failed_writes": r["failed_writes"]}


FAULTS = ["pg-restart", "start-outage", "rematch-race", "redis-down", "sigterm", "kill-9", "sqlite-full"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--fault", action="append", choices=FAULTS, help="the faults to run (default: all)")
    parser.add_argument("--json", action="store_true", help="one JSON line per fault")
    args = parser.parse_args()
    chosen = args.fault or FAULTS
    rows: list[Row] = []
    pg = PostgresCluster()
    pg.start()
    redis = RedisProcess()
    redis.start()
    try:
        for fault in chosen:
            try:
                row = run_fault(fault, pg, redis)
            except Exception as e:  # one fault's harness failing (a server that did not start) ends only its row
                row = {"fault": fault, "what": f"the run failed: {type(e).__name__}: {str(e)[:200]}"}
            rows.append(row)
            if args.json:
                print(json.dumps(row), flush=True)
            else:
                extra = {k: v for k, v in row.items() if k not in ("fault", "what", "rooms", "frozen", "lost", "recovery_s")}
                print(f"{row['fault']:13} {row.get('what', ''):58} rooms {row.get('rooms', '-'):>2}  frozen "
                      f"{row.get('frozen', '-')}  lost {row.get('lost', '-')}  recovery {row.get('recovery_s', '-')} s  {extra}",
                      flush=True)
    finally:
        redis.stop()
        pg.remove()
    with open("/proc/loadavg") as f:
        print("load:", f.read().strip())


def run_fault(fault: str, pg: PostgresCluster, redis: RedisProcess) -> Row:
    """One row of the table."""
    if fault == "pg-restart":
        return asyncio.run(pg_restart(pg))
    if fault == "start-outage":
        return asyncio.run(start_outage(pg))
    if fault == "rematch-race":
        return asyncio.run(rematch_race(new_database(pg.url), redis.url))
    if fault == "redis-down":
        return asyncio.run(redis_down(new_database(pg.url), redis))
    if fault in ("sigterm", "kill-9"):
        return signal_fault(new_database(pg.url), redis.url, fault)
    return sqlite_full()


if __name__ == "__main__":
    main()
