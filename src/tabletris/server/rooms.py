"""Rooms: seats, secret tokens, the game, its event log, bots, turn timers and the connections.

The room is the only writer of its game. Every change runs under the room's lock in the same
order: ask the engine (which rejects an illegal move and leaves the game as it was), commit the
resulting events to storage, and only then acknowledge and broadcast. If the commit fails the
game is rebuilt from the stored log, so memory never runs ahead of the database.

Nothing slow runs on the event loop: bots think in a thread on a copy of the game (with a time
budget, after which the timer bot moves instead), and games are built and rebuilt in threads.
Rooms leave memory when they end (after ``finished_linger``), when nobody joins them
(``waiting_expiry``) or when nobody plays them (``abandoned_expiry``); ended rooms are read
back from the database on demand.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import gc
import hashlib
import hmac
import json
import logging
import multiprocessing
import secrets
import threading
import time
import weakref
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from tabletris.bots.base import Bot
from tabletris.bots.external import allowed_commands
from tabletris.bots.registry import bot_names, bot_refusal, make_bot
from tabletris.engine.errors import IllegalMove, RecordError
from tabletris.engine.games import spec as game_spec
from tabletris.engine.options import RulesError
from tabletris.engine.records import replay
from tabletris.engine.texts import N_, Message
from tabletris.i18n import _
from tabletris.server.adapter import GameAdapter
from tabletris.server.bus import Bus, LocalBus
from tabletris.server.errors import ActionError, engine_text
from tabletris.server.games import adapter_for
from tabletris.server.leases import NOT_HELD, TAKEN_OVER, Leases, LocalLeases
from tabletris.server.limits import (
    ClientLedger,
    Limits,
    check_name_free,
    check_rules,
    check_timer,
    clean_name,
)
from tabletris.server.logs import log_context
from tabletris.server.metrics import Metrics
from tabletris.server.storage import Conflict, Storage, StoredRoom
from tabletris.table.driver import Table

log = logging.getLogger("tabletris.server")

TIMER_BOT = "random"
"""The bot that plays a human's turn when the turn timer runs out, and a resigned seat."""
SEED_BITS = 128
"""A server game's seed: drawn from the OS's cryptographic source and long enough that no
scan over seeds can match what a spectator sees (a 32-bit seed could be found in hours from
the layouts and the first cards, and with it the rest of the deck). It stays in the database
until the game is over; the record then publishes it with every outcome."""
ENDED = ("over", "abandoned", "stopped", "expired")
"""Statuses of a room whose game will not go on: its record may be published."""
LIVE = ("waiting", "playing")
ENDED_LISTED = 500
"""Ended rooms the lobby lists (newest first); older ones are still served by id."""
IDLE_EVICT = 600.0
"""A live room that another instance runs (it holds the lease), that nobody here is connected to
and in which nothing happened for this long leaves this instance's cache (the next request
reads it back from the database)."""
CONFLICT_RETRIES = 4
#: Rooms let go from memory between two full garbage collections (see ``Lobby._sweep_loop``).
GC_AFTER_EVICTIONS = 200
"""Times a move is tried again on the room read back after another instance committed first."""
PRESENCE_TTL = 30.0
"""How long another instance's connection counts for a room are believed without news."""


def bot_move_in_worker(
    game_name: str, bot_name: str, seed: int, strength: float | None, view: Any, seat: int
) -> dict[str, Any]:
    """A built-in bot's move, in a worker process: bots are CPU-bound Python, and in a thread
    they would hold the interpreter lock against the event loop (expert bots on a 20x40 board
    made the lobby wait 0.8 s). The bot is made afresh for each move; the view carries the game."""
    return adapter_for(game_name).bot_move(view, seat, make_bot(bot_name, seed=seed, strength=strength))


def _one_at_a_time(lock: threading.Lock, fn: Callable[..., Any], *args: Any) -> Any:
    """``fn(*args)`` holding ``lock``: an external bot is one program behind one pipe, so a
    question still running after its budget must end before the next one (or the stop) starts."""
    with lock:
        return fn(*args)


def _worker_ready() -> bool:
    """Run once in each new worker: the imports are done when it answers."""
    return True



def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def rematch_token(old_token: str, new_room: str) -> str:
    """The seat token in a rematch, derived from the player's old token: asking twice gives the
    same token (the rematch is idempotent), and nobody without the old token can compute it."""
    return hmac.new(old_token.encode("utf-8"), new_room.encode("utf-8"), hashlib.sha256).hexdigest()[:32]


@dataclass
class Seat:
    """One seat: ``kind`` is ``open`` (waiting for a person), ``reserved`` (a rematch seat kept
    for the previous game's player: ``token_hash`` is their old token's), ``human``,
    ``resigned`` (a person who gave up or timed out: the timer bot plays on) or a bot's name."""

    index: int
    kind: str
    name: str | None = None
    strength: float | None = None
    token_hash: str | None = None
    connected: int = 0
    tower: str | None = None
    """The tower and end this seat chose (tower game); None: a free one drawn at the start."""
    remote: int = 0
    """Connections to this seat on other instances (approximate: see ``Room.remote``)."""

    @property
    def is_bot(self) -> bool:
        return self.kind not in ("open", "human", "reserved")

    @property
    def bot_name(self) -> str:
        return TIMER_BOT if self.kind == "resigned" else self.kind

    def info(self) -> dict[str, Any]:
        return {
            "seat": self.index,
            "kind": self.kind,
            "name": self.name,
            "strength": self.strength,
            "tower": self.tower,
            "open": self.kind == "open",
            "bot": self.is_bot,
            "connected": self.is_bot or self.connected + self.remote > 0,
        }

    @classmethod
    def stored(cls, row: Mapping[str, Any]) -> Seat:
        """The seat of a ``seats`` row."""
        return cls(row["seat"], row["kind"], row["name"], row["strength"], row["token_hash"], tower=row.get("tower"))

    def row(self) -> dict[str, Any]:
        """What another instance needs to know about the seat (the bus message)."""
        return {"kind": self.kind, "name": self.name, "strength": self.strength,
                "token_hash": self.token_hash, "tower": self.tower}


def _seat_facts(row: Mapping[str, Any]) -> tuple[Any, ...]:
    """A seat as the database has it."""
    return (row["kind"], row["name"], row["strength"], row["token_hash"], row.get("tower"))


class _Slot:
    """A queued message that a newer one of the same kind replaces (the state, presence)."""

    __slots__ = ("kind", "text")

    def __init__(self, kind: str, text: str) -> None:
        self.kind = kind
        self.text = text


class Connection:
    """One websocket: its seat (None for a spectator) and a bounded outbox drained by its own
    task, so a slow client never holds up a room's broadcast.

    States and presence updates coalesce: a connection that has not taken the last state yet
    gets the newest one in its place, so a client that never reads costs one state, not a
    queue of them. Replies (acks, errors) are few; more than ``outbox`` of them waiting, or a
    send that has not gone out after ``send_timeout`` seconds, closes the connection (4408)."""

    def __init__(
        self, send_text: Callable[[str], Any], seat: int | None, outbox: int = 32, send_timeout: float = 10.0
    ) -> None:
        self.send_text = send_text
        self.seat = seat
        self.token: str | None = None
        self.outbox = outbox
        self.send_timeout = send_timeout
        self.items: deque[str | _Slot] = deque()
        self.slots: dict[str, _Slot] = {}
        self.wake = asyncio.Event()
        self.dead = asyncio.Event()
        self.close_code = 1000
        self.close_reason = ""
        self.alive = True
        self.said: collections.deque[float] = collections.deque()
        """When this connection's recent chat lines were sent (the chat rate limit)."""
        self.task: asyncio.Task[None] = asyncio.create_task(self._pump())

    def send(self, text: str) -> None:
        if not self.alive:
            return
        if len(self.items) >= self.outbox:
            self.kill(4408, "too many replies waiting: the connection does not read")
            return
        self.items.append(text)
        self.wake.set()

    def send_latest(self, kind: str, text: str) -> None:
        """Queue ``text`` as the newest message of ``kind``, replacing one not yet sent."""
        if not self.alive:
            return
        slot = self.slots.get(kind)
        if slot is not None:
            slot.text = text
            return
        slot = self.slots[kind] = _Slot(kind, text)
        self.items.append(slot)
        self.wake.set()

    def send_json(self, message: Mapping[str, Any]) -> None:
        self.send(json.dumps(message, separators=(",", ":")))

    def kill(self, code: int, reason: str) -> None:
        if self.alive:
            self.alive = False
            self.close_code = code
            self.close_reason = reason
            self.items.clear()
            self.slots.clear()
        self.dead.set()
        self.wake.set()

    async def _pump(self) -> None:
        while self.alive:
            await self.wake.wait()
            self.wake.clear()
            while self.alive and self.items:
                item = self.items.popleft()
                if isinstance(item, _Slot):
                    del self.slots[item.kind]
                    text = item.text
                else:
                    text = item
                try:
                    await asyncio.wait_for(self.send_text(text), self.send_timeout)
                except TimeoutError:
                    self.kill(4408, f"nothing was read for {self.send_timeout:g} s")
                    return
                except Exception:
                    self.kill(1006, "the connection failed")
                    return

    async def close(self) -> None:
        self.kill(1000, "")
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self.task, 1.0)


@dataclass
class Room:
    """A table: configuration, seats, the game once every seat is taken, and who is watching."""

    lobby: Lobby
    id: str
    game_name: str
    config: dict[str, Any]
    seats: list[Seat]
    status: str = "waiting"
    created: float = field(default_factory=time.time)
    rematch: str | None = None
    start: dict[str, Any] | None = None
    events: list[str] = field(default_factory=list)
    """The stored event log, each event as the JSON text in the database: text costs the garbage
    collector nothing, while thousands of rooms' logs as dicts and lists made its full
    collections long enough to stall every game on the server."""
    table: Table | None = None
    """The game and the one turn driver (who acts, the roll, bot decisions, applying them);
    the room adds timing, storage and connections."""
    error: str | None = None
    conns: set[Connection] = field(default_factory=set)
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    deadline: float | None = None
    """When the turn timer plays for the people to act (wall time), shown by every instance."""
    turn_started: float | None = None
    """When the turn in play began (wall time): the stored time of the move that began it, so
    that the instance that takes a room over keeps its turn's deadline instead of restarting
    the clock. None: the turn starts when it is scheduled (a restarted single server gives the
    player to move a whole turn: nobody could move while it was down)."""
    version: int = 0
    creator: str | None = None
    """The address that created the room (per-client limits; not stored)."""
    stored_events: int = 0
    """The event count of a room listed from the database without its events."""
    touched: float = field(default_factory=time.monotonic)
    """When the room last changed (expiry of abandoned rooms)."""
    ended_at: float | None = None
    by_timer: set[int] = field(default_factory=set)
    """The moves the timer played, as the adapter numbers them (``timer_mark``)."""
    timeouts: dict[int, int] = field(default_factory=dict)
    """Consecutive turns each seat let the timer play (``kick_after`` resigns the seat)."""
    _bots: dict[int, Bot] = field(default_factory=dict)
    _bot_pending: set[tuple[int, Any]] = field(default_factory=set)
    _timer: asyncio.Task[None] | None = None
    _timer_key: Any = None
    _deadline_key: Any = None
    """The turn ``deadline`` belongs to: a tower round's deadline stays put while its seats'
    submissions (each a stored change) come in."""
    _game_json: str = "null"
    _public: str = ""
    _dirty: bool = False
    _private: dict[int, str] = field(default_factory=dict)
    _seq: int = 0
    _game_text: str | None = None
    """A finished game's public state as JSON text (see ``_retire``)."""
    _record_text: str | None = None
    """A finished game's record as JSON text (see ``_retire``)."""
    chat_log: collections.deque[str] = field(default_factory=collections.deque)
    runs_clock: bool = True
    """This instance holds the room's lease: it runs the bots and the turn timer."""
    _published: int = 0
    """The events already told to the other instances."""
    remote: dict[str, tuple[float, list[int], int]] = field(default_factory=dict)
    """Other instances' connections here: instance -> (when heard, per seat, spectators)."""

    @property
    def game(self) -> Any:
        return None if self.table is None else self.table.game

    @game.setter
    def game(self, value: Any) -> None:
        self.table = None if value is None else Table(value)

    @property
    def adapter(self) -> GameAdapter:
        return adapter_for(self.game_name)

    @property
    def limits(self) -> Limits:
        return self.lobby.limits

    @property
    def rules(self) -> dict[str, Any]:
        return dict(self.config.get("rules") or {})

    @property
    def timer(self) -> float | None:
        value = self.config.get("timer")
        return float(value) if value else None

    @property
    def has_people(self) -> bool:
        return any(not s.is_bot for s in self.seats)

    # ------------------------------------------------------------------ views

    def info(self) -> dict[str, Any]:
        """What the lobby and every client see about the room."""
        return {
            "id": self.id,
            "game": self.game_name,
            "status": self.status,
            "created": self.created,
            "rules": self.rules,
            "preset": self.rules.get("preset", "standard"),
            "timer": self.timer,
            "seats": [s.info() for s in self.seats],
            "rematch": self.rematch,
            "rematch_of": self.config.get("rematch_of"),
            "deadline": self.deadline,
            "events": max(len(self.events), self.stored_events),
            "spectators": sum(1 for c in self.conns if c.seat is None) + sum(r[2] for r in self.remote.values()),
            "error": self.error,
        }

    def _public_game(self) -> dict[str, Any]:
        """The game's public state, with the moves the timer played marked ``"by": "timer"``."""
        state = self.adapter.public(self.game)
        if self.by_timer:
            self.adapter.mark_timer(self.game, state, self.by_timer)
        return state

    def _refresh(self, game_changed: bool = True) -> None:
        """Render the state once per change: the public part and each person's private part.

        Readers only ever see these texts, never the live game, so a move that is still being
        committed is invisible until it is stored and broadcast. A presence change re-renders
        the room part only.
        """
        if game_changed or not self._public:
            if self._game_text is not None:
                self._game_json = self._game_text
            elif self.game is not None:
                self._game_json = json.dumps(self._public_game(), separators=(",", ":"))
            else:
                self._game_json = "null"
            self._private = {}
            if self.game is not None and self.status == "playing":
                for seat in self.seats:
                    if seat.kind == "human":
                        private = self.adapter.private(self.game, seat.index)
                        if private is not None:
                            self._private[seat.index] = json.dumps(private, separators=(",", ":"))
            self._seq = len(self.events)
        self._public = '{"room":' + json.dumps(self.info(), separators=(",", ":")) + ',"game":' + self._game_json + "}"

    def state_text(self, seat: int | None) -> str:
        """The state message for ``seat`` (None: a spectator): public state plus the seat's own."""
        if not self._public:
            self._refresh()
        private = self._private.get(seat, "null") if seat is not None else "null"
        return (
            '{"type":"state","you":' + json.dumps(seat) + ',"seq":' + str(self._seq)
            + ',"private":' + private + "," + self._public[1:]
        )

    def state(self, seat: int | None) -> dict[str, Any]:
        return dict(json.loads(self.state_text(seat)))

    def broadcast(self, publish: bool = True) -> None:
        """Send every connection the new state, and tell the other instances (``publish``;
        not when the change came from them).

        While a change holds the lock, the broadcast waits for it: the holder broadcasts when
        it is done, so nobody sees a move before it is committed.
        """
        if self.lock.locked():
            self._dirty = True
            return
        self._dirty = False
        self.version += 1
        self.touched = time.monotonic()
        self._refresh()
        for conn in list(self.conns):
            if conn.alive:
                conn.send_latest("state", self.state_text(conn.seat))
        if publish and self.lobby.bus.distributed:
            self.lobby.bus.publish(self.id, {
                "kind": "room", "events_from": self._published, "events": self.events[self._published:],
                "status": self.status, "seats": [s.row() for s in self.seats], "rematch": self.rematch,
                "error": self.error, "by_timer": sorted(self.by_timer), "turn_started": self.turn_started,
            })
        self._published = len(self.events)

    async def adopt(self, data: Mapping[str, Any]) -> None:
        """Bring this instance's copy up to date from another instance's message: its new
        events extend ours when they follow on; on a gap (or a game we have no start of) the
        room is read back from the database, the authority."""
        async with self.lock:
            first, new = int(data["events_from"]), list(data["events"])
            status = str(data["status"])
            have = len(self.events)
            self.by_timer.update(int(k) for k in data.get("by_timer") or ())
            if (
                first > have
                or status != self.status
                or [_seat_facts(r) for r in data["seats"]] != [_seat_facts(s.row()) for s in self.seats]
                or (status != "waiting" and self.start is None and self._record_text is None)
            ):
                # A gap, or seats or status changed: the message may be older than another
                # instance's change to other seats, so the database decides.
                await self._reload()
            elif first + len(new) > have:
                self.rematch, self.error = data.get("rematch"), data.get("error")
                added = new[have - first:]
                self.events.extend(added)
                self.turn_started = data.get("turn_started", self.turn_started)
                if self.start is not None:
                    if not self._follow(added, have):
                        start, logged = self.start, self.logged_events()
                        self.game = await asyncio.to_thread(self.adapter.rebuild, start, logged)
                    assert self.table is not None
                    self.table.advance()
            else:
                self.rematch, self.error = data.get("rematch"), data.get("error")
            self._published = len(self.events)
            # The last seats were taken on different instances at once: neither saw the room
            # full, so the lease holder starts it (the start is guarded: it happens once).
            begin = self.status == "waiting" and self.runs_clock and all(
                s.kind not in ("open", "reserved") for s in self.seats
            )
            if begin:
                await self._start()
        self.schedule()
        self.broadcast(publish=begin)

    def _follow(self, added: Sequence[str], have: int) -> bool:
        """Apply another instance's new events to this copy's game in place: a move costs one
        move here, not a replay of the whole game. False when there is no game to extend or the
        events do not follow on; the caller then replays the log from the start."""
        game = self.game
        if game is None or game.over:
            return False
        try:
            self.adapter.extend(game, [json.loads(text) for text in added], have)
        except (RecordError, IllegalMove, RulesError, KeyError, TypeError, ValueError) as e:
            log.info("room %s: events from another instance replayed from the start (%s)", self.id, e)
            return False
        return True

    async def _reload(self) -> None:
        """Replace this copy by the database's (under the lock): another instance changed it."""
        stored = await self.lobby.storage.load_room(self.id)
        if stored is None:
            return
        fresh = await asyncio.to_thread(self.lobby._restore, stored)
        for seat, new_seat in zip(self.seats, fresh.seats, strict=False):
            new_seat.connected, new_seat.remote = seat.connected, seat.remote
        self.seats = fresh.seats
        self.status, self.start, self.events = fresh.status, fresh.start, fresh.events
        self.turn_started = fresh.turn_started
        self.table = fresh.table
        self._game_text, self._record_text = fresh._game_text, fresh._record_text
        self.rematch, self.error = fresh.rematch, fresh.error
        if self.status not in LIVE:
            self._retire()
            self.ended_at = self.ended_at or time.monotonic()
            self._cancel_timer()
            self.lobby.note_ended(self)
        self._published = len(self.events)

    async def resync(self) -> None:
        """Read the room back from the database (a lease taken over: the cache may be behind)."""
        async with self.lock:
            await self._reload()
        self.schedule()
        self.broadcast(publish=False)

    def presence(self, newcomer: Connection | None = None, publish: bool = True) -> None:
        """Someone connected or left: a small ``presence`` message, not the full state to all
        (the newcomer gets the full state)."""
        self._refresh(game_changed=False)
        if newcomer is not None:
            newcomer.send_latest("state", self.state_text(newcomer.seat))
        text = json.dumps(
            {
                "type": "presence",
                "connected": [s.is_bot or s.connected + s.remote > 0 for s in self.seats],
                "spectators": sum(1 for c in self.conns if c.seat is None) + sum(r[2] for r in self.remote.values()),
            },
            separators=(",", ":"),
        )
        for conn in list(self.conns):
            if conn.alive and conn is not newcomer:
                conn.send_latest("presence", text)
        if publish:
            self.publish_presence()

    def publish_presence(self) -> None:
        """Tell the other instances how many of this room's connections this one holds."""
        if self.lobby.bus.distributed:
            self.lobby.bus.publish(self.id, {
                "kind": "presence", "seats": [s.connected for s in self.seats],
                "spectators": sum(1 for c in self.conns if c.seat is None),
            })

    def heard_presence(self, instance: str, seats: Sequence[int], spectators: int) -> None:
        """Another instance's counts (approximate: believed for ``PRESENCE_TTL`` seconds; an
        instance that dies stops refreshing them)."""
        now = time.monotonic()
        self.remote[instance] = (now, list(seats), int(spectators))
        for key in [k for k, v in self.remote.items() if now - v[0] > PRESENCE_TTL]:
            del self.remote[key]
        for seat in self.seats:
            seat.remote = sum(v[1][seat.index] for v in self.remote.values() if seat.index < len(v[1]))
        self.presence(publish=False)

    def chat(self, conn: Connection, text: Any) -> None:
        """A chat line from ``conn`` to everybody in the room (players and spectators).

        The text is sent as data, never markup (the client renders it as text); length and rate are
        limited per connection, and a refused line is answered with the reason.
        """
        if not isinstance(text, str):
            raise ActionError("bad_chat", "'text' is the chat line, a string")
        text = " ".join(text.split())
        if not text:
            raise ActionError("bad_chat", _("an empty chat line is not sent"))
        limits = self.limits
        if len(text) > limits.chat_chars:
            raise ActionError("bad_chat", _("a chat line has at most {most} characters, got {got}").format(most=limits.chat_chars, got=len(text)))
        now = time.time()
        said = conn.said
        while said and now - said[0] >= limits.chat_window:
            said.popleft()
        if len(said) >= limits.chat_lines:
            wait = limits.chat_window - (now - said[0])
            raise ActionError(
                "rate_limited", _("at most {lines} chat lines in {window:g} s: wait {wait:.0f} s").format(
                    lines=limits.chat_lines, window=limits.chat_window, wait=wait)
            )
        conn.said.append(now)
        seat = conn.seat
        name = (self.seats[seat].name if seat is not None else None) or "Spectator"
        line = json.dumps(
            {"type": "chat", "seat": seat, "name": name, "text": text, "at": now}, separators=(",", ":")
        )
        self.hear_chat(line)
        if self.lobby.bus.distributed:
            self.lobby.bus.publish(self.id, {"kind": "chat", "line": line})

    def hear_chat(self, line: str) -> None:
        """A chat line (said here or on another instance) to this instance's connections."""
        self.chat_log.append(line)
        while len(self.chat_log) > self.limits.chat_keep:
            self.chat_log.popleft()
        for other in list(self.conns):
            other.send(line)

    # ------------------------------------------------------------------ seats

    def authenticate(self, token: str | None) -> int:
        """The seat a token belongs to, or ``bad_token``."""
        if not token:
            raise ActionError("bad_token", _("no seat token given"))
        wanted = hash_token(token)
        for seat in self.seats:
            if seat.kind != "reserved" and seat.token_hash is not None and hmac.compare_digest(seat.token_hash, wanted):
                return seat.index
        raise ActionError("bad_token", _("this token holds no seat in room {room}").format(room=self.id))

    def _reserved_until(self) -> float:
        return float(self.config.get("reserved_until") or 0)

    def _is_open(self, seat: Seat) -> bool:
        return seat.kind == "open" or (seat.kind == "reserved" and time.time() >= self._reserved_until())

    async def join(
        self, seat: int | None, name: Any, tower: str | None = None, token: str | None = None,
        old_hash: str | None = None,
    ) -> tuple[int, str]:
        """Take an open seat (the first one if ``seat`` is None); returns the seat and its token.

        ``token``: a seat token the caller already holds here, which makes a repeated join
        answer the same seat (join is idempotent). ``tower``: the seat's tower and end in a
        tower game, checked by the engine. ``old_hash``: the hash of the previous
        game's token, which takes that player's reserved rematch seat.
        """
        name = clean_name(self.limits, name)
        if token:
            with contextlib.suppress(ActionError):
                return self.authenticate(token), token
        new_token = token or secrets.token_urlsafe(24)
        try:
            async with self.lock:
                mine = [s.index for s in self.seats if s.kind == "reserved" and old_hash and s.token_hash == old_hash]
                open_seats = [s.index for s in self.seats if self._is_open(s)]
                if mine:
                    seat = mine[0]
                else:
                    if self.status != "waiting" or not open_seats:
                        reserved = any(s.kind == "reserved" for s in self.seats)
                        if reserved:
                            raise ActionError("room_full", _("room {room} has no open seat: the rest are kept for the last game's players for now").format(room=self.id))
                        raise ActionError("room_full", _("room {room} has no open seat").format(room=self.id))
                    if seat is None:
                        seat = open_seats[0]
                    if not (0 <= seat < len(self.seats)):
                        raise ActionError("bad_seat", f"room {self.id} has seats 0 to {len(self.seats) - 1}, not {seat}")
                    target = self.seats[seat]
                    if target.kind == "reserved" and not self._is_open(target):
                        raise ActionError("seat_reserved", _("seat {seat} is kept for {name} (the rematch) for now").format(seat=seat, name=target.name))
                    if not self._is_open(target):
                        raise ActionError("seat_taken", _("seat {seat} is taken by {name}").format(seat=seat, name=target.name))
                    check_name_free(name, [s.name for s in self.seats if s.index != seat], self.id)
                if tower is not None:
                    choice = [s.tower for s in self.seats]
                    choice[seat] = tower
                    self.adapter.check_setup(self.rules, choice)
                    self.seats[seat].tower = tower
                token_hash = hash_token(new_token)
                try:
                    await self.lobby.storage.take_seat(
                        self.id, seat, name if not mine else self.seats[seat].name or name, token_hash, self.seats[seat].tower
                    )
                except Conflict:
                    await self._reload()
                    raise ActionError(
                        "seat_taken", _("seat {seat} was just taken on another server: look again").format(seat=seat)
                    ) from None
                taken = self.seats[seat]
                taken.kind = "human"
                taken.name = taken.name if mine and taken.name else name
                taken.token_hash = token_hash
                if all(s.kind not in ("open", "reserved") for s in self.seats):
                    await self._start()
        finally:
            self.schedule()
            self.broadcast()
        return seat, new_token

    async def leave(self, seat: int) -> str:
        """``leave``: before the game the seat opens again; during it, the player resigns."""
        async with self.lock:
            if self.status == "waiting":
                s = self.seats[seat]
                await self.lobby.storage.set_seat(self.id, seat, "open", None, None)
                s.kind, s.name, s.token_hash, s.tower = "open", None, None, None
                done = "left"
            else:
                done = ""
        if done:
            self.broadcast()
            return done
        return await self.resign(seat)

    async def resign(self, seat: int) -> str:
        """The player gives up: the timer bot plays the seat to the end of the game (both games:
        the engine has no rule for a player leaving, and a bot keeps every rule and the record
        intact; their score still counts). The seat's token no longer moves."""
        try:
            async with self.lock:
                if self.status == "waiting":
                    raise ActionError("not_started", _("the game has not started: leave to free the seat"))
                if self.status != "playing":
                    raise ActionError("game_over", _("the game in room {room} is over").format(room=self.id))
                s = self.seats[seat]
                if s.kind != "human":
                    raise ActionError("not_seated", _("seat {seat} is not played by a person").format(seat=seat))
                await self.lobby.storage.set_seat(self.id, seat, "resigned", s.name, s.token_hash, s.tower)
                s.kind = "resigned"
                self.touched = time.monotonic()
        finally:
            self.schedule()
            self.broadcast()
        if not any(x.kind == "human" for x in self.seats):
            log.info("room %s: every person resigned; the bots play it out", self.id)
        return "resigned"

    async def _start(self) -> None:
        players = [s.name or f"Seat {s.index + 1}" for s in self.seats]
        seed = secrets.randbits(SEED_BITS)
        rules = self.adapter.setup_rules(self.rules, [s.tower for s in self.seats])
        game = await asyncio.to_thread(self.adapter.new_game, players, rules, seed)
        start = self.adapter.start_record(game)
        try:
            self.turn_started = await self.lobby.storage.start_room(self.id, start)
        except Conflict:  # another instance started it: take its game
            await self._reload()
            return
        self.start = start
        self.game = game
        self.status = "playing"
        assert self.table is not None
        opening = self.table.advance()  # the first roll or card: part of the turn the start began
        with contextlib.suppress(Conflict):  # another instance rolled first: its game is read back
            await self._commit(opening, self.adapter.turn_key(game))

    # ------------------------------------------------------------------ moves

    def _check_turn(self, move: Mapping[str, Any]) -> None:
        field_name = self.adapter.turn_field
        now = self.adapter.turn_key(self.game)
        given = move.get(field_name)
        if given is None:
            raise ActionError("stale_move", f"a move names the {field_name} it answers: add \"{field_name}\": {now}")
        if given != now:
            raise ActionError(
                "stale_move", _("this move answers {field} {given}, but it is {field} {now} now: look again").format(
                    field=field_name, given=given, now=now)
            )

    async def act(self, seat: int, move: Mapping[str, Any], by: str | None = None) -> int:
        """Apply ``seat``'s move through the engine, commit it, then broadcast; the move's number
        in the room's event log (from 1). ``by``: "timer" or "bot" when the server moved.

        If another instance committed to the room first (``Conflict``), the room is read back
        and the move is tried again on it: a dice move for the turn just played is then a stale
        move; a tower submission of a seat that had not submitted this round is still good."""
        done = False
        arrived = time.perf_counter()
        log_context(room=self.id, seat=seat)
        try:
            async with self.lock:
                for attempt in range(CONFLICT_RETRIES):
                    try:
                        seq = await self._act_locked(seat, move, by)
                        break
                    except Conflict:
                        self._dirty = True
                        if attempt == CONFLICT_RETRIES - 1:
                            raise ActionError(
                                "stale_move", _("the room kept changing on other servers: look again")
                            ) from None
                done = True
                self.lobby.metrics.moved(self.game_name, time.perf_counter() - arrived)
        finally:
            if done or self._dirty:
                self.schedule()
                self.broadcast()
        return seq

    async def _act_locked(self, seat: int, move: Mapping[str, Any], by: str | None) -> int:
        if self.status == "waiting":
            raise ActionError("not_started", _("room {room} is waiting for players").format(room=self.id))
        if self.status != "playing" or self.game is None:
            raise ActionError("game_over", _("the game in room {room} is over").format(room=self.id))
        if by is None and self.seats[seat].kind != "human":
            raise ActionError("not_seated", _("seat {seat} resigned: the timer bot plays it now").format(seat=seat))
        claimed = move.get("seat")
        if claimed is not None and claimed != seat:
            raise ActionError("wrong_seat", f"your token holds seat {seat}, not seat {claimed}")
        self._check_turn(move)
        key = self.adapter.turn_key(self.game)
        engine_move = {k: v for k, v in move.items() if k != self.adapter.turn_field}
        first = len(self.events)
        assert self.table is not None
        action = self.adapter.action(self.game, seat, engine_move)
        try:
            events = self.table.act(seat, action)
        except IllegalMove as e:
            raise ActionError("illegal", engine_text(e)) from None
        events += self.table.advance()
        seq = first + 1  # this move's number in the log (a roll may follow it)
        await self._commit(events, key)
        if by == "timer":
            self.by_timer.add(self.adapter.timer_mark(key, seat, first))
        elif by is None:
            self.timeouts.pop(seat, None)
        self.touched = time.monotonic()
        return seq

    async def _commit(self, new_events: Sequence[dict[str, Any]], turn_before: Any) -> None:
        """Store the events the game just produced; on failure, fall back to the stored log.
        ``turn_before``: the turn key before them; the turn starts anew when it changed (a tower
        seat's submission leaves the round, and its clock, as they were)."""
        over = bool(self.game is not None and self.game.over)
        capped = (
            not over and not self.has_people and len(self.events) + len(new_events) >= self.limits.bot_only_moves
        )
        status = "over" if over else "stopped" if capped else None
        texts = [json.dumps(e, separators=(",", ":")) for e in new_events]
        try:
            new_turn = self.game is not None and self.adapter.turn_key(self.game) != turn_before
            stored_at = await self.lobby.storage.append(self.id, len(self.events), texts, status, new_turn=new_turn)
        except Conflict:
            # Another instance committed to this room first: take the database's room (the
            # caller tries the move again on it, or answers it as stale).
            await self._reload()
            raise
        except Exception as e:
            log.exception("room %s: storing %d events failed", self.id, len(new_events))
            assert self.start is not None
            self.game = self.adapter.rebuild(self.start, self.logged_events())
            assert self.table is not None
            self.table.advance()
            raise ActionError("storage", _("the move could not be stored; nothing changed: try again")) from e
        self.events.extend(texts)
        if texts and new_turn:
            self.turn_started = stored_at
        if status is not None:
            self.status = status
            if capped:
                self.error = f"stopped after {self.limits.bot_only_moves} moves: bot-only rooms have a move cap"
            self._retire()
            self.lobby.note_ended(self)
            log.info("room %s: game %s after %d events", self.id, status, len(self.events))

    def _retire(self) -> None:
        """Keep an ended game as text: its last public state and its record. The game object,
        its bots and the start record are let go (external bot processes are stopped), and the
        lobby drops the room from memory after ``finished_linger`` seconds: the database
        serves it from then on."""
        if self.game is None:
            return
        self._game_text = json.dumps(self._public_game(), separators=(",", ":"))
        self._record_text = json.dumps(self.adapter.record(self.game), separators=(",", ":"))
        self.game = None
        self.start = None
        self.ended_at = time.monotonic()
        self._cancel_timer()
        self.lobby.close_bots(list(self._bots.values()))
        self._bots.clear()

    def logged_events(self) -> list[dict[str, Any]]:
        """The event log decoded, to rebuild the game from it."""
        return [json.loads(text) for text in self.events]

    def query(self, seat: int, message: Mapping[str, Any]) -> dict[str, Any]:
        if self.game is None or self.status != "playing":
            raise ActionError("not_started" if self.status == "waiting" else "game_over", _("no game in play"))
        return self.adapter.query(self.game, seat, message)

    # ------------------------------------------------------------------ bots and timers

    def _bot(self, seat: int) -> Bot:
        """An external seat's bot object (it holds the program's process for the game)."""
        bot = self._bots.get(seat)
        if bot is None:
            s = self.seats[seat]
            bot = make_bot(s.bot_name, seed=secrets.randbits(64), strength=s.strength)
            self._bots[seat] = bot
        return bot

    def schedule(self) -> None:
        """Start a task for each bot that must act, and the turn timer for the humans: on the
        instance that holds the room's lease. The others show the same deadline (the turn's
        start comes with the events) and run nothing."""
        if self.status != "playing" or self.game is None:
            self._cancel_timer()
            return
        key = self.adapter.turn_key(self.game)
        acting = self.table.to_act() if self.table is not None else []
        if not self.runs_clock:
            self._stop_timer()
            if self.timer and any(not self.seats[s].is_bot for s in acting):
                self._turn_deadline(key)
            else:
                self.deadline = self._deadline_key = None
            return
        for seat in acting:
            if self.seats[seat].is_bot and (seat, key) not in self._bot_pending:
                self._bot_pending.add((seat, key))
                self.lobby.spawn(self._bot_turn(seat, key))
        humans = [s for s in acting if not self.seats[s].is_bot]
        if self.timer and humans:
            if self._timer_key != key:
                self._stop_timer()
                self._timer_key = key
                deadline = self._turn_deadline(key)
                self._timer = self.lobby.spawn(self._timeout(key, max(0.0, deadline - time.time())))
        else:
            self._cancel_timer()

    def _turn_deadline(self, key: Any) -> float:
        """The deadline of turn ``key``: its start plus the timer, the same on every instance and
        after a takeover; worked out when the turn begins here, then kept for that turn."""
        assert self.timer is not None
        if self._deadline_key != key or self.deadline is None:
            started = self.turn_started if self.turn_started is not None else time.time()
            self.deadline, self._deadline_key = started + self.timer, key
        return self.deadline

    def _stop_timer(self) -> None:
        """Stop this instance's timer task (the deadline stays shown)."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        self._timer_key = None

    def _cancel_timer(self) -> None:
        self._stop_timer()
        self.deadline = self._deadline_key = None

    async def _bot_turn(self, seat: int, key: Any) -> None:
        try:
            if self.lobby.bot_delay:
                await asyncio.sleep(self.lobby.bot_delay)
            await self._play_for(seat, key, "bot")
        finally:
            self._bot_pending.discard((seat, key))

    async def _timeout(self, key: Any, delay: float) -> None:
        await asyncio.sleep(delay)
        if self.game is None or self.adapter.turn_key(self.game) != key:
            return
        self._timer = None
        for seat in self.table.to_act() if self.table is not None else []:
            if self.seats[seat].kind == "human":
                self.timeouts[seat] = self.timeouts.get(seat, 0) + 1
                await self._play_for(seat, key, "timer")
                if self.timeouts.get(seat, 0) >= self.limits.kick_after and self.seats[seat].kind == "human":
                    log.info("room %s: seat %d timed out %d times: resigned", self.id, seat, self.timeouts[seat])
                    with contextlib.suppress(ActionError):
                        await self.resign(seat)

    async def _play_for(self, seat: int, key: Any, by: str) -> None:
        """A bot's move for ``seat`` (``by``: "bot" for a bot seat, "timer" for a person out of
        time), through the same path as a person's. The bot thinks off the event loop within
        ``bot_budget`` seconds; a bot that fails or runs out of time is replaced for this move
        by the timer bot, so the game goes on."""
        log_context(room=self.id, seat=seat)
        spec = self.seats[seat]
        name = spec.bot_name if by == "bot" else TIMER_BOT
        for attempt in range(2):
            if self.game is None or self.status != "playing" or self.adapter.turn_key(self.game) != key:
                return
            if self.table is None or seat not in self.table.to_act():
                return
            view = self.adapter.bot_view(self.game, seat)
            external = self._bot(seat) if name.startswith("ext:") else None
            try:
                move = await self.lobby.bot_move(self.game_name, view, seat, name, spec.strength, external)
                move[self.adapter.turn_field] = key
                await self.act(seat, move, by=by)
                return
            except ActionError as e:
                log.warning("room %s: bot move for seat %d rejected: %s", self.id, seat, e.message)
            except TimeoutError:
                log.warning("room %s: the bot for seat %d ran out of time", self.id, seat)
            except Exception:
                log.exception("room %s: bot for seat %d failed", self.id, seat)
            if attempt == 0:
                name, by = TIMER_BOT, "timer"

    # ------------------------------------------------------------------ records

    def record(self) -> dict[str, Any]:
        if self._record_text is not None:
            return dict(json.loads(self._record_text))
        if self.game is None:
            raise ActionError("not_started", _("room {room} has no game yet").format(room=self.id))
        return self.adapter.record(self.game)


class Lobby:
    """Every live room of the server, the storage they share, and the background tasks they
    spawn. Ended rooms are read back from storage when asked for."""

    def __init__(
        self, storage: Storage, bot_delay: float = 0.4, limits: Limits | None = None,
        bus: Bus | None = None, leases: Leases | None = None,
    ) -> None:
        self.storage = storage
        self.bus: Bus = bus or LocalBus()
        self.leases: Leases = leases or LocalLeases()
        self.takeovers = 0
        """Leases this instance took over from one that stopped renewing them."""
        self._lease_loop: asyncio.Task[None] | None = None
        self.bot_delay = bot_delay
        self.limits = limits or Limits()
        self.ledger = ClientLedger(self.limits)
        self.rooms: dict[str, Room] = {}
        self.quarantined: list[str] = []
        self.ended: dict[str, dict[str, Any]] = {}
        """The lobby entries of the newest ended rooms, oldest first: listing them costs no
        database query and no memory beyond these small dicts."""
        self._tasks: set[asyncio.Task[Any]] = set()
        self._pool = ThreadPoolExecutor(max_workers=4, thread_name_prefix="tabletris-bot")
        self._procs: ProcessPoolExecutor | None = None
        self._bot_locks: weakref.WeakKeyDictionary[Bot, threading.Lock] = weakref.WeakKeyDictionary()
        self._procs_ready: asyncio.Future[Any] | None = None
        self._sweeper: asyncio.Task[None] | None = None
        self._evicted_since_gc = 0
        self.idle_evict = IDLE_EVICT
        self.metrics = Metrics(database=storage.engine.dialect.name)
        self.metrics.watch(self.rooms, LIVE)

    def spawn(self, coro: Any) -> asyncio.Task[Any]:
        task = asyncio.create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    async def workers(self) -> ProcessPoolExecutor:
        """The worker processes for bots and replays, started on first use; the first caller
        waits for them to be up (imports take a second or two), outside any time budget."""
        if self._procs is None:
            self._procs = ProcessPoolExecutor(max_workers=2, mp_context=multiprocessing.get_context("spawn"))
            loop = asyncio.get_running_loop()
            self._procs_ready = asyncio.ensure_future(
                asyncio.gather(*(loop.run_in_executor(self._procs, _worker_ready) for _ in range(2)))
            )
        if self._procs_ready is not None:
            await asyncio.shield(self._procs_ready)
        return self._procs

    async def bot_move(
        self, game_name: str, view: Any, seat: int, name: str, strength: float | None, bot: Bot | None = None
    ) -> dict[str, Any]:
        """A bot's move off the event loop, within ``bot_budget`` (TimeoutError after it):
        built-in bots (``name``) in the worker processes, the timer bot in a thread; an external one (``bot``: a program
        behind pipes, which the bot object holds) in a thread that waits on its pipe."""
        loop = asyncio.get_running_loop()
        budget = self.limits.bot_budget
        if bot is not None:
            job = loop.run_in_executor(
                self._pool, _one_at_a_time, self._lock_of(bot), adapter_for(game_name).bot_move, view, seat, bot
            )
            # An external bot has its own time limit (it is stopped and replaced after it).
            budget = max(budget, float(getattr(bot, "timeout", 0.0)) + 1.0)
        elif name == TIMER_BOT:
            # The timer bot must move at once (never wait for workers to start) and thinks
            # little: a random legal move, in a thread.
            job = loop.run_in_executor(
                self._pool, bot_move_in_worker, game_name, name, secrets.randbits(64), strength, view, seat
            )
        else:
            job = loop.run_in_executor(
                await self.workers(), bot_move_in_worker, game_name, name, secrets.randbits(64), strength, view, seat
            )
        result: dict[str, Any] = await asyncio.wait_for(job, budget)
        return result

    async def think_long(self, fn: Callable[..., Any], *args: Any) -> Any:
        """``fn(*args)`` in a worker process (replays: CPU-bound, and their answer is large)."""
        loop = asyncio.get_running_loop()
        return await asyncio.wait_for(loop.run_in_executor(await self.workers(), fn, *args), 60.0)

    def _lock_of(self, bot: Bot) -> threading.Lock:
        lock = self._bot_locks.get(bot)
        if lock is None:
            lock = self._bot_locks[bot] = threading.Lock()
        return lock

    def close_bots(self, bots: list[Bot]) -> None:
        """Stop bots that hold a process (external ones), off the loop: stopping waits for it
        (and for a question still running)."""
        closable = [b for b in bots if callable(getattr(b, "close", None))]
        if closable:
            loop = asyncio.get_running_loop()
            for bot in closable:
                loop.run_in_executor(self._pool, _one_at_a_time, self._lock_of(bot), bot.close)  # type: ignore[attr-defined]

    async def open(self) -> None:
        await self.storage.open()
        await self.bus.start(self._heard)
        if self.leases.distributed:
            # Several instances: rooms are read on demand, and the lease loop adopts the rooms
            # whose bots and timer nobody runs (a dead instance's).
            stored_rooms: list[StoredRoom] = []
            broken: list[tuple[str, str]] = []
            self._lease_loop = asyncio.create_task(self._leases_loop(), name="room-leases")
        else:
            stored_rooms, broken = await self.storage.load_rooms(LIVE)
        for room_id, why in broken:
            self._quarantine(room_id, why)
        for stored in stored_rooms:
            try:
                room = await asyncio.to_thread(self._restore, stored)
            except Exception as e:  # any damage: this room is set aside, the rest start
                self._quarantine(stored.id, f"{type(e).__name__}: {e}")
                continue
            room.turn_started = None  # a restarted server: the player to move gets a whole turn
            self.rooms[room.id] = room
        for room in self.rooms.values():
            room._refresh()
            room.schedule()
        for stored in reversed(await self.storage.list_rooms([*ENDED, "broken"], ENDED_LISTED)):
            self.ended[stored.id] = self._listed(stored)
        self._sweeper = asyncio.create_task(self._sweep_loop(), name="room-sweeper")

    def _listed(self, stored: StoredRoom) -> dict[str, Any]:
        """What the lobby's list says about a room known only from its stored rows."""
        seats = [Seat.stored(x) for x in stored.seats]
        listed = Room(self, stored.id, stored.game, stored.config, seats, stored.status, stored.created,
                      stored.rematch, stored_events=stored.event_count)
        return listed.info()

    async def listing(self, status: str | None, limit: int) -> list[dict[str, Any]]:
        """The lobby's list, newest first: open rooms to join, running ones to watch, ended ones
        to replay. One server lists its memory (every live room is there, and the newest ended
        ones); with several instances the database lists them, since a room created on another
        instance is in this one's memory only once someone here asked for it. A room this
        instance holds is described from memory (presence, deadline)."""
        if not self.leases.distributed:
            rooms = [r.info() for r in self.rooms.values() if r.status in LIVE and (status is None or r.status == status)]
            if status is None or status not in LIVE:
                rooms += [info for info in self.ended.values() if status is None or info["status"] == status]
        else:
            statuses = [status] if status is not None else [*LIVE, *ENDED, "broken"]
            rooms = []
            for stored in await self.storage.list_rooms(statuses, limit):
                room = self.rooms.get(stored.id)
                rooms.append(room.info() if room is not None and room.status == stored.status else self._listed(stored))
        rooms.sort(key=lambda r: r["created"], reverse=True)
        return rooms[:limit]

    def _quarantine(self, room_id: str, why: str) -> None:
        log.error("room %s is damaged and was set aside (status broken): %s", room_id, why)
        self.quarantined.append(room_id)
        self.spawn(self.storage.set_status(room_id, "broken"))

    async def close(self) -> None:
        if self._sweeper is not None:
            self._sweeper.cancel()
        if self._lease_loop is not None:
            self._lease_loop.cancel()
            with contextlib.suppress(BaseException):
                await self._lease_loop
        for room_id, room in self.rooms.items():
            if room.runs_clock and self.leases.distributed:
                with contextlib.suppress(Exception):
                    await self.leases.release(room_id)
        for task in list(self._tasks):
            task.cancel()
        for task in list(self._tasks):
            with contextlib.suppress(BaseException):
                await task
        for room in self.rooms.values():
            for conn in list(room.conns):
                await conn.close()
            bots = list(room._bots.values())
            room._bots.clear()
            for bot in bots:
                close = getattr(bot, "close", None)
                if callable(close):
                    await asyncio.to_thread(close)
        self._pool.shutdown(wait=False, cancel_futures=True)
        if self._procs is not None:
            self._procs.shutdown(wait=False, cancel_futures=True)
        await self.bus.close()
        await self.leases.close()
        await self.storage.close()

    def _restore(self, stored: StoredRoom) -> Room:
        """A room from its stored rows (runs in a thread: rebuilding replays every move)."""
        seats = [Seat.stored(s) for s in stored.seats]
        room = Room(
            self, stored.id, stored.game, stored.config, seats, stored.status, stored.created,
            stored.rematch, stored.start, list(stored.events), stored_events=stored.event_count,
            turn_started=stored.turn_started if stored.turn_started is not None else stored.updated,
        )
        if stored.start is not None and stored.status != "broken":
            try:
                room.game = room.adapter.rebuild(stored.start, room.logged_events())
                assert room.table is not None
                room.table.advance()  # the die of the turn in play (the roll is chance, not an event)
            except (RecordError, IllegalMove, RulesError, ActionError) as e:
                room.status = "broken"
                room.error = f"cannot replay this room's moves: {e}"
                log.error("room %s: %s", room.id, room.error)
                return room
            if room.game.over:
                room.status = "over"
            if room.status != "playing":
                room.ended_at = time.monotonic()
                game = room.game
                room._game_text = json.dumps(room._public_game(), separators=(",", ":"))
                room._record_text = json.dumps(room.adapter.record(game), separators=(",", ":"))
                room.game = None
                room.start = None
        return room

    def get(self, room_id: str) -> Room:
        room = self.rooms.get(room_id)
        if room is None:
            raise ActionError("unknown_room", _("there is no room {room!r}").format(room=room_id))
        return room

    async def find(self, room_id: str) -> Room:
        """A live room, or an ended one read back from the database (and kept for a while)."""
        room = self.rooms.get(room_id)
        if room is not None:
            return room
        if len(room_id) > 32:
            raise ActionError("unknown_room", _("there is no such room"))
        try:
            stored = await self.storage.load_room(room_id)
            if stored is None:
                raise ActionError("unknown_room", _("there is no room {room!r}").format(room=room_id))
            if stored.status == "broken":
                raise ValueError("it was set aside as damaged")
            restored = None if room_id in self.rooms else await asyncio.to_thread(self._restore, stored)
        except ActionError:
            raise
        except Exception as e:  # damaged rows: answered as missing, never as a server error
            log.error("room %s cannot be read back: %s", room_id, e)
            raise ActionError("unknown_room", _("room {room!r} is damaged and was set aside").format(room=room_id)) from None
        room = self.rooms.get(room_id)  # read by someone else meanwhile
        if room is None:
            assert restored is not None
            room = restored
            if room.status in LIVE:
                room._published = len(room.events)
                got = await self.leases.acquire(room_id)
                if got == TAKEN_OVER and room.status == "playing":
                    self._took_over(room_id)
                room.runs_clock = got != NOT_HELD
            else:
                room.ended_at = time.monotonic()
            room._refresh()
            if room_id in self.rooms:  # read meanwhile again, while the lease was asked for
                return self.rooms[room_id]
            self.rooms[room_id] = room
            await self.bus.watch(room_id)
            room.schedule()
        return room

    def note_ended(self, room: Room) -> None:
        """Keep (or update) an ended room's lobby entry."""
        self.ended.pop(room.id, None)
        self.ended[room.id] = room.info()
        while len(self.ended) > ENDED_LISTED:
            del self.ended[next(iter(self.ended))]

    def live_count(self) -> int:
        return sum(1 for r in self.rooms.values() if r.status in LIVE)

    def ext_seats(self) -> int:
        return sum(1 for r in self.rooms.values() if r.status in LIVE for s in r.seats if s.kind.startswith("ext:"))

    async def create(
        self,
        game: str,
        rules: Mapping[str, Any] | None,
        seat_specs: Sequence[Mapping[str, Any]],
        timer: float | None = None,
        rematch_of: str | None = None,
        creator: str | None = None,
        reserved: Sequence[tuple[str | None, str | None]] | None = None,
    ) -> Room:
        """A new room; its rules are checked against the server's ranges (cheap), then by
        building a game with them (in a thread) before anything is stored. ``reserved``: per
        seat, the old token hash and name of a rematch seat kept for its player."""
        adapter = adapter_for(game)
        limits = self.limits
        if self.live_count() >= limits.rooms_total:
            raise ActionError("server_full", _("this server holds {n} open rooms: try again later").format(n=limits.rooms_total))
        rules = check_rules(limits, adapter, rules)
        if not (1 <= len(seat_specs) <= adapter.max_seats):
            raise ActionError("bad_seats", f"the {game} game takes 1 to {adapter.max_seats} seats, got {len(seat_specs)}")
        known = [*bot_names(), *allowed_commands()]
        seats: list[Seat] = []
        for i, spec in enumerate(seat_specs):
            kind = str(spec.get("kind") or "open")
            strength = spec.get("strength")
            if kind not in ("open", *known):
                raise ActionError("bad_seats", f"seats[{i}]: {kind!r} is not 'open' or a bot ({', '.join(known)})")
            refusal = None if kind == "open" else bot_refusal(kind, game)
            if refusal is not None:  # the game's spec does not offer it
                raise ActionError("bad_seats", Message(N_("seats[{seat}]: {reason}"), seat=i, reason=refusal))
            name = None
            if kind != "open":
                label = "External" if kind.startswith("ext:") else kind.capitalize()
                name = clean_name(limits, spec.get("name") or f"{label} {i + 1}")
                if any(s.name == name for s in seats):
                    name = f"{name} {i + 1}"
            seats.append(Seat(i, kind, name, float(strength) if strength is not None else None))
            seats[-1].tower = spec.get("tower")
        adapter.check_setup(rules, [s.tower for s in seats])
        ext = sum(1 for s in seats if s.kind.startswith("ext:"))
        if ext and self.ext_seats() + ext > limits.ext_processes:
            raise ActionError(
                "bad_seats", _("this server runs at most {most} external bot processes at a time").format(most=limits.ext_processes)
            )
        if reserved:
            for seat, (old_hash, old_name) in zip(seats, reserved, strict=False):
                if seat.kind == "open" and old_hash:
                    seat.kind, seat.token_hash, seat.name = "reserved", old_hash, old_name
        people = any(not s.is_bot for s in seats)
        if creator is not None and rematch_of is None and people:
            mine = sum(1 for r in self.rooms.values() if r.creator == creator and r.status == "waiting")
            if mine >= limits.open_rooms:
                raise ActionError(
                    "too_many_rooms", _("you have {n} rooms waiting for players (at most {most})").format(n=mine, most=limits.open_rooms)
                )
        timer = check_timer(limits, timer, people)
        if creator is not None and rematch_of is None:
            self.ledger.room_created(creator)
        try:
            await asyncio.to_thread(adapter.new_game, [f"P{i}" for i in range(len(seats))], rules, 0)
        except (RulesError, IllegalMove, RecordError, ValueError, TypeError) as e:
            raise ActionError("bad_rules", engine_text(e)) from None
        room_id = secrets.token_urlsafe(9)
        while room_id in self.rooms:
            room_id = secrets.token_urlsafe(9)
        config: dict[str, Any] = {"rules": rules, "timer": timer, "rematch_of": rematch_of}
        if reserved:
            config["reserved_until"] = time.time() + limits.rematch_reserve
        await self.storage.create_room(
            room_id, game, config,
            [
                {"seat": s.index, "kind": s.kind, "name": s.name, "strength": s.strength, "token_hash": s.token_hash,
                 "tower": s.tower}
                for s in seats
            ],
        )
        room = Room(self, room_id, game, config, seats, creator=creator)
        room._refresh()
        self.rooms[room_id] = room
        await self.bus.watch(room_id)
        room.runs_clock = await self.leases.acquire(room_id) != NOT_HELD
        if all(s.kind != "open" and s.kind != "reserved" for s in seats):
            async with room.lock:
                await room._start()
            room.schedule()
            room.broadcast()
        return room

    async def rematch(self, room: Room, seat: int, token: str) -> tuple[Room, int, str]:
        """The same table again: one new room per finished game; each player takes the same
        seat, kept for them (by their old token) for ``rematch_reserve`` seconds. Asking twice
        answers the same seat and token."""
        if room.status != "over":
            raise ActionError("not_over", _("a rematch starts once the game is over"))
        try:
            async with room.lock:
                if room.rematch is None:
                    specs = [
                        {"kind": "open"} if not s.is_bot else {"kind": s.kind if s.kind != "resigned" else "open", "name": s.name, "strength": s.strength}
                        for s in room.seats
                    ]
                    for spec in specs:
                        if spec["kind"] == "open":
                            spec.pop("name", None)
                            spec.pop("strength", None)
                    reserved = [
                        (s.token_hash, s.name) if s.kind == "human" else (None, None) for s in room.seats
                    ]
                    rules = game_spec(room.game_name).rematch_rules(replay(room.record()), room.rules)
                    new = await self.create(
                        room.game_name, rules, specs, room.timer, rematch_of=room.id, reserved=reserved
                    )
                    await self.storage.set_rematch(room.id, new.id)
                    room.rematch = new.id
                    self.note_ended(room)
        finally:
            room.broadcast()
        assert room.rematch is not None
        new_room = await self.find(room.rematch)
        new_token = rematch_token(token, new_room.id)
        new_seat, new_token = await new_room.join(
            seat, room.seats[seat].name, token=new_token, old_hash=room.seats[seat].token_hash
        )
        return new_room, new_seat, new_token

    # ------------------------------------------------------------------ retention

    async def _sweep_loop(self) -> None:
        while True:
            await asyncio.sleep(min(30.0, max(0.5, self.limits.finished_linger / 4)))
            try:
                self._evicted_since_gc += len(await self.sweep())
                if self._evicted_since_gc >= GC_AFTER_EVICTIONS:
                    # An ended game leaves reference cycles (game, table, bots, connections) that
                    # only a full collection frees, and under a steady load CPython's thresholds
                    # rarely run one: memory grew ~19 MB per 1000 games until one did.
                    self._evicted_since_gc = 0
                    gc.collect()
            except Exception:
                log.exception("sweeping rooms failed")

    async def sweep(self) -> list[str]:
        """Let ended rooms go from memory, and end rooms nobody uses; the rooms dropped."""
        now = time.monotonic()
        limits = self.limits
        dropped = []
        for room in list(self.rooms.values()):
            idle = now - room.touched
            people_here = any(s.connected for s in room.seats) or bool(room.conns)
            if room.status == "waiting" and idle > limits.waiting_expiry and not people_here:
                await self._end(room, "expired", "nobody joined in time")
            elif room.status == "playing" and room.has_people and idle > limits.abandoned_expiry and not people_here:
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
        """Let a room go from this instance's cache (served from the database on demand)."""
        if self.rooms.get(room.id) is room:
            del self.rooms[room.id]
        room._cancel_timer()
        bots = list(room._bots.values())
        room._bots.clear()
        self.close_bots(bots)
        with contextlib.suppress(Exception):
            await self.bus.unwatch(room.id)
        if room.runs_clock and self.leases.distributed:
            with contextlib.suppress(Exception):
                await self.leases.release(room.id)

    # ------------------------------------------------------------------ instances

    async def _heard(self, room_id: str, data: dict[str, Any]) -> None:
        """A message about a room from another instance (``bus``)."""
        room = self.rooms.get(room_id)
        if room is None:
            return
        kind = data.get("kind")
        if kind == "room":
            await room.adopt(data)
        elif kind == "chat":
            room.hear_chat(str(data["line"]))
        elif kind == "presence":
            room.heard_presence(str(data.get("from")), list(data["seats"]), int(data["spectators"]))

    async def _leases_loop(self) -> None:
        """Renew this instance's leases; take the ones nobody renews (their holder died) for the
        rooms this instance serves, and for live rooms no instance serves."""
        ticks = 0
        while True:
            await asyncio.sleep(self.leases.ttl / 3)
            ticks += 1
            try:
                await self.tend_leases(scan=ticks % 3 == 0)
                if ticks % 6 == 0:
                    for room in list(self.rooms.values()):
                        if room.conns and room.status in LIVE:
                            room.publish_presence()
            except Exception:
                log.exception("tending the room leases failed")

    async def tend_leases(self, scan: bool = True) -> None:
        held = [r.id for r in self.rooms.values() if r.runs_clock and r.status in LIVE]
        kept = await self.leases.renew(held)
        for room_id in held:
            room = self.rooms.get(room_id)
            if room is not None and room_id not in kept:
                log.warning("room %s: lease lost; another instance runs its bots and timer", room_id)
                room.runs_clock = False
                room._cancel_timer()
        for room in [r for r in self.rooms.values() if not r.runs_clock and r.status in LIVE]:
            got = await self.leases.acquire(room.id)
            if got != NOT_HELD:
                if got == TAKEN_OVER and room.status == "playing":
                    self._took_over(room.id)
                room.runs_clock = True
                await room.resync()
        if scan:
            # Playing rooms that no instance serves (their holder died with nobody watching).
            for room_id in await self.storage.room_ids("playing", limit=200):
                if room_id in self.rooms:
                    continue
                got = await self.leases.acquire(room_id)
                if got == TAKEN_OVER:
                    self._took_over(room_id)
                if got != NOT_HELD:
                    try:
                        await self.find(room_id)
                    except ActionError:
                        await self.leases.release(room_id)

    def _took_over(self, room_id: str) -> None:
        self.takeovers += 1
        self.metrics.lease_takeovers.inc()
        log.warning("room %s: lease taken over (its holder stopped renewing it)", room_id)

    async def _end(self, room: Room, status: str, why: str) -> None:
        async with room.lock:
            await self.storage.set_status(room.id, status)
            room.status = status
            room.error = why
            if room.game is not None:
                room._retire()
            room.ended_at = time.monotonic()
        self.note_ended(room)
        log.info("room %s %s: %s", room.id, status, why)
        room.broadcast()
