"""Accounts: register, log in (form and JSON), the session cookie, me, log out; seats.account_id."""

from __future__ import annotations

from pathlib import Path

import httpx
import sqlalchemy as sa
from tests.account_helpers import PASSWORD, logged_in, register
from tests.server_helpers import live_server


def test_register_login_me_logout(tmp_path: Path) -> None:
    with live_server(tmp_path / "db.sqlite3") as server:
        account = register(server.url, "alice")
        assert account["username"] == "alice" and len(account["id"]) == 36
        assert httpx.get(server.url + "/api/me").status_code == 401
        assert httpx.get(server.url + "/api/me").json()["error"] == "login_required"
        with httpx.Client(base_url=server.url) as c:
            r = c.post("/api/auth/login", json={"username": "alice", "password": PASSWORD})
            assert r.status_code == 204
            cookie = r.headers["set-cookie"].lower()
            assert "tabletris_session=" in cookie and "httponly" in cookie and "samesite=lax" in cookie
            me = c.get("/api/me").json()
            assert me["id"] == account["id"] and me["username"] == "alice" and me["created"] > 0
            assert c.post("/api/auth/logout").status_code == 204
            assert c.get("/api/me").status_code == 401


def test_login_as_a_form_and_wrong_passwords(tmp_path: Path) -> None:
    with live_server(tmp_path / "db.sqlite3") as server:
        register(server.url, "bob")
        r = httpx.post(server.url + "/api/auth/login", data={"username": "bob", "password": PASSWORD})
        assert r.status_code == 204 and "tabletris_session" in r.cookies
        wrong = httpx.post(server.url + "/api/auth/login", data={"username": "bob", "password": "not it at all"})
        unknown = httpx.post(server.url + "/api/auth/login", data={"username": "nobody", "password": "not it at all"})
        assert wrong.status_code == unknown.status_code == 401
        assert wrong.json() == unknown.json()
        assert "tabletris_session" not in wrong.cookies


def test_usernames_are_checked_like_seat_names(tmp_path: Path) -> None:
    with live_server(tmp_path / "db.sqlite3") as server:
        register(server.url, "carol")
        for twin in ("Carol", "car0l", "саrol"):  # case, digit, Cyrillic letters
            r = httpx.post(server.url + "/api/auth/register", json={"username": twin, "password": PASSWORD})
            assert r.status_code == 409 and r.json()["error"] == "username_taken", twin
        r = httpx.post(server.url + "/api/auth/register", json={"username": "d\u200bave", "password": PASSWORD})
        assert r.status_code == 422 and r.json()["error"] == "bad_name"
        r = httpx.post(server.url + "/api/auth/register", json={"username": "erin", "password": "short"})
        assert r.status_code == 422 and r.json()["error"] == "bad_password"


def test_the_helper_client_and_the_seat_column(tmp_path: Path) -> None:
    with live_server(tmp_path / "db.sqlite3") as server:
        c = logged_in(server.url, "frank")
        try:
            assert c.get("/api/me").json()["username"] == "frank"
        finally:
            c.close()
    engine = sa.create_engine(f"sqlite:///{tmp_path / 'db.sqlite3'}")
    with engine.connect() as conn:
        columns = {c["name"] for c in sa.inspect(conn).get_columns("seats")}
        version = conn.execute(sa.text("select version_num from alembic_version")).scalar()
    assert "account_id" in columns
    assert version >= "0006"


def test_a_logged_in_join_is_the_accounts_seat(tmp_path: Path) -> None:
    with live_server(tmp_path / "db.sqlite3") as server:
        room = httpx.post(server.url + "/api/rooms", json={"game": "dice", "seats": [{"kind": "open"}, {"kind": "open"}]}).json()
        alice = logged_in(server.url, "alice")
        mallory = logged_in(server.url, "mallory")
        try:
            joined = alice.post(f"/api/rooms/{room['id']}/join", json={"name": "ignored"}).json()
            state = httpx.get(server.url + f"/api/rooms/{room['id']}").json()
            assert state["room"]["seats"][joined["seat"]]["name"] == "alice"
            # joining again (another browser of the account) answers the same seat, a new token
            again = alice.post(f"/api/rooms/{room['id']}/join", json={"name": "x"}).json()
            assert again["seat"] == joined["seat"] and again["token"] != joined["token"]
            # the session shows the seat's view like its token
            assert alice.get(f"/api/rooms/{room['id']}").json().get("you") == joined["seat"]
            # another account, logged in, is a spectator of that seat: no "you"
            assert mallory.get(f"/api/rooms/{room['id']}").json().get("you") is None
        finally:
            alice.close()
            mallory.close()
    engine = sa.create_engine(f"sqlite:///{tmp_path / 'db.sqlite3'}")
    with engine.connect() as conn:
        owner = conn.execute(sa.text("select account_id from seats where room_id = :r and seat = :s"),
                             {"r": room["id"], "s": joined["seat"]}).scalar()
    assert owner == alice.account["id"]  # type: ignore[attr-defined]
