"""Accounts at the table (issue 25 items 1, 2 and 4): the session seats its account over the
websocket, Play now to a finished rated game with ratings moved, rated rooms only for accounts,
rooms counted against the account that creates them. Real server, real websocket clients."""

from __future__ import annotations

import asyncio
import random
from pathlib import Path
from typing import Any

import httpx
import pytest
import websockets

from account_helpers import logged_in
from server_helpers import Client, create_room, dice_moves, join, live_server
from tabletris.server.limits import Limits
from tabletris.server.seats import hash_token, rematch_token
from web_helpers import wait_until


def cookie_header(client: httpx.Client) -> dict[str, str]:
    return {"Cookie": f"tabletris_session={client.cookies['tabletris_session']}"}


async def session_client(ws_base: str, room: str, client: httpx.Client, **options: Any) -> Client:
    """A websocket whose hello has no token: the session cookie goes with the handshake."""
    return await Client.connect(ws_base, room, additional_headers=cookie_header(client), **options)


async def play_out(c: Client, seed: int) -> dict[str, Any]:
    """Play the seat's legal moves at random until the game is over; the last state."""
    rng = random.Random(seed)
    while True:
        state = await c.state_where(lambda m: bool(m["game"] and (m["game"]["over"] or (m["private"] and m["private"].get("options")))), 60)
        if state["game"]["over"]:
            return state
        reply = await c.request({"type": "move", **rng.choice(dice_moves(state))})
        assert reply["type"] == "ack" or reply.get("error") == "stale_move", reply
        await c.state_where(lambda m, s=state["seq"]: m["seq"] > s, 60)


@pytest.mark.asyncio
async def test_play_now_to_a_rated_game_played_by_session_and_the_ratings_move(tmp_path: Path) -> None:
    """The flow of "Done means", through the API: two accounts press Play now, are paired,
    their pages open the room's websocket with the session alone, play the rated game to its
    end, and see their ratings move on their profiles and in the ranking."""
    with live_server(tmp_path / "flow.sqlite3") as server:
        ann, bob = logged_in(server.url, "Ann"), logged_in(server.url, "Bob")
        try:
            for p in (ann, bob):
                assert p.post("/api/queue", json={"game": "dice", "players": 2}).status_code == 201
            tickets: dict[str, dict[str, Any]] = {}

            def both_matched() -> bool:
                for name, p in (("ann", ann), ("bob", bob)):
                    tickets[name] = p.get("/api/queue").json()
                return all(t["status"] == "matched" for t in tickets.values())

            wait_until(both_matched, 20, "both tickets to be matched")
            room = tickets["ann"]["room"]
            assert tickets["bob"]["room"] == room
            clients = [await session_client(server.ws, room, p) for p in (ann, bob)]
            first = [await c.state_where(lambda m: m.get("game") is not None) for c in clients]
            assert [s["you"] for s in first] == [tickets["ann"]["seat"], tickets["bob"]["seat"]]
            assert first[0]["room"]["rated"] is True
            finals = await asyncio.wait_for(asyncio.gather(play_out(clients[0], 1), play_out(clients[1], 2)), 300)
            assert finals[0]["game"]["over"]

            def rated() -> bool:
                return all(httpx.get(f"{server.url}/api/players/{n}", timeout=10).json()["games"].get("dice", {}).get("rating") is not None
                           for n in ("Ann", "Bob"))

            wait_until(rated, 20, "both players to be rated")
            profiles = {n: httpx.get(f"{server.url}/api/players/{n}", timeout=10).json() for n in ("Ann", "Bob")}
            assert all(p["games"]["dice"]["played"] == 1 for p in profiles.values())
            assert all(p["recent"][0]["room"] == room and p["recent"][0]["rated"] for p in profiles.values())
            assert {profiles[n]["games"]["dice"]["rating"] for n in profiles} != {1000}
            ranking = httpx.get(f"{server.url}/api/ratings/dice", timeout=10).json()
            assert sorted(p["username"] for p in ranking["players"]) == ["Ann", "Bob"]

            # The rematch asked for by the session alone: the same seat in the new room, with a
            # token of its own (not one derived from an empty token, which anybody could compute).
            reply = await clients[0].request({"type": "rematch"})
            assert reply["type"] == "rematch", reply
            assert reply["seat"] == tickets["ann"]["seat"] and reply["token"] != rematch_token("", reply["room"])
            again = ann.get(f"/api/rooms/{reply['room']}", headers={"X-Seat-Token": reply["token"]}).json()
            assert again["you"] == reply["seat"]
            stored = server.app.state.lobby.rooms[reply["room"]].seats[reply["seat"]]
            assert stored.account_id == ann.account["id"] and stored.token_hash == hash_token(reply["token"])  # type: ignore[attr-defined]
            # Bob's seat there is kept for Bob's account (his Play now seat had no token to keep it by)
            bobs_seat = tickets["bob"]["seat"]
            kept = httpx.get(f"{server.url}/api/rooms/{reply['room']}", timeout=10).json()["room"]["seats"][bobs_seat]
            assert kept["kind"] == "reserved" and kept["name"] == "Bob"
            # (the rematch is rated too: a guest is asked to log in, an account finds it full)
            guest = httpx.post(f"{server.url}/api/rooms/{reply['room']}/join", json={"name": "Eve"}, timeout=10)
            assert guest.status_code == 401 and guest.json()["error"] == "login_required", guest.text
            eve = logged_in(server.url, "Eve")
            try:
                stranger = eve.post(f"/api/rooms/{reply['room']}/join", json={"name": "Eve"})
            finally:
                eve.close()
            assert stranger.status_code == 409 and stranger.json()["error"] == "room_full", stranger.text
            bobs = bob.post(f"/api/rooms/{room}/rematch")
            assert bobs.status_code == 200 and bobs.json()["room"] == reply["room"] and bobs.json()["seat"] == bobs_seat, bobs.text
            for c in clients:
                await c.close()
        finally:
            ann.close()
            bob.close()


@pytest.mark.asyncio
async def test_the_hello_by_session_seats_only_the_accounts_own_seat(tmp_path: Path) -> None:
    with live_server(tmp_path / "hello.sqlite3") as server:
        ann, mallory = logged_in(server.url, "Ann"), logged_in(server.url, "Mallory")
        try:
            room = create_room(server.url, {"game": "dice", "seats": [{"kind": "open"}, {"kind": "open"}]})["id"]
            seat = ann.post(f"/api/rooms/{room}/join", json={"name": "x"}).json()["seat"]
            guest = join(server.url, room, "Guest")
            mine = await session_client(server.ws, room, ann)
            state = await mine.state_where(lambda m: m.get("game") is not None and m["game"]["to_move"] == seat)
            assert state["you"] == seat and state["private"]["options"]  # the seat's own view, its moves
            reply = await mine.request({"type": "move", **dice_moves(state)[0]})
            assert reply["type"] == "ack", reply
            # an account without a seat here watches; a guest's token still opens the guest's seat
            other = await session_client(server.ws, room, mallory)
            assert (await other.state_where(lambda m: True))["you"] is None
            guest_ws = await Client.connect(server.ws, room, guest["token"], additional_headers=cookie_header(mallory))
            assert (await guest_ws.state_where(lambda m: True))["you"] == guest["seat"]
            # another site's page never gets the session's seat: its websocket is refused
            with pytest.raises(websockets.exceptions.InvalidStatus):
                await session_client(server.ws, room, ann, origin="https://evil.example")
            for c in (mine, other, guest_ws):
                await c.close()
        finally:
            ann.close()
            mallory.close()


def test_a_guest_cannot_take_a_seat_in_a_rated_room(tmp_path: Path) -> None:
    """A rated game is played by accounts only: a guest's join is refused (it was accepted,
    and the game was then recorded as unrated)."""
    with live_server(tmp_path / "rated.sqlite3") as server:
        room = create_room(server.url, {"game": "dice", "rated": True, "timer": 60.0,
                                        "seats": [{"kind": "open"}, {"kind": "open"}]})["id"]
        guest = httpx.post(f"{server.url}/api/rooms/{room}/join", json={"name": "Guest"}, timeout=10)
        assert guest.status_code == 401 and guest.json()["error"] == "login_required"
        assert "rated" in guest.json()["message"]
        ann = logged_in(server.url)
        try:
            assert ann.post(f"/api/rooms/{room}/join", json={"name": "x"}).status_code == 200
        finally:
            ann.close()
        seats = httpx.get(f"{server.url}/api/rooms/{room}", timeout=10).json()["room"]["seats"]
        assert [s["kind"] for s in seats] == ["human", "open"]


def test_rooms_created_with_a_session_count_against_the_account(tmp_path: Path) -> None:
    """A logged-in creator's waiting rooms are counted per account as well as per address, so
    moving between addresses does not lift the limit; guests are counted by address as before."""
    limits = Limits.unlimited_clients(open_rooms=2, timer_min=0.5)
    with live_server(tmp_path / "creator.sqlite3", limits=limits) as server:
        ann = logged_in(server.url)
        try:
            body = {"game": "dice", "seats": [{"kind": "open"}, {"kind": "open"}]}
            for i in (1, 2):
                assert ann.post("/api/rooms", json=body, headers={"X-Forwarded-For": f"10.0.0.{i}"}).status_code == 201
            third = ann.post("/api/rooms", json=body, headers={"X-Forwarded-For": "10.0.0.3"})
            assert third.status_code == 429 and third.json()["error"] == "too_many_rooms"
            guest = httpx.post(server.url + "/api/rooms", json=body, headers={"X-Forwarded-For": "10.0.0.3"}, timeout=10)
            assert guest.status_code == 201
        finally:
            ann.close()
