"""Prometheus metrics of one server instance (``prometheus-client``), served at ``/metrics``.

Every app owns a ``Metrics`` with its own ``CollectorRegistry``: the tests start many apps in
one process, and metrics in the library's global registry would add up across them (and refuse
a second registration of the same name). The lobby holds the app's ``Metrics`` as
``lobby.metrics``; code that counts something reaches it there
(``room.lobby.metrics.moves.labels(game=room.game_name).inc()``).

What costs nothing to keep is counted where it happens (moves, their latency, lease
takeovers); what the lobby already knows (rooms, connections, bots thinking) is read from it when
Prometheus scrapes, so no hot path pays for it and it can never drift from the truth.

Names (all prefixed ``tabletris_``):

- ``rooms{state="live"|"finished"}``: rooms in this instance's memory, playing or waiting /
  ended and not yet let go (``finished_linger``; the database serves them afterwards);
- ``connections``: open websockets (players and spectators);
- ``moves_total{game}``: moves this instance committed (people's, bots', the timer's);
- ``move_seconds``: histogram, a move's time from its arrival (``Room.act``) to its commit in the
  database (the lock wait for its room included), i.e. what a player's acknowledgement waits for;
- ``bot_queue``: bot and timer moves scheduled and not yet played (waiting out the bot delay or
  thinking);
- ``lease_takeovers_total``: rooms whose bot/timer lease this instance took over from another
  instance that stopped renewing it (multi-instance setups);
- ``lease_handoffs_total``: rooms whose lease this instance handed on to the instance serving
  the room's websockets (it served none of them: a room created here that the proxy routes to
  another instance);
- ``store_commits_total``, ``store_events_total``, ``store_gathered_total``: the storage's
  commits, the event rows they wrote (moves and rolls), and the commits that waited for more
  writes (group commit: ``storage.COMMIT_DELAY``); events per commit says how well the writes
  share their commits, the figure to tune ``serve --commit-delay`` by (read from the storage's
  own counts at scrape time);
- ``instance_info{instance, pid, version, database}``: which process this is;
- the library's ``process_*`` (RSS, CPU, open files) and ``python_gc_*`` collectors.
"""

from __future__ import annotations

import os
import socket
from collections.abc import Callable, Collection, Iterator, Mapping
from importlib.metadata import PackageNotFoundError, version
from typing import Any

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    Info,
    gc_collector,
    generate_latest,
    platform_collector,
    process_collector,
)
from prometheus_client.core import CounterMetricFamily
from prometheus_client.registry import Collector

MOVE_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0)
"""Seconds: a commit on an idle server takes about a millisecond, the target at 500 rooms is
p99 < 100 ms, and anything past a few seconds is an outage, not latency."""

CONTENT_TYPE = CONTENT_TYPE_LATEST


def _package_version() -> str:
    try:
        return version("tabletris")
    except PackageNotFoundError:  # pragma: no cover - running from a source tree without install
        return "unknown"


def instance_name(port: int | None = None) -> str:
    """``$TABLETRIS_INSTANCE`` if set (systemd's ``%i``), else ``host:port`` or ``host:pid``."""
    named = os.environ.get("TABLETRIS_INSTANCE")
    if named:
        return named
    return f"{socket.gethostname()}:{port if port is not None else os.getpid()}"


class Metrics:
    """The metrics of one app; see the module's docstring for the names."""

    def __init__(self, instance: str | None = None, database: str = "") -> None:
        self.registry = CollectorRegistry(auto_describe=True)
        r = self.registry
        self.rooms = Gauge("tabletris_rooms", "Rooms in this instance's memory", ["state"], registry=r)
        self.connections = Gauge("tabletris_connections", "Open websockets (players and spectators)", registry=r)
        self.moves = Counter("tabletris_moves", "Moves committed by this instance", ["game"], registry=r)
        self._moves_of: dict[str, Any] = {}
        self.move_seconds = Histogram(
            "tabletris_move_seconds", "A move's time from arrival to commit (lock wait included)",
            buckets=MOVE_BUCKETS, registry=r,
        )
        self.bot_queue = Gauge("tabletris_bot_queue", "Bot and timer moves scheduled and not yet played", registry=r)
        self.lease_takeovers = Counter(
            "tabletris_lease_takeovers", "Room bot/timer leases taken over from another instance", registry=r
        )
        self.lease_handoffs = Counter(
            "tabletris_lease_handoffs", "Room bot/timer leases handed on to the instance serving the room's websockets",
            registry=r,
        )
        self.mails = Counter(
            "tabletris_mails", "Your-turn mails by outcome: sent, retried, failed (given up), dropped (no longer wanted)",
            ["outcome"], registry=r,
        )
        self.info = Info("tabletris_instance", "Which server process this is", registry=r)
        self.info.info({
            "instance": instance or instance_name(),
            "pid": str(os.getpid()),
            "version": _package_version(),
            "database": database,
        })
        process_collector.ProcessCollector(registry=r)
        platform_collector.PlatformCollector(registry=r)
        gc_collector.GCCollector(registry=r)

    def watch(self, rooms: Mapping[str, Any], live: Collection[str]) -> None:
        """Read the lobby's own counts at scrape time (see the module's docstring): ``rooms`` is
        the lobby's dict of rooms in memory, ``live`` the statuses of a room not yet ended."""

        def in_state(want_live: bool) -> Callable[[], float]:
            return lambda: sum(1 for room in rooms.values() if (room.status in live) == want_live)

        def connections() -> float:
            return sum(len(room.conns) for room in rooms.values())

        def bots() -> float:
            return sum(room.clock.thinking() for room in rooms.values())

        gauges: list[tuple[Gauge, Callable[[], float]]] = [
            (self.rooms.labels(state="live"), in_state(True)),
            (self.rooms.labels(state="finished"), in_state(False)),
            (self.connections, connections),
            (self.bot_queue, bots),
        ]
        for gauge, read in gauges:
            gauge.set_function(read)

    def watch_store(self, storage: Any) -> None:
        """Read the storage's counts of commits, event rows and gathered commits at scrape time
        (``Storage.commits``, ``events_written``, ``gathered``): the writer counts them anyway."""
        self.registry.register(_StoreCounts(storage))

    def moved(self, game: str, seconds: float) -> None:
        """One move committed, ``seconds`` after it arrived."""
        counter = self._moves_of.get(game)
        if counter is None:  # a label's child looked up once per game, not on every move
            counter = self._moves_of[game] = self.moves.labels(game=game)
        counter.inc()
        self.move_seconds.observe(seconds)

    def text(self) -> bytes:
        """The Prometheus text exposition of every metric."""
        return generate_latest(self.registry)


__all__ = ["CONTENT_TYPE", "MOVE_BUCKETS", "Metrics", "instance_name"]


class _StoreCounts(Collector):
    """The storage's own counters as Prometheus counters (``Metrics.watch_store``)."""

    COUNTS = (
        ("tabletris_store_commits", "Commits of the storage's writer", "commits"),
        ("tabletris_store_events", "Event rows (moves and rolls) the storage committed", "events_written"),
        ("tabletris_store_gathered", "Commits that waited for more writes to share them", "gathered"),
    )

    def __init__(self, storage: Any) -> None:
        self.storage = storage

    def collect(self) -> Iterator[CounterMetricFamily]:
        for name, documentation, attribute in self.COUNTS:
            yield CounterMetricFamily(name, documentation, value=getattr(self.storage, attribute))
