"""The server's one clock: wall time and monotonic time, which tests may move ahead.

Storage, rooms, the turn clock and the housekeeping read the time here, never from ``time``
directly, so a test can move a real server's time forward (``POST /debug/time``, only on a
server started with ``--debug-time`` and only from this machine) and see a day's deadline pass
without waiting a day. The offset moves both clocks; whatever waits for a wall-clock moment
(an ``Alarm``, a task in ``sleep_until``) looks again when time is moved. Nothing here imports from the rest
of the server: ``storage.py`` and everything above it may import this module.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable
from functools import partial

_offset = 0.0
"""Seconds added to both clocks (``advance``); 0 outside tests."""
_alarms: dict[asyncio.AbstractEventLoop, set[Alarm]] = {}
"""Per event loop (a test process may run several servers, each on its own loop): the alarms
set and not yet rung, looked at again when the clocks move."""


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
    for loop in list(_alarms):
        if loop is running:
            _look_again(loop)
        else:
            with contextlib.suppress(RuntimeError):  # that loop closed meanwhile
                loop.call_soon_threadsafe(_look_again, loop)
    return _offset


def _look_again(loop: asyncio.AbstractEventLoop) -> None:
    for alarm in list(_alarms.get(loop, ())):
        alarm._look()


class Alarm:
    """A callback at a wall-clock moment (``now()``), which a test's ``advance`` brings forward.

    A room's turn timer is one: set as each turn begins, cancelled by the move, seldom rung. A
    task waiting in ``sleep_until`` instead held a task, two coroutines, a future and a timer
    handle through every turn, which the collector walks while they wait; an alarm is this
    object and a timer handle (``benchmarks/turn_timer.py``)."""

    __slots__ = ("_callback", "_handle", "_loop", "rung", "when")

    def __init__(self, loop: asyncio.AbstractEventLoop, when: float, callback: Callable[[], object]) -> None:
        self._loop = loop
        self.when = when
        self._callback: Callable[[], object] | None = callback
        self._handle: asyncio.TimerHandle | None = None
        self.rung = False
        """Whether it called its callback (an alarm for a moment passed rings in ``call_at``)."""
        _alarms.setdefault(loop, set()).add(self)
        self._look()

    def _look(self) -> None:
        """Ring when the moment has come (the loop's timer may fire a hair early: it counts
        monotonic time), else (re)set the loop's timer for what is left."""
        if self._callback is None:
            return
        if self._handle is not None:
            self._handle.cancel()
        left = self.when - now()
        if left > 0:
            self._handle = self._loop.call_later(left, self._look)
            return
        callback = self._callback
        self.cancel()
        self.rung = True
        callback()

    def cancel(self) -> None:
        """Never ring (again); cancelling twice, or after it rang, does nothing."""
        self._callback = None
        if self._handle is not None:
            self._handle.cancel()
            self._handle = None
        alarms = _alarms.get(self._loop)
        if alarms is not None:
            alarms.discard(self)
            if not alarms:
                del _alarms[self._loop]  # a closed loop is not kept


def call_at(when: float, callback: Callable[[], object]) -> Alarm:
    """Call ``callback`` on the running loop at wall time ``when`` (``now()``; at once, in this
    call, when that has passed)."""
    return Alarm(asyncio.get_running_loop(), when, callback)


def _wake(woken: asyncio.Future[None]) -> None:
    if not woken.done():
        woken.set_result(None)


async def sleep_until(when: float) -> None:
    """Wait until wall time ``when`` (``now()``), coming sooner when the clocks are moved ahead."""
    woken: asyncio.Future[None] = asyncio.get_running_loop().create_future()
    alarm = call_at(when, partial(_wake, woken))
    try:
        await woken
    finally:
        alarm.cancel()


__all__ = ["Alarm", "advance", "call_at", "monotonic", "now", "offset", "sleep_until"]
