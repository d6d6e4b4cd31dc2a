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

The moves and presence of a room that no other instance listens to are not published
(``RedisBus.listened``): behind a proxy that routes by room nearly every room is held by one
instance alone, which paid for publishing each move and for hearing it back (issue 28). Redis
answers a publish with the number of its receivers; when that is only this instance, the room
counts as not listened to. An instance that begins to listen to a room says ``hello`` on its
channel once Redis confirmed its subscription; whoever hears it publishes again, and at once the
room's latest facts (``Replica.catch_up``): the newcomer reads back from the database any move it
missed meanwhile. The rare messages (a lease handed on, a room to read back, a chat line) always
go: a newcomer whose hello is still on its way must not miss them.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import secrets
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, NamedTuple, Protocol

from tabletris.server import tasks
from tabletris.server.jsontext import dumps
from tabletris.server.storage_errors import FaultLog

log = logging.getLogger("tabletris.server")


class _Outgoing(NamedTuple):
    room_id: str
    text: str
    epoch: int | None
    """The room's ``_epoch`` when queued; None: the answer's count does not tell who listens."""


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
    def listened(self, room_id: str) -> bool:
        """Whether another instance may hear this room's moves: False, and they are not
        published (``publish`` itself always sends)."""
        ...


HELLO = "hello"
"""The kind of message an instance sends on a room's channel when it begins to listen to it."""


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

    def listened(self, room_id: str) -> bool:
        return False


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
        self.pubsub = self.redis.pubsub()  # its (un)subscribe confirmations are read: ``_confirmation``
        self._out: asyncio.Queue[_Outgoing] = asyncio.Queue()
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
        self._watching: set[str] = set()
        """Rooms this instance listens to (``watch`` without ``unwatch``)."""
        self._pending: dict[str, int] = {}
        """(Un)subscriptions of a room sent whose confirmation has not been read yet."""
        self._epoch: dict[str, int] = {}
        """Watched rooms whose subscription Redis confirmed, nothing pending (a publish sent now
        counts this instance among its receivers), each with when who listens to it may last
        have changed. A publish's count of receivers tells who listens only if no such change
        came between its sending and its answer (the answer comes on another connection)."""
        self._ticks = 0
        self._alone: set[str] = set()
        """Rooms that, as the last counted publish told, only this instance listens to."""

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
        await tasks.stop(*self._tasks)  # the sender, cancelled mid-publish, waited on its queue forever
        with contextlib.suppress(Exception):
            await self.pubsub.aclose()
        with contextlib.suppress(Exception):
            await self.redis.aclose()

    def listened(self, room_id: str) -> bool:
        return room_id not in self._alone

    def publish(self, room_id: str, message: dict[str, Any]) -> None:
        # "from" first: an instance hears its own messages too (it is subscribed to the rooms
        # it publishes about) and drops them by this prefix, without decoding them.
        self._queue(room_id, dumps({"from": self.instance, **message}))

    def _queue(self, room_id: str, text: str) -> None:
        while self._out.qsize() >= MAX_QUEUED:
            self._out.get_nowait()
            self.dropped += 1
        self._out.put_nowait(_Outgoing(room_id, text, self._epoch.get(room_id)))

    async def watch(self, room_id: str) -> None:
        self._watching.add(room_id)
        self._pending[room_id] = self._pending.get(room_id, 0) + 1
        await self.pubsub.subscribe(CHANNEL + room_id)

    async def unwatch(self, room_id: str) -> None:
        self._watching.discard(room_id)
        self._alone.discard(room_id)
        self._epoch.pop(room_id, None)
        self._pending[room_id] = self._pending.get(room_id, 0) + 1
        await self.pubsub.unsubscribe(CHANNEL + room_id)

    def _changed(self, room_id: str) -> None:
        """Who listens to this room may have changed: publishes sent before no longer tell."""
        self._ticks += 1
        self._epoch[room_id] = self._ticks
        self._alone.discard(room_id)

    def _confirmation(self, kind: str, channel: str) -> None:
        """Redis confirmed a (un)subscription. Once a watched room's last one is in, this
        instance's publishes count it among their receivers, and it says ``hello`` there (sent
        after the confirmation, so the others hear it only once this instance hears them). A
        confirmation with none pending is redis-py subscribing again after a lost connection
        (Redis restarted, say): the others may have stopped publishing meanwhile, so it is a
        new hello too."""
        if not channel.startswith(CHANNEL) or channel == CHANNEL + LOBBY:
            return
        room_id = channel[len(CHANNEL):]
        left = max(0, self._pending.pop(room_id, 0) - 1)
        if left:
            self._pending[room_id] = left
        elif kind == "subscribe" and room_id in self._watching:
            self._changed(room_id)
            self._hello(room_id)

    def _hello(self, room_id: str) -> None:
        self._queue(room_id, dumps({"from": self.instance, "kind": HELLO}))

    def _counted(self, sent: Sequence[_Outgoing], receivers: Sequence[Any]) -> None:
        """Read the publishes' answers: a room whose only receiver was this instance is not
        listened to, until someone says ``hello`` there."""
        for out, count in zip(sent, receivers, strict=False):
            if out.epoch is None or self._epoch.get(out.room_id) != out.epoch or not isinstance(count, int):
                continue
            if count <= 1:
                self._alone.add(out.room_id)
            else:
                self._alone.discard(out.room_id)

    def _forget_subscriptions(self) -> None:
        """The subscription broke: redis-py subscribes again, and nothing counted before holds
        (the others may have stopped publishing to this instance: it says hello again)."""
        self._pending.clear()
        self._alone.clear()
        self._epoch.clear()

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
                        receivers = [await self.redis.publish(CHANNEL + batch[0].room_id, batch[0].text)]
                    else:
                        async with self.redis.pipeline(transaction=False) as pipe:
                            for out in batch:
                                pipe.publish(CHANNEL + out.room_id, out.text)
                            receivers = await pipe.execute()
                    break
                except asyncio.CancelledError:
                    raise
                except Exception as e:
                    tries += 1
                    self.faults.failed("publish", "bus: publishing failed; sent again when Redis answers", e)
                    await asyncio.sleep(delay)
                    delay = min(delay * 2, RETRY_MAX)
            self._counted(batch, receivers)
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
                self._forget_subscriptions()
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
            if message is None:
                continue
            kind = message.get("type")
            if kind in ("subscribe", "unsubscribe"):
                self._confirmation(kind, str(message["channel"]))
                continue
            if kind != "message":
                continue
            channel = str(message["channel"])
            if not channel.startswith(CHANNEL):
                continue
            room_id = channel[len(CHANNEL):]
            raw = message["data"]
            if isinstance(raw, str) and raw.startswith(self._own):
                continue
            try:
                data = json.loads(raw)
            except (TypeError, ValueError):
                continue
            if data.get("from") == self.instance:
                continue
            if data.get("kind") == HELLO and room_id in self._epoch:
                self._changed(room_id)  # publish again: someone listens now
            self.received += 1
            try:
                await self._deliver(room_id, data)
            except Exception as e:
                self.faults.failed("apply", "bus: a message about room %s could not be applied", e, room_id)
