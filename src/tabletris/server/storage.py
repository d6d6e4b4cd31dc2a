"""Durable storage for rooms: SQLAlchemy async Core over SQLite (default) or PostgreSQL.

Three tables: ``rooms`` (configuration, the game's record header once it starts, status),
``seats`` (who sits where, with a hash of the seat's secret token, never the token itself) and
``events`` (the accepted moves of each room, in order: the event log the game is rebuilt from).

A move is acknowledged only after its event is committed. Commits are grouped: one writer task
drains every event queued while the previous transaction was committing and writes them in a
single transaction, so hundreds of rooms share one fsync instead of paying one each. A crash
between "queued" and "committed" loses only moves nobody was told were accepted.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from collections.abc import Sequence
from dataclasses import dataclass
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
    event,
    insert,
    select,
    update,
)
from sqlalchemy.ext.asyncio import AsyncEngine, create_async_engine

metadata = MetaData()

rooms = Table(
    "rooms",
    metadata,
    Column("id", String(32), primary_key=True),
    Column("game", String(16), nullable=False),
    Column("config", JSON, nullable=False),
    Column("start", JSON, nullable=True),
    Column("status", String(16), nullable=False),
    Column("created", Float, nullable=False),
    Column("updated", Float, nullable=False),
    Column("rematch", String(32), nullable=True),
)

seats = Table(
    "seats",
    metadata,
    Column("room_id", String(32), ForeignKey("rooms.id"), primary_key=True),
    Column("seat", Integer, primary_key=True),
    Column("kind", String(32), nullable=False),
    Column("name", String(64), nullable=True),
    Column("strength", Float, nullable=True),
    Column("token_hash", String(128), nullable=True),
)

events = Table(
    "events",
    metadata,
    Column("room_id", String(32), ForeignKey("rooms.id"), primary_key=True),
    Column("seq", Integer, primary_key=True),
    Column("data", Text, nullable=False),
    Column("created", Float, nullable=False),
)


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
    events: list[dict[str, Any]]


@dataclass
class _Write:
    room_id: str
    first_seq: int
    data: list[dict[str, Any]]
    status: str | None
    done: asyncio.Future[None]


def _sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
    """WAL keeps readers off the writer's back; NORMAL sync survives a killed process."""
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.close()


class Storage:
    """The one gateway to the database; every coroutine here commits before it returns."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.engine: AsyncEngine = create_async_engine(url)
        if self.engine.dialect.name == "sqlite":
            event.listen(self.engine.sync_engine, "connect", _sqlite_pragmas)
        self._queue: asyncio.Queue[_Write] | None = None
        self._writer: asyncio.Task[None] | None = None
        self.commits = 0
        self.events_written = 0

    async def open(self) -> None:
        async with self.engine.begin() as conn:
            await conn.run_sync(metadata.create_all)
        self._queue = asyncio.Queue()
        self._writer = asyncio.create_task(self._write_loop(), name="storage-writer")

    async def close(self) -> None:
        if self._writer is not None:
            self._writer.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._writer
            self._writer = None
        await self.engine.dispose()

    # ---------------------------------------------------------------- rooms and seats

    async def create_room(
        self, room_id: str, game: str, config: dict[str, Any], seat_rows: Sequence[dict[str, Any]]
    ) -> None:
        now = time.time()
        async with self.engine.begin() as conn:
            await conn.execute(
                insert(rooms).values(
                    id=room_id, game=game, config=config, start=None, status="waiting",
                    created=now, updated=now, rematch=None,
                )
            )
            await conn.execute(insert(seats), [{"room_id": room_id, **row} for row in seat_rows])

    async def take_seat(self, room_id: str, seat: int, name: str, token_hash: str) -> None:
        async with self.engine.begin() as conn:
            await conn.execute(
                update(seats)
                .where(seats.c.room_id == room_id, seats.c.seat == seat)
                .values(kind="human", name=name, token_hash=token_hash)
            )

    async def start_room(self, room_id: str, start: dict[str, Any]) -> None:
        async with self.engine.begin() as conn:
            await conn.execute(
                update(rooms)
                .where(rooms.c.id == room_id)
                .values(start=start, status="playing", updated=time.time())
            )

    async def set_rematch(self, room_id: str, rematch: str) -> None:
        async with self.engine.begin() as conn:
            await conn.execute(update(rooms).where(rooms.c.id == room_id).values(rematch=rematch))

    async def set_status(self, room_id: str, status: str) -> None:
        async with self.engine.begin() as conn:
            await conn.execute(
                update(rooms).where(rooms.c.id == room_id).values(status=status, updated=time.time())
            )

    # ---------------------------------------------------------------- events (grouped commits)

    async def append(
        self, room_id: str, first_seq: int, data: Sequence[dict[str, Any]], status: str | None = None
    ) -> None:
        """Store a room's events from number ``first_seq`` on (and its new status); returns once
        they are committed. All of them or none: they share one transaction."""
        if self._queue is None:
            raise RuntimeError("storage is not open")
        if not data and status is None:
            return
        done: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        await self._queue.put(_Write(room_id, first_seq, list(data), status, done))
        await done

    async def _write_loop(self) -> None:
        assert self._queue is not None
        while True:
            batch = [await self._queue.get()]
            while not self._queue.empty():
                batch.append(self._queue.get_nowait())
            try:
                await self._write_batch(batch)
            except Exception:
                # One bad write must not fail its neighbours: retry each alone.
                for w in batch:
                    try:
                        await self._write_batch([w])
                    except Exception as e:  # this move fails, never the writer
                        if not w.done.done():
                            w.done.set_exception(e)
                    else:
                        if not w.done.done():
                            w.done.set_result(None)
                continue
            for w in batch:
                if not w.done.done():
                    w.done.set_result(None)

    async def _write_batch(self, batch: list[_Write]) -> None:
        now = time.time()
        async with self.engine.begin() as conn:
            rows = [
                {"room_id": w.room_id, "seq": w.first_seq + i, "data": json.dumps(d), "created": now}
                for w in batch
                for i, d in enumerate(w.data)
            ]
            if rows:
                await conn.execute(insert(events), rows)
            statuses: dict[str, str] = {w.room_id: w.status for w in batch if w.status is not None}
            for room_id, status in statuses.items():
                await conn.execute(
                    update(rooms).where(rooms.c.id == room_id).values(status=status, updated=now)
                )
        self.commits += 1
        self.events_written += sum(len(w.data) for w in batch)

    # ---------------------------------------------------------------- recovery

    async def load_rooms(self) -> list[StoredRoom]:
        """Every room with its seats and events, oldest first, to rebuild after a restart."""
        async with self.engine.connect() as conn:
            room_rows = (await conn.execute(select(rooms).order_by(rooms.c.created))).mappings().all()
            seat_rows = (
                await conn.execute(select(seats).order_by(seats.c.room_id, seats.c.seat))
            ).mappings().all()
            event_rows = (
                await conn.execute(
                    select(events.c.room_id, events.c.seq, events.c.data).order_by(
                        events.c.room_id, events.c.seq
                    )
                )
            ).all()
        by_room: dict[str, StoredRoom] = {}
        result = []
        for r in room_rows:
            stored = StoredRoom(
                r["id"], r["game"], dict(r["config"]), r["start"], r["status"], r["created"],
                r["rematch"], [], [],
            )
            by_room[stored.id] = stored
            result.append(stored)
        for s in seat_rows:
            if s["room_id"] in by_room:
                by_room[s["room_id"]].seats.append(dict(s))
        for room_id, seq, data in event_rows:
            room = by_room.get(room_id)
            if room is not None:
                if seq != len(room.events):
                    raise RuntimeError(f"room {room_id}: event {seq} follows event {len(room.events) - 1}")
                room.events.append(json.loads(data))
        return result
