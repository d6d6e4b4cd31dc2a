"""The storage writer's batches: moves of several rooms queued together are committed in one
transaction (their guarded updates as one executemany on SQLite), and a stale move among them
is refused alone, with the others stored. Moves that come often wait ``commit_delay`` for each
other and share a commit; a lone move does not wait."""

from __future__ import annotations

import asyncio
import random
import time
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import select

from tabletris.server.storage import COMMIT_DELAY, Conflict, Storage, events, rooms


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


async def _stream(tmp: Path, commit_delay: float) -> tuple[int, int, Storage]:
    """Twenty rooms each storing ten moves, one after the other, after a short random think:
    the commits and the commits that waited for more writes, and the open storage."""
    storage = Storage(f"sqlite+aiosqlite:///{tmp / f'stream-{commit_delay}.sqlite3'}", commit_delay=commit_delay)
    await storage.open()
    names = [f"r{i}" for i in range(20)]
    for room in names:
        await storage.create_room(room, "dice", {}, [{"seat": 0, "kind": "open"}])
    commits, gathered = storage.commits, storage.gathered
    rng = random.Random(7)

    async def play(room: str, thinks: list[float]) -> None:
        for seq, think in enumerate(thinks):
            await asyncio.sleep(think)
            await storage.append(room, seq, [f'{{"n":{seq}}}'])

    await asyncio.gather(*(play(room, [rng.uniform(0, 0.01) for _ in range(10)]) for room in names))
    async with storage.engine.connect() as conn:
        versions = dict((await conn.execute(select(rooms.c.id, rooms.c.version))).all())
    assert versions == dict.fromkeys(names, 10)
    return storage.commits - commits, storage.gathered - gathered, storage


def test_writes_that_come_often_wait_for_each_other_and_share_a_commit(tmp_path: Path) -> None:
    """Moves coming a few milliseconds apart: with a commit delay (50 ms at most) a commit waits
    for the moves behind it (until four are queued), so the 200 moves share a few dozen commits;
    without one, each commit takes what the loop queued meanwhile, most of them a move or two."""

    async def main() -> None:
        waited, gathered, storage = await _stream(tmp_path, 0.05)
        await storage.close()
        at_once, none_gathered, storage = await _stream(tmp_path, 0.0)
        await storage.close()
        assert gathered >= 1 and none_gathered == 0
        assert waited <= 200 / 3, f"{waited} commits for 200 moves"
        assert at_once > waited, (at_once, waited)

    asyncio.run(main())


def test_writes_at_an_instances_share_of_the_pace_still_wait_for_each_other(tmp_path: Path) -> None:
    """A write every 15 ms with a 50 ms delay: about three come within the delay, so a commit
    waits for them. (It waited only when four would come: two instances sharing the rooms, each
    at half the pace, then committed a third fewer moves a commit than one instance did.)"""

    async def main() -> None:
        storage = Storage(f"sqlite+aiosqlite:///{tmp_path / 'pace.sqlite3'}", commit_delay=0.05)
        await storage.open()
        try:
            names = [f"r{i}" for i in range(60)]
            for room in names:
                await storage.create_room(room, "dice", {}, [{"seat": 0, "kind": "open"}])
            await asyncio.sleep(0.3)  # a quiet spell: the pace measured is the stream's alone
            commits, gathered = storage.commits, storage.gathered
            writes = []
            for room in names:  # one write every 15 ms, each to its own room, none awaited here
                writes.append(asyncio.create_task(storage.append(room, 0, ['{"n":0}'])))
                await asyncio.sleep(0.015)
            await asyncio.gather(*writes)
            assert storage.gathered - gathered >= 5, f"{storage.gathered - gathered} commits waited"
            assert storage.commits - commits < len(names)
        finally:
            await storage.close()

    asyncio.run(main())


def test_a_write_after_a_quiet_spell_is_committed_without_waiting(tmp_path: Path) -> None:
    """The delay is for writes that come often: after a quiet spell (ten times the delay here) a
    lone move is committed at once, while the busy stream before it waited."""

    async def main() -> None:
        _, gathered, storage = await _stream(tmp_path, 0.05)
        try:
            assert gathered >= 1
            await asyncio.sleep(0.5)  # the quiet spell itself, not a wait for a state
            before = storage.gathered
            await storage.append("r0", 10, ['{"n":10}'])
            assert storage.gathered == before
        finally:
            await storage.close()

    asyncio.run(main())


def test_a_write_waiting_for_company_is_still_committed_when_the_storage_closes(tmp_path: Path) -> None:
    """Closing the storage while the writer waits out a (long) commit delay: the move it took is
    committed, not dropped, and its caller hears so."""

    async def main() -> None:
        url = f"sqlite+aiosqlite:///{tmp_path / 'close.sqlite3'}"
        storage = Storage(url, commit_delay=0.0)
        await storage.open()
        await asyncio.gather(*(storage.create_room(f"c{i}", "dice", {}, []) for i in range(10)))
        storage.commit_delay = 30.0  # writes came less than that apart: the next commit waits
        before = storage.gathered
        move = asyncio.create_task(storage.append("c0", 0, ['{"n":0}']))
        deadline = time.monotonic() + 10
        while storage.gathered == before:  # the writer took the move and waits for more
            assert time.monotonic() < deadline, "the writer never waited for company"
            await asyncio.sleep(0.005)
        assert not move.done()
        await storage.close()
        assert isinstance(await asyncio.wait_for(move, 10), float)
        again = Storage(url)
        await again.open()
        try:
            async with again.engine.connect() as conn:
                stored = (await conn.execute(select(events.c.room_id, events.c.seq))).all()
            assert [tuple(r) for r in stored] == [("c0", 0)]
        finally:
            await again.close()

    asyncio.run(main())


def test_the_commit_delay_is_never_negative() -> None:
    with pytest.raises(ValueError, match="0 or more seconds"):
        Storage("sqlite+aiosqlite:///:memory:", commit_delay=-0.001)


def test_serve_passes_its_commit_delay_to_the_storage_and_refuses_a_negative_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from typer.testing import CliRunner

    from tabletris.cli.app import app as cli
    from tabletris.server import app as server_app

    refused = CliRunner().invoke(cli, ["serve", "--db", str(tmp_path / "s.sqlite3"), "--commit-delay", "-1"])
    assert refused.exit_code == 2 and "--commit-delay" in refused.output
    made: list[float] = []
    real_create_app = server_app.create_app

    def create_app(*args: Any, **kwargs: Any) -> Any:
        made.append(real_create_app(*args, **kwargs).state.lobby.storage.commit_delay)
        raise SystemExit(0)  # not served: the storage it would have used is enough

    monkeypatch.setattr(server_app, "create_app", create_app)
    for given in (["--commit-delay", "0"], []):
        CliRunner().invoke(cli, ["serve", "--db", str(tmp_path / "s.sqlite3"), *given])
    assert made == [0.0, COMMIT_DELAY]
