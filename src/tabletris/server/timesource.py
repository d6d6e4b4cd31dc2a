"""The server's one clock: wall time and monotonic time, which tests may move ahead.

Storage, rooms, the turn clock and the housekeeping read the time here, never from ``time``
directly, so a test can move a real server's time forward (``POST /debug/time``, only on a
server started with ``--debug-time`` and only from this machine) and see a day's deadline pass
without waiting a day. The offset moves both clocks; a task waiting for a wall-clock moment
(``sleep_until``) wakes when time is moved and looks again. Nothing here imports from the rest
of the server: ``storage.py`` and everything above it may import this module.
"""

from __future__ import annotations

import asyncio
import contextlib
import time

_offset = 0.0
"""Seconds added to both clocks (``advance``); 0 outside tests."""
_sleepers: dict[asyncio.AbstractEventLoop, set[asyncio.Future[None]]] = {}
"""Per event loop (a test process may run several servers, each on its own loop): the futures
``sleep_until``'s waiters wait on, woken when their moment comes or the clocks move. A future
and a timer handle per wait, not ``asyncio.wait_for`` on a shared event: a room's turn timer
waits once a turn, and the event's way (an inner task, the event's waiter list, a cancellation
through both at every move) cost 15 us a turn against 6 (uvloop, 500 timers waiting)."""


def now() -> float:
    """Wall time (Unix seconds), as stored with rooms and events and sent as deadlines."""
    return time.time() + _offset


def monotonic() -> float:
    """Monotonic seconds, for idle times and lingering (never goes back, moves with ``advance``)."""
    return time.monotonic() + _offset


def offset() -> float:
    """How far the clocks were moved ahead (``/debug/time`` answers it)."""
    return _offset


def advance(seconds: float) -> float:
    """Move both clocks ``seconds`` ahead (never back: a deadline once passed stays passed) and
    wake every task sleeping until a moment; returns the new offset."""
    global _offset
    if seconds < 0:
        raise ValueError(f"time only moves ahead, not by {seconds} s")
    _offset += seconds
    try:
        running: asyncio.AbstractEventLoop | None = asyncio.get_running_loop()
    except RuntimeError:
        running = None
    for loop in list(_sleepers):
        if loop is running:
            _wake_all(loop)
        else:
            with contextlib.suppress(RuntimeError):  # that loop closed meanwhile
                loop.call_soon_threadsafe(_wake_all, loop)
    return _offset


def _wake(woken: asyncio.Future[None]) -> None:
    if not woken.done():
        woken.set_result(None)


def _wake_all(loop: asyncio.AbstractEventLoop) -> None:
    for woken in list(_sleepers.get(loop, ())):
        _wake(woken)


async def sleep_until(when: float) -> None:
    """Wait until wall time ``when`` (``now()``), waking early to look again whenever the clocks
    are moved ahead."""
    loop = asyncio.get_running_loop()
    while (left := when - now()) > 0:
        woken: asyncio.Future[None] = loop.create_future()
        sleepers = _sleepers.setdefault(loop, set())
        sleepers.add(woken)
        timer = loop.call_later(left, _wake, woken)
        try:
            await woken
        finally:
            timer.cancel()
            sleepers.discard(woken)
            if not sleepers:
                _sleepers.pop(loop, None)  # a closed loop is not kept


__all__ = ["advance", "monotonic", "now", "offset", "sleep_until"]
