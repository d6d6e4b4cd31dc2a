"""Changing a password and deleting an account (issue 25 item 1): a password change ends every
other session, a deleted account's session is refused and its games stay under a neutral name,
and both ask for the password again."""

from __future__ import annotations

import contextlib
import sqlite3
from pathlib import Path

import httpx

from account_helpers import PASSWORD, logged_in
from server_helpers import create_room, live_server

NEW = "a different horse battery"


def test_a_new_password_ends_the_other_sessions_and_the_old_password(tmp_path: Path) -> None:
    with live_server(tmp_path / "password.sqlite3") as server:
        here = logged_in(server.url, "Ann")
        try:
            there = httpx.Client(base_url=server.url, timeout=10)
            assert there.post("/api/auth/login", json={"username": "Ann", "password": PASSWORD}).status_code == 204
            wrong = here.post("/api/me/password", json={"current": "not my password", "new": NEW})
            assert wrong.status_code == 401 and wrong.json()["error"] == "bad_login"
            short = here.post("/api/me/password", json={"current": PASSWORD, "new": "short"})
            assert short.status_code == 422 and short.json()["error"] == "bad_password"
            assert here.post("/api/me/password", json={"current": PASSWORD, "new": NEW}).status_code == 204
            assert here.get("/api/me").status_code == 200  # this session stays
            assert there.get("/api/me").status_code == 401  # the other one ended
            old = httpx.post(server.url + "/api/auth/login", json={"username": "Ann", "password": PASSWORD}, timeout=10)
            assert old.status_code == 401
            assert httpx.post(server.url + "/api/auth/login", json={"username": "Ann", "password": NEW}, timeout=10).status_code == 204
            there.close()
        finally:
            here.close()


def test_a_deleted_accounts_session_is_refused_and_its_games_stay_under_a_neutral_name(tmp_path: Path) -> None:
    db = tmp_path / "delete.sqlite3"
    with live_server(db) as server:
        ann = logged_in(server.url, "Ann")
        try:
            cookie = {"tabletris_session": ann.cookies["tabletris_session"]}
            room = create_room(server.url, {"game": "dice", "seats": [{"kind": "open"}, {"kind": "random"}]})["id"]
            assert ann.post(f"/api/rooms/{room}/join", json={"name": "x"}).status_code == 200
            refused = ann.request("DELETE", "/api/me", json={"password": "not my password"})
            assert refused.status_code == 401
            assert ann.request("DELETE", "/api/me", json={"password": PASSWORD}).status_code == 204
            again = httpx.get(server.url + "/api/me", cookies=cookie, timeout=10)
            assert again.status_code == 401 and again.json()["error"] == "login_required"
            assert httpx.get(server.url + "/api/players/Ann", timeout=10).status_code == 404
            gone = httpx.post(server.url + "/api/auth/login", json={"username": "Ann", "password": PASSWORD}, timeout=10)
            assert gone.status_code == 401
            with contextlib.closing(sqlite3.connect(db)) as conn:
                assert conn.execute("SELECT name, account_id FROM seats WHERE room_id = ? AND seat = 0", (room,)).fetchall() == [
                    ("(deleted player)", None)]
                assert conn.execute("SELECT count(*) FROM users").fetchone() == (0,)
                assert conn.execute("SELECT count(*) FROM sessions").fetchone() == (0,)
            assert server.app.state.lobby.rooms[room].seats[0].name == "(deleted player)"
            # the name is free again: a new player may take it
            assert httpx.post(server.url + "/api/auth/register", json={"username": "Ann", "password": PASSWORD}, timeout=10).status_code == 201
        finally:
            ann.close()
