"""Players' public pages as data: a profile (games, ratings and their history, newest games) and a
game's ranking. Both are read-only and open to anyone, as on the tables players compare
themselves at; what they show comes from ``server/ratings.py``, which writes it once per game."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query
from pydantic import BaseModel, Field
from sqlalchemy import select

from tabletris.engine.games import GAMES
from tabletris.i18n import _
from tabletris.server.accounts.core import users
from tabletris.server.errors import ActionError
from tabletris.server.limits import name_skeleton
from tabletris.server.models import ERRORS
from tabletris.server.ratings import profile_games, ranking
from tabletris.server.storage import Storage


class GameHistoryOut(BaseModel):
    played: int
    won: int
    rating: int | None = Field(description="The shown rating now (null: never rated in this game)")
    history: list[dict[str, Any]] = Field(description="[{room, at, rating}] after each rated game, oldest first")


class PlayerOut(BaseModel):
    username: str
    created: float
    games: dict[str, GameHistoryOut]
    recent: list[dict[str, Any]] = Field(description="[{room, game, at, result, rated, replay}] newest first")


class RankedOut(BaseModel):
    rank: int
    username: str
    rating: int
    games: int


class RankingOut(BaseModel):
    game: str
    total: int
    offset: int
    players: list[RankedOut]


def players_router(storage: Storage) -> APIRouter:
    router = APIRouter(tags=["players"])

    @router.get("/api/players/{username}", response_model=PlayerOut, responses=ERRORS)
    async def player(username: str) -> PlayerOut:
        async with storage.engine.connect() as conn:
            row = (await conn.execute(
                select(users.c.id, users.c.username, users.c.created).where(users.c.skeleton == name_skeleton(username[:64]))
            )).first()
        if row is None:
            raise ActionError("not_found", _("no player is called {name}").format(name=username[:64]))
        games, recent = await profile_games(storage, str(row.id))
        return PlayerOut(username=row.username, created=float(row.created),
                         games={g: GameHistoryOut(**v) for g, v in games.items()}, recent=recent)

    @router.get("/api/ratings/{game}", response_model=RankingOut, responses=ERRORS)
    async def ratings(
        game: str,
        offset: Annotated[int, Query(ge=0, le=1_000_000)] = 0,
        limit: Annotated[int, Query(ge=1, le=100)] = 50,
    ) -> RankingOut:
        if game not in GAMES:
            raise ActionError("not_found", _("there is no game called {name}").format(name=game[:32]))
        total, players = await ranking(storage, game, offset, limit)
        return RankingOut(game=game, total=total, offset=offset, players=[RankedOut(**p) for p in players])

    return router


__all__ = ["PlayerOut", "RankingOut", "players_router"]
