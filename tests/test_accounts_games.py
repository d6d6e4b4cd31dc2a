"""An account's games (issue 25 item 1): the export of every ended game as records, a guest
who registers keeping the seats of that browser, and a deleted player's name gone from the
records and the live rooms. Real server on 127.0.0.1, real websocket clients."""

from __future__ import annotations

import asyncio
import contextlib
import json
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from account_helpers import PASSWORD, logged_in
from server_helpers import Client, LiveServer, create_room, join, live_server
from tabletris.engine.records import replay
from tabletris.server.accounts.core import DELETED_NAME
from tabletris.server.limits import Limits
from tabletris.server.seats import Seat, seat_facts
from web_helpers import wait_until

SMALL = {"width": 5, "height": 6}


@pytest.fixture
def server(tmp_path: Path) -> Iterator[LiveServer]:
    # ended rooms leave memory at once: the routes must read them back from the database
    limits = Limits.unlimited_clients(timer_min=0.5, finished_linger=0.5)
    with live_server(tmp_path / "games.sqlite3", limits=limits) as s:
        yield s


def status(server: LiveServer, room: str) -> str:
    return str(httpx.get(f"{server.url}/api/rooms/{room}", timeout=10).json()["room"]["status"])


def bot_game(server: LiveServer, client: httpx.Client | None, game: str = "dice", name: str = "Guest") -> tuple[str, dict[str, Any]]:
    """A room of a person (the client's account, or a guest) and a bot; the person resigns and
    the bots play it to the end. The room and the join's answer."""
    rules = SMALL if game == "dice" else {}
    room = create_room(server.url, {"game": game, "rules": rules, "seats": [{"kind": "open"}, {"kind": "random"}]})["id"]
    if client is None:
        joined = join(server.url, room, name)
    else:
        joined = client.post(f"/api/rooms/{room}/join", json={"name": name}).json()
    left = httpx.post(f"{server.url}/api/rooms/{room}/leave", headers={"X-Seat-Token": joined["token"]}, timeout=10)
    assert left.json()["done"] == "resigned", left.text
    wait_until(lambda: status(server, room) == "over", 60, "the bots to end the game")
    return room, joined


def record_of(server: LiveServer, room: str) -> dict[str, Any]:
    r = httpx.get(f"{server.url}/api/rooms/{room}/record", timeout=10)
    assert r.status_code == 200, r.text
    return dict(r.json())


# ---------------------------------------------------------------------- export


def test_the_export_holds_every_ended_game_and_each_record_replays(server: LiveServer) -> None:
    ann = logged_in(server.url, "Ann")
    try:
        dice, _ = bot_game(server, ann)
        tower, _ = bot_game(server, ann, "tower")
        bot_game(server, None)  # a guest's game: not Ann's
        waiting = create_room(server.url, {"game": "dice", "seats": [{"kind": "open"}, {"kind": "open"}]})["id"]
        assert ann.post(f"/api/rooms/{waiting}/join", json={"name": "x"}).status_code == 200  # not ended: not exported
        r = ann.get("/api/me/records")
        assert r.status_code == 200 and "content-disposition" not in r.headers
        games = r.json()
        assert [g["room"] for g in games] == [dice, tower] and [g["game"] for g in games] == ["dice", "tower"]
        for g in games:
            assert g["status"] == "over" and g["seat"] == 0 and g["record"]["format"] == "tabletris/1"
            assert g["record"] == record_of(server, g["room"])  # the room's own record
            assert replay(g["record"]).over  # the engine replays it to its end
            check = httpx.post(server.url + "/api/replay", json=g["record"], timeout=30)
            assert check.status_code == 200, check.text
        download = ann.get("/api/me/records", params={"download": "true"})
        assert download.headers["content-disposition"] == 'attachment; filename="tabletris-games.json"'
        assert download.json() == games
        assert httpx.get(server.url + "/api/me/records", timeout=10).status_code == 401
    finally:
        ann.close()


# ---------------------------------------------------------------------- a guest who registers


def test_a_guest_who_registers_keeps_the_seats_of_that_browser(server: LiveServer, tmp_path: Path) -> None:
    """The tokens the browser kept (``tabletris:seat:{room}``) make their seats the account's:
    a live game's seat acts by the session, an ended game shows on the profile (unrated) and in
    the export; a seat that is another account's, or a token that opens none, is skipped."""
    live = create_room(server.url, {"game": "dice", "rules": SMALL, "seats": [{"kind": "open"}, {"kind": "open"}]})["id"]
    mine_live = join(server.url, live, "Guest")
    other_live = join(server.url, live, "Other")
    ended, mine_ended = bot_game(server, None)
    bob = logged_in(server.url, "Bob")
    bobs_room = create_room(server.url, {"game": "dice", "seats": [{"kind": "open"}, {"kind": "open"}]})["id"]
    bobs = bob.post(f"/api/rooms/{bobs_room}/join", json={"name": "x"}).json()
    ann = logged_in(server.url, "Ann")
    try:
        kept = [
            {"room": live, "token": mine_live["token"]},
            {"room": ended, "token": mine_ended["token"]},
            {"room": bobs_room, "token": bobs["token"]},  # somehow Bob's token: his seat stays his
            {"room": live, "token": "not-a-token"},
            {"room": "no-such-room", "token": "x"},
        ]
        r = ann.post("/api/me/seats", json={"seats": kept})
        assert r.status_code == 200, r.text
        answer = r.json()
        assert answer["claimed"] == [{"room": live, "seat": mine_live["seat"]}, {"room": ended, "seat": 0}]
        assert answer["skipped"] == [
            {"room": bobs_room, "why": "seat_taken"}, {"room": live, "why": "bad_token"}, {"room": "no-such-room", "why": "bad_token"},
        ]
        ann_id = ann.account["id"]  # type: ignore[attr-defined]
        with contextlib.closing(sqlite3.connect(tmp_path / "games.sqlite3")) as conn:
            owners = dict(conn.execute("SELECT room_id || ':' || seat, account_id FROM seats WHERE account_id IS NOT NULL").fetchall())
        assert owners == {f"{live}:{mine_live['seat']}": ann_id, f"{ended}:0": ann_id, f"{bobs_room}:{bobs['seat']}": bob.account["id"]}  # type: ignore[attr-defined]
        # the session now acts for the live seat, as the token did
        assert ann.get(f"/api/rooms/{live}").json()["you"] == mine_live["seat"]
        profile = httpx.get(server.url + "/api/players/Ann", timeout=10).json()
        assert [(g["room"], g["rated"]) for g in profile["recent"]] == [(ended, False)]
        assert profile["games"]["dice"]["played"] == 1 and profile["games"]["dice"]["rating"] is None
        assert [g["room"] for g in ann.get("/api/me/records").json()] == [ended]
        again = ann.post("/api/me/seats", json={"seats": kept[:2]}).json()  # asking twice changes nothing
        assert len(again["claimed"]) == 2 and httpx.get(server.url + "/api/players/Ann", timeout=10).json()["games"]["dice"]["played"] == 1
        # the live game, once over, is recorded for the account like any game of its seats
        for token in (mine_live["token"], other_live["token"]):
            httpx.post(f"{server.url}/api/rooms/{live}/leave", headers={"X-Seat-Token": token}, timeout=10)
        wait_until(lambda: httpx.get(server.url + "/api/players/Ann", timeout=10).json()["games"]["dice"]["played"] == 2, 60,
                   "the live game to be recorded for Ann")
        # another account cannot take the seats now: they are Ann's
        bob_tries = bob.post("/api/me/seats", json={"seats": kept[:2]}).json()
        assert bob_tries["claimed"] == [] and [s["why"] for s in bob_tries["skipped"]] == ["seat_taken", "seat_taken"]
        assert httpx.post(server.url + "/api/me/seats", json={"seats": kept}, timeout=10).status_code == 401
    finally:
        ann.close()
        bob.close()


# ---------------------------------------------------------------------- a deleted player's name


def test_seat_rows_on_the_bus_carry_the_account() -> None:
    seat = Seat(0, "human", "Ann", account_id="acc-1")
    assert seat.row()["account_id"] == "acc-1"
    assert seat_facts(seat.row()) != seat_facts(Seat(0, "human", "Ann").row())  # a copy that differs reads the room back


@pytest.mark.asyncio
async def test_a_deleted_players_name_leaves_the_records_and_the_live_rooms(server: LiveServer, tmp_path: Path) -> None:
    ann = logged_in(server.url, "Annabel")
    try:
        ended, _ = bot_game(server, ann, name="x")
        wait_until(lambda: ended not in server.app.state.lobby.rooms, 20, "the ended room to leave memory")
        assert record_of(server, ended)["players"][0] == "Annabel"
        live = create_room(server.url, {"game": "dice", "rules": SMALL, "seats": [{"kind": "open"}, {"kind": "open"}]})["id"]
        assert ann.post(f"/api/rooms/{live}/join", json={"name": "x"}).status_code == 200
        guest = join(server.url, live, "Guest")
        watcher = await Client.connect(server.ws, live, guest["token"])
        await watcher.state_where(lambda m: m["room"]["status"] == "playing")
        deleted = await asyncio.to_thread(lambda: ann.request("DELETE", "/api/me", json={"password": PASSWORD}))
        assert deleted.status_code == 204
        # the live room's people see the new name promptly, in the seats and the game's players
        renamed = await watcher.state_where(lambda m: m["room"]["seats"][0]["name"] == DELETED_NAME, timeout=10)
        assert "Annabel" not in json.dumps(renamed)
        # the records keep the neutral name, in the database and in every answer
        with contextlib.closing(sqlite3.connect(tmp_path / "games.sqlite3")) as conn:
            starts = [json.loads(s) for (s,) in conn.execute("SELECT start FROM rooms WHERE id IN (?, ?)", (ended, live))]
            names = conn.execute("SELECT name FROM seats WHERE name = 'Annabel'").fetchall()
        assert all(s["players"][0] == DELETED_NAME for s in starts) and names == []
        assert record_of(server, ended)["players"][0] == DELETED_NAME
        replayed = httpx.get(f"{server.url}/api/rooms/{ended}/replay", timeout=30).json()
        assert "Annabel" not in json.dumps(replayed)
        listed = httpx.get(server.url + "/api/rooms", params={"list": "recent"}, timeout=10).json()
        assert "Annabel" not in json.dumps(listed)
        await watcher.close()
    finally:
        ann.close()
