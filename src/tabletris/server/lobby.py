"""The lobby: every room of this instance, found, created, restored and listed.

Rooms leave memory when they end (after ``finished_linger``), when nobody joins them
(``waiting_expiry``) or when nobody plays them (``abandoned_expiry``): ``housekeeping.py``
sweeps them and tends the leases; ended rooms are read back from the database on demand.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import functools
import json
import logging
import secrets
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any

from sqlalchemy.ext.asyncio import AsyncConnection

from tabletris.bots.external import allowed_commands
from tabletris.bots.registry import bot_names, bot_refusal
from tabletris.engine.errors import IllegalMove, RecordError, RulesError
from tabletris.engine.games import spec as game_spec
from tabletris.engine.records import replay
from tabletris.engine.texts import N_, Message
from tabletris.i18n import _
from tabletris.server import tasks, timesource
from tabletris.server.bot_pool import BotPool
from tabletris.server.bus import HELLO, LOBBY, Bus, LocalBus
from tabletris.server.clock import TurnClock
from tabletris.server.errors import ActionError, engine_text
from tabletris.server.games import adapter_for
from tabletris.server.housekeeping import Housekeeping
from tabletris.server.jsontext import dumps
from tabletris.server.leases import NOT_HELD, TAKEN_OVER, Leases, LocalLeases
from tabletris.server.limits import (
    ClientLedger,
    Limits,
    check_rules,
    clean_name,
    name_skeleton,
)
from tabletris.server.metrics import Metrics
from tabletris.server.ratings import SeatResult, rate_room, rated_room_refusal
from tabletris.server.replication import Replica
from tabletris.server.rooms import ENDED, LIVE, Clock, Room
from tabletris.server.seats import Seat, rematch_token
from tabletris.server.speeds import Clocks, check_speed
from tabletris.server.storage import Conflict, Storage, StoredRoom

log = logging.getLogger("tabletris.server")

ENDED_LISTED = 500
"""Ended rooms the lobby lists (newest first); older ones are still served by id."""
LIST_EVERY = 5.0
"""Seconds between two lobby entries of a room published while only its counters (events,
deadline, spectators) change; a change of status, seats or rematch goes out with the next
message (``ENTRIES_EVERY``)."""
ENTRIES_EVERY = 0.2
"""Seconds the lobby entries this instance changed wait to go out together, as one message on
the bus (``Lobby.list_changed``). One message per entry (about 100 a second at 500 rooms) cost
every instance a Redis message read through redis-py for each, its own included: by py-spy,
4% of the CPU per move of two instances (receiving 0.022, publishing 0.016 of 0.92 ms)
(issue 28)."""
LIVE_LOADED = 2000
"""Live rooms read from the database into the list when an instance starts or its bus comes
back (the rest arrive as they change)."""

ROUTE_KEY = 4
"""A proxy in front of several instances hashes on a room id's first ``ROUTE_KEY`` characters
(docs/deploy.md), not on the whole id: a rematch keeps its game's key, so it is served by the
instance that made it, the one already serving the game, instead of being handed on to the
instance its id would hash to (half of them with two instances; the load benchmark measured
that hand-off at a third more CPU per move)."""


def new_room_id(rematch_of: str | None = None) -> str:
    """A room id: 12 URL-safe characters, 72 random bits; a rematch's keeps its game's route key
    and has 48 random bits after it (ids are looked up, never guessed for a seat: a seat needs
    its token)."""
    if rematch_of is None or len(rematch_of) < ROUTE_KEY:
        return secrets.token_urlsafe(9)
    return rematch_of[:ROUTE_KEY] + secrets.token_urlsafe(6)


class Lobby:
    """Every live room of the server, the storage they share, and the background tasks they
    spawn. Ended rooms are read back from storage when asked for. The bots' threads and
    processes are ``bots``, the sweeping and the leases ``housekeeping``; each room's clock and
    replica are made here (``clock_for``, ``replica_for``)."""

    def __init__(
        self, storage: Storage, bot_delay: float = 0.4, limits: Limits | None = None,
        bus: Bus | None = None, leases: Leases | None = None,
    ) -> None:
        self.storage = storage
        self.bus: Bus = bus or LocalBus()
        self.leases: Leases = leases or LocalLeases()
        self.takeovers = 0
        """Leases this instance took over from one that stopped renewing them."""
        self.handoffs = 0
        """Leases this instance handed on to the instance serving the room's sockets."""
        self.bot_delay = bot_delay
        self.limits = limits or Limits()
        self.ledger = ClientLedger(self.limits)
        self.rooms: dict[str, Room] = {}
        self.quarantined: list[str] = []
        self.ended: dict[str, dict[str, Any]] = {}
        """The lobby entries of the newest ended rooms, oldest first: listing them costs no
        database query and no memory beyond these small dicts."""
        self.elsewhere: dict[str, tuple[dict[str, Any], str]] = {}
        """Several instances: the lobby entries (and their JSON text) of rooms this instance does
        not hold, as the instances that changed them last published them (``list_changed``), or
        as read from the database at start: the list is served from these and the rooms here,
        never from a query per request."""
        self._ended_elsewhere: collections.deque[str] = collections.deque()
        self._entries_sent: dict[str, tuple[Any, float]] = {}
        self._entries_due: set[str] = set()
        self._entries_out: dict[str, str] = {}
        """Lobby entries waiting to be published together (``ENTRIES_EVERY``), by room."""
        self._tasks: set[asyncio.Task[Any]] = set()
        self.bots = BotPool(self.limits)
        self.scoring: set[str] = set()
        """Ended rooms this instance has started recording (``score``): told again of the same
        end (a rematch, a replica's update), it records nothing more."""
        self.housekeeping = Housekeeping(self)
        self.metrics = Metrics(database=storage.engine.dialect.name)
        self.metrics.watch(self.rooms, LIVE)
        self.metrics.watch_store(storage)
        self.turn_watchers: list[Callable[[Room], None]] = []
        """Told when a turn begins in a room, once it is stored, on the instance that stored
        it (the your-turn mail: ``mail.sender.Mailer.turn_began``); each must be cheap."""

    def spawn(self, coro: Any) -> asyncio.Task[Any]:
        task = asyncio.create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    def turn_began(self, room: Room) -> None:
        """A turn began in ``room`` (its move is stored): the watchers are told."""
        for watcher in self.turn_watchers:
            watcher(room)

    def clock_for(self, room: Room) -> Clock:
        """A room's turn clock (the bots' turns and the turn timer)."""
        return TurnClock(room)

    def replica_for(self, room: Room) -> Replica:
        """A room's replication (its copies on other instances)."""
        return Replica(room)

    async def open(self) -> None:
        await self.storage.open()
        await self.bus.start(self._heard, self._bus_back)
        if self.leases.distributed:
            # Several instances: rooms are read on demand, and the lease loop adopts the rooms
            # whose bots and timer nobody runs (a dead instance's).
            stored_rooms: list[StoredRoom] = []
            broken: list[tuple[str, str]] = []
            self.housekeeping.start_leases()
        else:
            stored_rooms, broken = await self.storage.load_rooms(LIVE)
        for room_id, why in broken:
            self._quarantine(room_id, why)
        for stored in stored_rooms:
            try:
                room = await asyncio.to_thread(self.restore, stored)
            except Exception as e:  # any damage: this room is set aside, the rest start
                self._quarantine(stored.id, f"{type(e).__name__}: {e}")
                continue
            self.rooms[room.id] = room
        for room in self.rooms.values():
            room.refresh()
            room.schedule()
        for stored in reversed(await self.storage.list_rooms([*ENDED, "broken"], ENDED_LISTED)):
            self.ended[stored.id] = self._listed(stored)
        if self.bus.distributed:
            await self.load_elsewhere()
        self.housekeeping.start_sweeping()

    async def load_elsewhere(self) -> None:
        """Several instances: the live rooms from the database into the list (at start, when
        the bus comes back, and once a minute: an entry published while this instance was not
        listening never arrived). A live entry of a room the database no longer has live goes."""
        stored_rooms = await self.storage.list_rooms(list(LIVE), LIVE_LOADED)
        live = {stored.id for stored in stored_rooms}
        for room_id in [k for k, entry in self.elsewhere.items() if entry[0]["status"] in LIVE and k not in live]:
            del self.elsewhere[room_id]
        for stored in stored_rooms:
            if stored.id not in self.rooms:
                known = self.elsewhere.get(stored.id)
                if known is None or known[0]["status"] != stored.status:
                    info = self._listed(stored)
                    self.elsewhere[stored.id] = (info, dumps(info))

    def list_changed(self, room: Room, now: bool = False) -> None:
        """Several instances: this instance changed ``room``; publish its lobby entry for the
        others' lists: within ``ENTRIES_EVERY``, with the others changed meanwhile, when its
        status, seats or rematch changed (``now``: it was just created), else at most every
        ``LIST_EVERY`` seconds (its counters), the last one always."""
        if not self.bus.distributed:
            return
        facts = (room.status, [(s.kind, s.name) for s in room.seats], room.rematch)
        sent = self._entries_sent.get(room.id)
        at = timesource.monotonic()
        if now or sent is None or sent[0] != facts or at - sent[1] >= LIST_EVERY:
            self._entries_sent[room.id] = (facts, at)
            if not self._entries_out:
                asyncio.get_running_loop().call_later(ENTRIES_EVERY, self._publish_entries)
            self._entries_out[room.id] = room.info_text or dumps(room.info())
            if room.status not in LIVE:
                self._entries_sent.pop(room.id, None)
        elif room.id not in self._entries_due:
            self._entries_due.add(room.id)
            asyncio.get_running_loop().call_later(LIST_EVERY - (at - sent[1]), self._entry_due, room)

    def _publish_entries(self) -> None:
        """The entries changed since the last of these, in one message (a room's newest only)."""
        entries, self._entries_out = list(self._entries_out.values()), {}
        if entries:
            self.bus.publish(LOBBY, {"kind": "entries", "entries": entries})

    def _entry_due(self, room: Room) -> None:
        self._entries_due.discard(room.id)
        if room.id in self._entries_sent:
            self.list_changed(room, now=True)

    def heard_entry(self, text: str) -> None:
        """Another instance's lobby entry for a room (``list_changed``)."""
        info = json.loads(text)
        room_id = str(info["id"])
        if room_id not in self.elsewhere and info["status"] not in LIVE:
            self._ended_elsewhere.append(room_id)
            while len(self._ended_elsewhere) > ENDED_LISTED:
                self.elsewhere.pop(self._ended_elsewhere.popleft(), None)
        self.elsewhere[room_id] = (info, text)

    def _listed(self, stored: StoredRoom) -> dict[str, Any]:
        """What the lobby's list says about a room known only from its stored rows."""
        seats = [Seat.stored(x) for x in stored.seats]
        listed = Room(self, stored.id, stored.game, stored.config, seats, stored.status, stored.created,
                      stored.rematch, stored_events=stored.event_count)
        return listed.info()

    def _quarantine(self, room_id: str, why: str) -> None:
        log.error("room %s is damaged and was set aside (status broken): %s", room_id, why)
        self.quarantined.append(room_id)
        self.spawn(self.storage.set_status(room_id, "broken"))

    async def close(self) -> None:
        await self.housekeeping.stop()
        for room_id, room in self.rooms.items():
            if room.runs_clock and self.leases.distributed:
                with contextlib.suppress(Exception):
                    await self.leases.release(room_id)
        await tasks.stop(*self._tasks)
        for room in self.rooms.values():
            for conn in list(room.conns):
                await conn.close()
            for bot in room.clock.release_bots():
                close = getattr(bot, "close", None)
                if callable(close):
                    await asyncio.to_thread(close)
        self.bots.shutdown()
        await self.bus.close()
        await self.leases.close()
        await self.storage.close()

    def restore(self, stored: StoredRoom) -> Room:
        """A room from its stored rows (runs in a thread: rebuilding replays every move)."""
        seats = [Seat.stored(s) for s in stored.seats]
        room = Room(
            self, stored.id, stored.game, stored.config, seats, stored.status, stored.created,
            stored.rematch, stored.start, list(stored.events), stored_events=stored.event_count,
            turn_started=stored.turn_started if stored.turn_started is not None else stored.updated,
            clocks=Clocks.parse(stored.clocks),
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
                room.ended_at = timesource.monotonic()
                game = room.game
                room.game_text = room.adapter.public_text(game, room.by_timer)
                room.record_text = room.adapter.record_text(game)
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
            restored = None if room_id in self.rooms else await asyncio.to_thread(self.restore, stored)
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
                room.replica.published = len(room.events)
                got = await self.leases.acquire(room_id)
                if got == TAKEN_OVER and room.status == "playing":
                    self.took_over(room_id)
                room.runs_clock = got != NOT_HELD
            else:
                room.ended_at = timesource.monotonic()
            room.refresh()
            if room_id in self.rooms:  # read meanwhile again, while the lease was asked for
                return self.rooms[room_id]
            self.rooms[room_id] = room
            await self.bus.watch(room_id)
            room.schedule()
        return room

    def note_ended(self, room: Room) -> None:
        """Keep (or update) an ended room's lobby entry; the lease holder records the result
        of a game played out by accounts (``score``)."""
        self.ended.pop(room.id, None)
        self.ended[room.id] = room.info()
        while len(self.ended) > ENDED_LISTED:
            del self.ended[next(iter(self.ended))]
        accounts = any(s.account_id for s in room.seats)
        if room.status == "over" and room.runs_clock and accounts and room.id not in self.scoring:
            self.scoring.add(room.id)
            self.spawn(self.score(room))

    async def score(self, room: Room) -> None:
        """Record the result for the room's accounts and rate it (``ratings.rate_room``: once
        per room on every instance). The result is the engine's, from the replayed record."""
        try:
            game = await asyncio.to_thread(replay, room.record())
            seats = [SeatResult(s.index, s.kind, s.name, s.account_id, s.strength) for s in room.seats]
            await rate_room(
                self.storage, room.id, room.game_name, bool(room.config.get("rated")), seats, game.winners(), game.seat_scores()
            )
        except Exception as e:  # a result not recorded never fails the room
            log.warning("room %s: its result could not be recorded: %s: %s", room.id, type(e).__name__, e)
            self.scoring.discard(room.id)

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
        reserved: Sequence[tuple[str | None, str | None, str | None]] | None = None,
        rated: bool = False,
        seated: Sequence[tuple[str, str] | None] | None = None,
        claim: Callable[[str, AsyncConnection], Awaitable[None]] | None = None,
        creator_account: str | None = None,
        speed: Mapping[str, Any] | None = None,
    ) -> Room:
        """A new room; its rules are checked against the server's ranges (cheap), then by
        building a game with them (in a thread) before anything is stored. ``reserved``: per
        seat, the old token hash, name and account of a rematch seat kept for its player (by
        the token, or by the account's session: a Play now seat has no token). ``seated``:
        per seat, the (username, account id) of an account seated from the start (the Play
        now queue; its session acts for the seat, which has no token), stored with the room;
        ``claim``: work done in the room's own transaction with its id (the queue's tickets
        taken: its ``Conflict`` stores nothing and is raised here). ``creator_account``: the
        logged-in creator, remembered with the room and counted like its address. ``speed``:
        the room's speed (``speeds.check_speed``); ``timer``, the older way to give a per-move
        timer, is taken when it is left out."""
        adapter = adapter_for(game)
        limits = self.limits
        # Counting the live rooms walks every room in memory (a rematch wave of hundreds walked
        # them hundreds of times); fewer rooms than the limit in memory cannot be too many.
        if len(self.rooms) >= limits.rooms_total and self.live_count() >= limits.rooms_total:
            raise ActionError("server_full", _("this server holds {n} open rooms: try again later").format(n=limits.rooms_total))
        rules = check_rules(limits, adapter, rules)
        if not (1 <= len(seat_specs) <= adapter.max_seats):
            raise ActionError("bad_seats", f"the {game} game takes 1 to {adapter.max_seats} seats, got {len(seat_specs)}")
        known = [*bot_names(), *allowed_commands()]
        persons = [None if x is None else name_skeleton(x[0]) for x in (seated or ())]
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
                if any(s.name == name for s in seats) or name_skeleton(name) in persons:
                    name = f"{name} {i + 1}"
            seats.append(Seat(i, kind, name, float(strength) if strength is not None else None))
            seats[-1].tower = spec.get("tower")
        adapter.check_setup(rules, [s.tower for s in seats])
        ext = sum(1 for s in seats if s.kind.startswith("ext:"))
        if ext and self.ext_seats() + ext > limits.ext_processes:
            raise ActionError(
                "bad_seats", _("this server runs at most {most} external bot processes at a time").format(most=limits.ext_processes)
            )
        for seat, person in zip(seats, seated or (), strict=False):
            if person is not None and seat.kind == "open":
                seat.kind, seat.name, seat.account_id = "human", person[0], person[1]
        if reserved:
            for seat, (old_hash, old_name, old_account) in zip(seats, reserved, strict=False):
                if seat.kind == "open" and (old_hash or old_account):
                    seat.kind, seat.token_hash, seat.name, seat.account_id = "reserved", old_hash, old_name, old_account
        people = any(not s.is_bot for s in seats)
        if creator is not None and rematch_of is None and people:
            mine = sum(1 for r in self.rooms.values() if r.creator == creator and r.status == "waiting")
            if mine >= limits.open_rooms:
                raise ActionError(
                    "too_many_rooms", _("you have {n} rooms waiting for players (at most {most})").format(n=mine, most=limits.open_rooms)
                )
        if creator_account is not None and rematch_of is None and people:
            mine = sum(1 for r in self.rooms.values() if r.config.get("creator_account") == creator_account and r.status == "waiting")
            if mine >= limits.open_rooms:
                raise ActionError(
                    "too_many_rooms", _("you have {n} rooms waiting for players (at most {most})").format(n=mine, most=limits.open_rooms)
                )
        pace = check_speed(limits, speed, timer, people)
        if rated:
            # A rated game's rematch is rated too: its loser starts (``first_player``), the
            # standard rules' own way to begin the next game, not a house rule.
            standard = {k: v for k, v in rules.items() if k != "first_player"} if rematch_of is not None else rules
            refusal = rated_room_refusal(game, standard, pace.timed, seats)
            if refusal is not None:
                raise ActionError("bad_rated", refusal)
        if creator is not None and rematch_of is None:
            self.ledger.room_created(creator)
        if creator_account is not None and rematch_of is None:
            self.ledger.room_created("account:" + creator_account)
        if rematch_of is None:
            # A trial game, off the loop (a large board's setup takes a while), says whether the
            # rules make a game. A rematch's rules are the engine's own for the next game of one
            # that was played (``GameSpec.rematch_rules``) with the same seats: a wave of games
            # ending together paid a thread hop and a game's setup each for nothing (issue 28).
            try:
                await asyncio.to_thread(adapter.new_game, [f"P{i}" for i in range(len(seats))], rules, 0)
            except (RulesError, IllegalMove, RecordError, ValueError, TypeError) as e:
                raise ActionError("bad_rules", engine_text(e)) from None
        room_id = new_room_id(rematch_of)
        while room_id in self.rooms:
            room_id = new_room_id(rematch_of)
        created = timesource.now()  # stored with the room, so every instance shows the same
        config: dict[str, Any] = {"rules": rules, "timer": pace.per_move, "speed": pace.as_json(), "rematch_of": rematch_of}
        if rated:
            config["rated"] = True
        if creator_account is not None:
            config["creator_account"] = creator_account
        if reserved:
            config["reserved_until"] = timesource.now() + limits.rematch_reserve
        # The lease first, while nobody else can know the room's id: a room that joined the
        # cache running its clock before its lease was taken was renewed by the lease loop in
        # between, found without a lease ("lease lost") and stopped (1-3 times a load run).
        held = await self.leases.acquire(room_id) != NOT_HELD
        try:
            await self.storage.create_room(
                room_id, game, config,
                [
                    {"seat": s.index, "kind": s.kind, "name": s.name, "strength": s.strength, "token_hash": s.token_hash,
                     "tower": s.tower, "account_id": s.account_id}
                    for s in seats
                ],
                rematch_of=rematch_of, created=created, claim=None if claim is None else functools.partial(claim, room_id),
            )
        except Exception as e:
            if held and self.leases.distributed:  # the room was never made: its lease goes too
                with contextlib.suppress(Exception):
                    await self.leases.release(room_id)
            if isinstance(e, Conflict):
                raise  # the rematch was made first elsewhere: ``rematch`` takes that one
            raise ActionError("storage", _("the room could not be stored; nothing changed: try again")) from e  # logged
        room = Room(self, room_id, game, config, seats, created=created, creator=creator, runs_clock=held)
        room.refresh()
        self.rooms[room_id] = room
        self.elsewhere.pop(room_id, None)
        self.list_changed(room, now=True)
        await self.bus.watch(room_id)
        if room.full():
            async with room.lock:
                await room.start_or_retry()  # a start not stored is retried by the clock
            room.schedule()
            room.broadcast()
        return room

    async def rematch(self, room: Room, seat: int, token: str) -> tuple[Room, int, str]:
        """The same table again: one new room per finished game; each player takes the same
        seat, kept for them (by their old token) for ``rematch_reserve`` seconds. Asking twice
        answers the same seat and token (an account's seat asked for by its session, without
        a token: the same seat, with a new token). Once across instances: the new room is stored only if
        the old one has no rematch in the database yet, in the same transaction that names it
        there (``Storage.create_room``'s ``rematch_of``); the instance that finds one made
        first takes that one."""
        if room.status != "over":
            raise ActionError("not_over", _("a rematch starts once the game is over"))
        try:
            async with room.lock:
                if room.rematch is None and self.bus.distributed:
                    # Another instance may have made it (one instance alone knows its own; a
                    # rematch stored first elsewhere still ends as a ``Conflict`` below).
                    try:
                        room.rematch = await self.storage.rematch_of(room.id)
                    except Exception as e:
                        raise ActionError("storage", _("the rematch could not be read; nothing changed: try again")) from e
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
                        (s.token_hash, s.name, s.account_id) if s.kind == "human" else (None, None, None) for s in room.seats
                    ]
                    rules = room.next_rules
                    if rules is None:  # an ended room read back from the database
                        rules = game_spec(room.game_name).rematch_rules(replay(room.record()), room.rules)
                    try:
                        new = await self.create(
                            room.game_name, rules, specs, rematch_of=room.id, reserved=reserved, speed=room.speed.as_json(),
                            rated=bool(room.config.get("rated")),
                        )
                        room.rematch = new.id
                    except Conflict:  # another instance stored the rematch first: take it
                        try:
                            room.rematch = await self.storage.rematch_of(room.id)
                        except Exception as e:
                            raise ActionError("storage", _("the rematch could not be read; nothing changed: try again")) from e
                    self.note_ended(room)
        finally:
            room.broadcast()
        assert room.rematch is not None
        new_room = await self.find(room.rematch)
        old = room.seats[seat]
        if not token and old.account_id is None:
            raise ActionError("bad_token", _("no seat token given"))
        # An account's seat stays the account's (a session without a token gets a new token;
        # never one derived from an empty one, which anybody could compute).
        new_seat, new_token = await new_room.join(
            seat, old.name, token=rematch_token(token, new_room.id) if token else None, old_hash=old.token_hash,
            account_id=old.account_id,
        )
        return new_room, new_seat, new_token

    async def renamed(self, room_ids: Sequence[str]) -> None:
        """Rooms whose stored seats or players' names changed outside a room's own writes (a
        deleted account's seats and record names): every instance holding one reads it back
        from the database and sends its connections the new state (told on the bus); an ended
        room listed here from its stored rows is listed anew."""
        for room_id in room_ids:
            self.bus.publish(room_id, {"kind": "reload"})
            room = self.rooms.get(room_id)
            try:
                if room is not None:
                    await room.replica.resync()
                elif room_id in self.ended:
                    stored = await self.storage.load_room(room_id)
                    if stored is not None:
                        self.ended[room_id] = self._listed(stored)
            except Exception as e:  # the database answers for it: the next read shows it
                log.warning("room %s could not be read back after its names changed: %s", room_id, e)

    async def _heard(self, room_id: str, data: dict[str, Any]) -> None:
        """A message about a room from another instance (``bus``)."""
        if room_id == LOBBY:
            if data.get("kind") == "entries":
                for text in data["entries"]:
                    self.heard_entry(str(text))
            elif data.get("kind") == "entry":  # one entry a message: an instance before ``ENTRIES_EVERY``
                self.heard_entry(str(data["entry"]))
            return
        room = self.rooms.get(room_id)
        if room is None:
            return
        kind = data.get("kind")
        if kind == "reload":
            await room.replica.resync()
        elif kind == "room":
            await room.replica.adopt(data)
        elif kind == "chat":
            room.chat.hear(str(data["line"]))
        elif kind == HELLO:
            room.replica.catch_up()
        elif kind == "presence":
            room.replica.heard_presence(str(data.get("from")), list(data["seats"]), int(data["spectators"]))
        elif kind == "lease" and room.conns and not room.runs_clock and room.status in LIVE:
            # Its holder handed the lease on: the instance with the sockets takes it (in a task:
            # reading the room back must not hold up the bus).
            self.spawn(self.housekeeping.take_lease(room))

    def follow_sockets(self, room: Room) -> None:
        """A room's lease follows its websockets: the holder serving none of them while another
        instance serves some (a room created here that the proxy routes elsewhere) hands the
        lease on (``Housekeeping.hand_off``), so its bots, timer and moves run where its people
        are and this instance does no work for it."""
        if (
            self.leases.distributed and room.runs_clock and not room.conns and room.status in LIVE
            and room.replica.connected_elsewhere()
        ):
            self.housekeeping.hand_off_later(room)

    async def _bus_back(self) -> None:
        """The bus works again after a failure: every live room here is read back from the
        database (what other instances published meanwhile never reached this one)."""
        rooms = [r for r in self.rooms.values() if r.status in LIVE]
        try:
            await self.load_elsewhere()
        except Exception as e:
            log.warning("bus: reading the lobby list back after the bus came back failed: %s", e)
        for room in rooms:
            try:
                await room.replica.resync()
            except Exception as e:
                log.warning("room %s: reading it back after the bus came back failed: %s", room.id, e)
        if rooms:
            log.info("bus: %d rooms read back after the bus came back", len(rooms))

    def handed_off(self, room_id: str) -> None:
        """Count a lease handed on (the metrics)."""
        self.handoffs += 1
        self.metrics.lease_handoffs.inc()
        log.info("room %s: lease handed on to the instance serving its websockets", room_id)

    def took_over(self, room_id: str) -> None:
        """Count a lease taken over (the metrics, the log)."""
        self.takeovers += 1
        self.metrics.lease_takeovers.inc()
        log.warning("room %s: lease taken over (its holder stopped renewing it)", room_id)



__all__ = ["ENDED_LISTED", "ROUTE_KEY", "Lobby", "new_room_id"]
