"""Faults that froze games (issue 30, items 1-6): real PostgreSQL and Redis on loopback, stopped
and started under the server's lobbies, and a real full disk (a 2 MiB tmpfs) under SQLite.

Each test injects the fault, then asserts that every room plays on within a stated time and
that nothing acknowledged is lost or doubled (the stored log is the memory's, and it replays).
Every wait is a poll with a deadline, never a fixed sleep."""

from __future__ import annotations

import asyncio
import json
import logging
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import event

from server_helpers import dice_moves
from services import PostgresCluster, RedisProcess, new_database
from tabletris.server.bus import RedisBus
from tabletris.server.errors import ActionError
from tabletris.server.leases import RedisLeases
from tabletris.server.limits import Limits
from tabletris.server.lobby import Lobby
from tabletris.server.ops import DatabaseCheck, NotReady
from tabletris.server.rooms import Room
from tabletris.server.storage import JOURNAL_SIZE_LIMIT, WAL_AUTOCHECKPOINT_PAGES, Storage

RECOVERY = 20.0
"""Seconds within which every room must play on once the fault is over (measured: well under 5)."""
SMALL = {"width": 4, "height": 4}


@pytest.fixture
def pg() -> Iterator[PostgresCluster]:
    """A PostgreSQL cluster of this test's own, which it may stop and start."""
    cluster = PostgresCluster()
    cluster.start()
    try:
        yield cluster
    finally:
        cluster.remove()


def in_status(status: str, *rooms: Any) -> Callable[[], bool]:
    """A check for ``until``: every one of ``rooms`` is in ``status`` (bound now, not at the call)."""
    return lambda: all(room.status == status for room in rooms)


async def until(check: Callable[[], Any], timeout: float, what: str) -> float:
    """Poll ``check`` until true; the seconds it took (fails after ``timeout``)."""
    start = time.monotonic()
    while not check():
        assert time.monotonic() - start < timeout, f"timed out after {timeout:g} s: {what}"
        await asyncio.sleep(0.02)
    return time.monotonic() - start


def one_lobby(url: str, bot_delay: float = 0.0) -> Lobby:
    return Lobby(Storage(url), bot_delay=bot_delay, limits=Limits.unlimited_clients())


def count_failed_appends(storage: Storage) -> list[BaseException]:
    """The failures of ``storage.append`` from now on (moves that could not be stored)."""
    failures: list[BaseException] = []
    append = storage.append

    async def counted(*args: Any, **kwargs: Any) -> float | None:
        try:
            return await append(*args, **kwargs)
        except Exception as e:
            failures.append(e)
            raise

    storage.append = counted  # type: ignore[method-assign]
    return failures


async def same_as_stored(lobby: Lobby, room: Room) -> None:
    """Nothing acknowledged lost or doubled: the stored log is the room's (the memory never runs
    ahead of the database), numbered without a gap, and it replays through the engine."""
    memory = list(room.events)  # before the read: the bots may commit more meanwhile
    stored = await lobby.storage.load_room(room.id)
    assert stored is not None
    assert stored.events[: len(memory)] == memory, f"room {room.id}: an acknowledged move is not stored"
    if stored.start is not None:
        room.adapter.rebuild(stored.start, [json.loads(e) for e in stored.events])


async def play_out(room: Room, seat: int) -> None:
    """Play ``seat``'s moves (the first legal one) until the game is over (the others are bots)."""
    deadline = time.monotonic() + 60
    while room.status == "playing":
        assert time.monotonic() < deadline, "the game did not end"
        state = room.state(seat)
        if state["private"] and state["private"]["options"] and state["game"]["to_move"] == seat:
            await room.act(seat, dice_moves(state)[0])
        else:
            await asyncio.sleep(0.01)


# ---------------------------------------------------------------------- 1. bot turns retried


@pytest.mark.asyncio
async def test_bot_rooms_play_on_after_postgresql_stops_and_starts(
    pg: PostgresCluster, caplog: pytest.LogCaptureFixture
) -> None:
    """PostgreSQL stopped under six rooms of bots: a bot's move that failed to commit was given
    up, and bot turns have no deadline, so rooms sat on a bot's turn until a restart. Now the move
    is tried again with backoff: every room plays on once the database is back, and the outage
    logs one line per 10 s, no traceback per failed store."""
    caplog.set_level(logging.INFO, logger="tabletris.server")
    lobby = one_lobby(pg.url, bot_delay=0.05)
    await lobby.open()
    try:
        rooms = [await lobby.create("dice", {}, [{"kind": "random"}, {"kind": "greedy"}]) for _ in range(6)]
        await until(lambda: all(len(r.events) >= 4 for r in rooms), 30, "the rooms play")
        caplog.clear()
        failures = count_failed_appends(lobby.storage)
        await asyncio.to_thread(pg.stop)
        await until(lambda: len(failures) >= 12, 20, "the bots' moves fail to commit")
        playing = [r for r in rooms if r.status == "playing"]
        assert len(playing) >= 4, "the rooms were still playing when the database stopped"
        await asyncio.to_thread(pg.start)
        marks = {r.id: len(r.events) for r in playing}
        took = await until(
            lambda: all(r.status != "playing" or len(r.events) > marks[r.id] + 1 for r in playing), RECOVERY,
            "every room plays on after the database came back",
        )
        assert took < RECOVERY
        server_lines = [r for r in caplog.records if r.name == "tabletris.server"]
        assert not [r for r in server_lines if r.exc_info], "no traceback per failed store"
        failed = [r for r in server_lines if "a write failed" in r.getMessage()]
        assert 1 <= len(failed) <= 3, [r.getMessage() for r in failed]
        assert "[unavailable]" in failed[0].getMessage()
        for room in rooms:
            await same_as_stored(lobby, room)
    finally:
        await lobby.close()


# ---------------------------------------------------------------------- 2. a start that failed


@pytest.mark.asyncio
async def test_a_game_whose_start_failed_starts_when_the_database_is_back(pg: PostgresCluster) -> None:
    """The last seat was stored, then the database stopped before the start: the seats stay
    taken, the join stands (its token holds the seat), and the clock starts the game once the
    database answers; meanwhile a join, a new room or a rematch is told ``storage``."""
    lobby = one_lobby(pg.url)
    await lobby.open()
    try:
        room = await lobby.create("dice", SMALL, [{"kind": "open"}, {"kind": "random"}])
        storage = lobby.storage
        start_room = storage.start_room

        async def start_in_an_outage(room_id: str, start: dict[str, Any], clocks: str | None = None, now: float | None = None) -> float:
            storage.start_room = start_room  # type: ignore[method-assign]
            await asyncio.to_thread(pg.stop)
            return await start_room(room_id, start, clocks, now)

        storage.start_room = start_in_an_outage  # type: ignore[method-assign]
        seat, token = await room.join(None, "Ann")
        assert room.status == "waiting" and room.authenticate(token) == seat, "the join stands"

        with pytest.raises(ActionError) as refused:
            await lobby.create("dice", SMALL, [{"kind": "open"}, {"kind": "open"}])
        assert refused.value.code == "storage", refused.value.message

        await asyncio.to_thread(pg.start)
        took = await until(lambda: room.status == "playing", RECOVERY, "the game starts once the database is back")
        assert took < RECOVERY
        stored = await storage.load_room(room.id)
        assert stored is not None and stored.status == "playing"
        assert stored.seats[seat]["kind"] == "human" and stored.seats[seat]["name"] == "Ann"
        await play_out(room, seat)
        await same_as_stored(lobby, room)

        # A finished game's rematch in an outage is told ``storage`` too, and works after it.
        assert room.status == "over"
        await asyncio.to_thread(pg.stop)
        with pytest.raises(ActionError) as refused:
            await lobby.rematch(room, seat, token)
        assert refused.value.code == "storage"
        await asyncio.to_thread(pg.start)
        new_room, new_seat, _ = await lobby.rematch(room, seat, token)
        assert new_room.status == "playing" and new_seat == seat
    finally:
        await lobby.close()


@pytest.mark.asyncio
async def test_a_full_room_left_waiting_by_a_failed_start_is_started_after_a_restart(pg: PostgresCluster) -> None:
    """The server stopped while the start could not be stored (the database down): the room is
    stored full but waiting; the next server to open it starts it (it stayed ``waiting`` after
    two restarts)."""
    first = one_lobby(pg.url)
    await first.open()
    room = await first.create("dice", SMALL, [{"kind": "open"}, {"kind": "random"}])
    start_room = first.storage.start_room

    async def start_in_an_outage(room_id: str, start: dict[str, Any], clocks: str | None = None, now: float | None = None) -> float:
        first.storage.start_room = start_room  # type: ignore[method-assign]
        await asyncio.to_thread(pg.stop)
        return await start_room(room_id, start, clocks, now)

    first.storage.start_room = start_in_an_outage  # type: ignore[method-assign]
    seat, token = await room.join(None, "Ann")
    await first.close()
    await asyncio.to_thread(pg.start)

    second = one_lobby(pg.url)
    await second.open()
    try:
        again = second.get(room.id)
        await until(lambda: again.status == "playing", RECOVERY, "the restarted server starts the full room")
        assert again.authenticate(token) == seat
        await play_out(again, seat)
        await same_as_stored(second, again)
    finally:
        await second.close()


# ---------------------------------------------------------------------- 3. the rematch race


def test_both_players_asking_for_the_rematch_on_different_instances_get_one_room(
    postgres_cluster: str, redis_url: str
) -> None:
    """Both players of a finished game ask for the rematch at once, each on their own instance:
    one rematch room is stored (the old room's ``rematch`` is claimed in the same transaction
    that stores it), both players are seated in it and it starts. Two rooms were made, each
    with one player and one reserved seat, both waiting forever."""
    db = new_database(postgres_cluster)

    def instance() -> Lobby:
        bus = RedisBus(redis_url)
        return Lobby(Storage(db), bot_delay=0, limits=Limits.unlimited_clients(), bus=bus,
                     leases=RedisLeases(redis_url, bus.instance, ttl=5.0))

    async def scenario() -> None:
        a, b = instance(), instance()
        await a.open()
        await b.open()
        try:
            for _ in range(4):
                room = await a.create("dice", SMALL, [{"kind": "open"}, {"kind": "open"}])
                tokens = [(await room.join(i, f"P{i}"))[1] for i in range(2)]
                while room.status == "playing":
                    assert room.table is not None
                    seat = room.table.to_act()[0]
                    await room.act(seat, dice_moves(room.state(seat))[0])
                copy = await b.find(room.id)
                await until(in_status("over", copy), 10, "the other instance sees the game over")
                (ra, sa, _), (rb, sb, _) = await asyncio.gather(
                    a.rematch(room, 0, tokens[0]), b.rematch(copy, 1, tokens[1])
                )
                assert ra.id == rb.id, "one rematch room"
                assert (sa, sb) == (0, 1)
                async with a.storage.engine.connect() as conn:
                    from sqlalchemy import text

                    made = (await conn.execute(
                        text("SELECT id FROM rooms WHERE config::jsonb ->> 'rematch_of' = :old"), {"old": room.id}
                    )).scalars().all()
                assert list(made) == [ra.id], "one rematch room stored"
                await until(in_status("playing", ra, rb), 10, "the rematch starts")
        finally:
            await a.close()
            await b.close()

    asyncio.run(scenario())


# ---------------------------------------------------------------------- 4. Redis down


@pytest.fixture
def redis_proc() -> Iterator[RedisProcess]:
    server = RedisProcess()
    server.start()
    try:
        yield server
    finally:
        server.stop()


def test_a_move_made_while_redis_is_down_reaches_the_other_instance_when_it_is_back(
    postgres_cluster: str, redis_proc: RedisProcess, caplog: pytest.LogCaptureFixture
) -> None:
    """Seat 0 plays on instance A, seat 1 on B. Redis stops; A's player moves (stored, so
    acknowledged), Redis starts again: B's copy gets the move and shows seat 1 its turn. The
    failed publish was only logged, and seat 1 never saw their turn (the room waited for the
    turn timer). The lease (60 s) is not renewed in the test's time, so no takeover reads the
    room back by chance."""
    db = new_database(postgres_cluster)

    def instance() -> Lobby:
        bus = RedisBus(redis_proc.url)
        return Lobby(Storage(db), bot_delay=0, limits=Limits.unlimited_clients(), bus=bus,
                     leases=RedisLeases(redis_proc.url, bus.instance, ttl=60.0))

    async def scenario() -> None:
        a, b = instance(), instance()
        await a.open()
        await b.open()
        try:
            room = await a.create("dice", {}, [{"kind": "open"}, {"kind": "open"}])
            await room.join(0, "Ann")
            copy = await b.find(room.id)
            await copy.join(1, "Bob")
            await until(lambda: room.status == "playing" and len(room.events) == len(copy.events), 10, "A sees the start")
            # Seat 0 moves first on A (if seat 1 is to move, it moves on B once, Redis up).
            if room.table is not None and 1 in room.table.to_act():
                await copy.act(1, dice_moves(copy.state(1))[0])
                await until(lambda: len(room.events) == len(copy.events), 10, "A follows B")
            assert room.table is not None and room.table.to_act() == [0]
            bus = a.bus
            assert isinstance(bus, RedisBus)
            redis_proc.stop()
            await room.act(0, dice_moves(room.state(0))[0])
            assert room.table.to_act() == [1]
            # the bus's own account (a publish goes out alone or in a pipeline with the lobby's)
            await until(lambda: "publish" in bus.faults.failing, 10, "the publish failed")
            redis_proc.start()
            took = await until(
                lambda: len(copy.events) == len(room.events) and copy.table is not None and copy.table.to_act() == [1],
                RECOVERY, "B shows seat 1 its turn",
            )
            assert took < RECOVERY
            state = copy.state(1)
            assert state["private"] and state["private"]["options"], "seat 1 is shown its turn"
            await copy.act(1, dice_moves(state)[0])
            await until(lambda: len(room.events) == len(copy.events), RECOVERY, "A follows B again")
            # Each instance counted the other among a room's listeners only once it was
            # subscribed again (its hello): no move after the outage goes unpublished.
            for _ in range(4):
                if room.table.over:
                    break
                mover, other = (room, copy) if room.table.to_act() == [0] else (copy, room)
                await mover.act(1 - (mover is room), dice_moves(mover.state(1 - (mover is room)))[0])

                def followed(o: Room = other, m: Room = mover) -> bool:
                    return len(o.events) == len(m.events)

                await until(followed, RECOVERY, "each move reaches the other")
            await same_as_stored(a, room)
        finally:
            await a.close()
            await b.close()

    caplog.set_level(logging.INFO, logger="tabletris.server")
    asyncio.run(scenario())
    lines = [r for r in caplog.records if r.name == "tabletris.server"]
    assert not [r for r in lines if r.exc_info], "the outage logs no tracebacks"
    assert len([r for r in lines if r.levelno >= logging.WARNING]) <= 12, [r.getMessage() for r in lines]


# ---------------------------------------------------------------------- 5. readiness


@pytest.mark.asyncio
async def test_readiness_fails_while_writes_fail_and_recovers(pg: PostgresCluster) -> None:
    """``SELECT 1`` answers while every write fails (a full disk on PostgreSQL is the same to
    the probe): the database check also fails while the last write failed and nothing was stored
    since, naming it ``storage_failing``; it is ready again once a write is stored."""
    lobby = one_lobby(pg.url)
    await lobby.open()
    check = DatabaseCheck(lobby.storage)
    try:
        room = await lobby.create("dice", {}, [{"kind": "open"}, {"kind": "open"}])
        await check()
        await asyncio.to_thread(pg.stop)
        with pytest.raises(ActionError) as refused:
            await room.join(0, "Ann")
        assert refused.value.code == "storage"
        await asyncio.to_thread(pg.start)
        with pytest.raises(NotReady) as not_ready:
            await check()  # SELECT 1 works again, but no write has been stored since the failure
        assert not_ready.value.reason == "storage_failing"
        await room.join(0, "Ann")
        await check()
    finally:
        await lobby.close()


@pytest.mark.asyncio
async def test_readiness_takes_a_fresh_stored_write_for_its_select(pg: PostgresCluster) -> None:
    """A write stored within ``fresh`` seconds answers for the database: the check sends no
    ``SELECT 1`` then (a proxy probing every half second cost each instance 0.8 ms of CPU for
    it, while moves were stored every few milliseconds). Without a fresh write it asks, and a
    stopped database fails it; a write that failed fails it however fresh the last stored one."""
    lobby = one_lobby(pg.url)
    await lobby.open()
    selects: list[str] = []

    def seen(_conn: Any, _cursor: Any, statement: str, *_args: Any) -> None:
        if statement.strip().upper() == "SELECT 1":
            selects.append(statement)

    event.listen(lobby.storage.engine.sync_engine, "before_cursor_execute", seen)
    fresh, stale = DatabaseCheck(lobby.storage, fresh=60.0), DatabaseCheck(lobby.storage, fresh=0.0)
    stopped = False
    try:
        room = await lobby.create("dice", {}, [{"kind": "open"}, {"kind": "open"}])
        await fresh()
        assert selects == []
        await stale()
        assert len(selects) == 1
        await asyncio.to_thread(pg.stop)
        stopped = True
        with pytest.raises(Exception) as down:
            await stale()
        assert not isinstance(down.value, NotReady)  # the driver's own error: the database is away
        with pytest.raises(ActionError):
            await room.join(0, "Ann")
        with pytest.raises(NotReady) as failing:
            await fresh()
        assert failing.value.reason == "storage_failing"
        assert len(selects) == 1
    finally:
        event.remove(lobby.storage.engine.sync_engine, "before_cursor_execute", seen)
        if stopped:
            await asyncio.to_thread(pg.start)
        await lobby.close()


# ---------------------------------------------------------------------- 6. SQLite on a small disk


@pytest.mark.asyncio
async def test_the_sqlite_wal_is_checkpointed_and_kept_small(tmp_path: Path) -> None:
    """4 MiB of events through the storage: the write-ahead log never grows past about its
    checkpoint size plus one batch (SQLite's default let it reach 4 MiB before a checkpoint, and
    kept the file that large after: it filled a 2 MiB volume alone)."""
    path = tmp_path / "small.sqlite3"
    storage = Storage(f"sqlite+aiosqlite:///{path}")
    await storage.open()
    try:
        await storage.create_room("r", "dice", {"rules": {}}, [{"seat": 0, "kind": "open"}])
        wal = Path(f"{path}-wal")
        largest = 0
        chunk = "x" * 4000
        for i in range(1000):
            await storage.append("r", i, [json.dumps({"n": i, "pad": chunk})])
            largest = max(largest, wal.stat().st_size if wal.exists() else 0)
        limit = WAL_AUTOCHECKPOINT_PAGES * 4096 + 64 * 1024
        assert largest <= max(limit, JOURNAL_SIZE_LIMIT + 64 * 1024), f"the WAL grew to {largest} bytes"
        assert await storage.checkpoint()
        assert wal.stat().st_size == 0, "a truncating checkpoint gives the WAL's space back"
    finally:
        await storage.close()


CHILD = r'''
import asyncio, json, logging, os, sys, time
sys.path.insert(0, sys.argv[2])
from test_server_faults import full_disk_scenario
print("RESULT " + json.dumps(asyncio.run(full_disk_scenario(sys.argv[1]))), flush=True)
'''


def namespaced(folder: Path) -> list[str] | None:
    """The command prefix that runs a child with a 2 MiB tmpfs at ``folder`` in a mount namespace
    of its own (a user namespace where we are not root); None where the kernel does not allow it."""
    unshare = shutil.which("unshare")
    if unshare is None:
        return None
    user = [] if os.geteuid() == 0 else ["-Ur"]
    probe = subprocess.run([unshare, *user, "-m", "--propagation", "private", "sh", "-c",
                            f"mount -t tmpfs -o size=2m tmpfs {folder} && test -w {folder}"], capture_output=True)
    if probe.returncode != 0:
        return None
    return [unshare, *user, "-m", "--propagation", "private", "sh", "-c",
            f'mount -t tmpfs -o size=2m tmpfs {folder} && exec "$0" "$@"']


async def full_disk_scenario(folder: str) -> dict[str, Any]:
    """Run in a child on a 2 MiB tmpfs: rooms of bots on SQLite fill the disk (with a filler
    file); the readiness check must say ``storage_full``, the failures log a line per 10 s, and
    once the filler is removed every room plays on; nothing acknowledged is lost."""
    records: list[logging.LogRecord] = []

    class Keep(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            records.append(record)

    logging.getLogger("tabletris.server").addHandler(Keep())
    logging.getLogger("tabletris.server").setLevel(logging.INFO)
    db = Path(folder) / "table.sqlite3"
    lobby = one_lobby(f"sqlite+aiosqlite:///{db}", bot_delay=0.01)
    await lobby.open()
    check = DatabaseCheck(lobby.storage)
    result: dict[str, Any] = {}
    wal = Path(f"{db}-wal")
    largest_wal = 0
    try:
        rooms = [await lobby.create("dice", {}, [{"kind": "random"}, {"kind": "random"}]) for _ in range(4)]
        await until(lambda: all(len(r.events) >= 2 for r in rooms), 30, "the rooms play")
        filler = Path(folder) / "filler"
        fd = os.open(filler, os.O_WRONLY | os.O_CREAT, 0o600)
        try:  # fill the volume to the last byte
            for size in (65536, 4096, 512, 1):
                try:
                    while os.write(fd, b"\0" * size) == size:
                        pass
                except OSError:
                    pass
        finally:
            os.close(fd)
        start = time.monotonic()
        failures = count_failed_appends(lobby.storage)
        while len(failures) < 10:
            assert time.monotonic() - start < 30, "fewer than 10 moves failed to store: the rooms stopped trying (frozen)"
            largest_wal = max(largest_wal, wal.stat().st_size if wal.exists() else 0)
            await asyncio.sleep(0.02)
        try:
            await check()
            result["ready_while_full"] = True
        except NotReady as e:
            result["ready_while_full"] = False
            result["reason"] = e.reason
        playing = [r for r in rooms if r.status == "playing"]
        marks = {r.id: len(r.events) for r in playing}
        filler.unlink()
        freed = time.monotonic()
        while not all(r.status != "playing" or len(r.events) > marks[r.id] + 1 for r in playing):
            assert time.monotonic() - freed < RECOVERY, "the rooms did not play on after the space was freed"
            largest_wal = max(largest_wal, wal.stat().st_size if wal.exists() else 0)
            await asyncio.sleep(0.02)
        result["recovery_s"] = round(time.monotonic() - freed, 2)
        result["rooms"] = len(playing)
        while time.monotonic() - freed < result["recovery_s"] + 2.0:  # keep playing a while: the WAL stays small
            largest_wal = max(largest_wal, wal.stat().st_size if wal.exists() else 0)
            await asyncio.sleep(0.05)
        ready_after = True
        try:
            await check()
        except NotReady:
            ready_after = False
        result["ready_after"] = ready_after
        result["largest_wal"] = largest_wal
        result["failed_writes"] = len(failures)
        result["lost"] = 0
        for room in rooms:
            stored = await lobby.storage.load_room(room.id)
            assert stored is not None
            if stored.events[: len(room.events)] != room.events:
                result["lost"] += len(room.events) - len(stored.events)
    finally:
        await lobby.close()
    lines = [r for r in records if "a write failed" in r.getMessage()]
    result["log_lines"] = len(lines)
    result["tracebacks"] = sum(1 for r in records if r.exc_info)
    return result


def test_sqlite_on_a_full_2_mib_disk_is_not_ready_then_plays_on(tmp_path: Path) -> None:
    """SQLite on a real 2 MiB tmpfs filled to the last byte: the readiness check says
    ``storage_full`` (it said ready), the failures log a line per 10 s (1,051 tracebacks in
    80 s), the rooms play on within seconds of the space being freed, the WAL stays within its
    limit, and no acknowledged move is lost."""
    folder = tmp_path / "small"
    folder.mkdir()
    prefix = namespaced(folder)
    if prefix is None:
        pytest.skip("no mount namespace for a tmpfs here (unshare -Urm is refused)")
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    done = subprocess.run(
        [*prefix, sys.executable, "-c", CHILD, str(folder), str(Path(__file__).parent)],
        capture_output=True, text=True, timeout=180, env=env,
    )
    lines = [line for line in done.stdout.splitlines() if line.startswith("RESULT ")]
    assert done.returncode == 0 and lines, done.stdout[-3000:] + done.stderr[-3000:]
    result = json.loads(lines[-1][len("RESULT "):])
    assert result["ready_while_full"] is False and result["reason"] == "storage_full", result
    assert result["ready_after"], result
    assert result["recovery_s"] < RECOVERY, result
    assert result["lost"] == 0, result
    assert result["tracebacks"] == 0 and 1 <= result["log_lines"] <= 4, result
    assert result["largest_wal"] <= JOURNAL_SIZE_LIMIT + 256 * 1024, result
