"""An account's own games: every ended game exported as records, and the seats a guest played
in this browser taken along when they register or log in (docs/api.md "Accounts").

Both read and write the rooms' stored rows (``seats.account_id``) rather than the rooms held in
memory: an account's games are spread over every instance and most have left memory.
"""

from __future__ import annotations

import asyncio
import logging
import re
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Query
from fastapi.responses import JSONResponse
from pydantic import BaseModel, Field
from sqlalchemy import select, update
from sqlalchemy.ext.asyncio import AsyncConnection

from tabletris.engine.records import replay
from tabletris.server.accounts.core import Account, required_account
from tabletris.server.lobby import Lobby
from tabletris.server.models import ERRORS, ErrorOut, Strict
from tabletris.server.ratings import SeatResult, record_claimed
from tabletris.server.rooms import ENDED
from tabletris.server.seats import hash_token
from tabletris.server.storage import rooms, seats

log = logging.getLogger("tabletris.server")

EXPORT_MOST = 1000
"""Games one export holds: the account's newest ones."""
CLAIM_MOST = 256
"""Seats one claim may name (a browser's kept tokens; the body limit allows about this many)."""

ME_ERRORS: dict[int | str, dict[str, Any]] = {
    **ERRORS,
    401: {"model": ErrorOut, "description": "Not logged in (login_required)"},
    403: {"model": ErrorOut, "description": "A cookie-authenticated request from another site's page (bad_origin)"},
}


class SeatTokenIn(Strict):
    room: str = Field(min_length=1, max_length=32)
    token: str = Field(min_length=1, max_length=128)


class SeatsIn(Strict):
    seats: list[SeatTokenIn] = Field(max_length=CLAIM_MOST, description="The seat tokens this browser keeps, per room")


class ClaimedOut(BaseModel):
    room: str
    seat: int


class SkippedOut(BaseModel):
    room: str
    why: str = Field(description="bad_token (no seat of this room has that token), or seat_taken (it is another account's)")


class ClaimsOut(BaseModel):
    claimed: list[ClaimedOut] = Field(description="The seats that are the account's now (or were already)")
    skipped: list[SkippedOut]


class RecordOut(BaseModel):
    room: str
    game: str
    status: str
    seat: int
    ended: float = Field(description="When the room last changed: its end")
    record: dict[str, Any] = Field(description="The game's record (tabletris/1), as GET /api/rooms/{id}/record gives it")


ROOM_ID = re.compile(r"^[A-Za-z0-9_-]{1,32}$")


async def export_records(lobby: Lobby, account: Account) -> list[dict[str, Any]]:
    """Every ended game of the account (the newest ``EXPORT_MOST``), oldest first, each with
    its record: the room's own record, replayed from its stored rows in a thread."""
    async with lobby.storage.engine.connect() as conn:
        rows = (await conn.execute(
            select(rooms.c.id, rooms.c.game, rooms.c.status, rooms.c.updated, seats.c.seat)
            .join(seats, seats.c.room_id == rooms.c.id)
            .where(seats.c.account_id == account.id, rooms.c.status.in_(list(ENDED)), rooms.c.start.is_not(None))
            .order_by(rooms.c.created.desc(), rooms.c.id).limit(EXPORT_MOST)
        )).all()
    found = []
    for row in reversed(rows):
        held = lobby.rooms.get(row.id)
        if held is not None and held.status in ENDED:
            record = held.record()
        else:
            stored = await lobby.storage.load_room(row.id)
            if stored is None:
                continue
            try:
                record = (await asyncio.to_thread(lobby.restore, stored)).record()
            except Exception as e:  # a damaged room is left out, never the export
                log.warning("room %s: its record could not be exported: %s", row.id, e)
                continue
        found.append({"room": row.id, "game": row.game, "status": row.status, "seat": int(row.seat),
                      "ended": float(row.updated), "record": record})
    return found


async def claim_seats(lobby: Lobby, account: Account, wanted: list[SeatTokenIn]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The guest seats whose tokens are given become the account's, named by its username:
    each seat whose token matches and that holds no account (one conditional update per seat,
    so two accounts claiming one token get it once). A live room's copies are told (every
    instance reads it back); a game already over is recorded for the account as unrated (``player_games``)."""
    claimed: list[dict[str, Any]] = []
    skipped: list[dict[str, Any]] = []
    for item in wanted:
        if not ROOM_ID.match(item.room):
            skipped.append({"room": item.room[:32], "why": "bad_token"})
            continue
        token_hash = hash_token(item.token)

        async def work(conn: AsyncConnection, room_id: str = item.room, token_hash: str = token_hash) -> tuple[str, int | None]:
            row = (await conn.execute(
                select(seats.c.seat, seats.c.account_id, rooms.c.status).join(rooms, rooms.c.id == seats.c.room_id)
                .where(seats.c.room_id == room_id, seats.c.token_hash == token_hash, seats.c.kind.in_(["human", "resigned"]))
            )).first()
            if row is None:
                return "bad_token", None
            if row.account_id is not None:
                return ("mine" if row.account_id == account.id else "seat_taken"), int(row.seat)
            done = await conn.execute(
                update(seats).where(seats.c.room_id == room_id, seats.c.seat == row.seat, seats.c.account_id.is_(None),
                                    seats.c.token_hash == token_hash).values(account_id=account.id, name=account.username)
            )
            return ("claimed" if done.rowcount == 1 else "seat_taken"), int(row.seat)

        outcome, seat = await lobby.storage.transact(work)
        if seat is None or outcome == "seat_taken" or outcome == "bad_token":
            skipped.append({"room": item.room, "why": outcome})
            continue
        claimed.append({"room": item.room, "seat": seat})
        if outcome == "claimed":
            await _claimed(lobby, account, item.room, seat)
    return claimed, skipped


async def _claimed(lobby: Lobby, account: Account, room_id: str, seat: int) -> None:
    """After a seat became the account's: the rooms held here know it and tell the other
    instances (a live room's lease holder records its end for the account); a game over is
    recorded now, unrated."""
    room = lobby.rooms.get(room_id)
    if room is not None and seat < len(room.seats):
        # Named by the username from now on, as a seat taken while logged in is: the pages link
        # an account's seat to the profile of that name.
        room.seats[seat].account_id, room.seats[seat].name = account.id, account.username
        room.broadcast()  # publishes the seats: the other instances read the room back
    else:
        lobby.bus.publish(room_id, {"kind": "reload"})
    try:
        room = room or await lobby.find(room_id)
        if room.status != "over":
            return
        game = await asyncio.to_thread(replay, room.record())
        resigned = [s.index for s in room.seats if s.kind == "resigned"]
        mine = room.seats[seat]
        result = SeatResult(seat, mine.kind, account.username, account.id, mine.strength)
        async with lobby.storage.engine.connect() as conn:
            ended = (await conn.execute(select(rooms.c.updated).where(rooms.c.id == room_id))).scalar()
        await record_claimed(
            lobby.storage, room_id, room.game_name, result, game.winners(), game.seat_scores(), resigned, float(ended or 0.0)
        )
    except Exception as e:  # the seat is the account's; only its line on the profile is missing
        log.warning("room %s: a claimed game could not be recorded: %s: %s", room_id, type(e).__name__, e)


Me = Annotated[Account, Depends(required_account)]
"""The logged-in account (a route parameter), or 401 ``login_required``."""


def me_router(lobby: Lobby) -> APIRouter:
    router = APIRouter(tags=["accounts"])

    @router.get("/api/me/records", response_model=list[RecordOut], responses=ME_ERRORS)
    async def records(account: Me, download: Annotated[bool, Query()] = False) -> JSONResponse:
        """Every ended game of the account (the newest 1000), oldest first, each with its record."""
        found = await export_records(lobby, account)
        headers = {"Content-Disposition": 'attachment; filename="tabletris-games.json"'} if download else None
        return JSONResponse(found, headers=headers)

    @router.post("/api/me/seats", response_model=ClaimsOut, responses=ME_ERRORS)
    async def seats_of_this_browser(body: SeatsIn, account: Me) -> ClaimsOut:
        """The guest seats of this browser become the account's (each by its token; a seat that
        is another account's stays theirs): their games show on the profile and in the export."""
        claimed, skipped = await claim_seats(lobby, account, body.seats)
        return ClaimsOut(claimed=[ClaimedOut(**c) for c in claimed], skipped=[SkippedOut(**s) for s in skipped])

    return router


__all__ = ["CLAIM_MOST", "EXPORT_MOST", "claim_seats", "export_records", "me_router"]
