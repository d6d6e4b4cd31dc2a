"""Durable storage for rooms: SQLAlchemy async Core over SQLite (default) or PostgreSQL.

Three tables: ``rooms`` (configuration, the game's record header once it starts, status),
``seats`` (who sits where, with a hash of the seat's secret token, never the token itself) and
``events`` (the accepted moves of each room, in order: the event log the game is rebuilt from).

A move is acknowledged only after its event is committed. Every write (events, new rooms, seats,
status) goes through one writer task, which drains everything queued while the previous
transaction was committing and writes it in a single transaction: hundreds of rooms share one
commit instead of paying one each, and no two connections ever wait for SQLite's write lock. A crash
between "queued" and "committed" loses only moves nobody was told were accepted.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import shutil
import sqlite3
import time
from collections.abc import Awaitable, Callable, Collection, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

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
    Update,
    bindparam,
    event,
    func,
    insert,
    inspect,
    null,
    or_,
    select,
    type_coerce,
    update,
)
from sqlalchemy.dialects import sqlite as sqlite_dialect
from sqlalchemy.engine import Connection
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine, create_async_engine
from sqlalchemy.sql.compiler import SQLCompiler
from sqlalchemy.sql.elements import ClauseElement
from sqlalchemy.sql.expression import Executable

from tabletris.server import timesource
from tabletris.server.storage_errors import FaultLog, kind

log = logging.getLogger("tabletris.server")

metadata = MetaData()

rooms = Table(
    "rooms",
    metadata,
    Column("id", String(32), primary_key=True),
    Column("game", String(16), nullable=False),
    Column("config", JSON, nullable=False),
    Column("start", JSON, nullable=True),
    Column("status", String(16), nullable=False, index=True),
    Column("created", Float, nullable=False, index=True),
    Column("updated", Float, nullable=False),
    Column("rematch", String(32), nullable=True),
    Column("version", Integer, nullable=False, server_default="0"),
    Column("turn_started", Float, nullable=True),
    Column("clocks", Text, nullable=True),
)

seats = Table(
    "seats",
    metadata,
    Column("room_id", String(32), ForeignKey("rooms.id"), primary_key=True),
    Column("seat", Integer, primary_key=True),
    Column("kind", String(300), nullable=False),
    Column("name", String(64), nullable=True),
    Column("strength", Float, nullable=True),
    Column("token_hash", String(128), nullable=True),
    Column("tower", String(32), nullable=True),
    Column("account_id", String(36), nullable=True, index=True),
)

events = Table(
    "events",
    metadata,
    Column("room_id", String(32), ForeignKey("rooms.id"), primary_key=True),
    Column("seq", Integer, primary_key=True),
    Column("data", Text, nullable=False),
    Column("created", Float, nullable=False),
)


INSERT_EVENTS = insert(events)
"""The event rows' insert, built once: a statement object made anew per move cost SQLAlchemy a
new cache key (a walk of the whole statement) on every execution."""


def _append_guard(new_turn: bool, status: bool, clocks: bool = False) -> Update:
    """The guarded update of a move (``Storage.append``), with bound parameters: one statement
    object per shape, built once (see ``INSERT_EVENTS``). ``clocks``: the room's game clocks
    are written with it (a real-time room with clocks: ``speeds.Clocks``)."""
    values: dict[str, Any] = {"version": bindparam("g_version"), "updated": bindparam("g_now")}
    if new_turn:
        values["turn_started"] = bindparam("g_now")
    if status:
        values["status"] = bindparam("g_status")
    if clocks:
        values["clocks"] = bindparam("g_clocks")
    return update(rooms).where(rooms.c.id == bindparam("g_room"), rooms.c.version == bindparam("g_first")).values(**values)


APPEND_GUARDS = {
    (turn, status, clocks): _append_guard(turn, status, clocks)
    for turn in (False, True) for status in (False, True) for clocks in (False, True)
}


def _param(name: str, column: Column[Any]) -> Any:
    """A named parameter typed as ``column`` (a JSON column's value is encoded by its type)."""
    return bindparam(name, type_=column.type)


ROOM_INSERT = insert(rooms).values(
    id=_param("r_id", rooms.c.id), game=_param("r_game", rooms.c.game), config=_param("r_config", rooms.c.config),
    status="waiting", created=_param("r_now", rooms.c.created), updated=_param("r_now", rooms.c.updated),
)
"""A new room (``Storage.create_room``). This statement and the ones below are built once with
named parameters, like ``INSERT_EVENTS``: a statement built per call cost SQLAlchemy its
construction and a new cache key on every execution, 0.23-0.27 ms each (6 December), and a
rematch's room writes five of them. Built once, the database's own writer
(``SqliteMoveWriter``, ``PostgresMoveWriter``) also runs them, without SQLAlchemy's async layer."""
SEAT_ROWS = insert(seats).values(
    room_id=_param("s_room", seats.c.room_id), seat=_param("s_seat", seats.c.seat), kind=_param("s_kind", seats.c.kind),
    name=_param("s_name", seats.c.name), strength=_param("s_strength", seats.c.strength),
    token_hash=_param("s_token", seats.c.token_hash), tower=_param("s_tower", seats.c.tower),
    account_id=_param("s_account", seats.c.account_id),
)
REMATCH_GUARD = (
    update(rooms).where(rooms.c.id == bindparam("g_room"), rooms.c.rematch.is_(None))
    .values(rematch=_param("g_rematch", rooms.c.rematch))
)
"""The room a rematch is made of, given its rematch only if it has none yet."""
SEAT_TAKE = (
    update(seats)
    .where(seats.c.room_id == bindparam("g_room"), seats.c.seat == bindparam("g_seat"),
           or_(seats.c.kind == "open", seats.c.kind == "reserved"))  # not IN: its list is expanded per call
    .values(kind="human", name=_param("g_name", seats.c.name), token_hash=_param("g_token", seats.c.token_hash),
            tower=_param("g_tower", seats.c.tower), account_id=_param("g_account", seats.c.account_id))
)
_SEAT_VALUES = {"kind": _param("g_kind", seats.c.kind), "name": _param("g_name", seats.c.name),
                "token_hash": _param("g_token", seats.c.token_hash), "tower": _param("g_tower", seats.c.tower)}
SEAT_SET = update(seats).where(seats.c.room_id == bindparam("g_room"), seats.c.seat == bindparam("g_seat")).values(**_SEAT_VALUES)
SEAT_OPEN = SEAT_SET.values(account_id=null())
"""A seat left open again: nobody's (its account dropped)."""
STATUS_SET = update(rooms).where(rooms.c.id == bindparam("g_room")).values(
    status=_param("g_status", rooms.c.status), updated=_param("g_now", rooms.c.updated))
ROOM_START = (
    update(rooms).where(rooms.c.id == bindparam("g_room"), rooms.c.status == "waiting")
    .values(start=_param("g_start", rooms.c.start), status="playing", updated=_param("g_now", rooms.c.updated),
            turn_started=_param("g_now", rooms.c.turn_started), clocks=_param("g_clocks", rooms.c.clocks))
)
REMATCH_SET = update(rooms).where(rooms.c.id == bindparam("g_room")).values(rematch=_param("g_rematch", rooms.c.rematch))
ROOM_WRITES = (ROOM_INSERT, SEAT_ROWS, REMATCH_GUARD, SEAT_TAKE, SEAT_SET, SEAT_OPEN, STATUS_SET, ROOM_START, REMATCH_SET)
"""The rooms' and seats' writes that the database's own writer runs (with the moves' guards)."""


_EVENT_ROWS = INSERT_EVENTS.values(
    room_id=bindparam("room_id"), seq=bindparam("seq"), data=bindparam("data"), created=bindparam("created"))
"""The event rows' insert with its parameters named, for the move writers' own drivers."""


def _takes(batch: Sequence[_Write], known: Mapping[int, Any]) -> bool:
    """Whether a writer of its own (``SqliteMoveWriter``, ``PostgresMoveWriter``) can write the
    batch: every guard and statement one it compiled (``known``: by the statement object's
    identity), and no write with work of its own (``call``, which needs SQLAlchemy's
    connection)."""
    return all(
        w.call is None and (w.guard is None or id(w.guard) in known) and all(id(s) in known for s, _ in w.statements)
        for w in batch
    )


class _Prepared:
    """A statement built once (``APPEND_GUARDS``, ``ROOM_WRITES``, the event rows) compiled for
    a driver the storage calls itself, and what SQLAlchemy would have added to a call's
    parameters: the values the statement holds (``status="waiting"``) and the JSON columns'
    encoding. ``names``: the parameters' order for a driver that takes them by position
    (asyncpg); empty for one that takes them by name (sqlite3)."""

    def __init__(self, statement: ClauseElement, dialect: Any) -> None:
        compiled = cast(SQLCompiler, statement.compile(dialect=dialect))
        self.text = compiled.string
        self.names = tuple(compiled.positiontup or ())
        self.held = {name: value for name, value in compiled.params.items() if value is not None}
        """The values the statement holds (a NULL it sets is written ``null()``, not None: a None
        here is a parameter the call must give)."""
        self.json = [name for name, bind in compiled.binds.items() if isinstance(bind.type, JSON)]

    def values(self, params: Mapping[str, Any]) -> Any:
        """A call's parameters as the driver takes them: a dict by name, or a tuple."""
        if self.held or self.json:
            params = {**self.held, **params}
            for name in self.json:
                if params.get(name) is not None:
                    params[name] = json.dumps(params[name])
        return tuple(params[n] for n in self.names) if self.names else params


def _prepared(dialect: Any) -> dict[int, _Prepared]:
    """Every statement a writer of its own runs, compiled for ``dialect``, by identity."""
    return {id(s): _Prepared(s, dialect) for s in (*APPEND_GUARDS.values(), *ROOM_WRITES)}


_Bound = tuple[str, Any]
"""A statement's text and its parameters as its driver takes them (a list of them: an
executemany)."""
_SqliteItem = tuple[_Bound | None, list[_Bound], list[dict[str, Any]]]
"""One write as ``SqliteMoveWriter`` runs it: its guard, its statements, its event rows."""


def _bound(prepared: _Prepared, params: Any) -> _Bound:
    """``prepared``'s text and a call's parameters (a list of them: an executemany)."""
    if isinstance(params, list):
        return prepared.text, [prepared.values(p) for p in params]
    return prepared.text, prepared.values(params)


class SqliteMoveWriter:
    """The writes' fast path on a SQLite file: a batch made of moves (``Storage.append``) and
    the rooms' and seats' writes (``ROOM_WRITES``: a rematch's room, its seats taken, its start)
    is written by a ``sqlite3`` connection of its own, in one call: BEGIN, each write's guarded
    update and statements, the event rows, COMMIT; on the event loop, or in its one thread when
    the write lock is taken (``write``). Through SQLAlchemy's async layer the same transaction
    took a thread hop per statement and most of a millisecond of CPU, more than the rest of the
    move (a room's five writes cost 7 ms). The SQL is SQLAlchemy's, compiled once from the same
    statements; the connection has the same settings (``_sqlite_pragmas``). A write with work
    of its own (``call``) and every read go through SQLAlchemy; the one writer task
    (``Storage._write_loop``) orders both, so the two connections never wait for each other's
    write lock."""

    def __init__(self, path: Path) -> None:
        self.path = path
        named = sqlite_dialect.dialect(paramstyle="named")
        self.sql = _prepared(named)
        """Every statement this writer runs itself, by the statement object's identity."""
        self.insert = _Prepared(_EVENT_ROWS, named).text
        self.thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix="sqlite-moves")
        self.conn: sqlite3.Connection | None = None
        """The thread's connection: waits up to 5 s for the write lock."""
        self.now: sqlite3.Connection | None = None
        """The event loop's connection: never waits for the lock (``write``)."""
        self.busy = 0
        """Batches the loop found the lock taken for, and handed to the thread."""

    def takes(self, batch: Sequence[_Write]) -> bool:
        return _takes(batch, self.sql)

    async def write(self, batch: Sequence[_Write]) -> None:
        """Written on the event loop when SQLite's write lock is free at once (a batch of moves
        is a few tens of microseconds, and a checkpoint every ``WAL_AUTOCHECKPOINT_PAGES`` a
        millisecond or two), else in the thread, which waits for the lock: the trip to the
        thread and back cost more CPU than the write itself (issue 28)."""
        sql = self.sql
        items: list[_SqliteItem] = [
            (None if w.guard is None else _bound(sql[id(w.guard)], w.guard_params or {}),
             [_bound(sql[id(s)], params) for s, params in w.statements], w.events)
            for w in batch
        ]
        try:
            if self.now is None:
                self.now = self._open(wait=0.0)
            self._write(self.now, items)
            return
        except sqlite3.OperationalError as e:
            if e.sqlite_errorcode & 0xFF not in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED):
                raise
            self.busy += 1  # another connection writes: the thread waits for it
        await asyncio.get_running_loop().run_in_executor(self.thread, self._write_waiting, items)

    def _open(self, wait: float) -> sqlite3.Connection:
        conn = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False, timeout=wait)
        _sqlite_pragmas(conn, None)
        return conn

    def _write_waiting(self, items: Sequence[_SqliteItem]) -> None:
        if self.conn is None:
            self.conn = self._open(wait=5.0)
        self._write(self.conn, items)

    def _write(self, conn: sqlite3.Connection, items: Sequence[_SqliteItem]) -> None:
        conn.execute("BEGIN")
        try:
            rows: list[dict[str, Any]] = []
            for guard, statements, events_ in items:
                if guard is not None and conn.execute(*guard).rowcount != 1:
                    raise Conflict("the room changed in the database before this write")
                for text, params in statements:
                    if isinstance(params, list):
                        conn.executemany(text, params)
                    else:
                        conn.execute(text, params)
                rows.extend(events_)
            if rows:
                conn.executemany(self.insert, rows)
            conn.execute("COMMIT")
        except BaseException:
            with contextlib.suppress(sqlite3.Error):
                conn.execute("ROLLBACK")
            raise

    async def close(self) -> None:
        def close() -> None:
            if self.conn is not None:
                self.conn.close()
                self.conn = None

        await asyncio.get_running_loop().run_in_executor(self.thread, close)
        self.thread.shutdown(wait=True)
        if self.now is not None:
            self.now.close()
            self.now = None


MOVES_IN_ONE = """
WITH v AS (
    SELECT * FROM unnest($1::varchar[], $2::int[], $3::int[], $4::float8[], $5::bool[], $6::varchar[], $7::bool[],
                         $8::text[]) AS v(room, first, version, now, new_turn, status, set_clocks, clocks)
), changed AS (
    UPDATE rooms SET version = v.version, updated = v.now,
        turn_started = CASE WHEN v.new_turn THEN v.now ELSE rooms.turn_started END,
        status = coalesce(v.status, rooms.status),
        clocks = CASE WHEN v.set_clocks THEN v.clocks ELSE rooms.clocks END
    FROM v WHERE rooms.id = v.room AND rooms.version = v.first
    RETURNING rooms.id, v.now
), added AS (
    INSERT INTO events (room_id, seq, data, created)
    SELECT e.room, e.seq, e.data, changed.now
    FROM unnest($9::varchar[], $10::int[], $11::text[]) AS e(room, seq, data) JOIN changed ON changed.id = e.room
)
SELECT id FROM changed
"""
"""A batch of moves of different rooms (``Storage.append``: each a guard of ``APPEND_GUARDS``
and its event rows at the guard's time) on PostgreSQL as one statement: every room's guarded
update (``$1``-``$8``: a row of arrays a move), and the event rows (``$9``-``$11``) of the rooms
it changed only; its answer, the rooms it changed. One statement is one round trip and its own
transaction, where a batch was BEGIN, an update a move, the rows' insert and COMMIT (and the lone
move's statement before this one: docs/api.md, ninth and eleventh rounds). A room whose guard
did not hold (another instance moved first) has nothing written and is refused alone
(``Refused``); PostgreSQL runs a ``WITH`` clause's writes whether or not the query reads them.
Two moves of the same room in one batch would meet one row in one update: such a batch takes
the transaction."""


class PostgresMoveWriter:
    """The writes' fast path on PostgreSQL: a batch of moves and rooms' writes (what
    ``SqliteMoveWriter`` takes) is written by an asyncpg connection of its own: moves of
    different rooms in one statement (``MOVES_IN_ONE``), anything else in one transaction: each
    write's guarded update and statements, then the event rows in one ``executemany``. Through
    SQLAlchemy's async layer each batch paid a pool check-out with its ping, a greenlet per
    statement and the statements' parameter processing: half a millisecond of CPU per move more
    than on SQLite (issue 28). The transaction's SQL is SQLAlchemy's, compiled once for asyncpg
    from the same statements; ``MOVES_IN_ONE`` is PostgreSQL's own (arrays, ``UPDATE ...
    FROM``), written out. A write that fails for any reason but
    a ``Conflict`` drops the connection, and the next write connects anew (the batch's writes
    are then tried one by one: ``Storage._commit``), so a database restart costs one failed
    try, as with the pool's ping."""

    def __init__(self, url: Any) -> None:
        from sqlalchemy.dialects.postgresql.asyncpg import dialect

        self.dsn = url.set(drivername="postgresql").render_as_string(hide_password=False)
        self.sql = _prepared(dialect())
        self.insert = _Prepared(_EVENT_ROWS, dialect())
        self.shapes = {id(guard): shape for shape, guard in APPEND_GUARDS.items()}
        """A move's guard's shape (new turn, status, clocks), by the guard's identity."""
        self.conn: Any = None

    def takes(self, batch: Sequence[_Write]) -> bool:
        return _takes(batch, self.sql)

    async def write(self, batch: Sequence[_Write]) -> None:
        import asyncpg

        if self.conn is None or self.conn.is_closed():
            self.conn = None
            self.conn = await asyncpg.connect(self.dsn, timeout=PG_CONNECT_TIMEOUT)
        conn = self.conn
        try:
            moves = self._moves_in_one(batch)
            if moves is not None:
                changed = {row[0] for row in await conn.fetch(MOVES_IN_ONE, *moves)}
                refused = [i for i, room_id in enumerate(moves[0]) if room_id not in changed]  # a room a move
                if refused:
                    raise Refused(refused)
                return
            async with conn.transaction():
                sql = self.sql
                for w in batch:
                    if w.guard is not None:
                        guard = sql[id(w.guard)]
                        if await conn.execute(guard.text, *guard.values(w.guard_params or {})) != "UPDATE 1":
                            raise Conflict("the room changed in the database before this write")
                    for statement, params in w.statements:
                        text, values = _bound(sql[id(statement)], params)
                        if isinstance(values, list):
                            await conn.executemany(text, values)
                        else:
                            await conn.execute(text, *values)
                rows = [self.insert.values(row) for w in batch for row in w.events]
                if rows:
                    await conn.executemany(self.insert.text, rows)
        except Conflict:
            raise
        except BaseException:
            await self.close()
            raise

    def _moves_in_one(self, batch: Sequence[_Write]) -> list[list[Any]] | None:
        """``MOVES_IN_ONE``'s arguments for the batch, when it is moves of different rooms
        (``Storage.append``: a guard, event rows of that room at the guard's time, nothing
        else); else None."""
        columns: list[list[Any]] = [[] for _ in range(11)]
        room, first, version, now, new_turn, status, set_clocks, clocks, e_room, e_seq, e_data = columns
        for w in batch:
            shape = self.shapes.get(id(w.guard)) if w.guard is not None else None
            params = w.guard_params
            if shape is None or params is None or w.statements:
                return None
            room_id, at = params["g_room"], params["g_now"]
            if any(row["room_id"] != room_id or row["created"] != at for row in w.events):
                return None
            room.append(room_id)
            first.append(params["g_first"])
            version.append(params["g_version"])
            now.append(at)
            new_turn.append(shape[0])
            status.append(params["g_status"] if shape[1] else None)
            set_clocks.append(shape[2])
            clocks.append(params.get("g_clocks"))
            for row in w.events:
                e_room.append(room_id)
                e_seq.append(row["seq"])
                e_data.append(row["data"])
        return columns if len(set(room)) == len(room) else None

    async def close(self) -> None:
        conn, self.conn = self.conn, None
        if conn is not None:
            conn.terminate()


PG_CONNECT_TIMEOUT = 10.0
"""Seconds the PostgreSQL move writer waits to connect before the write fails."""


@dataclass
class StoredRoom:
    """A room as read back at start-up: enough to rebuild its game by replaying its events."""

    id: str
    game: str
    config: dict[str, Any]
    start: dict[str, Any] | None
    status: str
    created: float
    rematch: str | None
    seats: list[dict[str, Any]]
    events: list[str]
    """Each event as the JSON text stored (decoded only to rebuild the game)."""
    event_count: int = 0
    updated: float | None = None
    """When the room last changed in the database (wall time): its last move, or its start."""
    turn_started: float | None = None
    """When the turn in play began (wall time), so an instance taking the room over keeps its
    deadline. Not ``updated``: a tower round spans several stored submissions, and the round's
    clock runs from the first. None in rooms stored before it was kept; ``updated`` stands in."""
    clocks: str | None = None
    """The game clocks of a real-time room with clocks, as stored (``speeds.Clocks.text``)."""


class Conflict(Exception):
    """Another writer (another instance) changed the room first: the guarded update found no
    row in the state this write expected, and nothing of the write was stored."""


class Refused(Conflict):
    """Some of a batch's writes were refused by their guards (``refused``: their places in the
    batch) and the others are committed: the batch was one statement (``MOVES_IN_ONE``)."""

    def __init__(self, refused: Sequence[int]) -> None:
        super().__init__("the room changed in the database before this write")
        self.refused = set(refused)


@dataclass
class _Write:
    """One caller's writes, committed in one transaction with the rest of the batch: its guard
    (an update that must change exactly one row, else ``Conflict``), event rows (inserted
    together with every other write's rows), then statements, in the order given."""

    events: list[dict[str, Any]]
    statements: list[tuple[Executable, Any]]
    done: asyncio.Future[None]
    guard: Executable | None = None
    guard_params: dict[str, Any] | None = None
    call: Callable[[AsyncConnection], Awaitable[None]] | None = None
    """Work that reads and writes in the batch's transaction (``Storage.transact``), after
    the statements."""

    def settle(self, error: BaseException | None = None) -> None:
        """Tell the caller how the write went (a caller that stopped waiting cancelled it)."""
        if self.done.done():
            return
        if error is None:
            self.done.set_result(None)
        else:
            self.done.set_exception(error)


WAL_AUTOCHECKPOINT_PAGES = 256
"""SQLite checkpoints the write-ahead log into the database once it holds this many pages (1 MiB
of 4 KiB pages; SQLite's default is 1000, 4 MiB): the WAL alone filled a 2 MiB volume before a
checkpoint ran (issue 30). Checkpointing every 4 MiB cost about a fifth less CPU per move at 500
rooms (a checkpoint copies a hot page once however often it changed), but a 2 MiB volume's WAL
then grew past what the full-disk test allows; it stays at 1 MiB (issue 28, docs/api.md)."""
JOURNAL_SIZE_LIMIT = 1 << 20
"""Bytes of WAL file SQLite keeps after a checkpoint resets it (it truncates the rest): without
a limit the file stays as large as it ever grew."""
COMMIT_DELAY = 0.02
"""The longest a commit waits for more writes (PostgreSQL's ``commit_delay``), when they come
often enough that ``COMMIT_COMPANY`` of them would arrive meanwhile: the writes that arrive share
the commit. A commit's work is mostly per commit and per page, and a commit that wakes the
loop once for several moves saves the wake-ups too (docs/api.md, tenth round). The wait ends as
soon as ``COMMIT_GATHER`` writes are queued; each move's acknowledgement comes that much later."""
COMMIT_GATHER = 4
"""Writes queued behind the one a waiting commit took that end its wait at once: the commits of
an instance carry about as many moves at half the rate (two instances sharing the rooms) as at
the full rate, where a fixed wait gave them half as many."""
COMMIT_COMPANY = 2
"""Writes expected within ``commit_delay`` (at the running mean gap) for a commit to wait for
them. It was ``COMMIT_GATHER`` (4): two instances at about 300 writes a second each then
committed 3.4-3.7 and 4.5 events a commit, where one instance at 600 committed 5.1; with 2 they
commit 4.4 and 4.8 (docs/api.md, eleventh round)."""
GAP_WEIGHT = 0.2
"""The weight of the newest gap between two writes in their running mean (``Storage._gap``):
a lone write after a quiet spell lifts the mean past any commit delay at once, and a stream of
writes brings it down within a few dozen."""
CHECKPOINT_EVERY = 1.0
"""Seconds between two truncating checkpoints after failed writes (SQLite)."""
FAILURE_FRESH = 10.0
"""Seconds a failed write counts against readiness when nothing was stored since."""


def _sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
    """WAL keeps readers off the writer's back; NORMAL sync survives a killed process; the WAL is
    checkpointed every ``WAL_AUTOCHECKPOINT_PAGES`` and kept to ``JOURNAL_SIZE_LIMIT`` bytes."""
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.execute(f"PRAGMA wal_autocheckpoint={WAL_AUTOCHECKPOINT_PAGES}")
    cursor.execute(f"PRAGMA journal_size_limit={JOURNAL_SIZE_LIMIT}")
    cursor.close()


FAST_RUN = 4
"""Writes in a row that a mixed batch sends through the database's own writer in a transaction
of their own (``Storage._runs``)."""


def _execute_steps(conn: Connection, steps: Sequence[tuple[str, Any, Any, int]]) -> None:
    """``Storage._steps`` without a ``call``, run in the driver's thread (``run_sync``)."""
    for step, statement, params, rows in steps:
        if conn.execute(statement, params).rowcount != rows and step == "guard":
            raise Conflict("the room changed in the database before this write")


def _settle(future: asyncio.Future[None]) -> None:
    if not future.done():
        future.set_result(None)


class Storage:
    """The one gateway to the database; every coroutine here commits before it returns."""

    def __init__(self, url: str, commit_delay: float | None = None) -> None:
        if commit_delay is None:
            commit_delay = COMMIT_DELAY
        if not commit_delay >= 0:
            raise ValueError(f"the commit delay is 0 or more seconds, not {commit_delay!r}")
        self.url = url
        self.commit_delay = commit_delay
        """The longest a commit waits for more writes when they come often (``COMMIT_DELAY``; 0: never)."""
        self._gap = 1.0
        """The running mean of the seconds between two writes (``GAP_WEIGHT``), from a quiet start."""
        self._last_write = time.monotonic()
        self.gathered = 0
        """Commits that waited for more writes."""
        self._company: asyncio.Future[None] | None = None
        """While a commit waits for more writes: done once ``COMMIT_GATHER`` are queued."""
        # PostgreSQL: a pooled connection is checked before use, so the first writes after a
        # database restart do not fail on the connections it closed.
        options: dict[str, Any] = {} if url.startswith("sqlite") else {"pool_pre_ping": True}
        self.engine: AsyncEngine = create_async_engine(url, **options)
        if self.engine.dialect.name == "sqlite":
            event.listen(self.engine.sync_engine, "connect", _sqlite_pragmas)
        self._queue: asyncio.Queue[_Write] | None = None
        self._writer: asyncio.Task[None] | None = None
        self.commits = 0
        self.events_written = 0
        self.failed_writes = 0
        self.failure: tuple[float, str] | None = None
        """The last write's failure, (when, kind: ``storage_errors.FULL``...), until a write
        succeeds again (the readiness check)."""
        self.stored_at: float | None = None
        """When (``time.monotonic``) a commit last stored something: the database answered then,
        and took a write (``ops.DatabaseCheck``)."""
        self.faults = FaultLog(log)
        self._checkpointed = 0.0
        self._moves: SqliteMoveWriter | PostgresMoveWriter | None = None
        """The moves' fast path (``SqliteMoveWriter``, ``PostgresMoveWriter``)."""

    async def open(self) -> None:
        """Bring the schema up to date (Alembic, in one transaction), then start the writer."""
        async with self.engine.begin() as conn:
            if self.engine.dialect.name == "postgresql":
                # Instances starting together migrate one at a time; the rest find it done.
                await conn.exec_driver_sql(f"SELECT pg_advisory_xact_lock({MIGRATION_LOCK})")
            await conn.run_sync(migrate)
        path = self.sqlite_path()
        if path is not None and not self.engine.url.query:
            self._moves = SqliteMoveWriter(path)
        elif (
            self.engine.url.get_backend_name() == "postgresql" and self.engine.url.get_driver_name() == "asyncpg"
            and not self.engine.url.query  # options meant for SQLAlchemy's dialect: its path takes them
        ):
            self._moves = PostgresMoveWriter(self.engine.url)
        self._queue = asyncio.Queue()
        self._writer = asyncio.create_task(self._write_loop(), name="storage-writer")

    async def close(self) -> None:
        if self._writer is not None:
            self._writer.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._writer
            self._writer = None
        if self._moves is not None:
            await self._moves.close()
            self._moves = None
        await self.engine.dispose()

    # ---------------------------------------------------------------- rooms and seats

    async def create_room(
        self, room_id: str, game: str, config: dict[str, Any], seat_rows: Sequence[dict[str, Any]],
        rematch_of: str | None = None, created: float | None = None,
        claim: Callable[[AsyncConnection], Awaitable[None]] | None = None,
    ) -> None:
        """Store a new room. ``rematch_of``: the room it is the rematch of, whose ``rematch``
        is set to it in the same transaction, only if that room has none yet: ``Conflict``
        otherwise (another instance made the rematch first) and nothing is stored.
        ``created``: the room's creation time (the lobby's, so that its copy and the stored
        row say the same); now if left out. ``claim``: more work in the same transaction
        (the Play now queue's tickets taken for this room); its ``Conflict`` stores nothing."""
        now = timesource.now() if created is None else created
        room = {"r_id": room_id, "r_game": game, "r_config": config, "r_now": now}
        seat_params = [
            {"s_room": room_id, "s_seat": row["seat"], "s_kind": row["kind"], "s_name": row.get("name"),
             "s_strength": row.get("strength"), "s_token": row.get("token_hash"), "s_tower": row.get("tower"),
             "s_account": row.get("account_id")}
            for row in seat_rows
        ]
        guard, guard_params = None, None
        if rematch_of is not None:
            guard, guard_params = REMATCH_GUARD, {"g_room": rematch_of, "g_rematch": room_id}
        statements: list[tuple[Executable, Any]] = [(ROOM_INSERT, room)]
        if seat_params:
            statements.append((SEAT_ROWS, seat_params))
        await self._submit([], statements, guard=guard, guard_params=guard_params, call=claim)

    async def rematch_of(self, room_id: str) -> str | None:
        """The stored rematch of a room (None: none yet)."""
        async with self.engine.connect() as conn:
            found = await conn.execute(select(rooms.c.rematch).where(rooms.c.id == room_id))
            value = found.scalar()
            return None if value is None else str(value)

    async def take_seat(
        self, room_id: str, seat: int, name: str, token_hash: str, tower: str | None = None, account_id: str | None = None,
    ) -> None:
        """Seat a person (with their tower choice); ``Conflict`` if the seat is no longer open or
        reserved in the database (another instance seated someone first)."""
        params = {"g_room": room_id, "g_seat": seat, "g_name": name, "g_token": token_hash, "g_tower": tower,
                  "g_account": account_id}
        await self._submit([], [], guard=SEAT_TAKE, guard_params=params)

    async def set_seat(
        self, room_id: str, seat: int, kind: str, name: str | None, token_hash: str | None, tower: str | None = None
    ) -> None:
        params = {"g_room": room_id, "g_seat": seat, "g_kind": kind, "g_name": name, "g_token": token_hash, "g_tower": tower}
        # A seat left before the game is nobody's: an open seat drops its account.
        await self._submit([], [(SEAT_OPEN if kind == "open" else SEAT_SET, params)])

    async def set_status(self, room_id: str, status: str) -> None:
        await self._submit([], [(STATUS_SET, {"g_room": room_id, "g_status": status, "g_now": timesource.now()})])

    async def start_room(self, room_id: str, start: dict[str, Any], clocks: str | None = None, now: float | None = None) -> float:
        """Start the game (with its game clocks, a real-time room's); ``Conflict`` if another
        instance started it first. Returns the time stored as the room's ``updated``: the first
        turn began then."""
        now = timesource.now() if now is None else now
        params = {"g_room": room_id, "g_start": start, "g_now": now, "g_clocks": clocks}
        await self._submit([], [], guard=ROOM_START, guard_params=params)
        return now

    async def set_rematch(self, room_id: str, rematch: str) -> None:
        await self._submit([], [(REMATCH_SET, {"g_room": room_id, "g_rematch": rematch})])

    # ---------------------------------------------------------------- events (grouped commits)

    async def append(
        self, room_id: str, first_seq: int, data: Sequence[str], status: str | None = None, new_turn: bool = True,
        clocks: str | None = None, now: float | None = None,
    ) -> float | None:
        """Store a room's events (JSON texts) from number ``first_seq`` on (and its new status);
        returns once they are committed, with the time stored as the room's ``updated`` (None
        when there was nothing to store). All of them or none: they share one transaction.
        ``new_turn``: the events began a new turn, which starts now (``turn_started``).
        ``clocks``: the room's game clocks after them, stored in the same update. ``now``: the
        time the room worked the move out at (``timesource.now()`` when left out).

        The room's ``version`` (its stored event count) is checked and bumped in the same
        transaction: if the database holds more than ``first_seq`` events (another instance
        answered this turn first) nothing is stored and ``Conflict`` is raised."""
        if not data and status is None:
            return None
        now = timesource.now() if now is None else now
        rows = [{"room_id": room_id, "seq": first_seq + i, "data": d, "created": now} for i, d in enumerate(data)]
        params: dict[str, Any] = {
            "g_room": room_id, "g_first": first_seq, "g_version": first_seq + len(data), "g_now": now,
        }
        if status is not None:
            params["g_status"] = status
        if clocks is not None:
            params["g_clocks"] = clocks
        guard = APPEND_GUARDS[bool(new_turn and data), status is not None, clocks is not None]
        await self._submit(rows, [], guard=guard, guard_params=params)
        return now

    async def transact(self, work: Callable[[AsyncConnection], Awaitable[Any]]) -> Any:
        """Run ``work`` in one of the writer's transactions (reads and writes that must see
        each other, e.g. a rating read, computed and written back; the queue's claims) and
        return what it returned once committed. Raising ``Conflict`` in it rolls it back
        without counting as a storage failure. Through the one writer task, so on SQLite it
        never waits for another connection's write lock."""
        result: list[Any] = []

        async def call(conn: AsyncConnection) -> None:
            result.append(await work(conn))

        await self._submit([], [], call=call)
        return result[-1]

    async def _submit(
        self, events: list[dict[str, Any]], statements: list[tuple[Executable, Any]], guard: Executable | None = None,
        guard_params: dict[str, Any] | None = None, call: Callable[[AsyncConnection], Awaitable[None]] | None = None,
    ) -> None:
        """Queue writes for the writer task and wait until they are committed (or failed)."""
        if self._queue is None:
            raise RuntimeError("storage is not open")
        done: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        now = time.monotonic()
        self._gap += (now - self._last_write - self._gap) * GAP_WEIGHT
        self._last_write = now
        await self._queue.put(_Write(events, statements, done, guard, guard_params, call))
        company = self._company
        if company is not None and self._queue.qsize() >= COMMIT_GATHER and not company.done():
            company.set_result(None)
        await done

    async def _write_loop(self) -> None:
        """The only writer: every write (events, rooms, seats) goes through here, so a SQLite
        database never has two connections waiting for each other's write lock (its busy
        handler sleeps in steps of up to 100 ms, which stalled moves while rooms were being
        created), and each commit carries everything queued while the previous one ran."""
        assert self._queue is not None
        while True:
            batch = [await self._queue.get()]
            if self._gathering():
                self.gathered += 1
                loop = asyncio.get_running_loop()
                company = self._company = loop.create_future()
                timer = loop.call_later(self.commit_delay, _settle, company)
                try:
                    await company
                except asyncio.CancelledError:  # closing: what was taken is still written
                    await self._write_taken(batch)
                    raise
                finally:
                    timer.cancel()
                    self._company = None
            await self._write_taken(batch)

    async def _write_taken(self, batch: list[_Write]) -> None:
        """``batch`` and everything queued behind it, in commits (``_runs``)."""
        assert self._queue is not None
        while not self._queue.empty():
            batch.append(self._queue.get_nowait())
        for run in self._runs(batch):
            await self._commit(run)

    def _gathering(self) -> bool:
        """Whether the commit waits for more writes: when ``COMMIT_COMPANY`` of them would come
        within ``commit_delay`` at the pace of late (PostgreSQL's ``commit_delay`` waits only
        when other transactions are open, ``commit_siblings``). A write after a quiet spell, or
        any write under a light load, would wait alone, for nothing: it is committed at once."""
        return self._gap * COMMIT_COMPANY <= self.commit_delay and self.commit_delay > 0

    def _runs(self, batch: list[_Write]) -> list[list[_Write]]:
        """The batch cut, in queue order, into runs the database's own writer takes (moves and
        rooms' writes) and runs of the rest (a write with work of its own: ``transact``), one
        transaction each: one such write among forty moves would send all forty through
        SQLAlchemy, 1-2 ms of CPU each (issue 28). Fewer than ``FAST_RUN`` writes between other
        writes stay with them, so that writes of both kinds taking turns still share one commit."""
        if self._moves is None:
            return [batch]
        runs: list[tuple[bool, list[_Write]]] = []
        for w in batch:
            takes = self._moves.takes((w,))
            if not runs or runs[-1][0] is not takes:
                runs.append((takes, []))
            runs[-1][1].append(w)
        if len(runs) == 1:
            return [runs[0][1]]
        merged: list[tuple[bool, list[_Write]]] = []
        for fast, run in runs:
            fast = fast and len(run) >= FAST_RUN
            if merged and not fast and not merged[-1][0]:
                merged[-1][1].extend(run)
            else:
                merged.append((fast, run))
        return [run for _, run in merged]

    async def _commit(self, batch: list[_Write]) -> None:
        """Write one run in one transaction and settle its callers; a failed run is written
        again write by write, so one bad write never fails its neighbours (and a lone write
        that failed for a lost connection is written again on a new one). A lone write refused
        by its guard is not: it would be refused again; nor are the others of a run written as
        one statement (``Refused``): they are committed."""
        try:
            await self._write_batch(batch)
        except Exception as e:
            if isinstance(e, Refused):  # one statement: the others are committed
                self._stored()
                for i, w in enumerate(batch):
                    w.settle(Conflict(*e.args) if i in e.refused else None)
                return
            if len(batch) == 1 and isinstance(e, Conflict):
                batch[0].settle(e)
                return
            for w in batch:
                try:
                    await self._write_batch([w])
                except Exception as e:  # this move fails, never the writer
                    if not isinstance(e, Conflict):
                        await self._failed(e)
                    w.settle(e)
                else:
                    self._stored()
                    w.settle()
            return
        self._stored()
        for w in batch:
            w.settle()

    def _stored(self) -> None:
        """A write was committed: the storage works (again)."""
        self.stored_at = time.monotonic()
        if self.failure is not None:
            self.failure = None
            self.faults.recovered("write", "storage: writes are stored again")

    async def _failed(self, e: BaseException) -> None:
        """A write failed (not a conflict): one rate-limited log line, the failure kept for the
        readiness check, and on SQLite a truncating checkpoint, so the WAL gives back the
        space it holds (a full disk stays full otherwise)."""
        self.failed_writes += 1
        failure = kind(e)
        self.failure = (time.time(), failure)
        self.faults.failed("write", "storage: a write failed; nothing of it was stored", e)
        if self.engine.dialect.name == "sqlite" and time.monotonic() - self._checkpointed >= CHECKPOINT_EVERY:
            self._checkpointed = time.monotonic()
            await self.checkpoint()

    async def checkpoint(self) -> bool:
        """SQLite: move the WAL into the database and truncate it to nothing (True when it
        completed). Nothing to do on PostgreSQL."""
        if self.engine.dialect.name != "sqlite":
            return True
        try:
            async with self.engine.connect() as conn:
                row = (await conn.exec_driver_sql("PRAGMA wal_checkpoint(TRUNCATE)")).first()
            return row is not None and int(row[0]) == 0
        except Exception as e:
            self.faults.failed("checkpoint", "storage: checkpointing the SQLite WAL failed", e)
            return False

    def failing(self) -> str | None:
        """The kind of the last write's failure while nothing was stored since and it is at
        most ``FAILURE_FRESH`` seconds old (None: writes work, or nothing failed lately: a
        server taken out of the pool is tried again, and the next failure counts anew)."""
        if self.failure is None:
            return None
        when, failure = self.failure
        return failure if time.time() - when <= FAILURE_FRESH else None

    def free_bytes(self) -> int | None:
        """Free bytes on the SQLite database's volume (None: PostgreSQL, or in memory)."""
        path = self.sqlite_path()
        if path is None:
            return None
        try:
            return shutil.disk_usage(path.parent).free
        except OSError:
            return None

    def sqlite_path(self) -> Path | None:
        """The SQLite database file (None: PostgreSQL, or in memory)."""
        url = self.engine.url
        database = url.database or ""
        if url.get_backend_name() != "sqlite" or not database or ":memory:" in database or "mode=memory" in str(url.query):
            return None
        return Path(database)

    @staticmethod
    def _steps(batch: list[_Write], grouped: bool) -> list[tuple[str, Any, Any, int]]:
        """The batch's transaction as steps, in queue order: ``("guard", update, params, rows)``
        (must change exactly ``rows`` rows, else ``Conflict``), ``("run", statement, params, 0)``
        and ``("call", work, None, 0)``; consecutive event rows share one insert. ``grouped``:
        the driver counts the rows of an executemany (consecutive moves' guards go as one)."""
        steps: list[tuple[str, Any, Any, int]] = []
        rows: list[dict[str, Any]] = []
        i = 0
        while i < len(batch):
            group = [batch[i]]
            w = group[0]
            if w.guard is not None:
                if grouped and w.guard_params is not None and not w.statements and w.call is None:
                    # Consecutive moves with the same guarded update (other rooms: a room
                    # has one write in flight) go as one executemany, checked by its
                    # total row count; a conflict fails the batch, and each write is then
                    # tried alone, which finds the one that conflicted.
                    while i + len(group) < len(batch):
                        nxt = batch[i + len(group)]
                        if nxt.guard is not w.guard or nxt.guard_params is None or nxt.statements or nxt.call is not None:
                            break
                        group.append(nxt)
                # Serializes per room: on PostgreSQL a second transaction updating the row
                # waits for the first, then finds the version moved on (no row matches).
                params = w.guard_params if len(group) == 1 else [g.guard_params for g in group if g.guard_params]
                steps.append(("guard", w.guard, params, len(group)))
            for g in group:
                rows.extend(g.events)
                if (g.statements or g.call is not None) and rows:
                    steps.append(("run", INSERT_EVENTS, rows, 0))
                    rows = []
                steps.extend(("run", statement, params, 0) for statement, params in g.statements)
                if g.call is not None:
                    steps.append(("call", g.call, None, 0))
            i += len(group)
        if rows:
            steps.append(("run", INSERT_EVENTS, rows, 0))
        return steps

    async def _write_batch(self, batch: list[_Write]) -> None:
        """One transaction for the batch, in queue order; consecutive event rows share one insert."""
        if self._moves is not None and self._moves.takes(batch):
            try:
                await self._moves.write(batch)
            except Refused as e:
                self._counted(batch, e.refused)
                raise
            self._counted(batch)
            return
        async with self.engine.begin() as conn:
            steps = self._steps(batch, conn.dialect.supports_sane_multi_rowcount)
            if any(step == "call" for step, *_ in steps):
                for step, what, params, rows in steps:
                    if step == "call":
                        await what(conn)
                    elif (await conn.execute(what, params)).rowcount != rows and step == "guard":
                        raise Conflict("the room changed in the database before this write")
            else:  # every statement in one trip to the driver's thread, not one trip each
                await conn.run_sync(_execute_steps, steps)
        self._counted(batch)

    def _counted(self, batch: list[_Write], refused: Collection[int] = ()) -> None:
        """A commit of the batch's writes but the ``refused`` ones (the metrics' counts)."""
        self.commits += 1
        self.events_written += sum(len(w.events) for i, w in enumerate(batch) if i not in refused)

    # ---------------------------------------------------------------- recovery

    async def load_rooms(self, statuses: Sequence[str]) -> tuple[list[StoredRoom], list[tuple[str, str]]]:
        """The rooms with these statuses (the live ones at start-up: ended rooms stay in the
        database, so start-up does not grow with history), oldest first, with their seats and
        events; and the rooms whose rows are damaged, with the reason, to be set aside."""
        async with self.engine.connect() as conn:
            room_rows = (
                await conn.execute(select(*_room_columns()).where(rooms.c.status.in_(list(statuses))).order_by(rooms.c.created))
            ).mappings().all()
            ids = [r["id"] for r in room_rows]
            seat_rows: list[Any] = []
            event_rows: list[Any] = []
            for k in range(0, len(ids), 500):
                chunk = ids[k : k + 500]
                seat_rows += (
                    await conn.execute(select(seats).where(seats.c.room_id.in_(chunk)).order_by(seats.c.room_id, seats.c.seat))
                ).mappings().all()
                event_rows += (
                    await conn.execute(
                        select(events.c.room_id, events.c.seq, events.c.data)
                        .where(events.c.room_id.in_(chunk))
                        .order_by(events.c.room_id, events.c.seq)
                    )
                ).all()
        return _assemble(room_rows, seat_rows, event_rows)

    async def load_room(self, room_id: str) -> StoredRoom | None:
        """One room with its seats and events (an ended room asked for by a client)."""
        async with self.engine.connect() as conn:
            room_rows = (await conn.execute(select(*_room_columns()).where(rooms.c.id == room_id))).mappings().all()
            if not room_rows:
                return None
            seat_rows = (
                await conn.execute(select(seats).where(seats.c.room_id == room_id).order_by(seats.c.seat))
            ).mappings().all()
            event_rows = (
                await conn.execute(
                    select(events.c.room_id, events.c.seq, events.c.data)
                    .where(events.c.room_id == room_id)
                    .order_by(events.c.seq)
                )
            ).all()
        found, broken = _assemble(room_rows, seat_rows, event_rows)
        if broken:
            raise ValueError(broken[0][1])
        return found[0]

    async def room_ids(self, status: str, limit: int) -> list[str]:
        """The ids of up to ``limit`` rooms with this status, oldest first (lease scans)."""
        async with self.engine.connect() as conn:
            result = await conn.execute(
                select(rooms.c.id).where(rooms.c.status == status).order_by(rooms.c.created).limit(limit)
            )
            return [str(r) for r in result.scalars().all()]

    async def list_rooms(self, statuses: Sequence[str], limit: int) -> list[StoredRoom]:
        """The newest rooms with these statuses, with seats and event counts but not events
        (the lobby's list of ended games at start-up)."""
        async with self.engine.connect() as conn:
            room_rows = (
                await conn.execute(
                    select(*_room_columns())
                    .where(rooms.c.status.in_(list(statuses)))
                    .order_by(rooms.c.created.desc())
                    .limit(limit)
                )
            ).mappings().all()
            ids = [r["id"] for r in room_rows]
            seat_rows: Sequence[Any] = []
            counts: dict[str, int] = {}
            if ids:
                seat_rows = (
                    await conn.execute(select(seats).where(seats.c.room_id.in_(ids)).order_by(seats.c.room_id, seats.c.seat))
                ).mappings().all()
                counted = await conn.execute(
                    select(events.c.room_id, func.count()).where(events.c.room_id.in_(ids)).group_by(events.c.room_id)
                )
                counts = {room_id: int(n) for room_id, n in counted.all()}
        found, _ = _assemble(room_rows, seat_rows, [])
        for stored in found:
            stored.event_count = counts.get(stored.id, 0)
        return found


MIGRATION_LOCK = 7_470_101
"""The PostgreSQL advisory lock key held while migrating."""
MIGRATIONS = Path(__file__).parent / "migrations"
FIRST_REVISION = "0001"
"""The schema of the release before migrations, which ``metadata.create_all`` made."""


def alembic_config(connection: Connection) -> Any:
    """Alembic's configuration without an ini file: the packaged scripts, this connection.
    (Alembic is imported here, not with the module: importing it takes a second, and every bot
    worker process imports this module.)"""
    from alembic.config import Config as AlembicConfig

    config = AlembicConfig()
    config.set_main_option("script_location", str(MIGRATIONS))
    config.attributes["connection"] = connection
    return config


def migrate(connection: Connection) -> None:
    """Upgrade the database to the newest revision. A database from before migrations (its
    tables, no ``alembic_version``) is stamped at the first revision, whose schema it has, and
    then upgraded like any other; an empty one gets every revision."""
    from alembic import command

    config = alembic_config(connection)
    tables = set(inspect(connection).get_table_names())
    if "rooms" in tables and "alembic_version" not in tables:
        if connection.dialect.name == "sqlite":
            # Its oldest databases lacked these indexes (create_all added tables only).
            connection.exec_driver_sql("CREATE INDEX IF NOT EXISTS ix_rooms_status ON rooms (status)")
            connection.exec_driver_sql("CREATE INDEX IF NOT EXISTS ix_rooms_created ON rooms (created)")
        command.stamp(config, FIRST_REVISION)
    command.upgrade(config, "head")


def schema_revision(connection: Connection) -> str | None:
    """The database's Alembic revision (None: not under migrations)."""
    from alembic.runtime.migration import MigrationContext

    return MigrationContext.configure(connection).get_current_revision()


def _room_columns() -> list[Any]:
    """The rooms columns, with the JSON ones as their stored text: a damaged value must not
    fail the whole query, only its room (decoded in ``_assemble``)."""
    return [
        c if c.name not in ("config", "start") else type_coerce(c, Text).label(c.name) for c in rooms.columns
    ]


def _json(text: Any) -> Any:
    return json.loads(text) if isinstance(text, str) else text


def _assemble(
    room_rows: Sequence[Any], seat_rows: Sequence[Any], event_rows: Sequence[Any]
) -> tuple[list[StoredRoom], list[tuple[str, str]]]:
    by_room: dict[str, StoredRoom] = {}
    result = []
    broken: dict[str, str] = {}
    for r in room_rows:
        try:
            stored = StoredRoom(
                r["id"], r["game"], dict(_json(r["config"])), _json(r["start"]), r["status"], r["created"],
                r["rematch"], [], [], updated=r.get("updated"), turn_started=r.get("turn_started"),
                clocks=r.get("clocks"),
            )
        except Exception as e:  # a row that does not decode (hand-edited, half-written)
            broken[r["id"]] = f"its row does not decode: {type(e).__name__}: {e}"
            continue
        by_room[stored.id] = stored
        result.append(stored)
    for s in seat_rows:
        if s["room_id"] in by_room:
            by_room[s["room_id"]].seats.append(dict(s))
    for room_id, seq, data in event_rows:
        room = by_room.get(room_id)
        if room is not None and room_id not in broken:
            if seq != len(room.events):
                broken[room_id] = f"event {seq} follows event {len(room.events) - 1}"
                continue
            room.events.append(data)
    for room in result:
        room.event_count = len(room.events)
    return [r for r in result if r.id not in broken], sorted(broken.items())
