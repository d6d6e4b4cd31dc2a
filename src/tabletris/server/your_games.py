"""Your games (issue 26 item 4): every live game a player sits in, those waiting for them first,
with the time they have left: an account's from its seats in the database (on every device),
a guest's from the seat tokens their browser keeps (``POST`` them; a logged-in browser gets both).

Only waiting and playing rooms are read; each is the live room (``Lobby.find``: held here, or
read back), so what it says (who is to act, the deadline, the clocks) is what the room says.
"""

from __future__ import annotations

import math
from typing import Annotated, Any

from fastapi import APIRouter, Depends
from pydantic import BaseModel, Field
from sqlalchemy import select

from tabletris.server import timesource
from tabletris.server.accounts.core import Account, optional_account, required_account
from tabletris.server.errors import ActionError
from tabletris.server.lobby import Lobby
from tabletris.server.me_api import ME_ERRORS, ROOM_ID, SeatsIn
from tabletris.server.rooms import LIVE, Room
from tabletris.server.storage import rooms, seats

GAMES_MOST = 100
"""Live games one answer lists (an account's newest)."""


class YourGameOut(BaseModel):
    room: str
    game: str
    status: str = Field(description="waiting (for players) or playing")
    seat: int
    players: list[str | None] = Field(description="Each seat's name (null: open)")
    speed: dict[str, Any] = Field(description="The room's speed (as in the room)")
    your_turn: bool = Field(description="The game waits for you: you are to act now")
    to_act: list[int] = Field(description="The seats the game waits for")
    left: float | None = Field(description="Seconds you have left: your turn's time, or your game clock; null when nothing runs for you")
    deadline: float | None = Field(description="When your time for this turn runs out (Unix time; null: not your turn, or untimed)")
    turn_started: float | None


class YourGamesOut(BaseModel):
    games: list[YourGameOut] = Field(description="Those waiting for you first (the nearest deadline first), then the rest")
    your_turn: int = Field(description="How many wait for you")


def game_entry(room: Room, seat: int, now: float) -> dict[str, Any]:
    """What the list says about one seat's game (from the live room)."""
    playing = room.status == "playing" and room.table is not None
    to_act = [s for s in room.table.to_act() if room.seats[s].kind != "resigned"] if playing and room.table else []
    mine = seat in to_act and room.seats[seat].kind == "human"
    deadline = room.clock.seat_deadline(seat) if mine else None
    left: float | None = None
    if room.clocks is not None and room.clocks.left[seat] is not None and room.turn_started is not None:
        left = room.clocks.remaining(seat, room.turn_started, now, running=mine)
    elif deadline is not None:
        left = max(0.0, deadline - now)
    return {
        "room": room.id, "game": room.game_name, "status": room.status, "seat": seat,
        "players": [s.name for s in room.seats], "speed": room.speed_info(), "your_turn": mine, "to_act": to_act,
        "left": left, "deadline": deadline, "turn_started": room.turn_started if playing else None,
    }


def seat_of(room: Room, tokens: list[str]) -> int | None:
    """The seat the first of ``tokens`` that holds one here holds (None: none does)."""
    for token in tokens:
        try:
            return room.authenticate(token)
        except ActionError:
            continue
    return None


def ordered(entries: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Waiting for you first, the nearest deadline first (untimed last); then games in play,
    the most recently moved first; then rooms waiting for players."""
    def key(e: dict[str, Any]) -> tuple[Any, ...]:
        if e["your_turn"]:
            return (0, e["deadline"] if e["deadline"] is not None else math.inf, e["room"])
        return (1 if e["status"] == "playing" else 2, -(e["turn_started"] or 0.0), e["room"])

    return sorted(entries, key=key)


async def your_games(lobby: Lobby, account: Account | None, tokens: SeatsIn | None) -> dict[str, Any]:
    """The live games of an account's seats and of the given seat tokens (a room once)."""
    wanted: dict[str, int | list[str]] = {}
    """room id -> the account's seat, or the tokens to find the seat by."""
    async with lobby.storage.engine.connect() as conn:
        if account is not None:
            rows = (await conn.execute(
                select(seats.c.room_id, seats.c.seat).join(rooms, rooms.c.id == seats.c.room_id)
                .where(seats.c.account_id == account.id, seats.c.kind == "human", rooms.c.status.in_(list(LIVE)))
                .order_by(rooms.c.created.desc()).limit(GAMES_MOST)
            )).all()
            wanted.update({str(r.room_id): int(r.seat) for r in rows})
        given: dict[str, list[str]] = {}
        for t in tokens.seats if tokens is not None else []:
            if ROOM_ID.match(t.room) and t.room not in wanted:
                given.setdefault(t.room, []).append(t.token)
        if given:
            live = (await conn.execute(
                select(rooms.c.id).where(rooms.c.id.in_(list(given)), rooms.c.status.in_(list(LIVE)))
            )).scalars().all()
            wanted.update({str(r): given[str(r)] for r in live})
    entries = []
    now = timesource.now()
    for room_id, held in list(wanted.items())[:GAMES_MOST]:
        try:
            room = await lobby.find(room_id)
        except ActionError:
            continue  # gone meanwhile
        seat = held if isinstance(held, int) else seat_of(room, held)
        if seat is not None and room.status in LIVE and room.seats[seat].kind == "human":
            entries.append(game_entry(room, seat, now))
    games = ordered(entries)
    return {"games": games, "your_turn": sum(1 for g in games if g["your_turn"])}


def your_games_router(lobby: Lobby) -> APIRouter:
    router = APIRouter(tags=["accounts"])

    @router.get("/api/me/games", response_model=YourGamesOut, responses=ME_ERRORS)
    async def account_games(account: Annotated[Account, Depends(required_account)]) -> dict[str, Any]:
        """Every live game the account sits in (the newest 100), those waiting for it first,
        with the time it has left in each."""
        return await your_games(lobby, account, None)

    @router.post("/api/me/games", response_model=YourGamesOut, responses=ME_ERRORS)
    async def browser_games(body: SeatsIn, account: Annotated[Account | None, Depends(optional_account)]) -> dict[str, Any]:
        """The same for the seat tokens this browser keeps (a guest's games), with the
        logged-in account's besides: a token that holds no seat, or a room that ended, is left out."""
        return await your_games(lobby, account, body)

    return router


__all__ = ["GAMES_MOST", "game_entry", "ordered", "your_games", "your_games_router"]
