"""The room bus: how a change to a room reaches the other instances that serve its websockets.

One code path, two implementations. A room always broadcasts to its own connections directly and
then publishes the change here. ``LocalBus`` (one process, the default) has nobody to tell.
``RedisBus`` publishes on a Redis pub/sub channel per room (``tabletris:room:ID``); every
instance that holds the room in its cache subscribes to that channel and brings its copy up to
date from the message (or from the database when it sees a gap), then sends each of its
connections its own view. Messages carry the room's public facts and stored events, never a
seat's private view: each instance renders those itself.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import secrets
from collections.abc import Awaitable, Callable
from typing import Any, Protocol

log = logging.getLogger("tabletris.server")

Deliver = Callable[[str, dict[str, Any]], Awaitable[None]]
"""What an instance does with a message about a room from another instance."""

CHANNEL = "tabletris:room:"
CONTROL = "tabletris:instances"


class Bus(Protocol):
    instance: str
    distributed: bool

    async def start(self, deliver: Deliver) -> None: ...
    async def close(self) -> None: ...
    def publish(self, room_id: str, message: dict[str, Any]) -> None: ...
    async def watch(self, room_id: str) -> None: ...
    async def unwatch(self, room_id: str) -> None: ...


class LocalBus:
    """One instance: every connection of a room is in this process, so there is no one to tell."""

    distributed = False

    def __init__(self) -> None:
        self.instance = secrets.token_hex(6)

    async def start(self, deliver: Deliver) -> None:
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
        import redis.asyncio as aioredis

        self.url = url
        self.instance = secrets.token_hex(6)
        self.redis = aioredis.from_url(url, decode_responses=True)
        self.pubsub = self.redis.pubsub(ignore_subscribe_messages=True)
        self._out: asyncio.Queue[tuple[str, str]] = asyncio.Queue()
        self._tasks: list[asyncio.Task[None]] = []
        self._deliver: Deliver | None = None
        self.published = 0
        self.received = 0

    async def start(self, deliver: Deliver) -> None:
        self._deliver = deliver
        await self.redis.ping()
        await self.pubsub.subscribe(CONTROL)
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
        text = json.dumps({**message, "from": self.instance}, separators=(",", ":"))
        self._out.put_nowait((CHANNEL + room_id, text))

    async def watch(self, room_id: str) -> None:
        await self.pubsub.subscribe(CHANNEL + room_id)

    async def unwatch(self, room_id: str) -> None:
        await self.pubsub.unsubscribe(CHANNEL + room_id)

    async def _send_loop(self) -> None:
        while True:
            channel, text = await self._out.get()
            try:
                await self.redis.publish(channel, text)
                self.published += 1
            except Exception:
                log.exception("publishing on %s failed (other instances reload on the next change)", channel)

    async def _receive_loop(self) -> None:
        assert self._deliver is not None
        while True:
            try:
                message = await self.pubsub.get_message(timeout=1.0)
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("reading the room bus failed; retrying")
                await asyncio.sleep(0.5)
                continue
            if message is None or message.get("type") != "message":
                continue
            channel = str(message["channel"])
            if not channel.startswith(CHANNEL):
                continue
            try:
                data = json.loads(message["data"])
            except (TypeError, ValueError):
                continue
            if data.get("from") == self.instance:
                continue
            self.received += 1
            try:
                await self._deliver(channel[len(CHANNEL):], data)
            except Exception:
                log.exception("a message about room %s could not be applied", channel[len(CHANNEL):])
