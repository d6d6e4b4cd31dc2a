"""A room's replication: how its copies on several instances stay one room.

Every instance that serves a room's connections holds a copy of it. A change is committed to the
database first, then broadcast to this instance's connections and published on the bus
(``broadcast``); another instance's copy extends its game with the new events (``adopt``), or
reads the room back from the database, the authority, when it sees a gap (``reload``).
Presence (who is connected where) travels the same way, approximately (``heard_presence``).
With one instance (``LocalBus``) nothing is published and nothing is heard.

The room holds its replica through ``rooms.Replica`` (the lobby makes it:
``Lobby.replica_for``), so another way of keeping copies (forwarding to the instance that holds
the room) can take this one's place.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import Mapping, Sequence
from typing import Any

from tabletris.engine.errors import IllegalMove, RecordError, RulesError
from tabletris.server import timesource
from tabletris.server.connection import Connection
from tabletris.server.rooms import LIVE, Room
from tabletris.server.seats import seat_facts
from tabletris.server.speeds import Clocks

log = logging.getLogger("tabletris.server")

PRESENCE_TTL = 30.0
"""How long another instance's connection counts for a room are believed without news."""


class Replica:
    """One room's copy on this instance, kept in step with the others through the bus."""

    def __init__(self, room: Room) -> None:
        self.room = room
        self.published = 0
        """The events already told to the other instances."""
        self.remote: dict[str, tuple[float, list[int], int]] = {}
        """Other instances' connections here: instance -> (when heard, per seat, spectators)."""

    def spectators_elsewhere(self) -> int:
        """Spectators connected to the room on other instances (approximate)."""
        return sum(r[2] for r in self.remote.values())

    def connected_elsewhere(self) -> int:
        """The room's websockets on other instances, as last heard within ``PRESENCE_TTL``."""
        now = time.monotonic()
        return sum(sum(r[1]) + r[2] for r in self.remote.values() if now - r[0] <= PRESENCE_TTL)

    def broadcast(self, publish: bool) -> None:
        """Tell the other instances the change this one just broadcast (``publish``; not when
        the change came from them): the room's public facts and its new stored events."""
        room = self.room
        if publish and room.lobby.bus.listened(room.id):
            self._publish_room()
        self.published = len(room.events)
        if publish:
            room.lobby.list_changed(room)

    def _publish_room(self) -> None:
        room = self.room
        room.lobby.bus.publish(room.id, {
            "kind": "room", "events_from": self.published, "events": room.events[self.published:],
            "status": room.status, "seats": [s.row() for s in room.seats], "rematch": room.rematch,
            "error": room.error, "by_timer": sorted(room.by_timer), "turn_started": room.turn_started,
            "clocks": None if room.clocks is None else room.clocks.text(),
        })

    def catch_up(self) -> None:
        """Another instance began to listen to this room (``bus.HELLO``). It read the room from
        the database before its subscription held, and this instance may not have published
        since (nobody listened): the room's latest facts tell it whether it missed a move (a
        gap: it reads the room back), and this instance's connections."""
        self._publish_room()
        self.publish_presence()

    async def adopt(self, data: Mapping[str, Any]) -> None:
        """Bring this instance's copy up to date from another instance's message: its new
        events extend ours when they follow on; on a gap (or a game we have no start of) the
        room is read back from the database, the authority."""
        room = self.room
        async with room.lock:
            first, new = int(data["events_from"]), list(data["events"])
            status = str(data["status"])
            have = len(room.events)
            room.by_timer.update(int(k) for k in data.get("by_timer") or ())
            if (
                first > have
                or status != room.status
                or [seat_facts(r) for r in data["seats"]] != [seat_facts(s.row()) for s in room.seats]
                or (status != "waiting" and room.start is None and room.record_text is None)
            ):
                # A gap, or seats or status changed: the message may be older than another
                # instance's change to other seats, so the database decides.
                await self.reload()
            elif first + len(new) > have:
                room.rematch, room.error = data.get("rematch"), data.get("error")
                added = new[have - first:]
                room.events.extend(added)
                room.turn_started = data.get("turn_started", room.turn_started)
                if data.get("clocks"):
                    room.clocks = Clocks.parse(data["clocks"])
                if room.start is not None:
                    if not self._follow(added, have):
                        start, logged = room.start, room.logged_events()
                        room.game = await asyncio.to_thread(room.adapter.rebuild, start, logged)
                    assert room.table is not None
                    room.table.advance()
            else:
                room.rematch, room.error = data.get("rematch"), data.get("error")
            self.published = len(room.events)
            # The last seats were taken on different instances at once: neither saw the room
            # full, so the lease holder starts it (the start is guarded: it happens once).
            begin = room.status == "waiting" and room.runs_clock and all(
                s.kind not in ("open", "reserved") for s in room.seats
            )
            if begin:
                await room.start_or_retry()  # not stored: the clock retries it (schedule below)
        room.schedule()
        room.broadcast(publish=begin)

    def _follow(self, added: Sequence[str], have: int) -> bool:
        """Apply another instance's new events to this copy's game in place: a move costs one
        move here, not a replay of the whole game. False when there is no game to extend or the
        events do not follow on; the caller then replays the log from the start."""
        game = self.room.game
        if game is None or game.over:
            return False
        try:
            self.room.adapter.extend(game, [json.loads(text) for text in added], have)
        except (RecordError, IllegalMove, RulesError, KeyError, TypeError, ValueError) as e:
            log.info("room %s: events from another instance replayed from the start (%s)", self.room.id, e)
            return False
        return True

    async def reload(self) -> None:
        """Replace this copy by the database's (under the lock): another instance changed it."""
        room = self.room
        stored = await room.lobby.storage.load_room(room.id)
        if stored is None:
            return
        fresh = await asyncio.to_thread(room.lobby.restore, stored)
        for seat, new_seat in zip(room.seats, fresh.seats, strict=False):
            new_seat.connected, new_seat.remote = seat.connected, seat.remote
        room.seats = fresh.seats
        room.status, room.start, room.events = fresh.status, fresh.start, fresh.events
        room.turn_started = fresh.turn_started
        room.clocks = fresh.clocks
        room.table = fresh.table
        room.game_text, room.record_text = fresh.game_text, fresh.record_text
        room.rematch, room.error = fresh.rematch, fresh.error
        if room.status not in LIVE:
            room.retire()
            room.ended_at = room.ended_at or timesource.monotonic()
            room.clock.cancel()
            room.lobby.note_ended(room)
        self.published = len(room.events)

    async def resync(self) -> None:
        """Read the room back from the database (a lease taken over: the cache may be behind)."""
        room = self.room
        async with room.lock:
            await self.reload()
        room.schedule()
        room.broadcast(publish=False)

    def presence(self, newcomer: Connection | None = None, publish: bool = True) -> None:
        """Someone connected or left: a small ``presence`` message, not the full state to all
        (the newcomer gets the full state)."""
        room = self.room
        room.refresh(game_changed=False)
        if newcomer is not None:
            newcomer.send_latest("state", room.state_text(newcomer.seat))
        text = json.dumps(
            {
                "type": "presence",
                "connected": [s.is_bot or s.connected + s.remote > 0 for s in room.seats],
                "spectators": room.spectators(),
            },
            separators=(",", ":"),
        )
        for conn in list(room.conns):
            if conn.alive and conn is not newcomer:
                conn.send_latest("presence", text)
        if publish:
            self.publish_presence()
        room.lobby.follow_sockets(room)

    def publish_presence(self) -> None:
        """Tell the other instances how many of this room's connections this one holds."""
        room = self.room
        if room.lobby.bus.listened(room.id):
            room.lobby.bus.publish(room.id, {
                "kind": "presence", "seats": [s.connected for s in room.seats],
                "spectators": sum(1 for c in room.conns if c.seat is None),
            })

    def heard_presence(self, instance: str, seats: Sequence[int], spectators: int) -> None:
        """Another instance's counts (approximate: believed for ``PRESENCE_TTL`` seconds; an
        instance that dies stops refreshing them)."""
        now = time.monotonic()
        self.remote[instance] = (now, list(seats), int(spectators))
        for key in [k for k, v in self.remote.items() if now - v[0] > PRESENCE_TTL]:
            del self.remote[key]
        for seat in self.room.seats:
            seat.remote = sum(v[1][seat.index] for v in self.remote.values() if seat.index < len(v[1]))
        self.presence(publish=False)


__all__ = ["PRESENCE_TTL", "Replica"]
