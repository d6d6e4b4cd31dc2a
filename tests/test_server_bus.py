"""The room bus between instances (``server/bus.py``) on a real Redis: what one instance
publishes reaches the others whole, once and in its order, also when it publishes faster than
Redis answers (the messages queued meanwhile go out together, in one pipeline)."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import time
from collections.abc import AsyncIterator, Callable
from functools import partial
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from server_helpers import until
from tabletris.server.bus import HELLO, RedisBus


async def _heard(redis_url: str, bursts: list[int]) -> tuple[list[tuple[str, int]], RedisBus]:
    """Instance A publishes ``bursts`` (that many messages at once, then a pause for each)
    about two rooms; what instance B hears, and A's bus."""
    a, b = RedisBus(redis_url), RedisBus(redis_url)
    heard: list[tuple[str, int]] = []

    async def deliver(room: str, data: dict[str, Any]) -> None:
        if data["kind"] != HELLO:  # A saying it listens to the room now
            heard.append((room, int(data["n"])))

    async def nothing(room: str, data: dict[str, Any]) -> None:
        if data["kind"] != HELLO:
            raise AssertionError(f"an instance heard its own message about {room}")

    await a.start(nothing)
    await b.start(deliver)
    try:
        for room in ("r-one", "r-two"):
            await a.watch(room)  # A hears its own messages too, and drops them unread
            await b.watch(room)
        n = 0
        for size in bursts:
            for _ in range(size):
                a.publish("r-one" if n % 3 else "r-two", {"kind": "test", "n": n})
                n += 1
            await asyncio.sleep(0)
        deadline = time.monotonic() + 20
        while len(heard) < n and time.monotonic() < deadline:
            await asyncio.sleep(0.01)
        await asyncio.sleep(0.05)  # anything more (a message twice) would come now
        return heard, a
    finally:
        await a.close()
        await b.close()


def test_a_burst_of_messages_arrives_once_each_in_order_and_goes_out_in_pipelines(redis_url: str) -> None:
    heard, a = asyncio.run(_heard(redis_url, [500]))
    assert [n for _, n in heard] == list(range(500)), "each message once, in the order published"
    assert all(room == ("r-one" if n % 3 else "r-two") for room, n in heard), "each on its room's channel"
    assert a.published == 500 + 2, "the burst and A's hello on each room"
    assert a.publishes < 100, f"a burst goes out in pipelines, not {a.publishes} publishes"


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.integers(min_value=1, max_value=40), min_size=1, max_size=12))
def test_any_bursts_arrive_once_each_in_order(redis_url: str, bursts: list[int]) -> None:
    heard, a = asyncio.run(_heard(redis_url, bursts))
    assert [n for _, n in heard] == list(range(sum(bursts)))
    assert a.published == sum(bursts) + 2 and 1 <= a.publishes <= a.published


@contextlib.asynccontextmanager
async def _two_buses(redis_url: str) -> AsyncIterator[tuple[RedisBus, RedisBus, list[dict[str, Any]], list[dict[str, Any]]]]:
    """Two instances' buses, started, each with the list of every message it heard; closed after."""
    a, b = RedisBus(redis_url), RedisBus(redis_url)
    heard_a: list[dict[str, Any]] = []
    heard_b: list[dict[str, Any]] = []

    async def into(heard: list[dict[str, Any]], room: str, data: dict[str, Any]) -> None:
        heard.append(data)

    await a.start(partial(into, heard_a))
    await b.start(partial(into, heard_b))
    try:
        yield a, b, heard_a, heard_b
    finally:
        await a.close()
        await b.close()


def _publisher(bus: RedisBus, room: str) -> Callable[[], bool]:
    """A check for ``_until``: ``bus`` publishes one more test message about ``room``; true once
    it learned that only it listens there."""
    numbers = itertools.count(1)

    def publish() -> bool:
        bus.publish(room, {"kind": "test", "n": next(numbers)})
        return not bus.listened(room)

    return publish


def test_a_room_nobody_else_listens_to_is_not_listened_to_until_someone_says_hello(redis_url: str) -> None:
    """Behind a proxy that routes by room, one instance alone listens to nearly every room; it
    published each move and heard it back, for nobody (issue 28). Once Redis answers that only
    this instance received a room's message, the room is not listened to (its moves are not
    published: ``Replica.broadcast``); an instance that begins to listen says hello, and it is
    listened to again; when that instance stops, it is not again."""

    async def scenario() -> None:
        async with _two_buses(redis_url) as (a, b, heard_a, heard_b):
            await a.watch("r-alone")
            publish = _publisher(a, "r-alone")
            await until(publish, what="A to learn that nobody else listens")
            sent = a.published + a._out.qsize()
            for _ in range(20):
                assert publish(), "nobody listens, and nothing counted since says otherwise"
            assert a.published + a._out.qsize() == sent + 20, "publish itself sends (a lease handed on, a chat line)"

            await b.watch("r-alone")
            await until(lambda: any(d["kind"] == HELLO for d in heard_a), what="A to hear B's hello")
            assert a.listened("r-alone"), "someone listens again: A publishes"
            a.publish("r-alone", {"kind": "test", "n": -1})
            await until(lambda: any(d.get("n") == -1 for d in heard_b), what="B to hear A's next message")

            await b.unwatch("r-alone")
            await until(publish, what="A to learn that B stopped listening")
            assert a.listened("r-other-room"), "a room never counted is listened to"

    asyncio.run(scenario())


def test_an_instance_whose_subscription_broke_says_hello_again_once_subscribed_again(redis_url: str) -> None:
    """While an instance's subscription is broken (Redis restarted, its connection dropped), the
    others' publishes count only themselves, and they stop publishing the room's moves to it.
    redis-py subscribes again by itself; the instance must then say hello again, or the others
    would never publish to it again. Here Redis drops A's subscribing connection alone (``CLIENT
    KILL``): B, which holds the room, learns that only it listens, and A's hello on being
    subscribed again makes B publish to it once more."""

    async def scenario() -> None:
        async with _two_buses(redis_url) as (a, b, heard_a, heard_b):

            def hellos_to_b() -> int:
                return sum(1 for d in heard_b if d["kind"] == HELLO)

            await b.watch("r-held")
            await a.watch("r-held")
            await until(lambda: hellos_to_b() == 1, what="B to hear A's first hello")
            b.publish("r-held", {"kind": "test", "n": 0})
            await until(lambda: any(d.get("n") == 0 for d in heard_a), what="A to hear B's first message")

            host, port = a.pubsub.connection._writer.get_extra_info("sockname")[:2]
            assert await b.redis.client_kill_filter(_type="pubsub", addr=f"{host}:{port}") == 1
            publish = _publisher(b, "r-held")
            # A's receive loop waits RETRY_FIRST (0.1 s) before it reads (and subscribes) again
            await until(publish, what="B to count only itself while A is not subscribed")
            await until(lambda: hellos_to_b() == 2, what="A to say hello again, subscribed again")
            assert b.listened("r-held"), "A said it listens: B publishes the room's moves"
            b.publish("r-held", {"kind": "test", "n": -1})
            await until(lambda: any(d.get("n") == -1 for d in heard_a), what="A to hear B's next message")

    asyncio.run(scenario())


def test_a_bus_closed_while_it_publishes_closes(redis_url: str) -> None:
    """Closing the bus cancels its sender; cancelled in the middle of a publish, redis-py can
    let the task go on, which then waited on its empty queue forever, and the app's close (a
    server's shutdown) with it (5 of these 20 closes hung). Closed at every moment of a stream
    of publishes, the bus closes."""

    async def close_while_publishing(after: int) -> None:
        bus = RedisBus(redis_url)

        async def deliver(room: str, data: dict[str, Any]) -> None:
            return None

        await bus.start(deliver)
        for n in range(200):
            bus.publish("r-close", {"kind": "test", "n": n})
        for _ in range(after):  # the sender gets somewhere in its publishes
            await asyncio.sleep(0)
        closing = asyncio.create_task(bus.close())
        done, _ = await asyncio.wait({closing}, timeout=10)
        assert done, f"the bus did not close (closed after {after} turns of the loop)"

    for after in range(0, 60, 3):
        asyncio.run(close_while_publishing(after))
