"""A lobby's housekeeping: rooms let go from memory when they end or nobody uses them, and the
room leases renewed and taken over (several instances: docs/api.md "Several instances")."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import json
import logging
from typing import Any, Protocol

from tabletris.server import tasks, timesource
from tabletris.server.bot_pool import BotPool
from tabletris.server.bus import Bus
from tabletris.server.errors import ActionError
from tabletris.server.leases import NOT_HELD, TAKEN_OVER, Leases
from tabletris.server.limits import Limits
from tabletris.server.rooms import LIVE, Room
from tabletris.server.storage import Storage
from tabletris.server.storage_errors import FaultLog

log = logging.getLogger("tabletris.server")

IDLE_EVICT = 600.0
"""A live room that another instance runs (it holds the lease), that nobody here is connected to
and in which nothing happened for this long leaves this instance's cache (the next request
reads it back from the database)."""
#: Rooms let go from memory between two full garbage collections (see ``_sweep_loop``).
GC_AFTER_EVICTIONS = 200


class Kept(Protocol):
    """What the housekeeping asks of its lobby (``lobby.Lobby``)."""

    rooms: dict[str, Room]
    limits: Limits
    storage: Storage
    bus: Bus
    leases: Leases
    bots: BotPool

    def note_ended(self, room: Room) -> None: ...
    async def find(self, room_id: str) -> Room: ...
    def spawn(self, coro: Any) -> asyncio.Task[Any]: ...
    def took_over(self, room_id: str) -> None: ...
    def handed_off(self, room_id: str) -> None: ...
    def follow_sockets(self, room: Room) -> None: ...
    async def load_elsewhere(self) -> None: ...

    elsewhere: dict[str, tuple[dict[str, Any], str]]


def waiting_expiry(room: Room, limits: Limits) -> float:
    """How long a room waits for players: ``waiting_expiry``, or as long as one move may take in
    a turn-based room (its players come by once a day), or ``untimed_expel`` in an untimed one."""
    speed = room.speed
    if speed.mode == "turn" and speed.per_move is not None:
        return max(limits.waiting_expiry, speed.per_move)
    if not speed.timed and room.has_people:
        return max(limits.waiting_expiry, limits.untimed_expel)
    return limits.waiting_expiry


class Housekeeping:
    """The sweeper and the lease loop of one lobby."""

    def __init__(self, lobby: Kept) -> None:
        self.lobby = lobby
        self.idle_evict = IDLE_EVICT
        self._evicted_since_gc = 0
        self.faults = FaultLog(log)
        self._sweeper: asyncio.Task[None] | None = None
        self._lease_loop: asyncio.Task[None] | None = None
        self._handing: set[str] = set()
        """Rooms whose lease is being handed on now."""

    def start_sweeping(self) -> None:
        self._sweeper = asyncio.create_task(self._sweep_loop(), name="room-sweeper")

    def start_leases(self) -> None:
        """Several instances: the lease loop adopts the rooms whose bots and timer nobody runs
        (a dead instance's)."""
        self._lease_loop = asyncio.create_task(self._leases_loop(), name="room-leases")

    async def stop(self) -> None:
        await tasks.stop(self._sweeper, self._lease_loop)

    async def _sweep_loop(self) -> None:
        while True:
            await asyncio.sleep(min(30.0, max(0.5, self.lobby.limits.finished_linger / 4)))
            try:
                self._evicted_since_gc += len(await self.sweep())
                if self._evicted_since_gc >= GC_AFTER_EVICTIONS:
                    # An ended game leaves reference cycles (game, table, bots, connections) that
                    # only a full collection frees, and under a steady load CPython's thresholds
                    # rarely run one: memory grew ~19 MB per 1000 games until one did.
                    self._evicted_since_gc = 0
                    gc.collect()
            except Exception as e:
                self.faults.failed("sweep", "sweeping rooms failed", e)

    async def sweep(self) -> list[str]:
        """Let ended rooms go from memory, and end rooms nobody uses; the rooms dropped."""
        now = timesource.monotonic()
        lobby = self.lobby
        limits = lobby.limits
        dropped = []
        for room in list(lobby.rooms.values()):
            idle = now - room.touched
            people_here = any(s.connected for s in room.seats) or bool(room.conns)
            if room.status == "waiting" and idle > waiting_expiry(room, limits) and not people_here:
                await self._end(room, "expired", "nobody joined in time")
            elif (
                room.status == "playing" and room.speed.mode == "realtime" and room.has_people
                and idle > limits.abandoned_expiry and not people_here
            ):
                # Only real-time games are abandoned for want of moves: a turn-based one has its
                # deadline (the timer plays), an untimed one waits (its players may expel).
                await self._end(room, "abandoned", "nobody played or watched for a long time")
            if room.status not in LIVE and room.ended_at is not None and now - room.ended_at > limits.finished_linger:
                if room.conns and room.status != "over":
                    continue
                for conn in list(room.conns):
                    conn.kill(1001, "the room closed")
                await self._evict(room)
                dropped.append(room.id)
            elif room.status in LIVE and not room.runs_clock and not room.conns and idle > self.idle_evict:
                # A copy kept for connections that went away, while another instance runs the
                # room: the database and that instance hold all of it. (Rooms this instance runs
                # stay: their expiry is swept here.)
                await self._evict(room)
                dropped.append(room.id)
        return dropped

    async def _evict(self, room: Room) -> None:
        """Let a room go from this instance's cache (served from the database on demand; a live
        one stays in the lobby's list as its last entry here, until its holder publishes one)."""
        lobby = self.lobby
        if lobby.rooms.get(room.id) is room:
            del lobby.rooms[room.id]
            if lobby.bus.distributed and room.status in LIVE and room.info_text:
                lobby.elsewhere[room.id] = (json.loads(room.info_text), room.info_text)
        room.clock.cancel()
        lobby.bots.close(room.clock.release_bots())
        with contextlib.suppress(Exception):
            await lobby.bus.unwatch(room.id)
        if room.runs_clock and lobby.leases.distributed:
            with contextlib.suppress(Exception):
                await lobby.leases.release(room.id)

    async def _leases_loop(self) -> None:
        """Renew this instance's leases; take the ones nobody renews (their holder died) for the
        rooms this instance serves, and for live rooms no instance serves."""
        ticks = 0
        while True:
            await asyncio.sleep(self.lobby.leases.ttl / 3)
            ticks += 1
            try:
                await self.tend_leases(scan=ticks % 3 == 0)
                if ticks % 36 == 0:
                    await self.lobby.load_elsewhere()
                if ticks % 6 == 0:
                    for room in list(self.lobby.rooms.values()):
                        if room.conns and room.status in LIVE:
                            room.replica.publish_presence()
            except Exception as e:  # Redis down: one line per 10 s, not a traceback per tick
                self.faults.failed("leases", "tending the room leases failed", e)
            else:
                self.faults.recovered("leases", "tending the room leases works again")

    async def tend_leases(self, scan: bool = True) -> None:
        """Renew the leases of the rooms this instance runs (a lost one stops its clock here),
        take the ones of cached rooms nobody runs, and (``scan``) of playing rooms nobody serves."""
        lobby = self.lobby
        held = [r.id for r in lobby.rooms.values() if r.runs_clock and r.status in LIVE]
        kept = await lobby.leases.renew(held)
        for room_id in held:
            room = lobby.rooms.get(room_id)
            if room is not None and room_id not in kept:
                log.warning("room %s: lease lost; another instance runs its bots and timer", room_id)
                room.runs_clock = False
                room.clock.cancel()
        for room in [r for r in lobby.rooms.values() if not r.runs_clock and r.status in LIVE]:
            if not room.conns and room.replica.connected_elsewhere():
                continue  # the instances serving its sockets take it (the lease follows them)
            await self.take_lease(room)
        for room in [r for r in lobby.rooms.values() if r.runs_clock and r.status in LIVE]:
            lobby.follow_sockets(room)  # a presence message missed: hand on now
        if scan:
            # Playing rooms that no instance serves (their holder died with nobody watching).
            unserved = [r for r in await lobby.storage.room_ids("playing", limit=200) if r not in lobby.rooms]
            for room_id in await lobby.leases.free(unserved):
                got = await lobby.leases.acquire(room_id)
                if got == TAKEN_OVER:
                    lobby.took_over(room_id)
                if got != NOT_HELD:
                    try:
                        await lobby.find(room_id)
                    except ActionError:
                        await lobby.leases.release(room_id)

    async def take_lease(self, room: Room) -> bool:
        """Take a cached room's lease when nobody holds it; run its bots and timer here from
        the stored room. True when this instance holds it now."""
        lobby = self.lobby
        got = await lobby.leases.acquire(room.id)
        if got == NOT_HELD:
            return False
        if got == TAKEN_OVER and room.status == "playing":
            lobby.took_over(room.id)
        room.runs_clock = True
        await room.replica.resync()
        return True

    def hand_off_later(self, room: Room) -> None:
        """``hand_off`` in a task of its own (once at a time per room)."""
        if room.id not in self._handing:
            self._handing.add(room.id)
            self.lobby.spawn(self.hand_off(room))

    async def hand_off(self, room: Room) -> None:
        """Hand a room's lease on: this instance serves none of its websockets and another one
        serves some. Its bots and timer stop here (under the room's lock, so no move of theirs
        is half done), the lease is let go marked as handed on, the instances are told (the one
        with the sockets takes it at once: ``take_lease``), and the room leaves this instance's
        cache, so that its moves cost this instance nothing from now on."""
        lobby = self.lobby
        try:
            async with room.lock:
                if not (
                    room.runs_clock and not room.conns and room.status in LIVE and room.replica.connected_elsewhere()
                    and lobby.rooms.get(room.id) is room
                ):
                    return
                room.runs_clock = False
                room.clock.cancel()
                lobby.bots.close(room.clock.release_bots())
                handed = await lobby.leases.hand_off(room.id)
            if handed:
                lobby.handed_off(room.id)
                lobby.bus.publish(room.id, {"kind": "lease"})
            if not room.conns:
                await self._evict(room)
        except Exception as e:  # Redis down: the lease loop renews or retakes it
            self.faults.failed("handoff", "handing a room's lease on failed", e)
        finally:
            self._handing.discard(room.id)

    async def _end(self, room: Room, status: str, why: str) -> None:
        async with room.lock:
            await self.lobby.storage.set_status(room.id, status)
            room.status = status
            room.error = why
            if room.game is not None:
                room.retire()
            room.ended_at = timesource.monotonic()
        self.lobby.note_ended(room)
        log.info("room %s %s: %s", room.id, status, why)
        room.broadcast()



__all__ = ["GC_AFTER_EVICTIONS", "IDLE_EVICT", "Housekeeping"]
