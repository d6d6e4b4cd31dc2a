"""The storage writer's batches: moves of several rooms queued together are committed in one
transaction (their guarded updates as one executemany on SQLite), and a stale move among them
is refused alone, with the others stored."""

from __future__ import annotations

import asyncio
from pathlib import Path

from sqlalchemy import select

from tabletris.server.storage import Conflict, Storage, events, rooms


async def _batch(tmp: Path) -> None:
    storage = Storage(f"sqlite+aiosqlite:///{tmp / 'batch.sqlite3'}")
    await storage.open()
    try:
        for room in ("a", "b", "c"):
            await storage.create_room(room, "dice", {}, [{"seat": 0, "kind": "open"}])
        commits = storage.commits
        await asyncio.gather(*(storage.append(room, 0, ['{"n":0}']) for room in ("a", "b", "c")))
        assert storage.commits == commits + 1  # one transaction for the three rooms
        results = await asyncio.gather(
            storage.append("a", 1, ['{"n":1}']), storage.append("b", 0, ['{"n":"stale"}']),
            storage.append("c", 1, ['{"n":1}', '{"n":2}'], status="over"), return_exceptions=True,
        )
        assert isinstance(results[1], Conflict)
        assert isinstance(results[0], float) and isinstance(results[2], float)
        async with storage.engine.connect() as conn:
            stored = (await conn.execute(select(events.c.room_id, events.c.seq, events.c.data)
                                         .order_by(events.c.room_id, events.c.seq))).all()
            versions = dict((await conn.execute(select(rooms.c.id, rooms.c.version))).all())
            statuses = dict((await conn.execute(select(rooms.c.id, rooms.c.status))).all())
        assert [tuple(r) for r in stored] == [
            ("a", 0, '{"n":0}'), ("a", 1, '{"n":1}'), ("b", 0, '{"n":0}'),
            ("c", 0, '{"n":0}'), ("c", 1, '{"n":1}'), ("c", 2, '{"n":2}'),
        ]
        assert versions == {"a": 2, "b": 1, "c": 3}
        assert statuses["c"] == "over" and statuses["a"] == "waiting"
    finally:
        await storage.close()


def test_a_batch_of_moves_commits_together_and_refuses_only_the_stale_one(tmp_path: Path) -> None:
    asyncio.run(_batch(tmp_path))
