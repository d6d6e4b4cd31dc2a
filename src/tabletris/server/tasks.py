"""Stopping the server's own long-running tasks (the bus's loops, the lease loop, Play now's
matching, the lobby's spawned work) when it shuts down."""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

CLOSE_POLL = 0.2
"""Seconds between two cancellations of a task that is still running (``stop``)."""


async def stop(*tasks: asyncio.Task[Any] | None) -> None:
    """Cancel the tasks and wait until each has ended, cancelling it again every ``CLOSE_POLL``
    seconds while it runs. Cancelled in the middle of a command, redis-py (8.2) raises a
    ``ConnectionError`` of its own instead of the cancellation: a loop that lives through
    Redis errors took it for one and went on, and whoever waited for it waited forever (the
    bus's sender, the lease loop: a server's shutdown hung). A task that handles its
    cancellation has ``CLOSE_POLL`` seconds for it before the next one; whatever a task ends
    with is dropped: it is stopping."""
    running = [t for t in tasks if t is not None]
    for task in running:
        task.cancel()
    for task in running:
        while not task.done():
            await asyncio.wait({task}, timeout=CLOSE_POLL)
            task.cancel()
        with contextlib.suppress(BaseException):
            await task


__all__ = ["CLOSE_POLL", "stop"]
