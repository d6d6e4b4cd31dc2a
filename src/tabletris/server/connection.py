"""One websocket's outbox: what the room sends it, drained by its own task so that a slow client
never holds up a room's broadcast."""

from __future__ import annotations

import asyncio
import collections
import contextlib
from collections import deque
from collections.abc import Callable, Mapping
from typing import Any

from tabletris.server.jsontext import dumps


class _Slot:
    """A queued message that a newer one of the same kind replaces (the state, presence)."""

    __slots__ = ("kind", "text")

    def __init__(self, kind: str, text: str) -> None:
        self.kind = kind
        self.text = text


class Connection:
    """One websocket: its seat (None for a spectator) and a bounded outbox drained by its own
    task, so a slow client never holds up a room's broadcast.

    States and presence updates coalesce: a connection that has not taken the last state yet
    gets the newest one in its place, so a client that never reads costs one state, not a
    queue of them. Replies (acks, errors) are few; more than ``outbox`` of them waiting, or a
    send that has not gone out after ``send_timeout`` seconds, closes the connection (4408)."""

    def __init__(
        self, send_text: Callable[[str], Any], seat: int | None, outbox: int = 32, send_timeout: float = 10.0
    ) -> None:
        self.send_text = send_text
        self.seat = seat
        self.token: str | None = None
        self.outbox = outbox
        self.send_timeout = send_timeout
        self.items: deque[str | _Slot] = deque()
        self.slots: dict[str, _Slot] = {}
        self.wake = asyncio.Event()
        self.dead = asyncio.Event()
        self.close_code = 1000
        self.close_reason = ""
        self.alive = True
        self.said: collections.deque[float] = collections.deque()
        """When this connection's recent chat lines were sent (the chat rate limit)."""
        self.task: asyncio.Task[None] = asyncio.create_task(self._pump())

    def send(self, text: str) -> None:
        if not self.alive:
            return
        if len(self.items) >= self.outbox:
            self.kill(4408, "too many replies waiting: the connection does not read")
            return
        self.items.append(text)
        self.wake.set()

    def send_latest(self, kind: str, text: str) -> None:
        """Queue ``text`` as the newest message of ``kind``, replacing one not yet sent."""
        if not self.alive:
            return
        slot = self.slots.get(kind)
        if slot is not None:
            slot.text = text
            return
        slot = self.slots[kind] = _Slot(kind, text)
        self.items.append(slot)
        self.wake.set()

    def send_json(self, message: Mapping[str, Any]) -> None:
        self.send(dumps(message))

    def kill(self, code: int, reason: str) -> None:
        if self.alive:
            self.alive = False
            self.close_code = code
            self.close_reason = reason
            self.items.clear()
            self.slots.clear()
        self.dead.set()
        self.wake.set()

    async def _pump(self) -> None:
        while self.alive:
            await self.wake.wait()
            self.wake.clear()
            while self.alive and self.items:
                item = self.items.popleft()
                if isinstance(item, _Slot):
                    del self.slots[item.kind]
                    text = item.text
                else:
                    text = item
                try:
                    # A timeout scope, not ``wait_for``: on Python 3.11 that wraps every send in a
                    # task of its own, which cost more than the send.
                    async with asyncio.timeout(self.send_timeout):
                        await self.send_text(text)
                except TimeoutError:
                    self.kill(4408, f"nothing was read for {self.send_timeout:g} s")
                    return
                except Exception:
                    self.kill(1006, "the connection failed")
                    return

    async def close(self) -> None:
        self.kill(1000, "")
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self.task, 1.0)




__all__ = ["Connection"]
