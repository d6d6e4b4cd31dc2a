"""A lease holder whose event loop is busy keeps its leases (issue 28 item 2): the renewal runs on
a thread with its own Redis connection, so a long callback on the loop no longer lets the key
expire and another, live instance take the room's bots and timer over."""

from __future__ import annotations

import asyncio
import threading
import time

import pytest
import redis

from tabletris.server.leases import HANDED, HELD, KEY, NOT_HELD, TAKEN_OVER, RedisLeases

TTL = 1.0


def busy(seconds: float) -> None:
    """A CPU-bound callback: holds the event loop (and, between switches, the GIL)."""
    end = time.monotonic() + seconds
    n = 0
    while time.monotonic() < end:
        n += 1


@pytest.mark.asyncio
async def test_a_loop_busy_for_three_ttls_loses_no_lease(redis_url: str) -> None:
    leases = RedisLeases(redis_url, "busy-instance", ttl=TTL)
    rooms = [f"lease-test-{i}-{time.time_ns()}" for i in range(3)]
    other = redis.Redis.from_url(redis_url, decode_responses=True)
    stolen: list[str] = []
    stop = threading.Event()

    def rival() -> None:
        """Another instance, trying to take each lease the way ``acquire`` does."""
        while not stop.is_set():
            for room in rooms:
                if other.set(KEY + room, "rival", nx=True, px=int(TTL * 1000)):
                    stolen.append(room)
            stop.wait(0.05)

    try:
        for room in rooms:
            assert await leases.acquire(room) == HELD
        thread = threading.Thread(target=rival, daemon=True)
        thread.start()
        asyncio.get_running_loop().call_soon(busy, 3 * TTL)
        await asyncio.sleep(0)  # the callback runs here: nothing else on this loop runs for 3 s
        await asyncio.sleep(0)
        stop.set()
        thread.join(5)
        assert stolen == [], "a lease expired while the loop was busy and another instance took it"
        assert [other.get(KEY + room) for room in rooms] == ["busy-instance"] * 3
        assert await leases.renew(rooms) == set(rooms)
        # The rival still cannot take them, and a released lease is no longer renewed.
        rival_leases = RedisLeases(redis_url, "rival", ttl=TTL)
        try:
            assert await rival_leases.acquire(rooms[0]) == NOT_HELD
            await leases.release(rooms[0])
            assert await rival_leases.acquire(rooms[0]) != NOT_HELD
        finally:
            await rival_leases.close()
    finally:
        stop.set()
        await leases.close()
        other.delete(*(KEY + room for room in rooms))
        other.close()


@pytest.mark.asyncio
async def test_hundreds_of_lease_calls_at_once_wait_for_a_connection_instead_of_failing(redis_url: str) -> None:
    """Issue 28: with redis-py 8 a client's pool holds 100 connections and refused the 101st
    call at once (MaxConnectionsError): 500 rooms created together failed their lease calls,
    the renewals with them, and 21 leases were taken over from a live instance in one load run.
    The calls now wait for a free connection."""
    leases = RedisLeases(redis_url, "crowded-instance", ttl=TTL)
    try:
        rooms = [f"crowd-{i}" for i in range(300)]
        taken = await asyncio.gather(*(leases.acquire(room) for room in rooms))
        assert taken == [HELD] * len(rooms)
        assert await leases.renew(rooms) == set(rooms)
        await asyncio.gather(*(leases.release(room) for room in rooms))
    finally:
        await leases.close()


@pytest.mark.asyncio
async def test_a_lease_let_go_is_no_takeover_and_one_left_to_expire_is(redis_url: str) -> None:
    """A lease released on purpose (the room left the holder's memory, the instance stopped) is
    taken by the next instance as a free one: before, every room of an instance that stopped
    gracefully was counted and logged as taken over (about 90 at the end of each two-instance
    load run), the same as those of one that died. A hand-off is told apart too, and a lease
    whose holder stopped renewing it is still a takeover."""
    first = RedisLeases(redis_url, "first-instance", ttl=TTL)
    second = RedisLeases(redis_url, "second-instance", ttl=TTL)
    stamp = time.time_ns()
    released, handed, expired = (f"let-go-{kind}-{stamp}" for kind in ("released", "handed", "expired"))
    try:
        for room in (released, handed, expired):
            assert await first.acquire(room) == HELD
            assert await second.acquire(room) == NOT_HELD
        await first.release(released)
        assert await first.hand_off(handed)
        await first.close()  # stops renewing ``expired``, as a dead instance would
        assert await second.acquire(released) == HELD
        assert await second.acquire(handed) == HANDED
        deadline = time.monotonic() + 10 * TTL
        while (got := await second.acquire(expired)) == NOT_HELD:
            assert time.monotonic() < deadline, "the lease never expired"
            await asyncio.sleep(0.05)
        assert got == TAKEN_OVER
    finally:
        await second.close()


@pytest.mark.asyncio
async def test_renewing_many_leases_is_one_script_call_that_skips_the_lost_ones(redis_url: str) -> None:
    """Issue 28: the renewal was a pipeline of one script call per room, on the loop and on the
    renewal thread, each built and read by redis-py (by py-spy, 2% of two instances' CPU per
    move at 500 rooms). It is one call for all of them now, and still tells a lease another
    instance holds (or nobody does) from the ones this instance keeps."""
    leases = RedisLeases(redis_url, "many-instance", ttl=5.0)
    other = redis.Redis.from_url(redis_url, decode_responses=True)
    stamp = time.time_ns()
    rooms = [f"many-{stamp}-{i}" for i in range(300)]
    calls: list[int] = []
    renew = leases._renew

    async def counted(*args: object, **kwargs: object) -> object:
        calls.append(len(kwargs.get("keys") or ()))  # type: ignore[arg-type]
        return await renew(*args, **kwargs)

    try:
        assert await asyncio.gather(*(leases.acquire(room) for room in rooms)) == [HELD] * len(rooms)
        other.set(KEY + rooms[7], "rival", px=5000)  # taken by another instance meanwhile
        other.delete(KEY + rooms[8])  # expired
        other.pexpire(KEY + rooms[9], 2000)  # about to expire
        leases._renew = counted  # type: ignore[method-assign]
        kept = await leases.renew(rooms)
        assert calls == [len(rooms)]
        assert kept == set(rooms) - {rooms[7], rooms[8]}
        assert other.get(KEY + rooms[7]) == "rival"
        assert other.pttl(KEY + rooms[9]) > 3000, "the renewal extended the lease"
    finally:
        await leases.close()
        other.delete(*(KEY + room for room in rooms))
        other.close()
