"""Two lobbies (two instances' worth of rooms) in one process, on one PostgreSQL database and one
Redis: a copy kept by the instance that does not run the room follows it over the bus, leaves
memory when idle, and is read back from the database on the next request, where it plays on."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import random
import time
from collections.abc import AsyncIterator, Iterable
from typing import Any
from unittest import mock

from server_helpers import dice_moves, tower_moves, until
from services import new_database
from tabletris.server.bus import RedisBus
from tabletris.server.leases import RedisLeases
from tabletris.server.limits import Limits
from tabletris.server.lobby import Lobby
from tabletris.server.rooms import Room
from tabletris.server.storage import Storage

SMALL = {"width": 5, "height": 6}


def lobby(db: str, redis_url: str, ttl: float = 2.0) -> Lobby:
    bus = RedisBus(redis_url)
    return Lobby(Storage(db), bot_delay=0, limits=Limits.unlimited_clients(),
                 bus=bus, leases=RedisLeases(redis_url, bus.instance, ttl=ttl))


@contextlib.asynccontextmanager
async def two_instances(db: str, redis_url: str) -> AsyncIterator[tuple[Lobby, Lobby]]:
    """Two open lobbies on one database and one Redis, closed after the block."""
    a, b = lobby(db, redis_url), lobby(db, redis_url)
    await a.open()
    await b.open()
    try:
        yield a, b
    finally:
        await a.close()
        await b.close()


async def timed_tower_room(lobby: Lobby) -> Room:
    """A two-seat tower room with a 60 s turn timer, both seats taken: its first round in play."""
    room = await lobby.create("tower", {}, [{"kind": "open"}, {"kind": "open"}], timer=60)
    for i in range(2):
        await room.join(i, f"P{i}")
    return room


def test_an_idle_copy_leaves_memory_and_is_read_back_where_it_plays_on(postgres_cluster: str, redis_url: str) -> None:
    db = new_database(postgres_cluster)

    async def scenario() -> None:
        async with two_instances(db, redis_url) as (a, b):
            room = await a.create("dice", SMALL, [{"kind": "open"}, {"kind": "open"}])
            tokens = [(await room.join(i, f"P{i}"))[1] for i in range(2)]
            copy = await b.find(room.id)
            assert room.runs_clock and not copy.runs_clock, "the creating instance holds the lease"

            def mover(r: Any) -> int:
                return next(s for s in range(2) if (r.state(s)["private"] or {}).get("options"))

            seat = mover(room)
            await room.act(seat, dice_moves(room.state(seat))[0])
            await until(lambda: len(copy.events) == len(room.events) == 1)
            assert copy.state(seat)["game"] == room.state(seat)["game"], "the copy followed over the bus"

            b.housekeeping.idle_evict = 0.0
            copy.touched -= 1
            assert room.id in await b.housekeeping.sweep()
            assert room.id not in b.rooms, "the idle copy left memory"

            again = await b.find(room.id)  # read back from the database
            assert again is not copy and len(again.events) == 1
            seat = mover(again)
            assert again.authenticate(tokens[seat]) == seat
            seq = await again.act(seat, dice_moves(again.state(seat))[0])
            assert seq == 2
            await until(lambda: len(room.events) == 2)
            assert room.state(seat)["game"] == again.state(seat)["game"]

    asyncio.run(scenario())


def test_a_copy_applies_the_other_instances_moves_to_its_game_without_replaying_it(
    postgres_cluster: str, redis_url: str
) -> None:
    """Each remote move is applied to the copy's own game (the same object, one move's work);
    it was replayed from the start for every move. The copy stays the game the database holds."""
    db = new_database(postgres_cluster)

    async def scenario() -> None:
        async with two_instances(db, redis_url) as (a, b):
            for game, moves_of in (("dice", dice_moves), ("tower", tower_moves)):
                room = await a.create(game, {}, [{"kind": "open"}, {"kind": "open"}])
                for i in range(2):
                    await room.join(i, f"P{i}")
                with mock.patch.object(room.replica, "catch_up", wraps=room.replica.catch_up) as heard_b:
                    copy = await b.find(room.id)
                    # B listens once A heard its hello: a move made before may be missed, and B
                    # would read the room back (test_a_copy_that_begins_to_listen_catches_up...)
                    await until(lambda h=heard_b: h.called)
                assert not copy.runs_clock
                followed = copy.game
                assert followed is not None
                for _ in range(6):
                    if room.game is None or room.game.over:
                        break
                    for seat in room.table.to_act() if room.table is not None else []:
                        await room.act(seat, random.Random(len(room.events)).choice(moves_of(room.state(seat))))
                    await until(lambda c=copy, r=room: len(c.events) == len(r.events))
                    assert copy.game is followed, f"{game}: the copy's game was extended, not rebuilt"
                    for seat in range(2):
                        assert copy.state(seat)["game"] == room.state(seat)["game"]
                assert len(room.events) >= 4
                stored = await b.storage.load_room(room.id)
                assert stored is not None and stored.start is not None
                rebuilt = copy.adapter.rebuild(stored.start, [json.loads(e) for e in stored.events])
                assert copy.adapter.record(followed) == copy.adapter.record(rebuilt)

    asyncio.run(scenario())


def test_tower_choices_made_on_either_instance_are_the_game_s_towers(postgres_cluster: str, redis_url: str) -> None:
    """A seat's tower choice is stored with the seat: a player who chose on one instance keeps
    the tower when the game starts on the other (it was lost: choices lived in one memory)."""
    db = new_database(postgres_cluster)

    async def scenario() -> None:
        async with two_instances(db, redis_url) as (a, b):
            room = await a.create("tower", {}, [{"kind": "open"}, {"kind": "open"}, {"kind": "random", "tower": "3a"}])
            copy = await b.find(room.id)
            await copy.join(0, "Far", tower="2b")
            await until(lambda: room.seats[0].kind == "human")
            await room.join(1, "Near")  # the last seat, on the other instance: the game starts here
            await until(lambda: copy.status == "playing" and copy.game is not None)
            for r in (room, copy):
                layouts = [t["layout"] for t in r.state(None)["game"]["towers"]]
                assert layouts[0] == "2b" and layouts[2] == "3a"

    asyncio.run(scenario())


def test_a_tower_round_keeps_one_deadline_on_both_instances_while_its_seats_submit(
    postgres_cluster: str, redis_url: str
) -> None:
    """Every instance shows the round's deadline, and a seat's submission (a stored change)
    does not move it: it moved on the instance without the lease, which recomputed it from the
    newest change."""
    db = new_database(postgres_cluster)

    async def scenario() -> None:
        async with two_instances(db, redis_url) as (a, b):
            room = await timed_tower_room(a)
            copy = await b.find(room.id)
            assert room.runs_clock and not copy.runs_clock
            await until(lambda: copy.game is not None and copy.deadline is not None)
            deadline = room.deadline
            assert deadline is not None and copy.deadline == deadline
            first = len(room.events)
            await room.act(0, random.Random(0).choice(tower_moves(room.state(0))))
            await until(lambda: len(copy.events) == first + 1)
            copy.schedule()
            assert room.deadline == deadline and copy.deadline == deadline

    asyncio.run(scenario())


def test_an_instance_that_reads_a_tower_room_back_keeps_the_rounds_deadline(
    postgres_cluster: str, redis_url: str
) -> None:
    """A room read back from the database after a seat's submission keeps the round's deadline.
    The deadline came from the room's last stored change, so the clock restarted from the
    submission on the instance that took the room over."""
    db = new_database(postgres_cluster)

    async def scenario() -> None:
        async with two_instances(db, redis_url) as (a, _b):
            room = await timed_tower_room(a)
            await until(lambda: room.game is not None and room.deadline is not None)
            deadline = room.deadline
            await asyncio.sleep(0.3)  # the submission is stored well after the round began
            await room.act(0, random.Random(0).choice(tower_moves(room.state(0))))
            assert room.deadline == deadline
            fresh = lobby(db, redis_url)  # an instance that never held the room
            await fresh.open()
            try:
                copy = await fresh.find(room.id)
                await until(lambda: copy.game is not None)
                copy.schedule()
                assert copy.deadline == deadline
            finally:
                await fresh.close()

    asyncio.run(scenario())


def test_a_copy_that_begins_to_listen_catches_up_with_the_moves_nobody_published(
    postgres_cluster: str, redis_url: str
) -> None:
    """An instance alone with a room publishes nothing about it (issue 28). Another instance
    that reads the room and subscribes may miss a move made in between; its hello brings the
    room's latest facts, and it reads the room back. Here its hello is held back while a move is
    made, so the move is certainly missed."""
    db = new_database(postgres_cluster)

    async def scenario() -> None:
        async with two_instances(db, redis_url) as (a, b):
            assert isinstance(a.bus, RedisBus) and isinstance(b.bus, RedisBus)
            room = await a.create("dice", {}, [{"kind": "open"}, {"kind": "open"}])
            for i in range(2):
                await room.join(i, f"P{i}")

            async def move() -> None:
                seat = next(s for s in range(2) if (room.state(s)["private"] or {}).get("options"))
                await room.act(seat, dice_moves(room.state(seat))[0])

            end = time.monotonic() + 20
            while a.bus.listened(room.id):
                assert time.monotonic() < end, "A never learnt that nobody else listens"
                await move()
                await asyncio.sleep(0.02)

            def sent() -> int:  # published, or queued to be (a move queues its message before act returns)
                assert isinstance(a.bus, RedisBus)
                return a.bus.published + a.bus._out.qsize()

            before = sent()
            await move()
            assert sent() == before, "the move was not published: nobody listened"

            held: list[str] = []
            with mock.patch.object(b.bus, "_hello", side_effect=held.append):
                copy = await b.find(room.id)
                await until(lambda: held == [room.id])
                before = sent()
                await move()
                assert sent() == before, "A has not heard B: the move is not published"
                assert len(copy.events) == len(room.events) - 1, "the copy missed the move made before its hello"
            b.bus._hello(room.id)
            await until(lambda: len(copy.events) == len(room.events))
            for seat in range(2):
                assert copy.state(seat)["game"] == room.state(seat)["game"], "the copy read the room back"
            await until(lambda: a.bus.listened(room.id))
            await move()
            await until(lambda: len(copy.events) == len(room.events))
            assert copy.state(0)["game"] == room.state(0)["game"], "and follows the next move over the bus"

    asyncio.run(scenario())


def test_a_new_room_runs_its_clock_only_once_its_lease_is_held(
    postgres_cluster: str, redis_url: str, caplog: Any,
) -> None:
    """A new room joined the cache running its clock while its lease was still being taken: the
    lease loop, renewing in between, found it without a lease, logged "lease lost; another
    instance runs its bots and timer" (with no other instance) and stopped its clock (1-3 times a
    load run, the rematches). The lease is taken before the room is made now."""
    db = new_database(postgres_cluster)

    async def scenario() -> None:
        one = lobby(db, redis_url)
        await one.open()
        try:
            taking, go = asyncio.Event(), asyncio.Event()
            acquire = one.leases.acquire

            async def slow_acquire(room_id: str) -> int:
                if not taking.is_set():  # the new room's; the lease loop's own tries go on
                    taking.set()
                    await go.wait()
                return await acquire(room_id)

            one.leases.acquire = slow_acquire  # type: ignore[method-assign]
            creating = asyncio.create_task(one.create("dice", SMALL, [{"kind": "open"}, {"kind": "random"}]))
            await asyncio.wait([asyncio.ensure_future(taking.wait()), creating], timeout=30,
                               return_when=asyncio.FIRST_COMPLETED)
            assert taking.is_set(), creating.exception() if creating.done() else "the room's lease was never asked for"
            await asyncio.wait_for(one.housekeeping.tend_leases(scan=False), 30)  # a tick while the lease is taken
            go.set()
            room = await creating
            assert room.runs_clock
            one.leases.acquire = acquire  # type: ignore[method-assign]
            await one.housekeeping.tend_leases(scan=False)
            assert room.runs_clock, "the lease is renewed"
        finally:
            await one.close()

    with caplog.at_level(logging.WARNING, logger="tabletris.server"):
        asyncio.run(scenario())
    assert not [r.getMessage() for r in caplog.records if "lease lost" in r.getMessage()]


def test_a_lobby_closed_while_its_lease_loop_talks_to_redis_closes(postgres_cluster: str, redis_url: str) -> None:
    """Cancelled in the middle of a command, redis-py (8.2) raises a ``ConnectionError`` of its
    own instead; the lease loop, which lives through Redis errors, took it for one and slept on,
    and closing the lobby (a server's shutdown) waited for it forever. Closed at moments when the
    loop is renewing leases, the lobby closes."""
    db = new_database(postgres_cluster)

    async def close_while_renewing(after: float) -> None:
        one = lobby(db, redis_url, ttl=0.06)  # the lease loop ticks every 20 ms
        await one.open()
        closing: asyncio.Task[None] | None = None
        try:
            await one.create("dice", SMALL, [{"kind": "open"}, {"kind": "random"}])
            renew = one.leases.renew

            async def renew_on(room_ids: Iterable[str]) -> set[str]:  # each tick spends its time in Redis calls
                ids = list(room_ids)
                kept: set[str] = set()
                for _ in range(20):
                    kept = await renew(ids)
                return kept

            one.leases.renew = renew_on  # type: ignore[method-assign]
            await asyncio.sleep(after)
            closing = asyncio.create_task(one.close())
            done, _ = await asyncio.wait({closing}, timeout=5)
            assert done, f"the lobby did not close (closed {after:.3f} s after its room was made)"
        finally:
            if closing is None:
                await one.close()

    for k in range(12):
        asyncio.run(close_while_renewing(0.02 + 0.011 * k))
