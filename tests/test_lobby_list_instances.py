"""The lobby list with several instances (issue 28 item 3): served from entries the instances
publish on the bus when they change a room, never read from the database per request (each
request read the newest 500 rooms before); paginated over the rooms of every instance."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable
from typing import Any

from services import new_database
from tabletris.server.bus import RedisBus
from tabletris.server.leases import RedisLeases
from tabletris.server.limits import Limits
from tabletris.server.listing import LobbyList
from tabletris.server.lobby import Lobby
from tabletris.server.storage import Storage

OPEN2 = [{"kind": "open"}, {"kind": "open"}]


async def until(check: Callable[[], Any], timeout: float = 10.0) -> Any:
    end = time.monotonic() + timeout
    while True:
        value = await check()
        if value:
            return value
        assert time.monotonic() < end, "timed out"
        await asyncio.sleep(0.05)


def instance(db: str, redis_url: str) -> Lobby:
    """An instance's lobby on the shared database and Redis (not opened)."""
    bus = RedisBus(redis_url)
    return Lobby(Storage(db), bot_delay=0, limits=Limits.unlimited_clients(), bus=bus,
                 leases=RedisLeases(redis_url, bus.instance, ttl=60.0))


def test_rooms_of_every_instance_are_listed_paginated_without_reading_the_database(
    postgres_cluster: str, redis_url: str
) -> None:
    asyncio.run(scenario(new_database(postgres_cluster), redis_url))


async def scenario(db: str, redis_url: str) -> None:
    a, b = instance(db, redis_url), instance(db, redis_url)
    await a.open()
    early = await a.create("dice", {}, OPEN2)  # before B starts: B reads it from the database
    await b.open()
    try:
        made = [early.id]
        for k in range(6):
            room = await (a if k % 2 else b).create("dice", {}, OPEN2)
            made.append(room.id)
        lists = LobbyList(b)

        async def b_lists_all() -> bool:
            text, _ = await lists.page(None, 100)
            return set(made) <= {r["id"] for r in json.loads(text)}

        await until(b_lists_all)

        reads: list[str] = []

        async def no_reads(*args: Any, **kwargs: Any) -> Any:
            reads.append("list_rooms")
            raise AssertionError("the list read the database")

        b.storage.list_rooms = no_reads  # type: ignore[method-assign]
        # Pages of 3, newest first, each room once, over both instances' rooms.
        seen: list[dict[str, Any]] = []
        after = None
        while True:
            text, after = await lists.page("waiting", 3, after)
            seen += json.loads(text)
            if after is None:
                break
        ids = [r["id"] for r in seen]
        assert len(ids) == len(set(ids)) and set(made) <= set(ids)
        keys = [(-r["created"], r["id"]) for r in seen]
        assert keys == sorted(keys), "newest first"
        # A change on A (both seats taken: the game starts) reaches B's list.
        room_a = a.rooms[made[2]]
        await room_a.join(0, "Ann")
        await room_a.join(1, "Bob")

        async def b_sees_it_playing() -> bool:
            text, _ = await lists.page(None, 100)
            entry = next(r for r in json.loads(text) if r["id"] == room_a.id)
            return entry["status"] == "playing" and [s["kind"] for s in entry["seats"]] == ["human", "human"]

        await until(b_sees_it_playing)
        assert reads == [], "no request read the database"
    finally:
        await a.close()
        await b.close()


def test_entries_changed_together_go_out_as_one_bus_message(postgres_cluster: str, redis_url: str) -> None:
    """Issue 28: each changed entry was a bus message of its own (about 100 a second at 500
    rooms), read through redis-py by every instance, its own included. The entries an instance
    changes within ``ENTRIES_EVERY`` go out as one message now, and the others list each."""
    asyncio.run(one_message(new_database(postgres_cluster), redis_url))


async def one_message(db: str, redis_url: str) -> None:
    a, b = instance(db, redis_url), instance(db, redis_url)
    await a.open()
    await b.open()
    try:
        rooms = [await a.create("dice", {}, OPEN2) for _ in range(12)]
        lists = LobbyList(b)

        async def b_lists(ids: set[str]) -> bool:
            text, _ = await lists.page(None, 100)
            return ids <= {r["id"] for r in json.loads(text)}

        ids = {room.id for room in rooms}
        await until(lambda: b_lists(ids))
        published: list[dict[str, Any]] = []
        publish = a.bus.publish

        def spy(room_id: str, message: dict[str, Any]) -> None:
            published.append(message)
            publish(room_id, message)

        a.bus.publish = spy  # type: ignore[method-assign]
        for room_id in ids:
            b.elsewhere.pop(room_id)  # B forgets them: only the new message can list them again
        assert not await b_lists(ids)
        for room in rooms:
            a.list_changed(room, now=True)
        await until(lambda: b_lists(ids))
        assert not [m for m in published if m.get("kind") == "entry"], "no entry went out alone"
        batches = [{json.loads(text)["id"] for text in m["entries"]} for m in published if m.get("kind") == "entries"]
        assert any(ids <= batch for batch in batches), "the twelve went out in one message"
    finally:
        await a.close()
        await b.close()
