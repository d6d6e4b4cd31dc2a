"""Who runs a room's bots and turn timer: exactly one instance at a time, under an expiring lease.

``LocalLeases`` (one process): this instance holds every lease. ``RedisLeases``: a lease is the
key ``tabletris:lease:ROOM`` set with ``SET key INSTANCE NX PX ttl``; its holder renews it every
``ttl / 3`` (only while the value is still its own, by a Lua compare-and-extend). An instance that
dies stops renewing, the key expires, and another instance that serves the room takes it and
resumes the bots and the timer from the stored state.

The renewal also runs on a thread of its own with its own Redis connection (``RedisLeases``
starts it at the first lease taken): a loaded event loop (a long callback, a burst of moves)
used to renew late, lose its leases, and have them taken over by an instance that was not
dead (308 takeovers in one load run). The thread renews every lease of the instance in one
call of a script every ``ttl / 3`` (``_RENEW``: all the keys at once), and stops renewing when
the loop has not asked for the leases for ``STALL`` seconds: a loop stuck that long counts as
dead.

A holder that serves none of a room's websockets while another instance does hands the lease on
(``hand_off``; the lobby decides: ``Lobby.follow_sockets``): behind a proxy that routes by room,
the room's work then all runs on the instance its people reach.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Iterable
from typing import Any, Protocol

log = logging.getLogger("tabletris.server")

KEY = "tabletris:lease:"
LAST = "tabletris:lease-last:"
"""The instance that last took a room's lease (kept a day): telling a takeover from a first take."""
NOT_HELD, HELD, TAKEN_OVER, HANDED = 0, 1, 2, 3
"""What ``acquire`` answers: another instance holds the lease; this one does (it was free or
already ours); this one took it over from another instance that stopped renewing it; this one
took it after its holder handed it on (``hand_off``: the holder serves none of the room's
sockets and this instance does)."""
HANDED_MARK = "-handed-"
"""``LAST``'s value after a hand-off: the next taker counts a hand-off, not a takeover."""
RELEASED_MARK = "-released-"
"""``LAST``'s value after its holder let the lease go (``release``: the room left its memory,
the instance stopped): the next taker found it free, which is no takeover. Before, a graceful
stop looked like a death: the instance left each room's lease for the next one to take, which
counted and logged a takeover for each (about 90 at the end of every two-instance load run)."""

STALL = 30.0
"""Seconds without the event loop's word (``acquire`` or ``renew``) after which the renewal
thread lets the leases expire."""

_RENEW = """
local kept = {}
for i, key in ipairs(KEYS) do
  if redis.call('GET', key) == ARGV[1] then
    kept[i] = redis.call('PEXPIRE', key, ARGV[2])
  else
    kept[i] = 0
  end
end
return kept
"""
RENEW_KEYS = 1000
"""Leases renewed by one call of the script at most (one call keeps Redis from everything else
while it runs: a thousand keys take about a millisecond)."""
_LET_GO = """
if redis.call('GET', KEYS[1]) == ARGV[1] then
  redis.call('SET', KEYS[2], ARGV[2], 'PX', 86400000)
  return redis.call('DEL', KEYS[1])
end
return 0
"""


def _key_chunks(room_ids: list[str]) -> list[list[str]]:
    """The rooms' lease keys, in ``_RENEW``'s calls (``RENEW_KEYS`` each at most)."""
    keys = [KEY + room_id for room_id in room_ids]
    return [keys[i:i + RENEW_KEYS] for i in range(0, len(keys), RENEW_KEYS)]


class Leases(Protocol):
    ttl: float
    distributed: bool

    async def acquire(self, room_id: str) -> int: ...
    async def renew(self, room_ids: Iterable[str]) -> set[str]: ...
    async def release(self, room_id: str) -> None: ...
    async def free(self, room_ids: Iterable[str]) -> list[str]: ...
    async def hand_off(self, room_id: str) -> bool: ...
    async def close(self) -> None: ...


class LocalLeases:
    """One instance holds every room's lease."""

    distributed = False

    def __init__(self, ttl: float = 5.0) -> None:
        self.ttl = ttl

    async def acquire(self, room_id: str) -> int:
        return HELD

    async def renew(self, room_ids: Iterable[str]) -> set[str]:
        return set(room_ids)

    async def release(self, room_id: str) -> None:
        return None

    async def hand_off(self, room_id: str) -> bool:
        return False

    async def free(self, room_ids: Iterable[str]) -> list[str]:
        return []

    async def close(self) -> None:
        return None


class RedisLeases:
    """Leases as Redis keys with a time to live (``ttl`` seconds)."""

    distributed = True

    def __init__(self, url: str, instance: str, ttl: float = 5.0) -> None:
        from tabletris.server.bus import redis_client

        self.redis = redis_client(url)
        self.instance = instance
        self.ttl = ttl
        self._renew = self.redis.register_script(_RENEW)
        self._let_go = self.redis.register_script(_LET_GO)
        """Delete the lease if it is this instance's, and say why in ``LAST`` (a mark)."""
        self.url = url
        self._held: set[str] = set()
        """The rooms whose lease the thread renews (what the loop last said it holds)."""
        self._lock = threading.Lock()
        self._beat = time.monotonic()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def _hold(self, room_id: str) -> None:
        with self._lock:
            self._held.add(room_id)
            self._beat = time.monotonic()
        if self._thread is None:
            self._thread = threading.Thread(target=self._renew_loop, name="lease-renewal", daemon=True)
            self._thread.start()

    def _renew_loop(self) -> None:
        """Renew the held leases in one script call every ``ttl / 3``, off the event loop."""
        import redis

        wait = min(5.0, max(0.2, self.ttl / 3))  # a hung Redis delays no renewal beyond the next
        client: Any = redis.Redis.from_url(self.url, decode_responses=True, socket_timeout=wait, socket_connect_timeout=wait)
        script = client.register_script(_RENEW)
        failing = False
        try:
            while not self._stop.wait(self.ttl / 3):
                with self._lock:
                    ids = sorted(self._held)
                    stalled = time.monotonic() - self._beat > STALL
                if not ids or stalled:
                    continue
                try:
                    results = [ok for keys in _key_chunks(ids) for ok in script(keys=keys, args=[self.instance, self._ms])]
                except Exception as e:  # Redis down: the loop's own tending logs and retries too
                    if not failing:
                        log.warning("lease renewal thread: renewing failed (%s: %s)", type(e).__name__, e)
                    failing = True
                    continue
                failing = False
                lost = {room_id for room_id, ok in zip(ids, results, strict=True) if not ok}
                if lost:
                    with self._lock:
                        self._held -= lost
        finally:
            client.close()

    @property
    def _ms(self) -> int:
        return int(self.ttl * 1000)

    async def acquire(self, room_id: str) -> int:
        """Take the lease if nobody holds it: ``NOT_HELD``, ``HELD`` or ``TAKEN_OVER``."""
        key = KEY + room_id
        if await self.redis.set(key, self.instance, nx=True, px=self._ms):
            self._hold(room_id)
            before = await self.redis.set(LAST + room_id, self.instance, px=86_400_000, get=True)
            if before == HANDED_MARK:
                return HANDED
            return TAKEN_OVER if before not in (None, self.instance, RELEASED_MARK) else HELD
        if await self.redis.get(key) == self.instance:
            self._hold(room_id)
            return HELD
        return NOT_HELD

    async def renew(self, room_ids: Iterable[str]) -> set[str]:
        """Extend the leases still this instance's; the rooms whose lease it still holds.

        One call of ``_RENEW`` for every lease (up to ``RENEW_KEYS``): a pipeline of a call per
        room cost redis-py's building and reading of each, here and on the renewal thread:
        by py-spy, 2% of the CPU per move of two instances at 500 rooms (issue 28)."""
        ids = list(room_ids)
        if not ids:
            with self._lock:
                self._held.clear()
                self._beat = time.monotonic()
            return set()
        results = []
        for keys in _key_chunks(ids):
            results += await self._renew(keys=keys, args=[self.instance, self._ms])
        kept = {room_id for room_id, ok in zip(ids, results, strict=True) if ok}
        with self._lock:
            self._held = set(kept)
            self._beat = time.monotonic()
        return kept

    async def release(self, room_id: str) -> None:
        with self._lock:
            self._held.discard(room_id)
        await self._let_go(keys=[KEY + room_id, LAST + room_id], args=[self.instance, RELEASED_MARK])

    async def free(self, room_ids: Iterable[str]) -> list[str]:
        """The rooms among ``room_ids`` whose lease nobody holds (one MGET: the lease loop's
        scan asked for each room's lease in turn, two round trips a room every few seconds)."""
        ids = list(room_ids)
        if not ids:
            return []
        held = await self.redis.mget([KEY + room_id for room_id in ids])
        return [room_id for room_id, holder in zip(ids, held, strict=True) if holder is None]

    async def hand_off(self, room_id: str) -> bool:
        """Let the lease go for another instance to take (``acquire`` answers it ``HANDED``, not
        ``TAKEN_OVER``); False when it was not this instance's."""
        with self._lock:
            self._held.discard(room_id)
        return bool(await self._let_go(keys=[KEY + room_id, LAST + room_id], args=[self.instance, HANDED_MARK]))

    async def close(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(2.0)  # a daemon thread: one stuck in a Redis call ends with the process
        await self.redis.aclose()
