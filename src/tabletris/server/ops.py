"""Operations: the liveness and readiness probes, Prometheus metrics, the garbage-collection
check, and the collector's pacing while serving (docs/deploy.md).

``ops_router`` serves ``/healthz``, ``/readyz``, ``/metrics`` and ``/debug/gc``; the readiness
checks are a dict of named callables (``app.state.ready_checks``), so a component added later
registers its own.
"""

from __future__ import annotations

import asyncio
import gc
import hmac
import logging
import math
import time
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse, Response
from sqlalchemy import text as sql_text
from starlette.exceptions import HTTPException as StarletteHTTPException

from tabletris.server import timesource
from tabletris.server.errors import ActionError
from tabletris.server.guard import client_address
from tabletris.server.lobby import Lobby
from tabletris.server.metrics import CONTENT_TYPE
from tabletris.server.storage import Storage
from tabletris.server.storage_errors import FULL, FaultLog

log = logging.getLogger("tabletris.server")

ReadyCheck = Callable[[], Awaitable[None]]


GC_THRESHOLDS = (700, 10, 1000)
"""The collector's thresholds while serving: CPython's defaults (700, 10, 10) except the last.

A full collection walks every live object and stops the event loop meanwhile: with 500 rooms
(1000 connections and their games) that took 150-300 ms on the 2-core test machine, and with
the default thresholds it came every 2-3 s (whenever the heap had grown by a quarter, which it
does fast while games fill up), so every move in flight waited for it: that was the load
benchmark's 0.5 s p99. A full collection is now considered after 1000 middle-generation ones
instead of 10 (about 7 million allocations, several minutes at that load). The young
generations keep their default sizes: young and middle collections stay a few milliseconds
(larger young generations made them 10-120 ms), and cycles among young objects are still
collected within milliseconds."""


@contextmanager
def paced_gc() -> Iterator[None]:
    """Serve with ``GC_THRESHOLDS``, and move everything alive at start-up (modules, the rooms
    restored from the database) out of the collector's sight: it lives as long as the server, so
    walking it again on every full collection is pure pause. Restored on exit (tests run many
    servers in one process)."""
    old = gc.get_threshold()
    gc.collect()
    gc.freeze()
    gc.set_threshold(*GC_THRESHOLDS)
    try:
        yield
    finally:
        gc.set_threshold(*old)
        gc.unfreeze()


READY_TIMEOUT = 2.0
"""Seconds a readiness check may take: a database slower than that is as good as down to a
player waiting for a move's acknowledgement."""


STORED_FRESH = 1.0
"""Seconds after a commit that stored something during which the database check takes it for
its ``SELECT 1``: the database answered then, and took a write, which says more. A probe (the
proxy's, every 0.5 s per instance) cost an instance 1.3 ms of CPU, 0.8 of it the ``SELECT 1``
through the pool (its ping, the transaction and the statement: four round trips), while moves
were committed every few milliseconds (issue 28). Writes that fail meanwhile still fail the
check at once (``Storage.failing``); an idle instance still asks."""


MIN_FREE_BYTES = 512 * 1024
"""A SQLite database's volume with less free space than this is not ready: the next checkpoint
or WAL frame may not fit (the server said ready while its disk was full)."""


class NotReady(Exception):
    """A readiness check's failure with a name of its own (``reason``: what ``/readyz`` says)."""

    def __init__(self, reason: str, detail: str) -> None:
        super().__init__(detail)
        self.reason = reason


class DatabaseCheck:
    """The database answers ``SELECT 1`` (or stored a write within ``fresh`` seconds:
    ``STORED_FRESH``). For SQLite, also: the file the server opened is still
    the one at its path (a connection keeps working on a deleted or replaced file, and every
    move stored after that would be lost at the next restart), and its volume has
    ``min_free`` bytes free (``storage_full``). On either database: the last write did not fail
    in the last ``storage.FAILURE_FRESH`` seconds with nothing stored since (``storage_full``
    for a full disk, ``storage_failing`` otherwise): ``SELECT 1`` answers on a full disk."""

    def __init__(self, storage: Storage, min_free: int = MIN_FREE_BYTES, fresh: float = STORED_FRESH) -> None:
        self.storage = storage
        self.path = storage.sqlite_path()
        self.min_free = min_free
        self.fresh = fresh
        self.inode: int | None = None

    def remember(self) -> None:
        """Note which file is the database (when the server has opened it)."""
        if self.path is not None:
            self.inode = self.path.stat().st_ino

    async def __call__(self) -> None:
        stored = self.storage.stored_at
        if stored is None or time.monotonic() - stored > self.fresh:
            async with self.storage.engine.connect() as conn:
                await conn.execute(sql_text("SELECT 1"))
        # stat(): FileNotFoundError when the file is gone
        if self.path is not None and self.inode is not None and self.path.stat().st_ino != self.inode:
            raise FileNotFoundError(f"{self.path} was replaced by another file")
        free = self.storage.free_bytes()
        if free is not None and free < self.min_free:
            raise NotReady("storage_full", f"{free} bytes free on the database's volume (at least {self.min_free} wanted)")
        failing = self.storage.failing()
        if failing is not None:
            reason = "storage_full" if failing == FULL else "storage_failing"
            raise NotReady(reason, f"the last write failed ({failing}) and nothing was stored since")


class RedisCheck:
    """Redis answers ``PING``, on a connection of its own: a readiness probe must not queue
    behind the bus's traffic, nor share its failure handling. Not ``required``: Redis down
    makes every instance ``degraded`` (still 200), not unready: it is the same Redis for all
    of them, so failing the probe took the whole pool out of the load balancer at once, while
    each instance still serves its players (moves are stored; the bus catches up when Redis
    is back: bus.py)."""

    required = False

    def __init__(self, url: str) -> None:
        self.url = url
        self.client: Any = None

    async def __call__(self) -> None:
        if self.client is None:
            import redis.asyncio

            self.client = redis.asyncio.Redis.from_url(self.url, socket_connect_timeout=READY_TIMEOUT)
        await self.client.ping()

    async def close(self) -> None:
        if self.client is not None:
            await self.client.aclose()
            self.client = None


def rss_bytes() -> int:
    """This process's resident memory (Linux ``/proc``; 0 elsewhere)."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


def ops_router(
    lobby: Lobby, ready_checks: dict[str, ReadyCheck], metrics_token: str | None, debug_time: bool = False,
) -> APIRouter:
    """The operations routes (none in the OpenAPI document). ``ready_checks``: what ``/readyz``
    asks, by name (the dict is read at each probe). ``metrics_token``: see ``observer``.
    ``debug_time``: serve ``/debug/time`` (tests only: ``tabletris serve --debug-time``)."""
    router = APIRouter()
    probe_faults = FaultLog(log)

    def observer(request: Request) -> bool:
        """Who may read ``/metrics`` and ask for ``/debug/gc``: a client on this machine that
        did not come through a proxy (a proxy on the same machine connects from loopback too,
        but adds a forwarding header), or anyone with ``metrics_token``. Metrics tell how busy
        the server is and when it restarted: not secret, but no business of the players'."""
        if metrics_token is not None:
            given = request.headers.get("authorization", "")
            if hmac.compare_digest(given.encode(), f"Bearer {metrics_token}".encode()):
                return True
        if any(h in request.headers for h in ("x-forwarded-for", "forwarded", "x-real-ip")):
            return False
        return client_address(request.scope) in ("127.0.0.1", "::1")

    @router.get("/healthz", include_in_schema=False)
    async def healthz() -> dict[str, str]:
        """The process is up and its event loop answers (a liveness probe: it checks nothing
        else, so a database outage does not get every instance restarted)."""
        return {"status": "ok"}

    @router.get("/readyz", include_in_schema=False)
    async def readyz() -> JSONResponse:
        """Ready to serve: every required dependency answers (the database a ``SELECT 1``, with
        room to write: ``DatabaseCheck``) within ``READY_TIMEOUT`` seconds; 503 names what
        failed. A check that is not ``required`` (Redis) that fails leaves the instance in the
        pool: 200 ``degraded``, naming it. The reason goes to the log (one line per check and
        10 s), not to the caller."""
        names = list(ready_checks)
        results = await asyncio.gather(
            *(asyncio.wait_for(ready_checks[n](), READY_TIMEOUT) for n in names), return_exceptions=True
        )
        failed: dict[str, str] = {}
        degraded: dict[str, str] = {}
        for name, result in zip(names, results, strict=True):
            if isinstance(result, BaseException):
                reason = (
                    "timeout" if isinstance(result, TimeoutError) else getattr(result, "reason", type(result).__name__)
                )
                (failed if getattr(ready_checks[name], "required", True) else degraded)[name] = reason
                probe_faults.failed(name, "readyz: %s failed", result, name, trace=False)
            else:
                probe_faults.recovered(name, "readyz: %s answers again", name)
        if failed:
            return JSONResponse({"status": "unavailable", "failed": failed, **({"degraded": degraded} if degraded else {})},
                                status_code=503)
        if degraded:
            return JSONResponse({"status": "degraded", "checked": names, "degraded": degraded})
        return JSONResponse({"status": "ready", "checked": names})

    @router.get("/metrics", include_in_schema=False)
    async def metrics(request: Request) -> Response:
        """Prometheus text format (see server/metrics.py); for ``observer``s only, 404 otherwise."""
        if not observer(request):
            raise StarletteHTTPException(404, "Not Found")
        return Response(lobby.metrics.text(), media_type=CONTENT_TYPE)

    @router.post("/debug/gc", include_in_schema=False)
    async def debug_gc(request: Request) -> dict[str, int]:
        """A full garbage collection now, then the process's resident memory and the number of
        container objects the collector tracks, those made since start-up (``paced_gc`` froze
        the rest): the load benchmark's memory check (objects flat while the RSS grows points
        at the allocator or a C library, not at Python objects kept alive). For ``observer``s
        only."""
        if not observer(request):
            raise StarletteHTTPException(404, "Not Found")
        collected = gc.collect()
        return {"collected": collected, "rss_bytes": rss_bytes(), "objects": len(gc.get_objects())}

    @router.post("/debug/time", include_in_schema=False)
    async def debug_time_route(request: Request) -> dict[str, float]:
        """Move the server's clocks ahead by ``{"advance": seconds}`` (``timesource``), then
        sweep the rooms as the housekeeping would: the tests see a day's deadlines and expiries
        pass without waiting a day. Only on a server started with ``--debug-time``, and only for
        ``observer``s (404 otherwise, as if it did not exist)."""
        if not debug_time or not observer(request):
            raise StarletteHTTPException(404, "Not Found")
        try:
            body = await request.json()
            seconds = float(body["advance"])
            if not math.isfinite(seconds) or seconds < 0:
                raise ValueError(seconds)
        except Exception as e:
            raise ActionError("bad_request", f"expected {{\"advance\": seconds (0 or more)}}: {e}") from None
        timesource.advance(seconds)
        await lobby.housekeeping.sweep()
        return {"offset": timesource.offset(), "now": timesource.now()}
    return router


__all__ = ["GC_THRESHOLDS", "MIN_FREE_BYTES", "READY_TIMEOUT", "STORED_FRESH", "DatabaseCheck", "NotReady", "RedisCheck", "ops_router", "paced_gc", "rss_bytes"]
