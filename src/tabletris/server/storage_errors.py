"""How a failed store (or a dependency that is down) is told: what kind of failure it is, and one
log line for it, rate-limited.

A database that is down or a disk that is full fails every write until it comes back: a full
traceback per failed write flooded the log (1,051 in 80 s on a full disk) and said nothing the
first line did not. ``kind`` names the failure as the readiness check and docs/deploy.md name
it; ``FaultLog`` logs the first failure of a kind at once, then at most one line per ``every``
seconds, counting the ones it held back, and one line when it recovers.
"""

from __future__ import annotations

import errno
import logging
import time
from typing import Any

FULL = "full"
"""The disk (or the database's quota) is full: SQLite's ``database or disk is full``,
PostgreSQL's ``disk_full`` (SQLSTATE 53100), ``ENOSPC``."""
UNAVAILABLE = "unavailable"
"""The database (or Redis) does not answer: refused, reset or timed-out connections."""
ERROR = "error"
"""Anything else (a bug, a constraint): logged with its traceback, once per ``every``."""


def _chain(e: BaseException) -> list[BaseException]:
    seen: list[BaseException] = []
    current: BaseException | None = e
    while current is not None and current not in seen and len(seen) < 8:
        seen.append(current)
        orig = getattr(current, "orig", None)  # SQLAlchemy's DBAPIError wraps the driver's
        current = orig if isinstance(orig, BaseException) else current.__cause__ or current.__context__
    return seen


def kind(e: BaseException) -> str:
    """``FULL``, ``UNAVAILABLE`` or ``ERROR`` for a failed store."""
    chain = _chain(e)
    for x in chain:
        text = str(x).lower()
        if (
            "disk is full" in text or "no space left" in text or getattr(x, "sqlstate", None) == "53100"
            or (isinstance(x, OSError) and x.errno in (errno.ENOSPC, errno.EDQUOT))
        ):
            return FULL
    for x in chain:
        if isinstance(x, (ConnectionError, TimeoutError, OSError)):
            return UNAVAILABLE
        if getattr(x, "connection_invalidated", False):
            return UNAVAILABLE
        name = type(x).__name__
        if name in ("ConnectionDoesNotExistError", "CannotConnectNowError", "InterfaceError", "InternalClientError"):
            return UNAVAILABLE
        if name.startswith(("Connection", "Timeout")) or "ConnectionError" in name:
            return UNAVAILABLE
        if getattr(x, "sqlstate", "") and str(getattr(x, "sqlstate", "")).startswith(("08", "57P")):
            return UNAVAILABLE  # connection exceptions, operator intervention (shutdown)
    return ERROR


def first_line(e: BaseException) -> str:
    """The exception's type and first line, short (for a one-line log entry)."""
    text = str(e).strip().splitlines()[0][:200] if str(e).strip() else ""
    return f"{type(e).__name__}: {text}" if text else type(e).__name__


class FaultLog:
    """One log line per kind of failure and ``every`` seconds, and one when it is over."""

    def __init__(self, logger: logging.Logger, every: float = 10.0) -> None:
        self.logger = logger
        self.every = every
        self._last: dict[str, float] = {}
        self._held: dict[str, int] = {}
        self.failing: set[str] = set()
        """The keys whose last outcome was a failure (``recovered`` clears them)."""

    def failed(self, key: str, what: str, e: BaseException, *args: Any, trace: bool = True) -> bool:
        """Log ``what % args`` with the failure's kind and first line, unless a line for
        ``key`` went out less than ``every`` seconds ago (then it is counted); True when logged.
        A failure of kind ``ERROR`` (not an outage) carries its traceback (``trace``)."""
        now = time.monotonic()
        self.failing.add(key)
        last = self._last.get(key)
        if last is not None and now - last < self.every:
            self._held[key] = self._held.get(key, 0) + 1
            return False
        self._last[key] = now
        held = self._held.pop(key, 0)
        failure = kind(e)
        more = f" ({held} more like it in the last {self.every:g} s)" if held else ""
        self.logger.warning(
            what + " [%s] %s%s", *args, failure, first_line(e), more, exc_info=e if failure == ERROR and trace else None
        )
        return True

    def recovered(self, key: str, what: str, *args: Any) -> None:
        """The operation ``key`` worked again: one line if it had been failing."""
        if key in self.failing:
            self.failing.discard(key)
            held = self._held.pop(key, 0)
            self._last.pop(key, None)
            self.logger.warning(what + "%s", *args, f" ({held} failures not logged)" if held else "")


__all__ = ["ERROR", "FULL", "UNAVAILABLE", "FaultLog", "first_line", "kind"]
