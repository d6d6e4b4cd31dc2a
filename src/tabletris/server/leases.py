"""Who runs a room's bots and turn timer: exactly one instance at a time, under an expiring lease.

``LocalLeases`` (one process): this instance holds every lease. ``RedisLeases``: a lease is the
key ``tabletris:lease:ROOM`` set with ``SET key INSTANCE NX PX ttl``; its holder renews it every
``ttl / 3`` (only while the value is still its own, by a Lua compare-and-extend). An instance that
dies stops renewing, the key expires, and another instance that serves the room takes it and
resumes the bots and the timer from the stored state.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Protocol

KEY = "tabletris:lease:"
LAST = "tabletris:lease-last:"
"""The instance that last took a room's lease (kept a day): telling a takeover from a first take."""
NOT_HELD, HELD, TAKEN_OVER = 0, 1, 2
"""What ``acquire`` answers: another instance holds the lease; this one does (it was free or
already ours); this one took it over from another instance that stopped renewing it."""

_RENEW = """
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
return 0
"""
_RELEASE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0
"""


class Leases(Protocol):
    ttl: float
    distributed: bool

    async def acquire(self, room_id: str) -> int: ...
    async def renew(self, room_ids: Iterable[str]) -> set[str]: ...
    async def release(self, room_id: str) -> None: ...
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

    async def close(self) -> None:
        return None


class RedisLeases:
    """Leases as Redis keys with a time to live (``ttl`` seconds)."""

    distributed = True

    def __init__(self, url: str, instance: str, ttl: float = 5.0) -> None:
        import redis.asyncio as aioredis

        self.redis = aioredis.from_url(url, decode_responses=True)
        self.instance = instance
        self.ttl = ttl
        self._renew = self.redis.register_script(_RENEW)
        self._release = self.redis.register_script(_RELEASE)

    @property
    def _ms(self) -> int:
        return int(self.ttl * 1000)

    async def acquire(self, room_id: str) -> int:
        """Take the lease if nobody holds it: ``NOT_HELD``, ``HELD`` or ``TAKEN_OVER``."""
        key = KEY + room_id
        if await self.redis.set(key, self.instance, nx=True, px=self._ms):
            before = await self.redis.set(LAST + room_id, self.instance, px=86_400_000, get=True)
            return TAKEN_OVER if before not in (None, self.instance) else HELD
        return HELD if await self.redis.get(key) == self.instance else NOT_HELD

    async def renew(self, room_ids: Iterable[str]) -> set[str]:
        """Extend the leases still this instance's; the rooms whose lease it still holds."""
        ids = list(room_ids)
        if not ids:
            return set()
        async with self.redis.pipeline(transaction=False) as pipe:
            for room_id in ids:
                await self._renew(keys=[KEY + room_id], args=[self.instance, self._ms], client=pipe)
            results = await pipe.execute()
        return {room_id for room_id, ok in zip(ids, results, strict=True) if ok}

    async def release(self, room_id: str) -> None:
        await self._release(keys=[KEY + room_id], args=[self.instance])

    async def close(self) -> None:
        await self.redis.aclose()
