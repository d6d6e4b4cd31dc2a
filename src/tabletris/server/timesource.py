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
_moved: dict[asyncio.AbstractEventLoop, asyncio.Event] = {}
"""Per event loop (a test process may run several servers, each on its own loop): set, and
dropped, each time the clocks move, waking ``sleep_until``'s waiters."""


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
    for loop, moved in list(_moved.items()):
        del _moved[loop]
        if loop is running:
            moved.set()
        else:
            with contextlib.suppress(RuntimeError):  # that loop closed meanwhile
                loop.call_soon_threadsafe(moved.set)
    return _offset


async def sleep_until(when: float) -> None:
    """Wait until wall time ``when`` (``now()``), waking early to look again whenever the clocks
    are moved ahead."""
    loop = asyncio.get_running_loop()
    while (left := when - now()) > 0:
        moved = _moved.get(loop)
        if moved is None:
            moved = _moved[loop] = asyncio.Event()
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(moved.wait(), left)


__all__ = ["advance", "monotonic", "now", "offset", "sleep_until"]
