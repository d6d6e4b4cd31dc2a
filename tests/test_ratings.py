"""Ratings (server/ratings.py): places from the engine's result, openskill's update, bots'
fixed ratings, once per room across instances, resigning loses, a deleted account forgotten."""

from __future__ import annotations

import asyncio
import contextlib
import sqlite3
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import httpx
import pytest
from openskill.models import PlackettLuce
from sqlalchemy import select

from account_helpers import logged_in
from server_helpers import create_room, live_server
from tabletris.engine.dice import winners_of
from tabletris.server import ratings as r
from tabletris.server.ratings import SeatResult
from tabletris.server.storage import Storage
from web_helpers import wait_until


async def opened(url: str) -> Storage:
    storage = Storage(url)
    await storage.open()  # migration 0007 makes the ratings' tables
    return storage


def with_storage(body: Callable[[Storage], Awaitable[None]]) -> Callable[[Path], None]:
    """A test run on a fresh storage (the suite runs coroutines with ``asyncio.run``)."""

    def test(tmp_path: Path) -> None:
        async def run() -> None:
            s = await opened(f"sqlite+aiosqlite:///{tmp_path / 'db.sqlite3'}")
            try:
                await body(s)
            finally:
                await s.close()

        asyncio.run(run())

    test.__name__ = body.__name__
    test.__doc__ = body.__doc__
    return test


def people(*kinds: str) -> list[SeatResult]:
    return [
        SeatResult(i, k, f"p{i}", f"acc-{i}") if k in ("human", "resigned") else SeatResult(i, k, k.capitalize(), None)
        for i, k in enumerate(kinds)
    ]


async def rows(storage: Storage) -> dict[str, tuple[float, float, int]]:
    async with storage.engine.connect() as conn:
        found = await conn.execute(select(r.ratings.c.account_id, r.ratings.c.mu, r.ratings.c.sigma, r.ratings.c.games))
        return {str(x.account_id): (x.mu, x.sigma, x.games) for x in found}


def test_places_follow_the_engines_winners_then_scores_with_ties_shared() -> None:
    scores = [3, 5, 5, 1]
    assert r.places(winners_of(scores), scores) == [1, 0, 0, 2]
    # tower: the engine's winner beat an equal total on lines; that stays its decision
    assert r.places([2], [7, 7, 7]) == [1, 1, 0]
    # a resigned seat is last whatever it scored, even as the engine's winner
    assert r.places([1], [3, 9, 5], resigned=[1]) == [1, 2, 0]


def test_new_ratings_are_openskills_plackett_luce_and_bots_stay_fixed() -> None:
    seats = people("human", "expert", "human")
    place = [0, 1, 1]
    after = r.new_ratings("dice", seats, place, {"acc-2": (30.0, 5.0)})
    model = PlackettLuce()
    expected = model.rate(
        [[model.rating()], [model.rating(mu=35.60, sigma=2.81)], [model.rating(mu=30.0, sigma=5.0)]], ranks=[0.0, 1.0, 1.0]
    )
    assert after["acc-0"] == pytest.approx((expected[0][0].mu, expected[0][0].sigma))
    assert after["acc-2"] == pytest.approx((expected[2][0].mu, expected[2][0].sigma))
    assert set(after) == {"acc-0", "acc-2"}
    assert r.shown(25.0, 25.0 / 3) == pytest.approx(1000.0)
    assert r.bot_rating("dice", "expert") == pytest.approx(1000 + 40 * (35.60 - 3 * 2.81))
    assert r.bot_rating("dice", "oracle") is None


def test_a_guest_or_an_unrated_bot_makes_a_rated_room_unrated() -> None:
    assert r.rated_refusal("dice", people("human", "expert")) is None
    assert "not an account" in str(r.rated_refusal("dice", [SeatResult(0, "human", "g", None), *people("human")[1:]]))
    assert "no fixed rating" in str(r.rated_refusal("dice", [*people("human"), SeatResult(1, "mcts", "M", None)]))
    assert "no fixed rating" in str(r.rated_refusal("dice", [*people("human"), SeatResult(1, "expert", "E", None, 0.5)]))


@with_storage
async def test_a_room_is_rated_once_however_often_it_is_reported(storage: Storage) -> None:
    seats = people("human", "human")
    first = await r.rate_room(storage, "room1", "dice", True, seats, [0], [4, 2])
    again = await r.rate_room(storage, "room1", "dice", True, seats, [0], [4, 2])
    assert (first, again) == (True, False)
    got = await rows(storage)
    assert got["acc-0"][2] == got["acc-1"][2] == 1
    assert got["acc-0"][0] > 25 > got["acc-1"][0]


def test_two_instances_rating_the_same_room_at_once_change_the_ratings_once(db_url: str) -> None:
    """On SQLite and on PostgreSQL: two storages on one database, as two instances have."""
    asyncio.run(two_instances(db_url))


async def two_instances(db_url: str) -> None:
    a = await opened(db_url)
    b = await opened(db_url)
    try:
        seats = people("human", "human", "human")
        done = await asyncio.gather(*(
            r.rate_room(s, "roomX", "dice", True, seats, [2], [1, 0, 6]) for s in (a, b, a, b)
        ))
        assert sorted(done) == [False, False, False, True]
        got = await rows(a)
        assert {k: v[2] for k, v in got.items()} == {"acc-0": 1, "acc-1": 1, "acc-2": 1}
        model = PlackettLuce()
        once = model.rate([[model.rating()] for _ in range(3)], ranks=[1.0, 2.0, 0.0])
        assert got["acc-2"][0] == pytest.approx(once[2][0].mu)
    finally:
        await a.close()
        await b.close()


@with_storage
async def test_resigning_loses_a_rated_game_whatever_the_score(storage: Storage) -> None:
    seats = people("resigned", "human")
    await r.rate_room(storage, "room2", "dice", True, seats, [0], [9, 1])
    got = await rows(storage)
    assert got["acc-1"][0] > 25 > got["acc-0"][0]
    games, recent = await r.profile_games(storage, "acc-0")
    assert recent[0]["result"] == "resigned"
    assert games["dice"]["won"] == 0 and games["dice"]["played"] == 1


@with_storage
async def test_the_player_left_when_the_winner_resigned_won_the_game(storage: Storage) -> None:
    """The engine named the seat that resigned the winner by its bot's score; the profile said its
    opponent, first in the ratings, had lost. It counts that game as won now."""
    await r.rate_room(storage, "room6", "dice", True, people("resigned", "human", "human"), [0], [9, 5, 1])
    results = {a: (await r.profile_games(storage, a))[1][0]["result"] for a in ("acc-0", "acc-1", "acc-2")}
    assert results == {"acc-0": "resigned", "acc-1": "won", "acc-2": "lost"}
    games, _recent = await r.profile_games(storage, "acc-1")
    assert games["dice"]["won"] == 1


@with_storage
async def test_a_game_against_a_bot_is_rated_with_the_bots_fixed_rating(storage: Storage) -> None:
    seats = people("human", "random")
    await r.rate_room(storage, "room3", "dice", True, seats, [1], [0, 3])
    got = await rows(storage)
    model = PlackettLuce()
    expected = model.rate([[model.rating()], [model.rating(mu=13.76, sigma=2.80)]], ranks=[1.0, 0.0])
    assert got["acc-0"][0] == pytest.approx(expected[0][0].mu)
    assert set(got) == {"acc-0"}
    assert r.BOT_RATINGS["dice"]["random"] == (13.76, 2.80)


@with_storage
async def test_an_unrated_room_records_the_game_but_moves_no_rating(storage: Storage) -> None:
    await r.rate_room(storage, "room4", "dice", False, people("human", "human"), [0], [2, 1])
    assert await rows(storage) == {}
    games, recent = await r.profile_games(storage, "acc-0")
    assert games["dice"] == {"played": 1, "won": 1, "rating": None, "history": []}
    assert recent[0]["replay"] == "/replay/room4" and recent[0]["rated"] is False


@with_storage
async def test_profile_history_and_ranking(storage: Storage) -> None:
    for i in range(3):
        await r.rate_room(storage, f"g{i}", "dice", True, people("human", "human"), [0], [5, 1], at=100.0 + i)
    games, recent = await r.profile_games(storage, "acc-0")
    history = games["dice"]["history"]
    assert [h["room"] for h in history] == ["g0", "g1", "g2"]
    assert history[0]["rating"] < history[1]["rating"] < history[2]["rating"] == games["dice"]["rating"]
    assert [g["room"] for g in recent] == ["g2", "g1", "g0"]
    total, page = await r.ranking(storage, "dice", 0, 1)
    assert total == 2
    assert page == [{"rank": 1, "username": "p0", "rating": games["dice"]["rating"], "games": 3}]
    _, second = await r.ranking(storage, "dice", 1, 5)
    assert [p["username"] for p in second] == ["p1"] and second[0]["rank"] == 2
    assert await r.rating_of(storage, "acc-0", "dice") == pytest.approx(history[-1]["rating"], abs=0.5)
    assert await r.rating_of(storage, "nobody", "dice") == pytest.approx(1000.0)


@with_storage
async def test_a_deleted_account_is_forgotten(storage: Storage) -> None:
    await r.rate_room(storage, "room5", "dice", True, people("human", "human"), [0], [2, 1])
    await r.forget_account(storage, "acc-0")
    assert set(await rows(storage)) == {"acc-1"}
    games, recent = await r.profile_games(storage, "acc-0")
    assert (games, recent) == ({}, [])
    total, _ = await r.ranking(storage, "dice", 0, 10)
    assert total == 1


def test_a_rated_room_is_refused_with_the_condition_that_failed(tmp_path: Path) -> None:
    with live_server(tmp_path / "rated.sqlite3") as server:
        def refused(body: dict[str, Any]) -> str:
            answer = httpx.post(server.url + "/api/rooms", json={"game": "dice", "rated": True, **body}, timeout=10)
            assert answer.status_code == 422, answer.text
            assert answer.json()["error"] == "bad_rated"
            return str(answer.json()["message"])

        open_seats = [{"kind": "open"}, {"kind": "open"}]
        assert "standard preset" in refused({"rules": {"preset": "standard", "clear_rows": True}, "seats": open_seats})
        assert "fixed rating" in refused({"seats": [{"kind": "open"}, {"kind": "expert", "strength": 0.5}]})
        assert "fixed rating" in refused({"seats": [{"kind": "open"}, {"kind": "mcts"}]})
        made = create_room(server.url, {"game": "dice", "rated": True, "seats": [{"kind": "open"}, {"kind": "expert"}]})
        assert made["rated"] is True and made["timer"]
        plain = create_room(server.url, {"game": "dice", "seats": open_seats})
        assert plain["rated"] is False
        listed = {room["id"]: room["rated"] for room in httpx.get(server.url + "/api/rooms", timeout=10).json()}
        assert listed == {made["id"]: True, plain["id"]: False}


def test_a_rated_game_resigned_by_an_account_is_rated_once_as_lost_when_it_ends(tmp_path: Path) -> None:
    """The room's end (Lobby.note_ended) records it (a rated room seats accounts only)."""
    db = tmp_path / "end.sqlite3"
    with live_server(db) as server:
        room = create_room(server.url, {"game": "dice", "rated": True, "seats": [{"kind": "open"}, {"kind": "greedy"}]})["id"]
        ann = logged_in(server.url, "Ann")
        account = ann.account["id"]  # type: ignore[attr-defined]
        token = ann.post(f"/api/rooms/{room}/join", json={"name": "Ann"}).json()["token"]
        ann.close()
        left = httpx.post(f"{server.url}/api/rooms/{room}/leave", headers={"X-Seat-Token": token}, timeout=10)
        assert left.json()["done"] == "resigned", left.text

        def stored() -> list[tuple[Any, ...]]:
            with contextlib.closing(sqlite3.connect(db)) as conn:
                return conn.execute("SELECT room_id, result, rated, rating FROM player_games").fetchall()

        wait_until(lambda: bool(stored()), 60, "the ended game's result")
        assert httpx.get(f"{server.url}/api/rooms/{room}", timeout=10).json()["room"]["status"] == "over"
        ((where, result, rated, rating),) = stored()
        assert (where, result, rated) == (room, "resigned", 1)
        assert rating < 1000
        with contextlib.closing(sqlite3.connect(db)) as conn:
            assert conn.execute("SELECT games FROM ratings WHERE account_id = ?", (account,)).fetchall() == [(1,)]


def test_the_rematch_of_a_rated_game_is_rated(tmp_path: Path) -> None:
    """A rated room's rematch was always unrated (a Play now pair's second game counted for
    nothing); it is rated, the account's seat taken again by the same account."""
    with live_server(tmp_path / "again.sqlite3") as server:
        room = create_room(server.url, {"game": "dice", "rated": True, "seats": [{"kind": "open"}, {"kind": "greedy"}]})["id"]
        ann = logged_in(server.url, "Ann")
        try:
            token = ann.post(f"/api/rooms/{room}/join", json={"name": "Ann"}).json()["token"]
            left = httpx.post(f"{server.url}/api/rooms/{room}/leave", headers={"X-Seat-Token": token}, timeout=10)
            assert left.json()["done"] == "resigned", left.text
            wait_until(lambda: httpx.get(f"{server.url}/api/rooms/{room}", timeout=10).json()["room"]["status"] == "over",
                       60, "the game played out after Ann resigned")
            again = ann.post(f"/api/rooms/{room}/rematch", headers={"X-Seat-Token": token})
            assert again.status_code == 200, again.text
            new = httpx.get(f"{server.url}/api/rooms/{again.json()['room']}", timeout=10).json()["room"]
            assert new["rated"] is True
            assert [(s["kind"], s["name"]) for s in new["seats"]][0] == ("human", "Ann")
        finally:
            ann.close()
