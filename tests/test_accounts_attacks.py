"""Attacks on the accounts (issue 25, "Bad input and attacks"): each test fails on a naive
version — one without a login limit, one that keeps the session id a browser arrived with, one
that trusts any Origin, one that lets a session act for any seat, one that logs what it reads."""

from __future__ import annotations

from pathlib import Path

import httpx

from account_helpers import PASSWORD, logged_in, register
from server_helpers import ServeProcess, create_room, live_server


def test_login_is_rate_limited_with_a_retry_after(tmp_path: Path) -> None:
    with live_server(tmp_path / "limit.sqlite3") as server:
        register(server.url, "Ann")
        answers = [
            httpx.post(server.url + "/api/auth/login", json={"username": "Ann", "password": "wrong password"}, timeout=10)
            for _ in range(12)
        ]
        codes = [a.status_code for a in answers]
        assert codes[0] == 401 and 429 in codes, codes
        limited = answers[codes.index(429)]
        assert limited.json()["error"] == "rate_limited"
        assert int(limited.headers["Retry-After"]) >= 1
        # the right password is refused too while the limit holds: guessing cannot go on
        right = httpx.post(server.url + "/api/auth/login", json={"username": "Ann", "password": PASSWORD}, timeout=10)
        assert right.status_code == 429


def test_a_session_id_set_before_login_is_not_the_one_after(tmp_path: Path) -> None:
    with live_server(tmp_path / "fixation.sqlite3") as server:
        register(server.url, "Ann")
        planted = "attacker-chosen-session-id"
        login = httpx.post(server.url + "/api/auth/login", json={"username": "Ann", "password": PASSWORD},
                           headers={"Cookie": f"tabletris_session={planted}"}, timeout=10)
        assert login.status_code == 204, login.text
        issued = login.cookies.get("tabletris_session")
        assert issued and issued != planted
        with httpx.Client(base_url=server.url, timeout=10, cookies={"tabletris_session": issued}) as browser:
            assert browser.get("/api/me").json()["username"] == "Ann"
        with httpx.Client(base_url=server.url, timeout=10, cookies={"tabletris_session": planted}) as attacker:
            assert attacker.get("/api/me").status_code == 401


def test_a_cookie_post_from_another_sites_page_is_refused(tmp_path: Path) -> None:
    with live_server(tmp_path / "csrf.sqlite3") as server:
        ann = logged_in(server.url, "Ann")
        try:
            room = create_room(server.url, {"game": "dice", "seats": [{"kind": "open"}, {"kind": "open"}]})["id"]
            forged = ann.post(f"/api/rooms/{room}/join", json={"name": "Ann"}, headers={"Origin": "https://evil.example"})
            assert forged.status_code == 403 and forged.json()["error"] == "bad_origin", forged.text
            cross = ann.post("/api/auth/logout", headers={"Sec-Fetch-Site": "cross-site"})
            assert cross.status_code == 403
            assert ann.get("/api/me").status_code == 200  # the forged logout did nothing
            own = ann.post(f"/api/rooms/{room}/join", json={"name": "Ann"}, headers={"Origin": server.url})
            assert own.status_code == 200, own.text
        finally:
            ann.close()


def test_one_account_cannot_act_for_anothers_seat(tmp_path: Path) -> None:
    with live_server(tmp_path / "seat.sqlite3") as server:
        ann, bob = logged_in(server.url, "Ann"), logged_in(server.url, "Bob")
        try:
            room = create_room(server.url, {"game": "dice", "seats": [{"kind": "open"}, {"kind": "open"}]})["id"]
            assert ann.post(f"/api/rooms/{room}/join", json={"name": "x", "seat": 0}).status_code == 200
            assert bob.post(f"/api/rooms/{room}/join", json={"name": "y", "seat": 1}).status_code == 200
            state = ann.get(f"/api/rooms/{room}").json()
            assert state["you"] == 0 and state["game"]["turn"] is not None
            move = {"seat": 0, "turn": state["game"]["turn"], "place": [[0, 0], [1, 0], [2, 0], [3, 0]]}
            refused = bob.post(f"/api/rooms/{room}/moves", json=move)
            assert refused.status_code in (403, 409), refused.text
            assert ann.get(f"/api/rooms/{room}").json()["seq"] == state["seq"]  # nothing applied
            assert bob.get(f"/api/rooms/{room}").json()["you"] == 1
        finally:
            ann.close()
            bob.close()


def test_no_password_hash_or_session_id_reaches_the_log(tmp_path: Path) -> None:
    """A real ``tabletris serve`` at INFO (its access lines on): everything it writes to stderr."""
    server = ServeProcess(tmp_path / "logs.sqlite3", extra=["--log-level", "info"]).start()
    try:
        ann = logged_in(server.url, "Ann")
        session = ann.cookies.get("tabletris_session")
        assert session
        assert ann.get("/api/me").status_code == 200
        ann.close()
        httpx.post(server.url + "/api/auth/login", data={"username": "Ann", "password": "a wrong secret"}, timeout=10)
    finally:
        server.stop()
    assert server.proc is not None and server.proc.stderr is not None
    text = server.proc.stderr.read().decode()
    assert "/api/auth/login" in text  # the access lines were written, and read here
    for secret in (PASSWORD, "a wrong secret", session, "argon2"):
        assert secret not in text
