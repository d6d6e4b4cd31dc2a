"""Ratings per game: openskill's Plackett-Luce model, rated once per room.

Plackett-Luce takes 2 to 4 players (any number) and ties. The places come from the engine
only: the seats of ``winners()`` first, then the rest by ``seat_scores()``, ties sharing a
place; a seat that resigned or timed out (``resigned``) is placed last whatever its score, as
the rule "resigning loses" asks. Bots have fixed ratings (``BOT_RATINGS``): they take part in
the update (a win against the expert is worth more than one against random) but never move.

Once per room, on every instance: the transaction that rates a game first inserts the room's
row into ``scored_rooms`` (``ON CONFLICT DO NOTHING``); when that insert finds the row already
there, the game was rated (or recorded) before and nothing else is written. The rest of the
update (players' ratings read ``FOR UPDATE``, written back, each player's game row) commits in
the same transaction, so a game is rated wholly or not at all.

The number shown (``shown``) is openskill's ordinal scaled: ``1000 + 40 * (mu - 3 * sigma)``:
a new player (mu 25, sigma 25/3) shows 1000, and the number rises as the model grows more
certain of a player's strength, never by luck in a few games.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from openskill.models import PlackettLuce
from sqlalchemy import (
    Boolean,
    Column,
    Float,
    Index,
    Integer,
    String,
    Table,
    delete,
    func,
    select,
    update,
)
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.ext.asyncio import AsyncConnection

from tabletris.i18n import _
from tabletris.server.storage import Storage, metadata

log = logging.getLogger("tabletris.server")

MODEL = PlackettLuce()
SHOWN_BASE = 1000.0
SHOWN_SCALE = 40.0

BOT_RATINGS: dict[str, dict[str, tuple[float, float]]] = {
    "dice": {"random": (13.76, 2.80), "greedy": (20.40, 2.54), "expert": (35.60, 2.81)},
    "tower": {"random": (3.88, 5.63), "greedy": (22.02, 4.90), "expert": (37.49, 4.60), "oracle": (45.21, 4.64)},
}
"""Each bot's fixed (mu, sigma) per game, at full strength: the leaderboards published in
docs/ai-interfaces.md ("Leaderboard", run 2026-12-02), bots head to head on openskill's own
scale (a new player starts at mu 25). Only these bots may sit at a rated table."""

scored_rooms = Table(
    "scored_rooms",
    metadata,
    Column("room_id", String(32), primary_key=True),
    Column("game", String(16), nullable=False),
    Column("rated", Boolean, nullable=False),
    Column("at", Float, nullable=False),
)
"""One row per ended room whose result was recorded: its insert decides who rates it."""

ratings = Table(
    "ratings",
    metadata,
    Column("account_id", String(36), primary_key=True),
    Column("game", String(16), primary_key=True),
    Column("username", String(64), nullable=False),
    Column("mu", Float, nullable=False),
    Column("sigma", Float, nullable=False),
    Column("shown", Float, nullable=False),
    Column("games", Integer, nullable=False),
    Column("updated", Float, nullable=False),
    Index("ix_ratings_game_shown", "game", "shown"),
)

player_games = Table(
    "player_games",
    metadata,
    Column("room_id", String(32), primary_key=True),
    Column("account_id", String(36), primary_key=True),
    Column("username", String(64), nullable=False),
    Column("game", String(16), nullable=False),
    Column("seat", Integer, nullable=False),
    Column("at", Float, nullable=False),
    Column("result", String(12), nullable=False),
    Column("place", Integer, nullable=False),
    Column("rated", Boolean, nullable=False),
    Column("rating", Float, nullable=True),
    Index("ix_player_games_account_at", "account_id", "at"),
)
"""Each account's ended games (rated or not): the profile's counts, history and recent games."""


def shown(mu: float, sigma: float) -> float:
    """The rating people see (see the module): openskill's ordinal, scaled."""
    return float(MODEL.rating(mu=mu, sigma=sigma).ordinal(z=3.0, alpha=SHOWN_SCALE, target=SHOWN_BASE))


def bot_rating(game: str, bot: str) -> float | None:
    """A bot's fixed shown rating in ``game`` (None: the bot is not rated there)."""
    fixed = BOT_RATINGS.get(game, {}).get(bot)
    return None if fixed is None else shown(*fixed)


@dataclass(frozen=True)
class SeatResult:
    """What rating needs of one seat at the end of a game."""

    seat: int
    kind: str
    """``human``, ``resigned`` (gave up or timed out) or a bot's name."""
    name: str | None
    account_id: str | None
    strength: float | None = None

    @property
    def person(self) -> bool:
        return self.kind in ("human", "resigned")


def places(winners: Sequence[int], scores: Sequence[int], resigned: Sequence[int] = ()) -> list[int]:
    """Each seat's place (0 best; equal places tie) from the engine's ``winners`` and
    ``seat_scores``; resigned seats share the last place."""
    gone = set(resigned)
    keys = {i: (i in winners, scores[i]) for i in range(len(scores)) if i not in gone}
    distinct = sorted(set(keys.values()), reverse=True)
    last = len(distinct)
    return [distinct.index(keys[i]) if i in keys else last for i in range(len(scores))]


def fixed_bot(game: str, kind: str, strength: float | None) -> bool:
    """Whether this bot has a fixed rating in ``game`` (one of ``BOT_RATINGS``, at full strength)."""
    return kind in BOT_RATINGS.get(game, {}) and strength in (None, 1.0)


def rated_refusal(game: str, seats: Sequence[SeatResult]) -> str | None:
    """Why a rated room's game cannot be rated after all (None: it can): a person's seat
    without an account, or a bot without a fixed rating."""
    for s in seats:
        if s.person and s.account_id is None:
            return f"seat {s.seat} is not an account"
        if not s.person and not fixed_bot(game, s.kind, s.strength):
            return f"seat {s.seat}: the bot {s.kind!r} has no fixed rating at this strength"
    return None


def rated_room_refusal(game: str, rules: Mapping[str, Any], timed: bool, seats: Sequence[Any]) -> str | None:
    """Why a room cannot be created rated (None: it can): rated games are played by the
    standard rules, at a timed speed (``timed``: real-time or turn-based, not untimed, where a
    player who walks away holds the result up for good), with bots whose rating is fixed
    (``seats``: ``Seat``s)."""
    # Catalog sentences (the web client shows them in the player's language, found by template).
    if any(key != "preset" for key in rules) or rules.get("preset", "standard") != "standard":
        return _("a rated room plays the standard preset without house rules")
    if not timed:
        return _("a rated room needs a timed speed: real-time or turn-based, not untimed")
    for s in seats:
        if s.is_bot and not fixed_bot(game, s.kind, s.strength):
            fixed = ", ".join(BOT_RATINGS.get(game, {}))
            return _("seats[{index}]: a rated room seats only bots with a fixed rating, at full strength ({fixed})").format(index=s.index, fixed=fixed)
    return None


def new_ratings(
    game: str, seats: Sequence[SeatResult], place: Sequence[int], current: Mapping[str, tuple[float, float]]
) -> dict[str, tuple[float, float]]:
    """The accounts' (mu, sigma) after the game; ``current``: theirs before (missing: new)."""
    teams = []
    for s in seats:
        if s.person:
            assert s.account_id is not None
            mu, sigma = current.get(s.account_id, (MODEL.mu, MODEL.sigma))
        else:
            mu, sigma = BOT_RATINGS[game][s.kind]
        teams.append([MODEL.rating(mu=mu, sigma=sigma)])
    rated = MODEL.rate(teams, ranks=[float(p) for p in place])
    return {
        s.account_id: (float(team[0].mu), float(team[0].sigma))
        for s, team in zip(seats, rated, strict=True)
        if s.person and s.account_id is not None
    }


def _insert(conn: AsyncConnection, table: Table) -> Any:
    """The dialect's insert, which has ``on_conflict_do_nothing`` (SQLite and PostgreSQL)."""
    return (postgresql.insert if conn.dialect.name == "postgresql" else sqlite.insert)(table)


def standing(winners: Sequence[int], scores: Sequence[int], resigned: Sequence[int]) -> tuple[list[int], list[int]]:
    """Each seat's place (``places``) and who won, as the profile counts it: the engine's
    winners, less those who resigned (a resigned game is lost); when every winner resigned,
    the best placed of the rest."""
    gone = set(resigned)
    place = places(winners, scores, resigned)
    won = [w for w in winners if w not in gone] or [i for i, p in enumerate(place) if p == 0 and i not in gone]
    return place, won


def result_of(seat: SeatResult, won: Sequence[int]) -> str:
    """A seat's result in ``player_games``: resigned, won or lost."""
    return "resigned" if seat.kind == "resigned" else "won" if seat.seat in won else "lost"


async def record_claimed(
    storage: Storage, room_id: str, game: str, seat: SeatResult, winners: Sequence[int], scores: Sequence[int],
    resigned: Sequence[int], at: float,
) -> bool:
    """Record an ended game for an account that took its guest seat afterwards (the seat's
    token proved it was theirs): played, never rated (a rating is computed once per game, when
    it ends). True when it was recorded now."""
    place, won = standing(winners, scores, resigned)
    assert seat.account_id is not None

    async def work(conn: AsyncConnection) -> bool:
        row = _insert(conn, player_games).values(
            room_id=room_id, account_id=seat.account_id, username=seat.name or "", game=game, seat=seat.seat, at=at,
            result=result_of(seat, won), place=place[seat.seat], rated=False, rating=None,
        )
        return bool((await conn.execute(row.on_conflict_do_nothing(index_elements=["room_id", "account_id"]))).rowcount == 1)

    return bool(await storage.transact(work))


async def rate_room(
    storage: Storage, room_id: str, game: str, rated: bool, seats: Sequence[SeatResult],
    winners: Sequence[int], scores: Sequence[int], at: float | None = None,
) -> bool:
    """Record an ended room's result for its accounts, and rate it when it was created rated
    and every seat qualifies (``rated_refusal``). True when this call recorded it; False when
    the room was recorded before (here or on another instance): nothing changed."""
    when = time.time() if at is None else at
    place, won = standing(winners, scores, [s.seat for s in seats if s.kind == "resigned"])
    accounts = [s for s in seats if s.person and s.account_id is not None]
    refusal = rated_refusal(game, seats) if rated else "not a rated room"
    rate = refusal is None

    async def work(conn: AsyncConnection) -> bool:
        claim = _insert(conn, scored_rooms).values(room_id=room_id, game=game, rated=rate, at=when)
        if (await conn.execute(claim.on_conflict_do_nothing(index_elements=["room_id"]))).rowcount != 1:
            return False
        after: dict[str, tuple[float, float]] = {}
        if rate:
            ids = [s.account_id for s in accounts]
            found = await conn.execute(
                select(ratings.c.account_id, ratings.c.mu, ratings.c.sigma)
                .where(ratings.c.game == game, ratings.c.account_id.in_(ids)).with_for_update()
            )
            current = {str(r.account_id): (float(r.mu), float(r.sigma)) for r in found}
            after = new_ratings(game, seats, place, current)
            for s in accounts:
                assert s.account_id is not None
                mu, sigma = after[s.account_id]
                values = {"mu": mu, "sigma": sigma, "shown": shown(mu, sigma), "updated": when, "username": s.name or ""}
                if s.account_id in current:
                    await conn.execute(
                        update(ratings).where(ratings.c.account_id == s.account_id, ratings.c.game == game)
                        .values(games=ratings.c.games + 1, **values)
                    )
                else:
                    await conn.execute(_insert(conn, ratings).values(account_id=s.account_id, game=game, games=1, **values))
        for s in accounts:
            assert s.account_id is not None
            result = result_of(s, won)
            mine = after.get(s.account_id)
            await conn.execute(_insert(conn, player_games).values(
                room_id=room_id, account_id=s.account_id, username=s.name or "", game=game, seat=s.seat, at=when,
                result=result, place=place[s.seat], rated=rate, rating=None if mine is None else shown(*mine),
            ))
        return True

    done = bool(await storage.transact(work))
    if done and rated and refusal is not None:
        log.info("room %s was created rated but is not rated: %s", room_id, refusal)
    return done


async def forget_account(storage: Storage, account_id: str) -> None:
    """A deleted account's ratings and game rows go (its games stay, under a neutral name)."""

    async def work(conn: AsyncConnection) -> None:
        await conn.execute(delete(ratings).where(ratings.c.account_id == account_id))
        await conn.execute(delete(player_games).where(player_games.c.account_id == account_id))

    await storage.transact(work)


async def rating_of(storage: Storage, account_id: str, game: str) -> float:
    """An account's shown rating in ``game`` (a new player's when it has none yet)."""
    async with storage.engine.connect() as conn:
        found = (await conn.execute(
            select(ratings.c.shown).where(ratings.c.account_id == account_id, ratings.c.game == game)
        )).scalar()
    return float(found) if found is not None else shown(MODEL.mu, MODEL.sigma)


async def ranking(storage: Storage, game: str, offset: int, limit: int) -> tuple[int, list[dict[str, Any]]]:
    """The ranking of ``game``: how many are rated, and the page from ``offset``, best first."""
    async with storage.engine.connect() as conn:
        total = int((await conn.execute(select(func.count()).select_from(ratings).where(ratings.c.game == game))).scalar() or 0)
        rows = (await conn.execute(
            select(ratings.c.username, ratings.c.shown, ratings.c.games)
            .where(ratings.c.game == game)
            .order_by(ratings.c.shown.desc(), ratings.c.username)
            .offset(offset).limit(limit)
        )).all()
    players = [
        {"rank": offset + i + 1, "username": r.username, "rating": round(float(r.shown)), "games": int(r.games)}
        for i, r in enumerate(rows)
    ]
    return total, players


async def profile_games(storage: Storage, account_id: str, recent: int = 20) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """An account's games per game (played, won, rating, its history) and its newest games."""
    async with storage.engine.connect() as conn:
        rows = (await conn.execute(
            select(player_games).where(player_games.c.account_id == account_id).order_by(player_games.c.at, player_games.c.room_id)
        )).mappings().all()
        rated_now = {
            str(r.game): float(r.shown)
            for r in await conn.execute(select(ratings.c.game, ratings.c.shown).where(ratings.c.account_id == account_id))
        }
    games: dict[str, Any] = {}
    for r in rows:
        entry = games.setdefault(r["game"], {"played": 0, "won": 0, "rating": None, "history": []})
        entry["played"] += 1
        entry["won"] += r["result"] == "won"
        if r["rating"] is not None:
            entry["history"].append({"room": r["room_id"], "at": r["at"], "rating": round(float(r["rating"]))})
    for game, value in rated_now.items():
        games.setdefault(game, {"played": 0, "won": 0, "rating": None, "history": []})["rating"] = round(value)
    newest = [
        {"room": r["room_id"], "game": r["game"], "at": r["at"], "result": r["result"], "rated": bool(r["rated"]),
         "replay": f"/replay/{r['room_id']}"}
        for r in reversed(rows[-recent:])
    ]
    return games, newest


__all__ = [
    "BOT_RATINGS", "MODEL", "SeatResult", "bot_rating", "fixed_bot", "rated_room_refusal", "forget_account", "new_ratings", "places", "player_games",
    "profile_games", "ranking", "rate_room", "record_claimed", "result_of", "standing", "rated_refusal", "rating_of", "ratings", "scored_rooms", "shown",
]
