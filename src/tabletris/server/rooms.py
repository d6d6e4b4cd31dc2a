"""Rooms: seats, secret tokens, the game, its event log and the connections.

The room is the only writer of its game. Every change runs under the room's lock in the same
order: ask the engine (which rejects an illegal move and leaves the game as it was), commit the
resulting events to storage, and only then acknowledge and broadcast. If the commit fails the
game is rebuilt from the stored log, so memory never runs ahead of the database.

A room holds three helpers, each its own module, made by the lobby that holds the room
(``Host``): its turn clock (bots' turns and the turn timer: ``clock.py``), its replication (the
copies on other instances, and presence: ``replication.py``) and its chat (``chat.py``). Nothing
slow runs on the event loop: bots think off it (``bot_pool.py``), and games are built and
rebuilt in threads.
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import json
import logging
import secrets
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from tabletris.bots.base import Bot
from tabletris.engine.errors import IllegalMove
from tabletris.i18n import _
from tabletris.server import timesource
from tabletris.server.adapter import GameAdapter
from tabletris.server.bot_pool import BotPool
from tabletris.server.bus import Bus
from tabletris.server.chat import Chat
from tabletris.server.connection import Connection
from tabletris.server.errors import ActionError, engine_text
from tabletris.server.games import adapter_for
from tabletris.server.jsontext import dumps
from tabletris.server.limits import Limits, check_name_free, clean_name
from tabletris.server.logs import log_context
from tabletris.server.metrics import Metrics
from tabletris.server.seats import TIMER_BOT, Seat, hash_token
from tabletris.server.speeds import Clocks, Speed
from tabletris.server.storage import Conflict, Storage, StoredRoom
from tabletris.table.driver import Table

log = logging.getLogger("tabletris.server")

SEED_BITS = 128
"""A server game's seed: drawn from the OS's cryptographic source and long enough that no
scan over seeds can match what a spectator sees (a 32-bit seed could be found in hours from
the layouts and the first cards, and with it the rest of the deck). It stays in the database
until the game is over; the record then publishes it with every outcome."""
ENDED = ("over", "abandoned", "stopped", "expired")
"""Statuses of a room whose game will not go on: its record may be published."""
LIVE = ("waiting", "playing")
CONFLICT_RETRIES = 4
"""Times a move is tried again on the room read back after another instance committed first."""


class Clock(Protocol):
    """What a room asks of its turn clock (``clock.TurnClock``)."""

    @property
    def deadline(self) -> float | None:
        """When the turn timer plays for the people to act (wall time); None: no timer runs."""

    def seat_deadline(self, seat: int) -> float | None:
        """When ``seat``'s time for the turn in play is up (None: nothing expires)."""

    def schedule(self) -> None:
        """The room changed: start what must act now (bots, the turn timer)."""

    def cancel(self) -> None:
        """Nothing is timed any more (the game ended, the lease was lost)."""

    def moved(self, seat: int) -> None:
        """A person moved in time."""

    def thinking(self) -> int:
        """Bots thinking now."""

    def release_bots(self) -> list[Bot]:
        """The bots holding a process, let go (the caller stops them)."""


class Replica(Protocol):
    """What a room and its lobby ask of its replication (``replication.Replica``)."""

    published: int

    def spectators_elsewhere(self) -> int: ...
    def connected_elsewhere(self) -> int: ...
    def broadcast(self, publish: bool) -> None: ...
    async def adopt(self, data: Mapping[str, Any]) -> None: ...
    async def reload(self) -> None: ...
    async def resync(self) -> None: ...
    def catch_up(self) -> None: ...
    def presence(self, newcomer: Connection | None = None, publish: bool = True) -> None: ...
    def publish_presence(self) -> None: ...
    def heard_presence(self, instance: str, seats: Sequence[int], spectators: int) -> None: ...


class Host(Protocol):
    """What a room asks of the lobby that holds it (``lobby.Lobby``)."""

    storage: Storage
    bus: Bus
    limits: Limits
    metrics: Metrics
    bots: BotPool
    bot_delay: float

    def spawn(self, coro: Any) -> asyncio.Task[Any]: ...
    def note_ended(self, room: Room) -> None: ...
    def turn_began(self, room: Room) -> None:
        """A turn began in the room and is stored (on the instance that stored it)."""
    def restore(self, stored: StoredRoom) -> Room:
        """A room from its stored rows (rebuilding its game)."""
    def clock_for(self, room: Room) -> Clock: ...
    def replica_for(self, room: Room) -> Replica: ...
    def follow_sockets(self, room: Room) -> None:
        """The room's connections changed here or elsewhere: its lease may move to them."""
    def list_changed(self, room: Room, now: bool = False) -> None:
        """This instance changed the room: its entry in the other instances' lobby lists."""


@dataclass
class Room:
    """A table: configuration, seats, the game once every seat is taken, and who is watching."""

    lobby: Host
    id: str
    game_name: str
    config: dict[str, Any]
    seats: list[Seat]
    status: str = "waiting"
    created: float = field(default_factory=timesource.now)
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
    touched: float = field(default_factory=timesource.monotonic)
    """When the room last changed (expiry of abandoned rooms)."""
    ended_at: float | None = None
    by_timer: set[int] = field(default_factory=set)
    """The moves the timer played, as the adapter numbers them (``timer_mark``)."""
    info_text: str = ""
    """``info()`` as JSON text, rendered with the state at each change (a new object each
    time): the lobby's list joins these texts, and builds no dict and encodes nothing per request."""
    _game_json: str = "null"
    _public: str = ""
    _dirty: bool = False
    _private: dict[int, str] = field(default_factory=dict)
    _seq: int = 0
    game_text: str | None = None
    """A finished game's public state as JSON text (see ``retire``)."""
    record_text: str | None = None
    """A finished game's record as JSON text (see ``retire``)."""
    next_rules: dict[str, Any] | None = None
    """A finished game's rematch rules (``GameSpec.rematch_rules``), worked out by ``retire``
    while the game is at hand: replaying the record for them was half a rematch's CPU when many
    games ended at once (issue 28)."""
    _adapter: GameAdapter | None = field(default=None, repr=False, compare=False)
    runs_clock: bool = True
    """This instance holds the room's lease: it runs the bots and the turn timer."""
    clocks: Clocks | None = None
    """The game clocks of a real-time room with clocks (stored with each move: ``rooms.clocks``)."""
    speed: Speed = field(init=False, repr=False, compare=False)
    """How the room's time runs (from its config: ``speeds.Speed``)."""
    clock: Clock = field(init=False, repr=False, compare=False)
    """Its bots' turns and the turn timer."""
    replica: Replica = field(init=False, repr=False, compare=False)
    """Its copies on other instances, and who is connected there."""
    chat: Chat = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        self.speed = Speed.of_config(self.config)
        self.clock = self.lobby.clock_for(self)
        self.replica = self.lobby.replica_for(self)
        self.chat = Chat(self)

    @property
    def game(self) -> Any:
        return None if self.table is None else self.table.game

    @game.setter
    def game(self, value: Any) -> None:
        self.table = None if value is None else Table(value)

    @property
    def adapter(self) -> GameAdapter:
        """The game's server adapter, found once (finding it imports the game's module by name:
        it was 6% of a move's time, asked a dozen times a move)."""
        adapter = self._adapter
        if adapter is None:
            adapter = self._adapter = adapter_for(self.game_name)
        return adapter

    @property
    def limits(self) -> Limits:
        return self.lobby.limits

    @property
    def rules(self) -> dict[str, Any]:
        return dict(self.config.get("rules") or {})

    @property
    def timer(self) -> float | None:
        """Seconds per turn or round (a per-move timer, or turn-based); None: a game clock, or untimed."""
        return self.speed.per_move

    @property
    def has_people(self) -> bool:
        return any(not s.is_bot for s in self.seats)

    @property
    def deadline(self) -> float | None:
        """When the turn timer plays for the people to act (wall time), shown by every instance."""
        return self.clock.deadline

    def schedule(self) -> None:
        """Start what must act now: the bots' turns and the turn timer (``clock``)."""
        self.clock.schedule()

    def spectators(self) -> int:
        """Spectators here and on the other instances."""
        return sum(1 for c in self.conns if c.seat is None) + self.replica.spectators_elsewhere()

    # ------------------------------------------------------------------ views

    def info(self) -> dict[str, Any]:
        """What the lobby and every client see about the room."""
        acting = self.table.to_act() if self.table is not None and self.status == "playing" else []
        return {
            "id": self.id,
            "game": self.game_name,
            "status": self.status,
            "created": self.created,
            "rules": self.rules,
            "preset": self.rules.get("preset", "standard"),
            "timer": self.timer,
            "speed": self.speed_info(),
            "clocks": self.clock_info(acting),
            "turn_started": self.turn_started if self.status == "playing" else None,
            "rated": bool(self.config.get("rated")),
            "seats": [s.info() for s in self.seats],
            "rematch": self.rematch,
            "rematch_of": self.config.get("rematch_of"),
            "deadline": self.deadline,
            "to_act": acting,
            "events": max(len(self.events), self.stored_events),
            "spectators": self.spectators(),
            "error": self.error,
        }

    def speed_info(self) -> dict[str, Any]:
        """The room's speed as the API shows it: an untimed room also says after how long the
        others may expel a player who does not act (``expel_after``, seconds)."""
        info = self.speed.as_json()
        if not self.speed.timed:
            info["expel_after"] = self.limits.untimed_expel
        return info

    def clock_info(self, acting: Sequence[int]) -> list[dict[str, Any] | None] | None:
        """Each seat's game clock (None: the room has none; a seat's None: no clock, a bot):
        ``left``, seconds left when not running; ``until``, the wall time it reaches zero while
        it runs (the seat is to act: in ``acting``). Fixed between two changes, so the state is
        rendered once."""
        clocks = self.clocks
        if clocks is None:
            return None
        started = self.turn_started
        out: list[dict[str, Any] | None] = []
        for seat in self.seats:
            i = seat.index
            if clocks.left[i] is None:
                out.append(None)
                continue
            running = i in acting and seat.kind == "human" and clocks.used[i] is None and started is not None
            left = clocks.remaining(i, started or 0.0, started or 0.0, False)
            out.append({"left": left, "until": clocks.deadline(i, started) if running and started is not None else None})
        return out

    def refresh(self, game_changed: bool = True) -> None:
        """Render the state once per change: the public part and each person's private part.

        Readers only ever see these texts, never the live game, so a move that is still being
        committed is invisible until it is stored and broadcast. A presence change re-renders
        the room part only.
        """
        if game_changed or not self._public:
            if self.game_text is not None:
                self._game_json = self.game_text
            elif self.game is not None:
                self._game_json = self.adapter.public_text(self.game, self.by_timer)
            else:
                self._game_json = "null"
            self._private = {}
            if self.game is not None and self.status == "playing":
                for seat in self.seats:
                    if seat.kind == "human":
                        private = self.adapter.private(self.game, seat.index)
                        if private is not None:
                            self._private[seat.index] = dumps(private)
            self._seq = len(self.events)
        self.info_text = dumps(self.info())
        self._public = '{"room":' + self.info_text + ',"game":' + self._game_json + "}"

    def state_text(self, seat: int | None) -> str:
        """The state message for ``seat`` (None: a spectator): public state plus the seat's own."""
        if not self._public:
            self.refresh()
        private = self._private.get(seat, "null") if seat is not None else "null"
        return (
            '{"type":"state","you":' + ("null" if seat is None else str(seat)) + ',"seq":' + str(self._seq)
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
        self.touched = timesource.monotonic()
        self.refresh()
        for conn in list(self.conns):
            if conn.alive:
                conn.send_latest("state", self.state_text(conn.seat))
        self.replica.broadcast(publish)

    def attach(self, conn: Connection) -> None:
        """A connection joins the room: it gets the chat so far and the state; the others a
        presence message."""
        for line in self.chat.log:
            conn.send(line)
        self.conns.add(conn)
        if conn.seat is not None:
            self.seats[conn.seat].connected += 1
        self.replica.presence(newcomer=conn)

    def detach(self, conn: Connection) -> None:
        """A connection left the room."""
        self.conns.discard(conn)
        if conn.seat is not None:
            self.seats[conn.seat].connected -= 1
        self.replica.presence()

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
        return seat.kind == "open" or (seat.kind == "reserved" and timesource.now() >= self._reserved_until())

    def account_seat(self, account_id: str | None) -> int | None:
        """The seat this account holds here (None: none): its session acts for it like its token."""
        if account_id is None:
            return None
        return next((s.index for s in self.seats if s.account_id == account_id and s.kind != "reserved"), None)

    async def renew_token(self, seat: int) -> str:
        """A new token for an account's seat (the account logged in elsewhere): the old ends."""
        token = secrets.token_urlsafe(24)
        s = self.seats[seat]
        async with self.lock:
            await self.lobby.storage.set_seat(self.id, seat, s.kind, s.name, hash_token(token), s.tower)
            s.token_hash = hash_token(token)
        return token

    async def join(
        self, seat: int | None, name: Any, tower: str | None = None, token: str | None = None,
        old_hash: str | None = None, account_id: str | None = None,
    ) -> tuple[int, str]:
        """Take an open seat (the first one if ``seat`` is None); returns the seat and its token.

        ``token``: a seat token the caller already holds here, which makes a repeated join
        answer the same seat (join is idempotent). ``tower``: the seat's tower and end in a
        tower game, checked by the engine. ``old_hash``: the hash of the previous
        game's token, which takes that player's reserved rematch seat. ``account_id``: the
        logged-in caller's account (``name`` is then its username), kept with the seat; an
        account that already sits here gets its seat again with a new token (the old one ends).
        A rated room seats accounts only (``login_required``), so its game is always rated.
        """
        name = clean_name(self.limits, name)
        if token:
            with contextlib.suppress(ActionError):
                return self.authenticate(token), token
        if account_id is not None:
            held = self.account_seat(account_id)
            if held is not None:
                return held, await self.renew_token(held)
        elif self.config.get("rated"):
            raise ActionError("login_required", _("room {room} is rated: log in to take a seat (rated games are played by accounts)").format(room=self.id))
        new_token = token or secrets.token_urlsafe(24)
        try:
            async with self.lock:
                mine = [
                    s.index for s in self.seats if s.kind == "reserved"
                    and ((old_hash and s.token_hash == old_hash) or (account_id is not None and s.account_id == account_id))
                ]
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
                previous_tower = self.seats[seat].tower
                if tower is not None:
                    choice = [s.tower for s in self.seats]
                    choice[seat] = tower
                    self.adapter.check_setup(self.rules, choice)
                    self.seats[seat].tower = tower
                token_hash = hash_token(new_token)
                try:
                    await self.lobby.storage.take_seat(
                        self.id, seat, name if not mine else self.seats[seat].name or name, token_hash, self.seats[seat].tower,
                        account_id=account_id,
                    )
                except Conflict:
                    await self.replica.reload()
                    raise ActionError(
                        "seat_taken", _("seat {seat} was just taken on another server: look again").format(seat=seat)
                    ) from None
                except Exception as e:  # the storage logged it
                    self.seats[seat].tower = previous_tower
                    raise ActionError("storage", _("the seat could not be stored; nothing changed: try again")) from e
                taken = self.seats[seat]
                taken.kind = "human"
                taken.name = taken.name if mine and taken.name else name
                taken.token_hash = token_hash
                taken.account_id = account_id
                if self.full():
                    # The seat is stored: a start that fails now is retried by the clock
                    # (``schedule`` below), so the join stands and the game starts when the
                    # database answers again.
                    await self.start_or_retry()
        finally:
            self.schedule()
            self.broadcast()
        return seat, new_token

    def full(self) -> bool:
        """Every seat is taken (none open, none kept for a rematch player)."""
        return all(s.kind not in ("open", "reserved") for s in self.seats)

    async def start_or_retry(self) -> bool:
        """``start_game`` (under the lock); a storage failure is logged by the storage and left
        to the clock, which retries the start with backoff. True when the game started."""
        try:
            await self.start_game()
        except ActionError as e:
            if e.code != "storage":
                raise
            log.info("room %s: the game could not be started yet (storage); the clock retries it", self.id)
            return False
        return self.status != "waiting"


    async def leave(self, seat: int) -> str:
        """``leave``: before the game the seat opens again; during it, the player resigns."""
        async with self.lock:
            if self.status == "waiting":
                s = self.seats[seat]
                await self.lobby.storage.set_seat(self.id, seat, "open", None, None)
                s.kind, s.name, s.token_hash, s.tower, s.account_id = "open", None, None, None, None
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
                self.touched = timesource.monotonic()
        finally:
            self.schedule()
            self.broadcast()
        if not any(x.kind == "human" for x in self.seats):
            log.info("room %s: every person resigned; the bots play it out", self.id)
        return "resigned"

    def expel_at(self, seat: int) -> float | None:
        """When the others may expel ``seat`` (untimed rooms: ``untimed_expel`` seconds after its
        turn began, while it is to act); None: not to act, not a person, or a timed room (its
        clock plays for a player out of time)."""
        if self.speed.timed or self.status != "playing" or self.table is None or self.turn_started is None:
            return None
        if self.seats[seat].kind != "human" or seat not in self.table.to_act():
            return None
        return self.turn_started + self.limits.untimed_expel

    async def expel(self, by: int, seat: Any) -> str:
        """``by`` expels ``seat``, a person who has not acted for ``untimed_expel`` seconds in an
        untimed room: the seat is resigned (the timer's bot plays it to the end). Refused before
        then (``too_early``, saying when), in a timed room, and for oneself."""
        if not isinstance(seat, int) or isinstance(seat, bool) or not (0 <= seat < len(self.seats)):
            raise ActionError("bad_seat", f"room {self.id} has seats 0 to {len(self.seats) - 1}, not {seat!r}")
        if self.seats[by].kind != "human":
            raise ActionError("not_seated", _("only a player can expel another"))
        if seat == by:
            raise ActionError("bad_seat", _("you cannot expel yourself: resign instead"))
        if self.status != "playing":
            raise ActionError("not_started" if self.status == "waiting" else "game_over", _("no game in play"))
        if self.speed.timed:
            raise ActionError("too_early", _("in a timed room nobody is expelled: when a player's time runs out, a bot plays for them"))
        when = self.expel_at(seat)
        if when is None:
            raise ActionError("too_early", _("seat {seat} is not a person to act: only a player who holds the game up may be expelled").format(seat=seat))
        wait = when - timesource.now()
        if wait > 0:
            raise ActionError(
                "too_early", _("seat {seat} may be expelled in {hours:.1f} h ({days:g} days after their turn began)").format(
                    seat=seat, hours=wait / 3600, days=self.limits.untimed_expel / 86400),
                retry_after=wait,
            )
        log.info("room %s: seat %d expelled by seat %d after %.0f s without a move", self.id, seat, by, timesource.now() - (self.turn_started or 0))
        return await self.resign(seat)

    async def start_game(self) -> None:
        players = [s.name or f"Seat {s.index + 1}" for s in self.seats]
        seed = secrets.randbits(SEED_BITS)
        rules = self.adapter.setup_rules(self.rules, [s.tower for s in self.seats])
        game = await asyncio.to_thread(self.adapter.new_game, players, rules, seed)
        start = self.adapter.start_record(game)
        clocks = None
        if self.speed.clocked and self.speed.initial is not None:
            clocks = Clocks.start(self.speed.initial, [s.kind == "human" for s in self.seats])
        try:
            self.turn_started = await self.lobby.storage.start_room(self.id, start, None if clocks is None else clocks.text())
        except Conflict:  # another instance started it: take its game
            await self.replica.reload()
            return
        except Exception as e:  # the storage logged it; the seats stay taken and the clock retries
            raise ActionError("storage", _("the game could not be started: the database did not store it; it starts when it does")) from e
        self.start = start
        self.game = game
        self.clocks = clocks
        self.status = "playing"
        assert self.table is not None
        opening = self.table.advance()  # the first roll or card: part of the turn the start began
        try:
            await self._commit(opening, self.adapter.turn_key(game))
        except Conflict:  # another instance rolled first: its game is read back
            return
        except ActionError as e:  # not stored: the game stands as the stored start rebuilds it
            if e.code != "storage":
                raise
        self.lobby.turn_began(self)  # the first turn

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
        and the move is tried again on it: a move for the turn just played is then a stale move;
        in a round everybody plays at once, the move of a seat that had not moved yet is still good."""
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
        now = timesource.now()
        if by is None:
            self._check_in_time(seat, now)
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
        await self._commit(events, key, now, seat if by != "bot" else None)
        if by == "timer":
            self.by_timer.add(self.adapter.timer_mark(key, seat, first))
        elif by is None:
            self.clock.moved(seat)
        self.touched = timesource.monotonic()
        return seq

    def _check_in_time(self, seat: int, now: float) -> None:
        """``too_late`` for a person's move that comes after their time ran out: the timer's
        bot plays for them (on the instance that runs the clock), and the move never applies."""
        deadline = self.clock.seat_deadline(seat)
        if deadline is not None and now > deadline:
            raise ActionError(
                "too_late", _("your time for this turn ran out {late:.1f} s ago: the move was not played").format(late=now - deadline)
            )

    async def _commit(
        self, new_events: Sequence[dict[str, Any]], turn_before: Any, now: float | None = None, mover: int | None = None,
    ) -> None:
        """Store the events the game just produced; on failure, fall back to the stored log.
        ``turn_before``: the turn key before them; the turn starts anew when it changed (a tower
        seat's submission leaves the round, and its clock, as they were). ``now``: when the
        move was worked out; ``mover``: the person (or the timer for them) who made it, whose
        game clock stops (real-time rooms with clocks: stored in the same update)."""
        over = bool(self.game is not None and self.game.over)
        capped = (
            not over and not self.has_people and len(self.events) + len(new_events) >= self.limits.bot_only_moves
        )
        status = "over" if over else "stopped" if capped else None
        texts = [dumps(e) for e in new_events]
        now = timesource.now() if now is None else now
        try:
            new_turn = self.game is not None and self.adapter.turn_key(self.game) != turn_before
            clocks = self.clocks
            if clocks is not None and texts:
                started = now if self.turn_started is None else self.turn_started
                if mover is not None and self.seats[mover].kind == "human":
                    clocks = clocks.acted(mover, started, now)
                if new_turn:
                    clocks = clocks.next_turn(self.speed.increment)
            changed = None if clocks == self.clocks or clocks is None else clocks.text()
            stored_at = await self.lobby.storage.append(
                self.id, len(self.events), texts, status, new_turn=new_turn, clocks=changed, now=now
            )
        except Conflict:
            # Another instance committed to this room first: take the database's room (the
            # caller tries the move again on it, or answers it as stale).
            await self.replica.reload()
            raise
        except Exception as e:  # the storage logged it (one line, rate-limited)
            assert self.start is not None
            self.game = self.adapter.rebuild(self.start, self.logged_events())
            assert self.table is not None
            self.table.advance()
            raise ActionError("storage", _("the move could not be stored; nothing changed: try again")) from e
        self.events.extend(texts)
        self.clocks = clocks
        if texts and new_turn:
            self.turn_started = stored_at
            if status is None:
                self.lobby.turn_began(self)
        if status is not None:
            self.status = status
            if capped:
                self.error = f"stopped after {self.limits.bot_only_moves} moves: bot-only rooms have a move cap"
            self.retire()
            self.lobby.note_ended(self)
            log.info("room %s: game %s after %d events", self.id, status, len(self.events))

    def retire(self) -> None:
        """Keep an ended game as text: its last public state and its record. The game object,
        its bots and the start record are let go (external bot processes are stopped), and the
        lobby drops the room from memory after ``finished_linger`` seconds: the database
        serves it from then on."""
        if self.game is None:
            return
        self.game_text = self.adapter.public_text(self.game, self.by_timer)
        self.record_text = self.adapter.record_text(self.game)
        if self.status == "over" and self.game.over:
            self.next_rules = self.adapter.spec.rematch_rules(self.game, self.rules)
        self.game = None
        self.start = None
        self.ended_at = timesource.monotonic()
        self.clock.cancel()
        self.lobby.bots.close(self.clock.release_bots())

    def logged_events(self) -> list[dict[str, Any]]:
        """The event log decoded, to rebuild the game from it."""
        return [json.loads(text) for text in self.events]

    def query(self, seat: int, message: Mapping[str, Any]) -> dict[str, Any]:
        if self.game is None or self.status != "playing":
            raise ActionError("not_started" if self.status == "waiting" else "game_over", _("no game in play"))
        return self.adapter.query(self.game, seat, message)

    # ------------------------------------------------------------------ records

    def record(self) -> dict[str, Any]:
        if self.record_text is not None:
            return dict(json.loads(self.record_text))
        if self.game is None:
            raise ActionError("not_started", _("room {room} has no game yet").format(room=self.id))
        return self.adapter.record(self.game)


__all__ = ["CONFLICT_RETRIES", "ENDED", "LIVE", "SEED_BITS", "TIMER_BOT", "Clock", "Connection", "Host", "Replica", "Room", "Seat"]
