"""The room bus between instances (``server/bus.py``) on a real Redis: what one instance
publishes reaches the others whole, once and in its order, also when it publishes faster than
Redis answers (the messages queued meanwhile go out together, in one pipeline)."""

from __future__ import annotations

import asyncio
import time
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tabletris.server.bus import RedisBus


async def _heard(redis_url: str, bursts: list[int]) -> tuple[list[tuple[str, int]], RedisBus]:
    """Instance A publishes ``bursts`` (that many messages at once, then a pause for each)
    about two rooms; what instance B hears, and A's bus."""
    a, b = RedisBus(redis_url), RedisBus(redis_url)
    heard: list[tuple[str, int]] = []

    async def deliver(room: str, data: dict[str, Any]) -> None:
        heard.append((room, int(data["n"])))

    async def nothing(room: str, data: dict[str, Any]) -> None:
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
    assert a.published == 500
    assert a.publishes < 100, f"a burst goes out in pipelines, not {a.publishes} publishes"


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.integers(min_value=1, max_value=40), min_size=1, max_size=12))
def test_any_bursts_arrive_once_each_in_order(redis_url: str, bursts: list[int]) -> None:
    heard, a = asyncio.run(_heard(redis_url, bursts))
    assert [n for _, n in heard] == list(range(sum(bursts)))
    assert a.published == sum(bursts) and 1 <= a.publishes <= a.published
