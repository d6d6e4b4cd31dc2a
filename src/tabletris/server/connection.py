"""One websocket's outbox: what the room sends it, drained by its own task so that a slow client
never holds up a room's broadcast.

The outbox writes through the websocket protocol itself when the server offers it (``Frames``:
``guard.guarded_ws``): everything queued since the last wake-up (the mover's new state and the
ack of their move, say) goes out as frames in one write to the socket, and a write that the
transport takes at once costs no timeout scope and none of the ASGI layers' awaits. The ASGI
send (one message at a time, each under ``send_timeout``) is the fallback."""

from __future__ import annotations

import asyncio
import collections
import contextlib
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Protocol

from tabletris.server.jsontext import dumps


class _Slot:
    """A queued message that a newer one of the same kind replaces (the state, presence)."""

    __slots__ = ("kind", "text")

    def __init__(self, kind: str, text: str) -> None:
        self.kind = kind
        self.text = text


class Frames(Protocol):
    """A websocket's own writer (the server's websocket protocol: ``guard.guarded_ws``)."""

    def write_texts(self, texts: Sequence[str]) -> bool:
        """Write ``texts`` as text frames in one write to the socket; False when the socket's
        buffer is full (nothing written: wait for ``drained``). ConnectionError when closed."""

    async def drained(self) -> None:
        """Until the socket's buffer has drained below its low-water mark."""


class Connection:
    """One websocket: its seat (None for a spectator) and a bounded outbox drained by its own
    task, so a slow client never holds up a room's broadcast.

    States and presence updates coalesce: a connection that has not taken the last state yet
    gets the newest one in its place, so a client that never reads costs one state, not a
    queue of them. Replies (acks, errors) are few; more than ``outbox`` of them waiting, or a
    send that has not gone out after ``send_timeout`` seconds, closes the connection (4408)."""

    def __init__(
        self, send_text: Callable[[str], Any], seat: int | None, outbox: int = 32, send_timeout: float = 10.0,
        frames: Frames | None = None,
    ) -> None:
        self.send_text = send_text
        self.frames = frames
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
        self._loop = asyncio.get_running_loop()
        self._flushing = False
        self._stalled: list[str] | None = None
        """Texts taken but not written (the socket's buffer was full): the task writes them."""
        self.task: asyncio.Task[None] = asyncio.create_task(self._pump())

    def send(self, text: str) -> None:
        if not self.alive:
            return
        if len(self.items) >= self.outbox:
            self.kill(4408, "too many replies waiting: the connection does not read")
            return
        self.items.append(text)
        self._queued()

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
        self._queued()

    def seal(self) -> None:
        """What is queued goes out as it is: a later state or presence queues after it instead
        of taking an older one's place (a socket that follows its rematch gets the old room's
        last state, then the rematch reply, then the new room's state, in that order)."""
        self.slots.clear()

    def _queued(self) -> None:
        """Something was queued: with a frame writer it is written by a callback at the end of
        this turn of the event loop (what the same turn queues goes in the same write), and
        only a full socket buffer hands the writing to the outbox's task; waking the task for
        every state was a task switch per socket per move."""
        if self.frames is None or self._stalled is not None:
            self.wake.set()
        elif not self._flushing:
            self._flushing = True
            self._loop.call_soon(self._flush)

    def _flush(self) -> None:
        self._flushing = False
        if not self.alive or not self.items or self._stalled is not None:
            return
        assert self.frames is not None
        texts = self._take()
        try:
            if self.frames.write_texts(texts):
                return
        except Exception:
            self.kill(1006, "the connection failed")
            return
        self._stalled = texts  # the buffer is full: the task waits for it to drain
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

    def _take(self) -> list[str]:
        """Everything queued, in order (a coalesced slot as its newest text)."""
        texts = []
        for item in self.items:
            if isinstance(item, _Slot):
                if self.slots.get(item.kind) is item:
                    del self.slots[item.kind]
                texts.append(item.text)
            else:
                texts.append(item)
        self.items.clear()
        return texts

    async def _pump(self) -> None:
        while self.alive:
            await self.wake.wait()
            self.wake.clear()
            if self.frames is not None:
                if self.alive and (self._stalled is not None or self.items):
                    texts = (self._stalled or []) + self._take()
                    written = await self._write(texts)
                    self._stalled = None
                    if not written:
                        return
                continue
            while self.alive and self.items:
                item = self.items.popleft()
                if isinstance(item, _Slot):
                    if self.slots.get(item.kind) is item:
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

    async def _write(self, texts: list[str]) -> bool:
        """Write ``texts`` at once through ``frames``; wait (``send_timeout`` at most) while the
        socket's buffer is full. False when the connection ended."""
        assert self.frames is not None
        try:
            while not self.frames.write_texts(texts):
                async with asyncio.timeout(self.send_timeout):
                    await self.frames.drained()
                if not self.alive:
                    return False
        except TimeoutError:
            self.kill(4408, f"nothing was read for {self.send_timeout:g} s")
            return False
        except Exception:
            self.kill(1006, "the connection failed")
            return False
        return True

    async def close(self) -> None:
        self.kill(1000, "")
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self.task, 1.0)




__all__ = ["Connection", "Frames"]
