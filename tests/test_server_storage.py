"""The database schema under Alembic, on SQLite and PostgreSQL: a fresh database gets every
revision, and a database made by the release before migrations (``metadata.create_all``, no
``alembic_version``) is stamped and upgraded with its rooms intact."""

from __future__ import annotations

import asyncio
from typing import Any

from sqlalchemy import (
    JSON,
    Column,
    Float,
    ForeignKey,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    insert,
    select,
)
from sqlalchemy.ext.asyncio import create_async_engine

from services import new_database
from tabletris.server.storage import Storage, rooms, schema_revision

HEAD = "0010"


def last_release_metadata() -> MetaData:
    """The schema exactly as the release before migrations created it."""
    md = MetaData()
    Table(
        "rooms", md,
        Column("id", String(32), primary_key=True),
        Column("game", String(16), nullable=False),
        Column("config", JSON, nullable=False),
        Column("start", JSON, nullable=True),
        Column("status", String(16), nullable=False, index=True),
        Column("created", Float, nullable=False, index=True),
        Column("updated", Float, nullable=False),
        Column("rematch", String(32), nullable=True),
    )
    Table(
        "seats", md,
        Column("room_id", String(32), ForeignKey("rooms.id"), primary_key=True),
        Column("seat", Integer, primary_key=True),
        Column("kind", String(32), nullable=False),
        Column("name", String(64), nullable=True),
        Column("strength", Float, nullable=True),
        Column("token_hash", String(128), nullable=True),
    )
    Table(
        "events", md,
        Column("room_id", String(32), ForeignKey("rooms.id"), primary_key=True),
        Column("seq", Integer, primary_key=True),
        Column("data", Text, nullable=False),
        Column("created", Float, nullable=False),
    )
    return md


async def _revision(url: str) -> str | None:
    engine = create_async_engine(url)
    try:
        async with engine.connect() as conn:
            return await conn.run_sync(schema_revision)
    finally:
        await engine.dispose()


def test_a_new_database_gets_every_revision(db_url: str) -> None:
    async def run() -> tuple[str | None, Any]:
        storage = Storage(db_url)
        await storage.open()
        long_kind = "ext:" + "x" * 200  # an external bot's command: longer than the old 32
        await storage.create_room("r1", "dice", {}, [{"seat": 0, "kind": long_kind, "name": None, "strength": None, "token_hash": None}])
        stored = await storage.load_room("r1")
        await storage.close()
        return await _revision(db_url), stored

    revision, stored = asyncio.run(run())
    assert revision == HEAD
    assert stored is not None and stored.seats[0]["kind"].startswith("ext:xxx")


def test_a_database_from_the_last_release_is_stamped_and_upgraded_with_its_rooms(db_url: str) -> None:
    async def run() -> tuple[str | None, str | None, Any, Any]:
        engine = create_async_engine(db_url)
        old = last_release_metadata()
        async with engine.begin() as conn:
            await conn.run_sync(old.create_all)
            await conn.execute(insert(old.tables["rooms"]).values(
                id="old", game="dice", config={"rules": {}}, start=None, status="waiting",
                created=1.0, updated=1.0, rematch=None))
            await conn.execute(insert(old.tables["seats"]), [
                {"room_id": "old", "seat": 0, "kind": "open", "name": None, "strength": None, "token_hash": None}])
            await conn.execute(insert(old.tables["events"]), [
                {"room_id": "old", "seq": i, "data": f'{{"n":{i}}}', "created": 1.0} for i in range(3)])
        before = None
        async with engine.connect() as conn:
            before = await conn.run_sync(schema_revision)
        await engine.dispose()

        storage = Storage(db_url)
        await storage.open()
        stored = await storage.load_room("old")
        async with storage.engine.connect() as conn:
            version = (await conn.execute(select(rooms.c.version).where(rooms.c.id == "old"))).scalar_one()
        # The upgraded database takes the next event where the old log ended.
        await storage.append("old", 3, ['{"n":3}'])
        again = await storage.load_room("old")
        await storage.close()
        # A second start finds nothing to do.
        storage = Storage(db_url)
        await storage.open()
        await storage.close()
        return before, await _revision(db_url), (stored, version), again

    before, after, (stored, version), again = asyncio.run(run())
    assert before is None
    assert after == HEAD
    assert stored is not None and stored.events == ['{"n":0}', '{"n":1}', '{"n":2}']
    assert version == 3, "the room's version is its stored event count"
    assert again is not None and len(again.events) == 4
    assert stored.seats[0]["tower"] is None, "an old seat has no tower choice"


def test_a_waiting_room_s_tower_choices_survive_a_restart(db_url: str) -> None:
    """The choice is stored with the seat (it lived in memory, and a restart forgot it)."""
    from tabletris.server.limits import Limits
    from tabletris.server.lobby import Lobby

    def lobby() -> Lobby:
        return Lobby(Storage(db_url), bot_delay=0, limits=Limits.unlimited_clients())

    async def run() -> tuple[list[str | None], list[str]]:
        first = lobby()
        await first.open()
        room = await first.create("tower", {}, [{"kind": "open"}, {"kind": "open"}, {"kind": "random", "tower": "3a"}])
        await room.join(0, "Ann", tower="2b")
        await first.close()
        second = lobby()
        await second.open()
        try:
            stored = await second.storage.load_room(room.id)
            assert stored is not None
            listed = [s["tower"] for s in second._listed(stored)["seats"]]  # the lobby list of another instance
            assert listed == ["2b", None, "3a"]
            again = await second.find(room.id)
            chosen = [s.tower for s in again.seats]
            await again.join(1, "Bob")
            state = again.state(None)
            return chosen, [t["layout"] for t in state["game"]["towers"]]
        finally:
            await second.close()

    chosen, layouts = asyncio.run(run())
    assert chosen == ["2b", None, "3a"]
    assert layouts[0] == "2b" and layouts[2] == "3a"


def _count_batches(storage: Storage) -> list[int]:
    """The sizes of the batches the storage's move writer is given from now on, in order."""
    assert storage._moves is not None
    sizes: list[int] = []
    write = storage._moves.write

    async def counted(batch: Any) -> None:
        sizes.append(len(batch))
        await write(batch)

    storage._moves.write = counted  # type: ignore[method-assign]
    return sizes


def test_moves_queued_around_a_new_room_take_the_fast_path_in_order(tmp_path: Any) -> None:
    """Issue 28: a room created among queued moves (the rematches when many games end at once)
    sent the whole batch through SQLAlchemy. SQLite's writer now writes the rooms' and seats'
    writes itself too, so the moves and the room go in one transaction, in queue order; a write
    with work of its own (``transact``: a rating, the queue's claims) still goes through
    SQLAlchemy, and the moves before and after it through the writer, every write stored."""

    async def main() -> tuple[list[int], list[int], list[tuple[str, int]], int]:
        storage = Storage(f"sqlite+aiosqlite:///{tmp_path / 'runs.sqlite3'}")
        await storage.open()
        try:
            seat = [{"seat": 0, "kind": "open"}]
            for room in "abcd":
                await storage.create_room(room, "dice", {}, seat)
            fast = _count_batches(storage)
            # Queued together, before the writer wakes: one batch of four moves, a room, four moves.
            await asyncio.gather(
                *(storage.append(room, 0, ['{"n": 0}']) for room in "abcd"),
                storage.create_room("e", "dice", {"rules": {"width": 6}}, seat),
                *(storage.append(room, 1, ['{"n": 1}']) for room in "abcd"),
            )
            with_room = list(fast)
            fast.clear()

            async def work(conn: Any) -> int:
                return len((await conn.execute(select(rooms.c.id))).all())

            counted = await asyncio.gather(
                *(storage.append(room, 2, ['{"n": 2}']) for room in "abcd"),
                storage.transact(work),
                *(storage.append(room, 3, ['{"n": 3}']) for room in "abcd"),
            )
            async with storage.engine.connect() as conn:
                from tabletris.server.storage import events

                rows = (await conn.execute(select(events.c.room_id, events.c.seq).order_by(events.c.room_id, events.c.seq))).all()
                made = (await conn.execute(select(rooms.c.config).where(rooms.c.id == "e"))).all()
            assert counted[4] == 5
            return with_room, fast, [(str(r), int(s)) for r, s in rows], made[0][0]
        finally:
            await storage.close()

    with_room, around_work, rows, config = asyncio.run(main())
    assert with_room == [9], with_room  # the room's write among the moves, in one batch
    assert around_work == [4, 4], around_work  # the moves before the work, then those after it
    assert rows == [(room, seq) for room in "abcd" for seq in range(4)]
    assert config == {"rules": {"width": 6}}, "the room's JSON column reads back as written"


def test_moves_wait_in_the_thread_while_another_connection_holds_the_write_lock(tmp_path: Any) -> None:
    """Issue 28: a batch of moves is written on the event loop only when SQLite's write lock is
    free at once. While another connection holds it, the loop never waits (it goes on serving:
    a timer fires meanwhile) and the batch is handed to the writer's thread, which waits for
    the lock and stores it once the other transaction ends."""
    import sqlite3
    import time

    async def main() -> tuple[int, list[tuple[str, int]]]:
        path = tmp_path / "locked.sqlite3"
        storage = Storage(f"sqlite+aiosqlite:///{path}")
        await storage.open()
        try:
            await storage.create_room("a", "dice", {}, [{"seat": 0, "kind": "open"}])
            await storage.append("a", 0, ['{"n": 0}'])  # on the loop: the lock was free
            assert storage._moves is not None and storage._moves.busy == 0
            other = sqlite3.connect(path, isolation_level=None)
            other.execute("BEGIN IMMEDIATE")  # holds the write lock
            try:
                write = asyncio.ensure_future(storage.append("a", 1, ['{"n": 1}']))
                deadline = time.monotonic() + 10
                while storage._moves.busy == 0 and time.monotonic() < deadline:
                    await asyncio.sleep(0.01)  # the loop runs meanwhile
                await asyncio.sleep(0.05)
                assert not write.done()  # waiting in the thread, not failed
            finally:
                other.execute("COMMIT")
                other.close()
            await asyncio.wait_for(write, 10)
            async with storage.engine.connect() as conn:
                from tabletris.server.storage import events

                rows = (await conn.execute(select(events.c.room_id, events.c.seq).order_by(events.c.seq))).all()
            return storage._moves.busy, [(str(r), int(s)) for r, s in rows]
        finally:
            await storage.close()

    busy, rows = asyncio.run(main())
    assert busy == 1
    assert rows == [("a", 0), ("a", 1)]


def test_moves_go_through_the_databases_own_move_writer_and_a_stale_one_fails_alone(db_url: str) -> None:
    """Issue 28: on SQLite and on PostgreSQL a batch of moves is written by the move writer
    (the database's driver, not SQLAlchemy's async layer), in one transaction; a stale move
    among them is refused (``Conflict``) and the others are stored, each once."""
    from tabletris.server.storage import Conflict, PostgresMoveWriter, SqliteMoveWriter, events

    async def main() -> tuple[list[int], list[Any], list[tuple[str, int, str]], type]:
        storage = Storage(db_url)
        await storage.open()
        try:
            for room in "abc":
                await storage.create_room(room, "dice", {}, [{"seat": 0, "kind": "open"}])
            kind = type(storage._moves)
            written = _count_batches(storage)
            await asyncio.gather(*(storage.append(room, 0, ['{"n":0}']) for room in "abc"))
            results = await asyncio.gather(
                storage.append("a", 1, ['{"n":1}', '{"n":2}']), storage.append("b", 0, ['{"n":"stale"}']),
                storage.append("c", 1, ['{"n":1}'], status="over"), return_exceptions=True,
            )
            async with storage.engine.connect() as conn:
                rows = (await conn.execute(
                    select(events.c.room_id, events.c.seq, events.c.data).order_by(events.c.room_id, events.c.seq))).all()
            return written, results, [(str(r), int(s), str(d)) for r, s, d in rows], kind
        finally:
            await storage.close()

    written, results, rows, kind = asyncio.run(main())
    assert kind is (SqliteMoveWriter if db_url.startswith("sqlite") else PostgresMoveWriter)
    assert written[0] == 3 and sum(written) >= 6  # the first three together; the stale batch again alone
    assert isinstance(results[1], Conflict) and isinstance(results[0], float) and isinstance(results[2], float)
    assert rows == [("a", 0, '{"n":0}'), ("a", 1, '{"n":1}'), ("a", 2, '{"n":2}'), ("b", 0, '{"n":0}'),
                    ("c", 0, '{"n":0}'), ("c", 1, '{"n":1}')]


class _CountedCalls:
    """An asyncpg connection that counts what the move writer asks of it: each ``execute``,
    ``executemany`` and ``fetch`` is a round trip to the server, and ``transaction`` two more
    (BEGIN, COMMIT)."""

    def __init__(self, conn: Any) -> None:
        self.conn = conn
        self.calls: list[str] = []

    def __getattr__(self, name: str) -> Any:
        attr = getattr(self.conn, name)
        if name in ("execute", "executemany", "fetch", "transaction"):
            def counted(*args: Any, **kwargs: Any) -> Any:
                self.calls.append(name)
                return attr(*args, **kwargs)
            return counted
        return attr


def test_a_batch_of_moves_is_one_statement_on_postgresql(postgres_cluster: str) -> None:
    """Issue 28: a batch of moves was BEGIN, a guarded update a move, the rows' insert and
    COMMIT on PostgreSQL (a lone move one statement already); moves of different rooms are one
    statement now, which stores a room's rows only when its guard held. A stale move among them
    is refused alone (``Conflict``) and leaves nothing, its neighbours are stored, and nothing
    is tried again; two moves of the same room in one batch still share one transaction; each
    row reads back with its text, number and time, and each room with its version."""
    from tabletris.server.storage import Conflict, PostgresMoveWriter, events

    url = new_database(postgres_cluster)

    async def main() -> tuple[dict[str, list[str]], list[Any], float | None, list[tuple[str, int, str, float]],
                              dict[str, int]]:
        storage = Storage(url)
        await storage.open()
        try:
            writer = storage._moves
            assert isinstance(writer, PostgresMoveWriter)
            for room in "abc":
                await storage.create_room(room, "dice", {}, [{"seat": 0, "kind": "open"}])
            await storage.append("a", 0, ['{"n":0}'])  # connected
            counted = _CountedCalls(writer.conn)
            writer.conn = counted
            calls: dict[str, list[str]] = {}
            results: list[Any] = []

            async def step(name: str, *appends: Any) -> None:
                counted.calls.clear()
                results.extend(await asyncio.gather(*appends, return_exceptions=True))
                calls[name] = list(counted.calls)

            await step("alone", storage.append("a", 1, ['{"n":1}', '{"n":2}'], status="over"))
            await step("stale alone", storage.append("a", 1, ['{"n":"stale"}']))
            await step("together", storage.append("b", 0, ['{"n":0}']), storage.append("a", 3, ['{"n":3}'], new_turn=False),
                       storage.append("c", 0, ['{"n":0}'], clocks='{"left":[5,5]}'))
            await step("one stale among them", storage.append("a", 4, ['{"n":4}']),
                       storage.append("b", 0, ['{"n":"stale"}']), storage.append("c", 1, ['{"n":1}']))
            await step("one room twice", storage.append("c", 2, ['{"n":2}']), storage.append("c", 3, ['{"n":3}']))
            async with storage.engine.connect() as conn:
                rows = (await conn.execute(
                    select(events.c.room_id, events.c.seq, events.c.data, events.c.created)
                    .order_by(events.c.room_id, events.c.seq))).all()
                facts = (await conn.execute(select(rooms.c.id, rooms.c.version, rooms.c.status, rooms.c.clocks))).all()
            got = [(str(r), int(s), str(d), float(c)) for r, s, d, c in rows]
            versions = {str(r): int(v) for r, v, _, _ in facts}
            assert {str(r): (st, cl) for r, _, st, cl in facts} == {
                "a": ("over", None), "b": ("waiting", None), "c": ("waiting", '{"left":[5,5]}')}
            return calls, results, storage.events_written, got, versions
        finally:
            await storage.close()

    calls, results, written, rows, versions = asyncio.run(main())
    assert calls["alone"] == ["fetch"]
    assert calls["stale alone"] == ["fetch"], "a stale lone move is one statement, not tried again"
    assert calls["together"] == ["fetch"], "three rooms' moves: one statement"
    assert calls["one stale among them"] == ["fetch"], "the stale one is refused alone, nothing is tried again"
    assert "transaction" in calls["one room twice"]
    stored_at, stale, *together, fresh_a, stale_b, fresh_c, twice_1, twice_2 = results
    assert isinstance(stale, Conflict) and isinstance(stale_b, Conflict)
    assert all(isinstance(r, float) for r in (stored_at, *together, fresh_a, fresh_c, twice_1, twice_2))
    assert [r[:3] for r in rows] == [
        ("a", 0, '{"n":0}'), ("a", 1, '{"n":1}'), ("a", 2, '{"n":2}'), ("a", 3, '{"n":3}'), ("a", 4, '{"n":4}'),
        ("b", 0, '{"n":0}'), ("c", 0, '{"n":0}'), ("c", 1, '{"n":1}'), ("c", 2, '{"n":2}'), ("c", 3, '{"n":3}')]
    assert rows[1][3] == rows[2][3] == stored_at
    assert versions == {"a": 5, "b": 1, "c": 4}
    assert written == len(rows), "the metrics count the rows committed, not the refused ones"


def test_a_rooms_writes_keep_their_guards_on_both_databases(db_url: str) -> None:
    """Issue 28: a room's writes (created as a rematch, seats taken, started, a seat left, its
    status) are built once, and the database's own writer runs them with the moves (on SQLite
    they cost 7 ms of CPU a room through SQLAlchemy's async layer, 0.33 ms now). Each guard
    still refuses what another instance did first (``Conflict``, nothing stored), a seat left
    open drops its account, and everything reads back as written."""
    from tabletris.server.storage import Conflict

    seats_ = [{"seat": 0, "kind": "open", "name": None, "strength": None, "token_hash": None},
              {"seat": 1, "kind": "bot:random", "name": "random", "strength": 0.5, "token_hash": None}]

    async def main() -> tuple[list[int], list[Any], Any, Any, Any]:
        storage = Storage(db_url)
        await storage.open()
        try:
            await storage.create_room("game", "dice", {"rules": {}}, seats_)
            fast = _count_batches(storage)
            outcomes: list[Any] = []

            async def attempt(write: Any) -> None:
                try:
                    outcomes.append(await write)
                except Conflict:
                    outcomes.append("conflict")

            await attempt(storage.create_room("next", "dice", {"rules": {"width": 6}, "rematch_of": "game"}, seats_, rematch_of="game"))
            await attempt(storage.create_room("other", "dice", {"rules": {}}, seats_, rematch_of="game"))
            await attempt(storage.take_seat("next", 0, "Ann", "hash-ann", account_id="acc-1"))
            await attempt(storage.take_seat("next", 0, "Bob", "hash-bob"))
            started = await storage.start_room("next", {"players": ["Ann", "random"]}, now=1234.5)
            await attempt(storage.start_room("next", {"players": ["Bob", "random"]}))
            await storage.take_seat("game", 0, "Cy", "hash-cy", account_id="acc-2")
            await storage.set_seat("game", 1, "resigned", "random", None)
            await storage.set_seat("game", 0, "open", None, None)
            await storage.set_status("game", "over")
            await storage.set_rematch("game", "next")
            return fast, [*outcomes, started], await storage.load_room("next"), await storage.load_room("game"), \
                await storage.load_room("other")
        finally:
            await storage.close()

    fast, outcomes, nxt, game, other = asyncio.run(main())
    assert outcomes == [None, "conflict", None, "conflict", "conflict", 1234.5]
    assert other is None, "a refused rematch stores nothing"
    assert nxt is not None and game is not None
    assert (nxt.config, nxt.start, nxt.status, nxt.updated) == (
        {"rules": {"width": 6}, "rematch_of": "game"}, {"players": ["Ann", "random"]}, "playing", 1234.5)
    assert [(s["kind"], s["name"], s["token_hash"], s["account_id"]) for s in nxt.seats] == [
        ("human", "Ann", "hash-ann", "acc-1"), ("bot:random", "random", None, None)]
    assert nxt.seats[1]["strength"] == 0.5
    assert (game.status, game.rematch) == ("over", "next")
    assert [(s["kind"], s["name"], s["account_id"]) for s in game.seats] == [("open", None, None), ("resigned", "random", None)]
    assert sum(fast) >= 8, "the room writes went through the database's own writer"
