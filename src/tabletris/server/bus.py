"""The room bus: how a change to a room reaches the other instances that serve its websockets.

One code path, two implementations. A room always broadcasts to its own connections directly and
then publishes the change here. ``LocalBus`` (one process, the default) has nobody to tell.
``RedisBus`` publishes on a Redis pub/sub channel per room (``tabletris:room:ID``); every
instance that holds the room in its cache subscribes to that channel and brings its copy up to
date from the message (or from the database when it sees a gap), then sends each of its
connections its own view. Messages carry the room's public facts and stored events, never a
seat's private view: each instance renders those itself.

While Redis is down nothing is lost for good: a message that could not be published is sent
again (in order, with backoff) when Redis answers, and an instance whose subscription broke
reads every room it holds back from the database once it is subscribed again (``reconnected``),
which covers what was published while it was not listening. (A change made while Redis was down
was told to nobody: when the next move was a person's on another instance, that person was never
shown their turn.)
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import secrets
from collections.abc import Awaitable, Callable
from typing import Any, Protocol

from tabletris.server.jsontext import dumps
from tabletris.server.storage_errors import FaultLog

log = logging.getLogger("tabletris.server")

Deliver = Callable[[str, dict[str, Any]], Awaitable[None]]
"""What an instance does with a message about a room from another instance."""
Reconnected = Callable[[], Awaitable[None]]
"""What an instance does when its subscription works again after a failure (read its rooms back)."""

RETRY_FIRST = 0.1
"""Seconds before a failed publish (or read) is tried again; doubled up to ``RETRY_MAX``."""
RETRY_MAX = 2.0
MAX_QUEUED = 10_000
"""Messages kept for Redis while it is down; beyond that the oldest go (the receivers see the
gap and read the room back, and they read every room back when they reconnect anyway)."""

PUBLISH_BATCH = 200
"""Messages sent together in one pipeline at most."""

CHANNEL = "tabletris:room:"
CONTROL = "tabletris:instances"
LOBBY = "-lobby"
"""The pseudo-room whose channel carries the lobby list's entries (``Lobby.list_changed``): no
room id is this short."""


REDIS_CONNECTIONS = 64
"""Connections an instance's Redis client opens at most; more calls at once wait for one."""
REDIS_WAIT = 10.0
"""Seconds a call waits for a free connection before it fails."""


def redis_client(url: str) -> Any:
    """An asyncio Redis client whose calls wait for a free connection: redis-py 8's own pool
    holds 100 and refuses the next call at once (MaxConnectionsError), so 500 rooms created
    together failed their lease calls, the renewals among them, and live instances' leases
    were taken over (issue 28)."""
    import redis.asyncio as aioredis

    pool = aioredis.BlockingConnectionPool.from_url(
        url, decode_responses=True, max_connections=REDIS_CONNECTIONS, timeout=REDIS_WAIT
    )
    return aioredis.Redis.from_pool(pool)  # its own pool: closed with the client


class Bus(Protocol):
    instance: str
    distributed: bool

    async def start(self, deliver: Deliver, reconnected: Reconnected | None = None) -> None: ...
    async def close(self) -> None: ...
    def publish(self, room_id: str, message: dict[str, Any]) -> None: ...
    async def watch(self, room_id: str) -> None: ...
    async def unwatch(self, room_id: str) -> None: ...


class LocalBus:
    """One instance: every connection of a room is in this process, so there is no one to tell."""

    distributed = False

    def __init__(self) -> None:
        self.instance = secrets.token_hex(6)

    async def start(self, deliver: Deliver, reconnected: Reconnected | None = None) -> None:
        return None

    async def close(self) -> None:
        return None

    def publish(self, room_id: str, message: dict[str, Any]) -> None:
        return None

    async def watch(self, room_id: str) -> None:
        return None

    async def unwatch(self, room_id: str) -> None:
        return None


class RedisBus:
    """Redis pub/sub, a channel per room. Publishing never waits on the caller's path: messages
    go through one queue and one sender task, so one instance's messages about a room arrive in
    the order it committed them (receivers reload from the database on a gap anyway)."""

    distributed = True

    def __init__(self, url: str) -> None:
        self.url = url
        self.instance = secrets.token_hex(6)
        self._own = '{"from":"' + self.instance + '",'
        self.redis = redis_client(url)
        self.pubsub = self.redis.pubsub(ignore_subscribe_messages=True)
        self._out: asyncio.Queue[tuple[str, str]] = asyncio.Queue()
        self._tasks: list[asyncio.Task[None]] = []
        self._deliver: Deliver | None = None
        self._reconnected: Reconnected | None = None
        self.published = 0
        """Messages published."""
        self.publishes = 0
        """Publishes sent: one message or a pipeline of several (``published`` / this: the batch)."""
        self.received = 0
        self.resent = 0
        """Messages published on a later try (Redis was down at the first)."""
        self.dropped = 0
        """Messages let go while Redis was down (more than ``MAX_QUEUED`` waiting)."""
        self.resyncs = 0
        """Times the subscription came back after a failure (and the rooms were read back)."""
        self.faults = FaultLog(log)

    @property
    def healthy(self) -> bool:
        """Publishing and reading work (as far as the last tries tell)."""
        return not (self.faults.failing & {"publish", "receive"})

    async def start(self, deliver: Deliver, reconnected: Reconnected | None = None) -> None:
        self._deliver = deliver
        self._reconnected = reconnected
        await self.redis.ping()
        await self.pubsub.subscribe(CONTROL, CHANNEL + LOBBY)
        self._tasks = [
            asyncio.create_task(self._send_loop(), name="bus-send"),
            asyncio.create_task(self._receive_loop(), name="bus-receive"),
        ]

    async def close(self) -> None:
        for task in self._tasks:
            task.cancel()
        for task in self._tasks:
            with contextlib.suppress(BaseException):
                await task
        with contextlib.suppress(Exception):
            await self.pubsub.aclose()
        with contextlib.suppress(Exception):
            await self.redis.aclose()

    def publish(self, room_id: str, message: dict[str, Any]) -> None:
        # "from" first: an instance hears its own messages too (it is subscribed to the rooms
        # it publishes about) and drops them by this prefix, without decoding them.
        text = dumps({"from": self.instance, **message})
        while self._out.qsize() >= MAX_QUEUED:
            self._out.get_nowait()
            self.dropped += 1
        self._out.put_nowait((CHANNEL + room_id, text))

    async def watch(self, room_id: str) -> None:
        await self.pubsub.subscribe(CHANNEL + room_id)

    async def unwatch(self, room_id: str) -> None:
        await self.pubsub.unsubscribe(CHANNEL + room_id)

    async def _send_loop(self) -> None:
        """Publish in order. What was queued while the last publish was out goes together, in
        one pipeline (one write to Redis and one read of its answers): a command at a time cost
        a round trip of redis-py's per move, a tenth of a move's CPU on PostgreSQL (issue 28).
        A batch that fails is sent again whole (backoff) before the next: a receiver takes a
        message about events it already has as no change (``Replica.adopt``)."""
        delay = RETRY_FIRST
        while True:
            batch = [await self._out.get()]
            while len(batch) < PUBLISH_BATCH and not self._out.empty():
                batch.append(self._out.get_nowait())
            tries = 0
            while True:
                try:
                    if len(batch) == 1:
                        await self.redis.publish(*batch[0])
                    else:
                        async with self.redis.pipeline(transaction=False) as pipe:
                            for channel, text in batch:
                                pipe.publish(channel, text)
                            await pipe.execute()
                    break
                except asyncio.CancelledError:
                    raise
                except Exception as e:
                    tries += 1
                    self.faults.failed("publish", "bus: publishing failed; sent again when Redis answers", e)
                    await asyncio.sleep(delay)
                    delay = min(delay * 2, RETRY_MAX)
            self.published += len(batch)
            self.publishes += 1
            if tries:
                self.resent += 1
                delay = RETRY_FIRST
                self.faults.recovered("publish", "bus: publishing works again")

    async def _receive_loop(self) -> None:
        assert self._deliver is not None
        delay = RETRY_FIRST
        broken = False
        while True:
            try:
                message = await self.pubsub.get_message(timeout=1.0)
            except asyncio.CancelledError:
                raise
            except Exception as e:
                broken = True
                self.faults.failed("receive", "bus: reading the room bus failed; retrying", e)
                await asyncio.sleep(delay)
                delay = min(delay * 2, RETRY_MAX)
                continue
            if broken:
                # Subscribed again (redis-py resubscribes on reconnecting): what was published
                # while this instance was not listening is read back from the database.
                broken, delay = False, RETRY_FIRST
                self.resyncs += 1
                self.faults.recovered("receive", "bus: the room bus is read again; rooms read back")
                if self._reconnected is not None:
                    try:
                        await self._reconnected()
                    except Exception as e:
                        self.faults.failed("resync", "bus: reading the rooms back failed", e)
            if message is None or message.get("type") != "message":
                continue
            channel = str(message["channel"])
            if not channel.startswith(CHANNEL):
                continue
            raw = message["data"]
            if isinstance(raw, str) and raw.startswith(self._own):
                continue
            try:
                data = json.loads(raw)
            except (TypeError, ValueError):
                continue
            if data.get("from") == self.instance:
                continue
            self.received += 1
            try:
                await self._deliver(channel[len(CHANNEL):], data)
            except Exception as e:
                self.faults.failed("apply", "bus: a message about room %s could not be applied", e, channel[len(CHANNEL):])
