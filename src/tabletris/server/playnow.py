"""Play now: a queue per game, preset and player count that pairs accounts of similar rating.

A ticket waits in the database (``queue_tickets``, shared by every instance). The window of
ratings it accepts widens with its wait (``half_width``); two tickets pair when each one's
rating is in the other's window. After the ticket's own ``bot_after`` seconds the seats still
missing are given to bots with a fixed rating, at full strength (``ratings.fixed_bot``), the one
nearest the player's rating, so a lone player gets a game.

A match is one transaction: the room's rows and the tickets' conditional updates
(``UPDATE queue_tickets ... WHERE ticket = ? AND status = 'waiting'``, each row count checked)
commit together or not at all (``Lobby.create``'s ``claim``, run by ``Storage``'s writer), so two
instances racing for the same tickets make one room: the loser's transaction finds a ticket
taken, raises ``Conflict`` and stores nothing. Matching runs on whichever instance, when a ticket
is posted there and every ``MATCH_EVERY`` seconds on each. The rooms are made by the lobby's one
way of making rooms, rated when the preset is the standard one, the accounts seated from the
start (their session acts for the seat: the websocket hello and the HTTP routes take it).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import random
import secrets
import time
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, Request
from fastapi.responses import Response
from pydantic import BaseModel, Field, StrictFloat, StrictInt
from sqlalchemy import Column, Float, Index, Integer, String, Table, delete, insert, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncConnection

from tabletris.engine.games import spec as game_spec
from tabletris.i18n import _
from tabletris.server import tasks
from tabletris.server.accounts.core import Account, required_account
from tabletris.server.errors import ActionError
from tabletris.server.games import adapter_for
from tabletris.server.limits import Bucket, Limits
from tabletris.server.lobby import Lobby
from tabletris.server.models import ERRORS, ErrorOut, GameName, Strict
from tabletris.server.ratings import BOT_RATINGS, bot_rating, rating_of
from tabletris.server.rooms import LIVE
from tabletris.server.storage import Conflict, Storage, metadata, rooms, seats
from tabletris.server.storage_errors import FaultLog

log = logging.getLogger("tabletris.server")

WINDOW_BASE = 50.0
"""Half the width of a new ticket's window: it accepts ratings within 50 of its own."""
WINDOW_GROWTH = 10.0
"""What the half-width grows by per second waited."""
PLAYERS_MAX = 4
"""Play now tables seat 2 to 4 (within the game's own seats)."""
BOT_AFTER_MAX = 3600.0
MATCH_EVERY = 1.0
"""Seconds between two matching passes on each instance (besides one per posted ticket)."""
SWEEP_EVERY = 10
"""Matching passes between two sweeps of stale and old tickets."""
SEEN_EVERY = 10.0
"""A waiting ticket's ``seen`` is written at most this often (each GET would be a write)."""
STALE = 120.0
"""A waiting ticket its account has not asked for (GET) for this long leaves the queue: the page
went away, and a game for nobody would be played by the timer and lost."""
MATCHED_KEEP = 600.0
"""A matched ticket stays readable this long (the page follows it to the room)."""

queue_tickets = Table(
    "queue_tickets",
    metadata,
    Column("ticket", String(48), primary_key=True),
    Column("account_id", String(36), nullable=False),
    Column("username", String(64), nullable=False),
    Column("game", String(16), nullable=False),
    Column("preset", String(32), nullable=False),
    Column("players", Integer, nullable=False),
    Column("bot_after", Float, nullable=True),
    Column("rating", Float, nullable=False),
    Column("created", Float, nullable=False),
    Column("status", String(12), nullable=False),
    Column("room_id", String(32), nullable=True),
    Column("seat", Integer, nullable=True),
    Column("matched", Float, nullable=True),
    Column("seen", Float, nullable=True),
    Index("ux_queue_tickets_account", "account_id", unique=True),
    Index("ix_queue_bucket", "game", "preset", "players", "status"),
)
"""One row per account (migrations 0007 and 0009): its waiting or matched ticket."""


def half_width(waited: float) -> float:
    """How far from its own rating a ticket accepts a player after ``waited`` seconds."""
    return WINDOW_BASE + WINDOW_GROWTH * max(0.0, waited)


@dataclass(frozen=True)
class Ticket:
    ticket: str
    account_id: str
    username: str
    game: str
    preset: str
    players: int
    bot_after: float | None
    rating: float
    created: float
    status: str = "waiting"
    room_id: str | None = None
    seat: int | None = None
    matched: float | None = None
    seen: float | None = None

    @classmethod
    def of(cls, row: Any) -> Ticket:
        return cls(
            str(row.ticket), str(row.account_id), str(row.username), str(row.game), str(row.preset), int(row.players),
            None if row.bot_after is None else float(row.bot_after), float(row.rating), float(row.created), str(row.status),
            row.room_id, row.seat, row.matched, row.seen,
        )

    def waited(self, now: float) -> float:
        """Seconds in the queue (until the match, once matched)."""
        end = self.matched if self.matched is not None else now
        return max(0.0, end - self.created)

    def window(self, now: float) -> tuple[float, float]:
        w = half_width(self.waited(now))
        return self.rating - w, self.rating + w

    def accepts(self, other: Ticket, now: float) -> bool:
        return abs(other.rating - self.rating) <= half_width(self.waited(now))

    def bots_due(self, now: float) -> bool:
        return self.bot_after is not None and self.waited(now) >= self.bot_after

    def same_wish(self, game: str, preset: str, players: int, bot_after: float | None) -> bool:
        return (self.game, self.preset, self.players, self.bot_after) == (game, preset, players, bot_after)

    def out(self, now: float) -> dict[str, Any]:
        low, high = self.window(now)
        return {
            "ticket": self.ticket, "game": self.game, "preset": self.preset, "players": self.players,
            "bot_after": self.bot_after, "status": self.status, "created": self.created,
            "waited": round(self.waited(now), 1), "window": [round(low), round(high)], "rating": round(self.rating),
            "room": self.room_id, "seat": self.seat,
        }


@dataclass
class Match:
    """A table the queue found: its accounts' tickets and the bots that fill the other seats."""

    tickets: list[Ticket]
    bots: list[str] = field(default_factory=list)


def mutual(a: Ticket, b: Ticket, now: float) -> bool:
    return a.accepts(b, now) and b.accepts(a, now)


def bot_for(game: str, rating: float) -> str:
    """The bot with a fixed rating nearest ``rating`` (at full strength)."""
    return min(BOT_RATINGS[game], key=lambda bot: (abs((bot_rating(game, bot) or 0.0) - rating), bot))


def pair(tickets: Sequence[Ticket], now: float) -> list[Match]:
    """The tables to make from these waiting tickets now. Per game, preset and player count,
    the longest-waiting ticket first: it takes the nearest ratings that accept it and one
    another, until the table is full; when it cannot fill it and its ``bot_after`` has passed,
    it sits with the accepting players whose ``bot_after`` has passed too, and bots fill the
    rest. No ticket is in two tables."""
    buckets: dict[tuple[str, str, int], list[Ticket]] = {}
    for t in sorted(tickets, key=lambda t: (t.created, t.ticket)):
        if t.status == "waiting":
            buckets.setdefault((t.game, t.preset, t.players), []).append(t)
    found: list[Match] = []
    for (game, _preset, players), bucket in buckets.items():
        used: set[str] = set()
        for t in bucket:
            if t.ticket in used:
                continue
            group = _group(t, [u for u in bucket if u.ticket not in used], players, now)
            if len(group) < players and t.bots_due(now):
                group = _group(t, [u for u in bucket if u.ticket not in used and u.bots_due(now)], players, now)
                bot = bot_for(game, sum(g.rating for g in group) / len(group))
                found.append(Match(group, [bot] * (players - len(group))))
            elif len(group) == players:
                found.append(Match(group))
            else:
                continue
            used.update(g.ticket for g in group)
    return found


def _group(first: Ticket, others: Sequence[Ticket], size: int, now: float) -> list[Ticket]:
    """``first`` and up to ``size - 1`` of ``others``, nearest rating first, every two accepting each other."""
    group = [first]
    near = sorted((u for u in others if u.ticket != first.ticket), key=lambda u: (abs(u.rating - first.rating), u.created, u.ticket))
    for u in near:
        if len(group) == size:
            break
        if all(mutual(u, g, now) for g in group):
            group.append(u)
    return group


class PlayNow:
    """The queue of one instance: its tickets are in the shared database, so any instance
    answers for any account and matches any tickets."""

    def __init__(self, lobby: Lobby, limits: Limits) -> None:
        self.lobby = lobby
        self.limits = limits
        self.storage: Storage = lobby.storage
        self.faults = FaultLog(log)
        self.buckets: dict[str, Bucket] = {}
        self._task: asyncio.Task[None] | None = None
        self._wake = asyncio.Event()
        self._waiters: list[asyncio.Future[None]] = []
        self.matches = 0
        """Tables this instance made."""
        self.rng = random.Random(secrets.randbits(64))

    # ------------------------------------------------------------------ the loop

    def start(self) -> None:
        self._task = asyncio.create_task(self._loop(), name="play-now")

    async def stop(self) -> None:
        await tasks.stop(self._task)
        self._task = None
        for w in self._waiters:
            if not w.done():
                w.cancel()

    async def _loop(self) -> None:
        passes = 0
        while True:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), MATCH_EVERY)
            self._wake.clear()
            waiters, self._waiters = self._waiters, []
            passes += 1
            try:
                await self.match_all()
                if passes % SWEEP_EVERY == 0:
                    await self.sweep()
            except Exception as e:  # the database is down: one line per 10 s, the loop goes on
                self.faults.failed("queue", "matching the Play now queue failed", e)
            else:
                self.faults.recovered("queue", "matching the Play now queue works again")
            for w in waiters:
                if not w.done():
                    w.set_result(None)

    async def match_soon(self, wait: float = 5.0) -> None:
        """Run a matching pass now (after the one running, if any) and wait for it, a while."""
        if self._task is None or self._task.done():
            await self.match_all()
            return
        waiter: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._waiters.append(waiter)
        self._wake.set()
        with contextlib.suppress(TimeoutError, asyncio.CancelledError):
            await asyncio.wait_for(asyncio.shield(waiter), wait)

    # ------------------------------------------------------------------ tickets

    async def read(self, account_id: str) -> Ticket | None:
        async with self.storage.engine.connect() as conn:
            row = (await conn.execute(select(queue_tickets).where(queue_tickets.c.account_id == account_id))).first()
        return None if row is None else Ticket.of(row)

    def check_wish(self, game: str, preset: str, players: int, bot_after: float | None) -> None:
        adapter = adapter_for(game)
        presets = list(adapter.rules_meta()["presets"])
        if preset not in presets:
            raise ActionError("bad_queue", _("preset: the {game} game has the presets {presets}, not {preset!r}").format(
                game=game, presets=", ".join(presets), preset=preset))
        low, high = max(2, game_spec(game).min_players), min(PLAYERS_MAX, adapter.max_seats)
        if not (low <= players <= high):
            raise ActionError("bad_queue", _("players: a Play now table of the {game} game seats {low} to {high}, not {n}").format(
                game=game, low=low, high=high, n=players))
        if bot_after is not None and not (0 <= bot_after <= BOT_AFTER_MAX):
            raise ActionError("bad_queue", _("bot_after: 0 to {most:g} seconds, or null for no bots").format(most=BOT_AFTER_MAX))

    def take(self, account: Account) -> None:
        """The per-account rate of posting and leaving (``queue_rate``, ``queue_burst``)."""
        bucket = self.buckets.get(account.id)
        if bucket is None:
            if len(self.buckets) > 10_000:
                self.buckets.clear()
            bucket = self.buckets[account.id] = Bucket(self.limits.queue_rate, self.limits.queue_burst)
        if not bucket.take():
            raise ActionError("rate_limited", _("too many Play now requests: try again in a moment"), retry_after=bucket.wait())

    async def enqueue(self, account: Account, game: str, preset: str, players: int, bot_after: float | None) -> Ticket:
        """The account's ticket for this wish: its waiting one for the same wish (kept, with its
        wait), else a new one in place of what it had. While the account is still seated in
        the game of its matched ticket, ``already_matched``."""
        self.check_wish(game, preset, players, bot_after)
        rating = await rating_of(self.storage, account.id, game)
        for _attempt in range(5):
            now = time.time()
            old = await self.read(account.id)
            if old is not None and old.status == "waiting" and old.same_wish(game, preset, players, bot_after):
                if await self._touch(old, now):
                    await self.match_soon()
                    return await self.read(account.id) or old
                continue  # matched or left meanwhile: look again
            if old is not None and old.status == "matched" and await self.still_seated(old):
                raise ActionError("already_matched", _("you are playing the game Play now found in room {room}: finish or resign it first").format(
                    room=old.room_id))
            new = Ticket(secrets.token_urlsafe(18), account.id, account.username, game, preset, players, bot_after, rating, now, seen=now)
            try:
                await self.storage.transact(functools.partial(self._replace, old, new))
            except Conflict:
                continue
            await self.match_soon()
            return await self.read(account.id) or new
        raise ActionError("storage", _("the queue kept changing: try again"))

    @staticmethod
    async def _replace(old: Ticket | None, new: Ticket, conn: AsyncConnection) -> None:
        if old is not None:
            gone = await conn.execute(
                delete(queue_tickets).where(queue_tickets.c.ticket == old.ticket, queue_tickets.c.status == old.status))
            if gone.rowcount != 1:
                raise Conflict("the ticket changed meanwhile")
        try:
            await conn.execute(insert(queue_tickets).values(
                ticket=new.ticket, account_id=new.account_id, username=new.username, game=new.game, preset=new.preset,
                players=new.players, bot_after=new.bot_after, rating=new.rating, created=new.created, status="waiting",
                seen=new.seen,
            ))
        except IntegrityError as e:  # another instance posted one for this account first
            raise Conflict("the account has a ticket already") from e

    async def _touch(self, ticket: Ticket, now: float) -> bool:
        """The account still wants its waiting ticket (its page asked); False: it is no longer waiting."""

        async def work(conn: AsyncConnection) -> bool:
            done = await conn.execute(update(queue_tickets).where(
                queue_tickets.c.ticket == ticket.ticket, queue_tickets.c.status == "waiting").values(seen=now))
            return bool(done.rowcount == 1)

        return bool(await self.storage.transact(work))

    async def current(self, account: Account) -> Ticket | None:
        """The account's ticket (a waiting one is kept in the queue by being asked for)."""
        ticket = await self.read(account.id)
        now = time.time()
        if ticket is None:
            return None
        if ticket.status == "matched":
            return ticket if now - (ticket.matched or 0.0) <= MATCHED_KEEP else None
        if now - (ticket.seen or ticket.created) >= SEEN_EVERY and not await self._touch(ticket, now):
            return await self.read(account.id)
        return replace(ticket, seen=now)

    async def leave(self, account: Account) -> None:
        ticket = await self.current(account)
        if ticket is None:
            raise ActionError("not_queued", _("you are not in the Play now queue"))
        if ticket.status == "waiting":

            async def work(conn: AsyncConnection) -> int:
                gone = await conn.execute(delete(queue_tickets).where(
                    queue_tickets.c.ticket == ticket.ticket, queue_tickets.c.status == "waiting"))
                return int(gone.rowcount)

            if await self.storage.transact(work) == 1:
                return
        raise ActionError("already_matched", _("your ticket was matched: the game is in room {room}").format(
            room=(await self.read(account.id) or ticket).room_id))

    async def still_seated(self, ticket: Ticket) -> bool:
        """Whether the account still plays the game its matched ticket found (seated as a
        person in a room waiting or playing)."""
        async with self.storage.engine.connect() as conn:
            row = (await conn.execute(
                select(rooms.c.status, seats.c.kind).join(seats, seats.c.room_id == rooms.c.id)
                .where(rooms.c.id == ticket.room_id, seats.c.account_id == ticket.account_id)
            )).first()
        return row is not None and row.status in LIVE and row.kind == "human"

    # ------------------------------------------------------------------ matching

    async def waiting(self) -> list[Ticket]:
        async with self.storage.engine.connect() as conn:
            rows = (await conn.execute(select(queue_tickets).where(queue_tickets.c.status == "waiting"))).all()
        return [Ticket.of(r) for r in rows]

    async def match_all(self) -> int:
        """One pass: every table the waiting tickets make now; the number this instance made
        (a table another instance made first is not counted)."""
        tickets = await self.waiting()
        if not tickets:
            return 0
        now = time.time()
        fresh = [t for t in tickets if now - (t.seen or t.created) < STALE]
        made = 0
        for match in pair(fresh, now):
            try:
                await self.make_room(match, now)
            except Conflict:
                log.info("play now: a ticket of this table was taken on another instance first")
                continue
            except ActionError as e:
                log.warning("play now: the table could not be made: %s: %s", e.code, e.message)
                continue
            made += 1
        self.matches += made
        return made

    async def make_room(self, match: Match, now: float) -> str:
        """The room for a table, made and the tickets taken in one transaction (``Conflict``:
        a ticket was taken first; nothing is stored). Seats in random order."""
        first = match.tickets[0]
        entries: list[Ticket | str] = [*match.tickets, *match.bots]
        self.rng.shuffle(entries)
        specs = [{"kind": "open"} if isinstance(e, Ticket) else {"kind": e} for e in entries]
        seated = [(e.username, e.account_id) if isinstance(e, Ticket) else None for e in entries]
        taken = [(e.ticket, i) for i, e in enumerate(entries) if isinstance(e, Ticket)]

        async def claim(room_id: str, conn: AsyncConnection) -> None:
            for ticket, seat in taken:
                done = await conn.execute(
                    update(queue_tickets).where(queue_tickets.c.ticket == ticket, queue_tickets.c.status == "waiting")
                    .values(status="matched", room_id=room_id, seat=seat, matched=now)
                )
                if done.rowcount != 1:
                    raise Conflict(f"ticket {ticket} was taken first")

        room = await self.lobby.create(
            first.game, {"preset": first.preset}, specs, None, rated=first.preset == "standard", seated=seated, claim=claim,
        )
        log.info("play now: %d accounts and %d bots seated", len(match.tickets), len(match.bots), extra={"room": room.id})
        return room.id

    async def sweep(self) -> None:
        """Tickets whose page went away (waiting, not asked for in ``STALE``) and old matched ones go."""
        now = time.time()

        async def work(conn: AsyncConnection) -> None:
            await conn.execute(delete(queue_tickets).where(
                queue_tickets.c.status == "waiting", queue_tickets.c.seen < now - STALE))
            await conn.execute(delete(queue_tickets).where(
                queue_tickets.c.status == "matched", queue_tickets.c.matched < now - MATCHED_KEEP))

        await self.storage.transact(work)

    async def forget(self, account_id: str) -> None:
        """A deleted account's ticket goes."""

        async def work(conn: AsyncConnection) -> None:
            await conn.execute(delete(queue_tickets).where(queue_tickets.c.account_id == account_id))

        await self.storage.transact(work)


# ---------------------------------------------------------------------- routes


class QueueIn(Strict):
    game: GameName
    preset: str = Field("standard", min_length=1, max_length=32, description="A preset of the game (/api/meta); standard: rated")
    players: StrictInt = Field(2, ge=2, le=PLAYERS_MAX, description="Seats at the table, 2 to 4 within the game's seats")
    bot_after: StrictFloat | None = Field(
        None, ge=0, le=BOT_AFTER_MAX, allow_inf_nan=False,
        description="Seconds after which bots with a fixed rating fill the missing seats; null: never",
    )


class TicketOut(BaseModel):
    ticket: str
    game: str
    preset: str
    players: int
    bot_after: float | None
    status: Literal["waiting", "matched"]
    created: float
    waited: float = Field(description="Seconds in the queue (until the match, once matched)")
    window: list[int] = Field(description="[low, high]: the ratings this ticket accepts now", min_length=2, max_length=2)
    rating: int = Field(description="The account's shown rating in the game when it joined the queue (1000: unrated)")
    room: str | None = Field(description="The room of the match (null while waiting)")
    seat: int | None = Field(description="The account's seat there")


QUEUE_ERRORS: dict[int | str, dict[str, Any]] = {
    **ERRORS,
    401: {"model": ErrorOut, "description": "Not logged in (login_required)"},
    403: {"model": ErrorOut, "description": "A cookie-authenticated request from another site's page (bad_origin)"},
    404: {"model": ErrorOut, "description": "No ticket (not_queued)"},
    409: {"model": ErrorOut, "description": "The ticket was matched (already_matched)"},
}


Me = Annotated[Account, Depends(required_account)]
"""The logged-in account (a route parameter), or 401 ``login_required``."""


def playnow_of(request: Request) -> PlayNow:
    playnow: PlayNow = request.app.state.playnow
    return playnow


def queue_router() -> APIRouter:
    router = APIRouter(tags=["play now"])

    @router.post("/api/queue", response_model=TicketOut, status_code=201, responses=QUEUE_ERRORS)
    async def enqueue(request: Request, body: QueueIn, account: Me) -> dict[str, Any]:
        """Join the Play now queue (or answer the waiting ticket for the same wish; a new wish
        replaces it). The ticket is matched with players of similar rating, or bots after
        ``bot_after`` seconds; follow it with GET."""
        playnow = playnow_of(request)
        playnow.take(account)
        ticket = await playnow.enqueue(account, body.game, body.preset, body.players, body.bot_after)
        return ticket.out(time.time())

    @router.get("/api/queue", response_model=TicketOut, responses=QUEUE_ERRORS)
    async def current(request: Request, account: Me) -> dict[str, Any]:
        """The account's ticket: waiting (asking keeps it in the queue) or matched (its room and seat)."""
        ticket = await playnow_of(request).current(account)
        if ticket is None:
            raise ActionError("not_queued", _("you are not in the Play now queue"))
        return ticket.out(time.time())

    @router.delete("/api/queue", status_code=204, responses=QUEUE_ERRORS)
    async def leave(request: Request, account: Me) -> Response:
        """Leave the queue (a matched ticket cannot be: its game is made)."""
        playnow = playnow_of(request)
        playnow.take(account)
        await playnow.leave(account)
        return Response(status_code=204)

    return router


__all__ = [
    "MATCHED_KEEP", "STALE", "WINDOW_BASE", "WINDOW_GROWTH", "Match", "PlayNow", "Ticket", "bot_for", "half_width", "pair",
    "queue_router", "queue_tickets",
]
