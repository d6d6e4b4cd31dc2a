"""Rooms: seats, secret tokens, the game, its event log, bots, turn timers and the connections.

The room is the only writer of its game. Every change runs under the room's lock in the same
order: ask the engine (which rejects an illegal move and leaves the game as it was), commit the
resulting events to storage, and only then acknowledge and broadcast. If the commit fails the
game is rebuilt from the stored log, so memory never runs ahead of the database.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import hashlib
import hmac
import json
import logging
import secrets
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from tabletris.bots.base import Bot
from tabletris.bots.external import allowed_commands
from tabletris.bots.registry import bot_names, make_bot
from tabletris.engine.dice import next_starter
from tabletris.engine.errors import IllegalMove, RecordError
from tabletris.engine.options import RulesError
from tabletris.engine.records import replay
from tabletris.server.games import ActionError, GameAdapter, adapter_for
from tabletris.server.storage import Storage, StoredRoom

log = logging.getLogger("tabletris.server")

NAME_MAX = 24
TIMER_BOT = "random"
"""The bot that plays a human's turn when the turn timer runs out."""
OUTBOX_LIMIT = 256
"""Messages queued for one connection before it is considered dead and dropped."""
CHAT_MAX = 300
"""Longest chat line, in characters."""
CHAT_RATE = (5, 10.0)
"""At most 5 chat lines per connection in any 10 seconds: a table talk, not a flood."""
CHAT_KEEP = 50
"""Chat lines a room keeps in memory for people who join later (chat is not stored)."""


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def clean_name(name: Any) -> str:
    """A player name: 1-24 printable characters, surrounding spaces dropped."""
    if not isinstance(name, str):
        raise ActionError("bad_name", "a name is a string")
    name = " ".join(name.split())
    if not name:
        raise ActionError("bad_name", "a name needs at least one visible character")
    if len(name) > NAME_MAX:
        raise ActionError("bad_name", f"a name has at most {NAME_MAX} characters, got {len(name)}")
    if not name.isprintable():
        raise ActionError("bad_name", "a name may not contain control characters")
    return name


@dataclass
class Seat:
    """One seat: ``kind`` is ``open`` (waiting for a person), ``human``, or a bot's name."""

    index: int
    kind: str
    name: str | None = None
    strength: float | None = None
    token_hash: str | None = None
    connected: int = 0
    tower: str | None = None
    """The tower and end this seat chose (tower game); None: a free one drawn at the start."""

    @property
    def is_bot(self) -> bool:
        return self.kind not in ("open", "human")

    def info(self) -> dict[str, Any]:
        return {
            "seat": self.index,
            "kind": self.kind,
            "name": self.name,
            "strength": self.strength,
            "tower": self.tower,
            "open": self.kind == "open",
            "bot": self.is_bot,
            "connected": self.is_bot or self.connected > 0,
        }


def with_towers(rules: Mapping[str, Any], towers: Sequence[str | None]) -> dict[str, Any]:
    """The rules a room's game starts with: the seats' tower choices as the ``towers`` option
    (the engine draws a free tower for a seat without one)."""
    if not any(t is not None for t in towers):
        return dict(rules)
    return {**rules, "towers": list(towers)}


def check_towers(adapter: Any, rules: Mapping[str, Any], towers: Sequence[str | None]) -> None:
    """The seats' tower choices, checked by building a game with them: the engine's words."""
    if not any(t is not None for t in towers):
        return
    if adapter.name != "tower":
        raise ActionError("bad_tower", f"the {adapter.name} game has no towers to choose")
    try:
        adapter.new_game([f"P{i}" for i in range(len(towers))], with_towers(rules, towers), 0)
    except (RulesError, ValueError, TypeError) as e:
        raise ActionError("bad_tower", str(e)) from None


class Connection:
    """One websocket: its seat (None for a spectator) and an outbox drained by its own task, so
    a slow client never holds up a room's broadcast."""

    def __init__(self, send_text: Any, seat: int | None) -> None:
        self.send_text = send_text
        self.seat = seat
        self.queue: asyncio.Queue[str | None] = asyncio.Queue()
        self.task: asyncio.Task[None] = asyncio.create_task(self._pump())
        self.alive = True
        self.said: collections.deque[float] = collections.deque(maxlen=CHAT_RATE[0])

    def send(self, text: str) -> None:
        if not self.alive:
            return
        if self.queue.qsize() > OUTBOX_LIMIT:
            self.alive = False
            self.queue.put_nowait(None)
            return
        self.queue.put_nowait(text)

    def send_json(self, message: Mapping[str, Any]) -> None:
        self.send(json.dumps(message, separators=(",", ":")))

    async def _pump(self) -> None:
        while True:
            text = await self.queue.get()
            if text is None:
                return
            try:
                await self.send_text(text)
            except Exception:
                self.alive = False
                return

    async def close(self) -> None:
        self.alive = False
        self.queue.put_nowait(None)
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
    game: Any = None
    error: str | None = None
    conns: set[Connection] = field(default_factory=set)
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    deadline: float | None = None
    version: int = 0
    _bots: dict[int, Bot] = field(default_factory=dict)
    _bot_pending: set[tuple[int, Any]] = field(default_factory=set)
    _timer: asyncio.Task[None] | None = None
    _timer_key: Any = None
    _public: str = ""
    _dirty: bool = False
    _private: dict[int, str] = field(default_factory=dict)
    _seq: int = 0
    _game_text: str | None = None
    """A finished game's public state as JSON text (see ``_retire``)."""
    _record_text: str | None = None
    """A finished game's record as JSON text (see ``_retire``)."""
    chat_log: collections.deque[str] = field(default_factory=lambda: collections.deque(maxlen=CHAT_KEEP))

    @property
    def adapter(self) -> GameAdapter:
        return adapter_for(self.game_name)

    @property
    def rules(self) -> dict[str, Any]:
        return dict(self.config.get("rules") or {})

    @property
    def timer(self) -> float | None:
        value = self.config.get("timer")
        return float(value) if value else None

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
            "events": len(self.events),
            "spectators": sum(1 for c in self.conns if c.seat is None),
            "error": self.error,
        }

    def _refresh(self) -> None:
        """Render the state once per change: the public part and each person's private part.

        Readers only ever see these texts, never the live game, so a move that is still being
        committed is invisible until it is stored and broadcast.
        """
        if self._game_text is not None:
            game = self._game_text
        elif self.game is not None:
            game = json.dumps(self.adapter.public(self.game), separators=(",", ":"))
        else:
            game = "null"
        self._public = '{"room":' + json.dumps(self.info(), separators=(",", ":")) + ',"game":' + game + "}"
        self._private = {}
        if self.game is not None and self.status == "playing":
            for seat in self.seats:
                if seat.kind == "human":
                    private = self.adapter.private(self.game, seat.index)
                    if private is not None:
                        self._private[seat.index] = json.dumps(private, separators=(",", ":"))
        self._seq = len(self.events)

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

    def broadcast(self) -> None:
        """Send every connection the new state (presence changes included).

        While a change holds the lock, the broadcast waits for it: the holder broadcasts when
        it is done, so nobody sees a move before it is committed.
        """
        if self.lock.locked():
            self._dirty = True
            return
        self._dirty = False
        self.version += 1
        self._refresh()
        for conn in list(self.conns):
            if conn.alive:
                conn.send(self.state_text(conn.seat))

    def chat(self, conn: Connection, text: Any) -> None:
        """A chat line from ``conn`` to everybody in the room (players and spectators).

        The text is sent as data, never markup (the client renders it as text); length and rate are
        limited per connection, and a refused line is answered with the reason.
        """
        if not isinstance(text, str):
            raise ActionError("bad_chat", "'text' is the chat line, a string")
        text = " ".join(text.split())
        if not text:
            raise ActionError("bad_chat", "an empty chat line is not sent")
        if len(text) > CHAT_MAX:
            raise ActionError("bad_chat", f"a chat line has at most {CHAT_MAX} characters, got {len(text)}")
        now = time.time()
        if len(conn.said) == conn.said.maxlen and now - conn.said[0] < CHAT_RATE[1]:
            wait = CHAT_RATE[1] - (now - conn.said[0])
            raise ActionError(
                "rate_limited", f"at most {CHAT_RATE[0]} chat lines in {CHAT_RATE[1]:g} s: wait {wait:.0f} s"
            )
        conn.said.append(now)
        seat = conn.seat
        name = (self.seats[seat].name if seat is not None else None) or "Spectator"
        line = json.dumps(
            {"type": "chat", "seat": seat, "name": name, "text": text, "at": now}, separators=(",", ":")
        )
        self.chat_log.append(line)
        for other in list(self.conns):
            other.send(line)

    # ------------------------------------------------------------------ seats

    def authenticate(self, token: str | None) -> int:
        """The seat a token belongs to, or ``bad_token``."""
        if not token:
            raise ActionError("bad_token", "no seat token given")
        wanted = hash_token(token)
        for seat in self.seats:
            if seat.token_hash is not None and hmac.compare_digest(seat.token_hash, wanted):
                return seat.index
        raise ActionError("bad_token", f"this token holds no seat in room {self.id}")

    async def join(self, seat: int | None, name: Any, tower: str | None = None) -> tuple[int, str]:
        """Take an open seat (the first one if ``seat`` is None); returns the seat and its token.
        ``tower``: the seat's tower and end in a tower game, checked by the engine."""
        name = clean_name(name)
        try:
            async with self.lock:
                open_seats = [s.index for s in self.seats if s.kind == "open"]
                if self.status != "waiting" or not open_seats:
                    raise ActionError("room_full", f"room {self.id} has no open seat")
                if seat is None:
                    seat = open_seats[0]
                if not (0 <= seat < len(self.seats)):
                    raise ActionError("bad_seat", f"room {self.id} has seats 0 to {len(self.seats) - 1}, not {seat}")
                if self.seats[seat].kind != "open":
                    raise ActionError("seat_taken", f"seat {seat} is taken by {self.seats[seat].name}")
                if any(s.name == name for s in self.seats):
                    raise ActionError("name_taken", f"someone in room {self.id} is already called {name!r}")
                if tower is not None:
                    choice = [s.tower for s in self.seats]
                    choice[seat] = tower
                    check_towers(self.adapter, self.rules, choice)
                    self.seats[seat].tower = tower
                token = secrets.token_urlsafe(24)
                token_hash = hash_token(token)
                await self.lobby.storage.take_seat(self.id, seat, name, token_hash)
                self.seats[seat].kind = "human"
                self.seats[seat].name = name
                self.seats[seat].token_hash = token_hash
                if all(s.kind != "open" for s in self.seats):
                    await self._start()
        finally:
            self.schedule()
            self.broadcast()
        return seat, token

    async def _start(self) -> None:
        players = [s.name or f"Seat {s.index + 1}" for s in self.seats]
        seed = secrets.randbits(32)
        game = self.adapter.new_game(players, with_towers(self.rules, [s.tower for s in self.seats]), seed)
        start = self.adapter.start_record(game)
        await self.lobby.storage.start_room(self.id, start)
        self.start = start
        self.game = game
        self.status = "playing"
        await self._commit(self.adapter.advance(game))

    # ------------------------------------------------------------------ moves

    async def act(self, seat: int, move: Mapping[str, Any]) -> int:
        """Apply ``seat``'s move through the engine, commit it, then broadcast; the move's number
        in the room's event log (from 1)."""
        done = False
        try:
            async with self.lock:
                if self.status == "waiting":
                    raise ActionError("not_started", f"room {self.id} is waiting for players")
                if self.status != "playing" or self.game is None:
                    raise ActionError("game_over", f"the game in room {self.id} is over")
                claimed = move.get("seat")
                if claimed is not None and claimed != seat:
                    raise ActionError("wrong_seat", f"your token holds seat {seat}, not seat {claimed}")
                events = self.adapter.apply(self.game, seat, move)
                events += self.adapter.advance(self.game)
                seq = len(self.events) + 1  # this move's number in the log (a roll may follow it)
                await self._commit(events)
                done = True
        finally:
            if done:
                self.schedule()
            if done or self._dirty:
                self.broadcast()
        return seq

    async def _commit(self, new_events: Sequence[dict[str, Any]]) -> None:
        """Store the events the game just produced; on failure, fall back to the stored log."""
        over = bool(self.game is not None and self.game.over)
        status = "over" if over else None
        texts = [json.dumps(e, separators=(",", ":")) for e in new_events]
        try:
            await self.lobby.storage.append(self.id, len(self.events), texts, status)
        except Exception as e:
            log.exception("room %s: storing %d events failed", self.id, len(new_events))
            assert self.start is not None
            self.game = self.adapter.rebuild(self.start, self.logged_events())
            raise ActionError("storage", "the move could not be stored; nothing changed: try again") from e
        self.events.extend(texts)
        if over:
            self.status = "over"
            self._retire()

    def _retire(self) -> None:
        """Keep a finished game as text: its last public state and its record. The game object,
        its bots and the start record are let go: a server keeps every finished room (for the
        lobby, records and replays), and their objects, walked by every full garbage collection,
        made those pauses grow with the server's age (about 1 s after 9,000 games)."""
        if self.game is None or not self.game.over:
            return
        self._game_text = json.dumps(self.adapter.public(self.game), separators=(",", ":"))
        self._record_text = json.dumps(self.adapter.record(self.game), separators=(",", ":"))
        self.game = None
        self.start = None
        self._bots.clear()

    def logged_events(self) -> list[dict[str, Any]]:
        """The event log decoded, to rebuild the game from it."""
        return [json.loads(text) for text in self.events]

    def query(self, seat: int, message: Mapping[str, Any]) -> dict[str, Any]:
        if self.game is None or self.status != "playing":
            raise ActionError("not_started" if self.status == "waiting" else "game_over", "no game in play")
        return self.adapter.query(self.game, seat, message)

    # ------------------------------------------------------------------ bots and timers

    def _bot(self, seat: int) -> Bot:
        bot = self._bots.get(seat)
        if bot is None:
            s = self.seats[seat]
            bot = make_bot(s.kind, seed=secrets.randbits(32), strength=s.strength)
            self._bots[seat] = bot
        return bot

    def schedule(self) -> None:
        """Start a task for each bot that must act, and the turn timer for the humans."""
        if self.status != "playing" or self.game is None:
            self._cancel_timer()
            return
        key = self.adapter.turn_key(self.game)
        acting = self.adapter.must_act(self.game)
        for seat in acting:
            if self.seats[seat].is_bot and (seat, key) not in self._bot_pending:
                self._bot_pending.add((seat, key))
                self.lobby.spawn(self._bot_turn(seat, key))
        humans = [s for s in acting if not self.seats[s].is_bot]
        if self.timer and humans:
            if self._timer_key != key:
                self._cancel_timer()
                self._timer_key = key
                self.deadline = time.time() + self.timer
                self._timer = self.lobby.spawn(self._timeout(key, self.timer))
        else:
            self._cancel_timer()

    def _cancel_timer(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        self._timer_key = None
        self.deadline = None

    async def _bot_turn(self, seat: int, key: Any) -> None:
        try:
            if self.lobby.bot_delay:
                await asyncio.sleep(self.lobby.bot_delay)
            await self._play_for(seat, key, self._bot(seat))
        finally:
            self._bot_pending.discard((seat, key))

    async def _timeout(self, key: Any, delay: float) -> None:
        await asyncio.sleep(delay)
        if self.game is None or self.adapter.turn_key(self.game) != key:
            return
        self._timer = None
        for seat in self.adapter.must_act(self.game):
            if not self.seats[seat].is_bot:
                await self._play_for(seat, key, make_bot(TIMER_BOT, seed=secrets.randbits(32)))

    async def _play_for(self, seat: int, key: Any, bot: Bot) -> None:
        """A bot's move for ``seat``, through the same path as a person's."""
        if self.game is None or self.status != "playing" or self.adapter.turn_key(self.game) != key:
            return
        if seat not in self.adapter.must_act(self.game):
            return
        try:
            move = self.adapter.bot_move(self.game, seat, bot)
            await self.act(seat, move)
        except ActionError as e:
            log.warning("room %s: bot move for seat %d rejected: %s", self.id, seat, e.message)
        except Exception:
            log.exception("room %s: bot for seat %d failed", self.id, seat)

    # ------------------------------------------------------------------ records

    def record(self) -> dict[str, Any]:
        if self._record_text is not None:
            return dict(json.loads(self._record_text))
        if self.game is None:
            raise ActionError("not_started", f"room {self.id} has no game yet")
        return self.adapter.record(self.game)


class Lobby:
    """Every room of the server, the storage they share, and the background tasks they spawn."""

    def __init__(self, storage: Storage, bot_delay: float = 0.4) -> None:
        self.storage = storage
        self.bot_delay = bot_delay
        self.rooms: dict[str, Room] = {}
        self._tasks: set[asyncio.Task[Any]] = set()

    def spawn(self, coro: Any) -> asyncio.Task[Any]:
        task = asyncio.create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    async def open(self) -> None:
        await self.storage.open()
        for stored in await self.storage.load_rooms():
            room = self._restore(stored)
            self.rooms[room.id] = room
        for room in self.rooms.values():
            room._refresh()
            room.schedule()

    async def close(self) -> None:
        for task in list(self._tasks):
            task.cancel()
        for task in list(self._tasks):
            with contextlib.suppress(BaseException):
                await task
        for room in self.rooms.values():
            for conn in list(room.conns):
                await conn.close()
        await self.storage.close()

    def _restore(self, stored: StoredRoom) -> Room:
        seats = [
            Seat(s["seat"], s["kind"], s["name"], s["strength"], s["token_hash"]) for s in stored.seats
        ]
        room = Room(
            self, stored.id, stored.game, stored.config, seats, stored.status, stored.created,
            stored.rematch, stored.start, list(stored.events),
        )
        if stored.start is not None:
            try:
                room.game = room.adapter.rebuild(stored.start, room.logged_events())
            except (RecordError, IllegalMove, RulesError, ActionError) as e:
                room.status = "broken"
                room.error = f"cannot replay this room's moves: {e}"
                log.error("room %s: %s", room.id, room.error)
                return room
            room.status = "over" if room.game.over else "playing"
            room._retire()
        return room

    def get(self, room_id: str) -> Room:
        room = self.rooms.get(room_id)
        if room is None:
            raise ActionError("unknown_room", f"there is no room {room_id!r}")
        return room

    async def create(
        self,
        game: str,
        rules: Mapping[str, Any] | None,
        seat_specs: Sequence[Mapping[str, Any]],
        timer: float | None = None,
        rematch_of: str | None = None,
    ) -> Room:
        """A new room; its rules are checked by building a game with them before anything is stored."""
        adapter = adapter_for(game)
        rules = dict(rules or {})
        if not (1 <= len(seat_specs) <= adapter.max_seats):
            raise ActionError("bad_seats", f"the {game} game takes 1 to {adapter.max_seats} seats, got {len(seat_specs)}")
        known = [*bot_names(), *allowed_commands()]
        seats: list[Seat] = []
        for i, spec in enumerate(seat_specs):
            kind = str(spec.get("kind") or "open")
            strength = spec.get("strength")
            if kind not in ("open", *known):
                raise ActionError("bad_seats", f"seats[{i}]: {kind!r} is not 'open' or a bot ({', '.join(known)})")
            name = None
            if kind != "open":
                label = "External" if kind.startswith("ext:") else kind.capitalize()
                name = clean_name(spec.get("name") or f"{label} {i + 1}")
                if any(s.name == name for s in seats):
                    name = f"{name} {i + 1}"
            seats.append(Seat(i, kind, name, float(strength) if strength is not None else None))
            seats[-1].tower = spec.get("tower")
        check_towers(adapter, rules, [s.tower for s in seats])
        try:
            adapter.new_game([f"P{i}" for i in range(len(seats))], rules, 0)
        except (RulesError, IllegalMove, RecordError, ValueError, TypeError) as e:
            raise ActionError("bad_rules", str(e)) from None
        room_id = secrets.token_urlsafe(6)
        while room_id in self.rooms:
            room_id = secrets.token_urlsafe(6)
        config: dict[str, Any] = {"rules": rules, "timer": timer, "rematch_of": rematch_of}
        await self.storage.create_room(
            room_id, game, config,
            [{"seat": s.index, "kind": s.kind, "name": s.name, "strength": s.strength, "token_hash": None} for s in seats],
        )
        room = Room(self, room_id, game, config, seats)
        room._refresh()
        self.rooms[room_id] = room
        if all(s.kind != "open" for s in seats):
            async with room.lock:
                await room._start()
            room.schedule()
            room.broadcast()
        return room

    async def rematch(self, room: Room, seat: int) -> tuple[Room, int, str]:
        """The same table again: one new room per finished game; each player takes the same seat."""
        if room.status != "over":
            raise ActionError("not_over", "a rematch starts once the game is over")
        try:
            async with room.lock:
                if room.rematch is None:
                    specs = [
                        {"kind": "open"} if not s.is_bot else {"kind": s.kind, "name": s.name, "strength": s.strength}
                        for s in room.seats
                    ]
                    rules = dict(room.rules)
                    if room.game_name == "dice":
                        # Seed 000: "the next games start with the one who lost the previous game".
                        rules["first_player"] = next_starter(replay(room.record()))
                    new = await self.create(room.game_name, rules, specs, room.timer, rematch_of=room.id)
                    await self.storage.set_rematch(room.id, new.id)
                    room.rematch = new.id
        finally:
            room.broadcast()
        assert room.rematch is not None
        new_room = self.get(room.rematch)
        new_seat, token = await new_room.join(seat, room.seats[seat].name)
        return new_room, new_seat, token
