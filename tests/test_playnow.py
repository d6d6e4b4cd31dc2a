"""Play now (issue 25 item 4, server/playnow.py): the pairing rule, the queue's API on a real
server (tickets, matches into rated rooms with the accounts seated, bots after the player's own
limit), and its attacks (another account's ticket, the rate, another site's page)."""

from __future__ import annotations

import asyncio
import contextlib
import sqlite3
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sqlalchemy import func, insert, select

from account_helpers import logged_in
from server_helpers import LiveServer, live_server
from tabletris.server import playnow as pn
from tabletris.server.limits import Limits
from tabletris.server.lobby import Lobby
from tabletris.server.playnow import PlayNow, Ticket, bot_for, half_width, pair
from tabletris.server.ratings import fixed_bot
from tabletris.server.storage import Storage, rooms, seats
from web_helpers import wait_until

NOW = 10_000.0


def ticket(i: int, rating: float, waited: float = 0.0, players: int = 2, bot_after: float | None = None,
           game: str = "dice", preset: str = "standard") -> Ticket:
    return Ticket(f"t{i}", f"a{i}", f"p{i}", game, preset, players, bot_after, rating, NOW - waited)


# ---------------------------------------------------------------------- the pairing rule


def test_the_window_widens_with_the_wait() -> None:
    assert half_width(0) == pn.WINDOW_BASE == 50
    assert half_width(30) == 50 + 10 * 30
    t = ticket(0, 1200, waited=12)
    assert t.out(NOW)["window"] == [1200 - 170, 1200 + 170]


def test_near_ratings_pair_at_once_and_far_ones_once_both_windows_reach() -> None:
    near = pair([ticket(0, 1000), ticket(1, 1040)], NOW)
    assert [[t.ticket for t in m.tickets] for m in near] == [["t0", "t1"]] and near[0].bots == []
    # 1000 and 1300: 300 apart; a window of 300 needs 25 s of waiting, from both of them
    assert pair([ticket(0, 1000, waited=60), ticket(1, 1300, waited=10)], NOW) == []
    assert len(pair([ticket(0, 1000, waited=60), ticket(1, 1300, waited=25)], NOW)) == 1


def test_the_longest_waiting_takes_the_nearest_rating() -> None:
    made = pair([ticket(0, 1000, waited=9), ticket(1, 1300, waited=40), ticket(2, 1030, waited=5), ticket(3, 1280, waited=1)], NOW)
    assert sorted(sorted(t.ticket for t in m.tickets) for m in made) == [["t0", "t2"], ["t1", "t3"]]


def test_bots_fill_the_table_only_after_the_players_own_limit() -> None:
    assert pair([ticket(0, 1000, waited=5, bot_after=10)], NOW) == []
    assert pair([ticket(0, 1000, waited=50)], NOW) == []  # null: never bots
    alone = pair([ticket(0, 1000, waited=10, bot_after=10)], NOW)
    assert len(alone) == 1 and alone[0].bots == ["random"]  # the dice bot nearest 1000 (random: 1214)
    # a table of three: the two due players sit together with one bot; the third is too far yet
    three = pair([ticket(0, 1000, 20, 3, 10), ticket(1, 1010, 15, 3, 10), ticket(2, 1300, 1, 3, 30)], NOW)
    assert [sorted(t.ticket for t in m.tickets) for m in three] == [["t0", "t1"]] and three[0].bots == ["random"]


def test_the_bot_is_the_fixed_rating_nearest_the_player() -> None:
    assert bot_for("dice", 1000) == "random" and bot_for("dice", 1600) == "greedy" and bot_for("dice", 2500) == "expert"
    assert bot_for("tower", 1000) == "greedy" and bot_for("tower", 400) == "random"
    assert all(fixed_bot(g, bot_for(g, r), None) for g in ("dice", "tower") for r in (0, 1000, 3000))


def test_only_the_same_game_preset_and_player_count_pair() -> None:
    assert pair([ticket(0, 1000), ticket(1, 1000, game="tower")], NOW) == []
    assert pair([ticket(0, 1000), ticket(1, 1000, preset="long")], NOW) == []
    assert pair([ticket(0, 1000), ticket(1, 1000, players=3)], NOW) == []


TICKETS = st.lists(
    st.tuples(
        st.integers(500, 2000), st.floats(0, 120), st.sampled_from([2, 3, 4]), st.sampled_from([None, 0.0, 30.0]),
        st.sampled_from(["standard", "long"]),
    ),
    max_size=30,
)


@settings(max_examples=200, deadline=None)
@given(TICKETS)
def test_no_ticket_is_in_two_tables_and_every_table_accepts_itself(specs: list[Any]) -> None:
    tickets = [ticket(i, r, w, n, b, preset=p) for i, (r, w, n, b, p) in enumerate(specs)]
    made = pair(tickets, NOW)
    seen = [t.ticket for m in made for t in m.tickets]
    assert len(seen) == len(set(seen))
    for m in made:
        first = m.tickets[0]
        assert len(m.tickets) + len(m.bots) == first.players
        assert all((t.game, t.preset, t.players) == (first.game, first.preset, first.players) for t in m.tickets)
        assert all(a.accepts(b, NOW) for a in m.tickets for b in m.tickets)
        if m.bots:
            assert all(t.bots_due(NOW) for t in m.tickets)
            assert all(fixed_bot(first.game, b, None) for b in m.bots)
    # nobody left over could have made a full table with what is left (the pass is greedy, but
    # two leftover tickets that accept each other in a table of two are always paired)
    left = [t for t in tickets if t.ticket not in seen and t.players == 2]
    for a in left:
        for b in left:
            if a is not b and (a.preset == b.preset) and a.accepts(b, NOW) and b.accepts(a, NOW):
                raise AssertionError(f"{a} and {b} accept each other and were left waiting")


# ---------------------------------------------------------------------- the API on a live server


@pytest.fixture
def server(tmp_path: Path) -> Iterator[LiveServer]:
    with live_server(tmp_path / "queue.sqlite3") as s:
        yield s


def post(client: httpx.Client, **wish: Any) -> httpx.Response:
    return client.post("/api/queue", json={"game": "dice", "preset": "standard", "players": 2, "bot_after": None, **wish})


def matched(client: httpx.Client) -> dict[str, Any]:
    found: dict[str, Any] = {}

    def check() -> bool:
        r = client.get("/api/queue")
        assert r.status_code == 200, r.text
        found.update(r.json())
        return bool(found["status"] == "matched")

    wait_until(check, 20, "the ticket to be matched")
    return found


def test_two_players_are_paired_into_a_rated_room_where_their_sessions_hold_the_seats(server: LiveServer, tmp_path: Path) -> None:
    ann, bob = logged_in(server.url, "Ann"), logged_in(server.url, "Bob")
    try:
        first = post(ann)
        assert first.status_code == 201, first.text
        t = first.json()
        assert t["status"] == "waiting" and t["room"] is None and t["seat"] is None and t["rating"] == 1000
        low, high = t["window"]
        assert high - 1000 == 1000 - low and abs((high - 1000) - (50 + 10 * t["waited"])) <= 1  # 50, and 10 a second waited
        assert set(t) == {"ticket", "game", "preset", "players", "bot_after", "status", "created", "waited", "window", "rating", "room", "seat"}
        again = post(ann).json()  # the same wish again: the same ticket
        assert again["ticket"] == t["ticket"]
        assert post(bob).status_code == 201
        a, b = matched(ann), matched(bob)
        assert a["room"] == b["room"] and {a["seat"], b["seat"]} == {0, 1}
        room = a["room"]
        state = ann.get(f"/api/rooms/{room}").json()
        assert state["you"] == a["seat"]
        assert state["room"]["rated"] is True and state["room"]["status"] == "playing"
        assert state["room"]["preset"] == "standard" and state["room"]["timer"]
        names = {s["seat"]: s["name"] for s in state["room"]["seats"]}
        assert names == {a["seat"]: "Ann", b["seat"]: "Bob"}
        assert bob.get(f"/api/rooms/{room}").json()["you"] == b["seat"]
        with contextlib.closing(sqlite3.connect(tmp_path / "queue.sqlite3")) as conn:
            rows = conn.execute("SELECT seat, kind, account_id FROM seats WHERE room_id = ? ORDER BY seat", (room,)).fetchall()
        ids = {a["seat"]: ann.account["id"], b["seat"]: bob.account["id"]}  # type: ignore[attr-defined]
        assert rows == [(i, "human", ids[i]) for i in (0, 1)]
        # a matched ticket is not cancelled, and while the game goes on a new one is refused
        gone = ann.delete("/api/queue")
        assert gone.status_code == 409 and gone.json()["error"] == "already_matched"
        busy = post(ann, preset="long")
        assert busy.status_code == 409 and busy.json()["error"] == "already_matched" and room in busy.json()["message"]
    finally:
        ann.close()
        bob.close()


def test_a_lone_player_gets_a_bot_at_full_strength_after_their_own_limit(server: LiveServer) -> None:
    ann = logged_in(server.url)
    try:
        t = post(ann, bot_after=0).json()
        m = matched(ann) if t["status"] != "matched" else t
        state = ann.get(f"/api/rooms/{m['room']}").json()
        seats = state["room"]["seats"]
        bots = [s for s in seats if s["bot"]]
        assert len(bots) == 1 and bots[0]["kind"] == "random" and bots[0]["strength"] is None
        assert state["room"]["rated"] is True and state["room"]["status"] == "playing" and state["you"] == m["seat"]
    finally:
        ann.close()


def test_a_tower_table_of_three_and_an_unrated_preset(server: LiveServer) -> None:
    people = [logged_in(server.url) for _ in range(3)]
    try:
        for p in people:
            assert post(p, game="tower", preset="advanced", players=3).status_code == 201
        tickets = [matched(p) for p in people]
        assert len({t["room"] for t in tickets}) == 1 and sorted(t["seat"] for t in tickets) == [0, 1, 2]
        room = people[0].get(f"/api/rooms/{tickets[0]['room']}").json()["room"]
        assert room["game"] == "tower" and room["preset"] == "advanced" and room["rated"] is False
    finally:
        for p in people:
            p.close()


def test_a_new_wish_replaces_the_ticket_and_leaving_ends_it(server: LiveServer) -> None:
    ann = logged_in(server.url)
    try:
        first = post(ann).json()
        other = post(ann, game="tower", players=3).json()
        assert other["ticket"] != first["ticket"] and other["game"] == "tower"
        assert ann.get("/api/queue").json()["ticket"] == other["ticket"]
        assert ann.delete("/api/queue").status_code == 204
        none = ann.get("/api/queue")
        assert none.status_code == 404 and none.json()["error"] == "not_queued"
        assert ann.delete("/api/queue").status_code == 404
    finally:
        ann.close()


@pytest.mark.parametrize(("wish", "field"), [
    ({"preset": "nonsense"}, "preset"),
    ({"players": 3, "game": "dice", "preset": "standard", "bot_after": 5000.0}, "bot_after"),
    ({"players": 5}, "players"),
])
def test_a_wish_the_queue_cannot_take_is_refused_naming_the_field(server: LiveServer, wish: dict[str, Any], field: str) -> None:
    ann = logged_in(server.url)
    try:
        r = post(ann, **wish)
        assert r.status_code == 422 and r.json()["error"] in ("bad_queue", "bad_request") and field in r.json()["message"]
    finally:
        ann.close()


# ---------------------------------------------------------------------- attacks


def test_the_queue_needs_a_session(server: LiveServer) -> None:
    for method in ("GET", "POST", "DELETE"):
        r = httpx.request(method, server.url + "/api/queue", json={"game": "dice"} if method == "POST" else None, timeout=10)
        assert r.status_code == 401 and r.json()["error"] == "login_required", (method, r.text)


def test_one_account_cannot_read_or_cancel_anothers_ticket(server: LiveServer) -> None:
    ann, mallory = logged_in(server.url), logged_in(server.url)
    try:
        mine = post(ann, preset="long").json()
        assert mallory.get("/api/queue").status_code == 404
        assert mallory.delete("/api/queue").status_code == 404
        assert ann.get("/api/queue").json()["ticket"] == mine["ticket"]
        # the ticket id is no key: there is no route that takes one
        assert mallory.request("DELETE", "/api/queue", params={"ticket": mine["ticket"]}).status_code == 404
        assert ann.get("/api/queue").json()["status"] == "waiting"
    finally:
        ann.close()
        mallory.close()


def test_posting_and_leaving_are_rate_limited_per_account(server: LiveServer) -> None:
    ann = logged_in(server.url)
    try:
        answers = [post(ann, preset="long" if i % 2 else "standard").status_code for i in range(int(server.limits.queue_burst) + 3)]
        assert answers[0] == 201 and 429 in answers
        limited = post(ann)
        assert limited.status_code == 429 and limited.json()["error"] == "rate_limited" and int(limited.headers["Retry-After"]) >= 1
    finally:
        ann.close()


def test_a_post_from_another_sites_page_is_refused(server: LiveServer) -> None:
    ann = logged_in(server.url)
    try:
        r = ann.post("/api/queue", json={"game": "dice"}, headers={"Origin": "https://evil.example"})
        assert r.status_code == 403 and r.json()["error"] == "bad_origin"
        assert ann.get("/api/queue").status_code == 404
    finally:
        ann.close()


def test_a_ticket_whose_page_went_away_leaves_the_queue(server: LiveServer, monkeypatch: pytest.MonkeyPatch) -> None:
    """A waiting ticket nobody asks for is not matched (a game for nobody would be lost to the
    timer) and is swept."""
    ann, bob = logged_in(server.url), logged_in(server.url)
    try:
        assert post(ann, preset="long").status_code == 201
        monkeypatch.setattr(pn, "STALE", 0.0)
        monkeypatch.setattr(pn, "SWEEP_EVERY", 1)
        assert post(bob, preset="long").json()["status"] == "waiting"  # Ann's ticket is stale: no match
        wait_until(lambda: ann.get("/api/queue").status_code == 404, 20, "the stale ticket to be swept")
    finally:
        ann.close()
        bob.close()


# ---------------------------------------------------------------------- two instances racing


def test_two_instances_racing_for_the_same_tickets_make_each_table_once(db_url: str) -> None:
    """On SQLite and on PostgreSQL: two lobbies on one database (as two instances have), each
    matching the same waiting tickets three times at once. Each table is made once, by the
    transaction that took all its tickets; the others store nothing (no room, no seat)."""
    asyncio.run(race(db_url))


async def race(db_url: str) -> None:
    lobbies = [Lobby(Storage(db_url), limits=Limits.unlimited_clients()) for _ in range(2)]
    for lobby in lobbies:
        await lobby.open()
    queues = [PlayNow(lobby, lobby.limits) for lobby in lobbies]
    try:
        now = time.time()
        ratings = [1000, 1010, 1400, 1420, 800, 790, 1200, 1190]

        async def put(conn: Any) -> None:
            for i, rating in enumerate(ratings):
                await conn.execute(insert(pn.queue_tickets).values(
                    ticket=f"t{i}", account_id=f"acc{i}", username=f"P{i}", game="dice", preset="standard", players=2,
                    bot_after=None, rating=rating, created=now - i, status="waiting", seen=now,
                ))

        await lobbies[0].storage.transact(put)
        made = await asyncio.gather(*(q.match_all() for _ in range(3) for q in queues))
        assert sum(made) == 4
        async with lobbies[0].storage.engine.connect() as conn:
            tickets = (await conn.execute(select(pn.queue_tickets))).all()
            seated = (await conn.execute(select(seats.c.room_id, seats.c.seat, seats.c.account_id))).all()
            room_count = (await conn.execute(select(func.count()).select_from(rooms))).scalar()
        assert room_count == 4 and all(t.status == "matched" for t in tickets)
        assert sorted(s.account_id for s in seated) == sorted(f"acc{i}" for i in range(8))  # each account seated once
        assert {(t.room_id, t.seat, t.account_id) for t in tickets} == {(s.room_id, s.seat, s.account_id) for s in seated}
        pairs = sorted(sorted(int(t.account_id[3:]) for t in tickets if t.room_id == room) for room in {t.room_id for t in tickets})
        assert pairs == [[0, 1], [2, 3], [4, 5], [6, 7]]  # nearest ratings together
    finally:
        for lobby in lobbies:
            await lobby.close()
