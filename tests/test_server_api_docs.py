"""The API and protocol against their own documents (issue 27 item 9, issue 28 item 4): each
refusal the server gives is the one docs/api.md and the OpenAPI document describe, against a
real uvicorn on 127.0.0.1 with httpx and websocket clients.

Every test here failed on the server before the change: a body that is not UTF-8 got an
undocumented 400, ``{`` got ``bad_request``, ``OPTIONS /api/rooms`` said ``Allow: GET``, the
OpenAPI document gave other bounds than the server's, a 429 had no ``Retry-After``, a websocket
flood was dropped without a close frame, a frame over 64 KiB was closed with a bare 1009, a
``state`` reply carried no id, the worker processes started on the first replay, stopping the
server leaked five semaphores, and a new room's ``created`` was not the stored one.
"""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import websockets

from server_helpers import ROOT, Client, LiveServer, create_room, free_port, live_server
from tabletris.server.limits import Limits

SMALL = {"width": 5, "height": 5}


def wait_for(check: Any, timeout: float = 30.0, step: float = 0.05) -> Any:
    """Poll ``check()`` until it returns something true, or the deadline passes."""
    end = time.monotonic() + timeout
    while True:
        value = check()
        if value or time.monotonic() > end:
            return value
        time.sleep(step)


@pytest.fixture
def server(tmp_path: Path) -> Iterator[LiveServer]:
    with live_server(tmp_path / "docs.sqlite3") as s:
        yield s


def post(server: LiveServer, path: str, content: bytes) -> httpx.Response:
    return httpx.post(server.url + path, content=content, headers={"content-type": "application/json"}, timeout=10)


# ---------------------------------------------------------------------- HTTP


def test_a_body_that_is_not_json_text_is_bad_json_as_documented(server: LiveServer) -> None:
    for path in ("/api/rooms", "/api/replay", "/api/rooms/abc/join"):
        for body, words in (
            (b'{"game": "\xff"}', "not UTF-8"),
            (b"\xff\xfe\x00", "not UTF-8"),
            (b"{", "not JSON"),
            (b'{"seats": [', "not JSON"),
            (b"[" * 5000, "nested too deeply"),
        ):
            r = post(server, path, body)
            assert r.status_code == 422, (path, body[:20], r.status_code, r.text)
            assert set(r.json()) == {"error", "message"} and r.json()["error"] == "bad_json", (path, body[:20], r.text)
            assert words in r.json()["message"], (path, body[:20], r.text)
    # A well-formed body with the wrong fields is still bad_request, naming the field.
    r = post(server, "/api/rooms", b'{"seats": "many"}')
    assert r.status_code == 422 and r.json()["error"] == "bad_request" and "seats" in r.json()["message"]


def test_405_names_every_method_the_path_answers(server: LiveServer) -> None:
    for method, path, allowed in (
        ("OPTIONS", "/api/rooms", {"GET", "POST"}),
        ("DELETE", "/api/rooms", {"GET", "POST"}),
        ("PUT", "/api/rooms/abc", {"GET"}),
        ("GET", "/api/rooms/abc/join", {"POST"}),
        ("DELETE", "/api/replay", {"POST"}),
    ):
        r = httpx.request(method, server.url + path, timeout=10)
        assert r.status_code == 405 and r.json()["error"] == "method_not_allowed", (method, path, r.text)
        assert {m.strip() for m in r.headers["allow"].split(",")} == allowed, (method, path, r.headers["allow"])
        for listed in allowed - {"GET"}:  # each method named is one the path takes
            assert httpx.request(listed, server.url + path, json={}, timeout=10).status_code != 405


def test_openapi_bounds_are_the_servers_own(tmp_path: Path) -> None:
    """timer, name and strength: the document's bounds are exactly where the server starts
    refusing (a server with other limits documents its own)."""
    for limits in (Limits.unlimited_clients(), Limits.unlimited_clients(timer_min=2.0, timer_max=30.0, name_chars=8)):
        with live_server(tmp_path / f"bounds{limits.name_chars}.sqlite3", limits=limits) as server:
            doc = httpx.get(server.url + "/openapi.json", timeout=10).json()
            models = doc["components"]["schemas"]
            timer = [s for s in models["CreateRoomIn"]["properties"]["timer"]["anyOf"] if "minimum" in s]
            assert timer == [{"type": "number", "minimum": limits.timer_min, "maximum": limits.timer_max}]
            assert models["JoinIn"]["properties"]["name"]["maxLength"] == limits.name_chars
            bot_name = models["SeatIn"]["properties"]["name"]["anyOf"][0]
            assert bot_name["maxLength"] == limits.name_chars
            strength = models["SeatIn"]["properties"]["strength"]["anyOf"][0]
            assert (strength["minimum"], strength["maximum"]) == (0, 1)

            def room(**body: Any) -> httpx.Response:
                payload = {"game": "dice", "rules": SMALL, "seats": [{"kind": "open"}, {"kind": "random"}], **body}
                return httpx.post(server.url + "/api/rooms", json=payload, timeout=10)

            for timer_value, ok in ((limits.timer_min, True), (limits.timer_max, True), (0, True),
                                    (limits.timer_min - 0.5, False), (limits.timer_max + 1, False), (-1, False)):
                r = room(timer=timer_value)
                assert (r.status_code == 201) == ok, (timer_value, r.text)
                if not ok:
                    assert r.json()["error"] == "bad_timer", r.text
            for strength_value, ok in ((0, True), (1, True), (0.5, True), (1.5, False), (50, False), (-0.1, False)):
                r = room(seats=[{"kind": "open"}, {"kind": "random", "strength": strength_value}])
                assert (r.status_code == 201) == ok, (strength_value, r.text)
                if ok:
                    assert r.json()["seats"][1]["strength"] == strength_value
            created = room(seats=[{"kind": "open"}, {"kind": "open"}]).json()
            longest = "N" * limits.name_chars
            assert httpx.post(f"{server.url}/api/rooms/{created['id']}/join", json={"name": longest}, timeout=10).status_code == 200
            for name in (longest + "x", " " + "M" * limits.name_chars, "M" * (limits.name_chars - 1) + "  "):
                r = httpx.post(f"{server.url}/api/rooms/{created['id']}/join", json={"name": name}, timeout=10)
                assert r.status_code == 422 and r.json()["error"] == "bad_name", (name, r.text)
            bot = room(seats=[{"kind": "open"}, {"kind": "random", "name": "B" * (limits.name_chars + 1)}])
            assert bot.status_code == 422 and bot.json()["error"] == "bad_name"


def test_429_carries_retry_after_and_every_operation_documents_it(tmp_path: Path) -> None:
    with live_server(tmp_path / "rate.sqlite3", limits=Limits(http_rate=2, http_burst=3, rooms_per_minute=2)) as server:
        doc = httpx.get(server.url + "/openapi.json", timeout=10).json()
        for path, operations in doc["paths"].items():
            for method, operation in operations.items():
                answer = operation["responses"].get("429")
                assert answer is not None, (method, path)
                assert answer["headers"]["Retry-After"]["schema"] == {"type": "integer", "minimum": 1}, (method, path)
        wait_for(lambda: httpx.get(server.url + "/healthz", timeout=10).status_code == 200)

        def limited() -> httpx.Response | None:
            r = httpx.get(server.url + "/api/meta", timeout=10)
            return r if r.status_code == 429 else None

        r = wait_for(limited, timeout=10, step=0.0)
        assert r is not None and r.json()["error"] == "rate_limited"
        assert r.headers["retry-after"].isdigit() and int(r.headers["retry-after"]) >= 1
        # The room-creation rate: its own Retry-After, until the oldest room of the minute ages out.
        body = {"game": "dice", "rules": SMALL, "seats": [{"kind": "open"}, {"kind": "open"}]}

        def create() -> httpx.Response | None:
            r = httpx.post(server.url + "/api/rooms", json=body, timeout=10)
            return r if r.status_code in (201, 422) or (r.status_code == 429 and "rooms a minute" in r.text) else None

        answers = [wait_for(create, timeout=20, step=0.2) for _ in range(3)]
        assert [a.status_code for a in answers] == [201, 201, 429], [a.text for a in answers]
        assert 1 <= int(answers[2].headers["retry-after"]) <= 60


def test_a_new_rooms_created_is_the_stored_value(server: LiveServer, tmp_path: Path) -> None:
    """Every instance shows the stored ``created``: the creating one's copy is made with it."""
    room = create_room(server.url, {"game": "dice", "rules": SMALL, "seats": [{"kind": "open"}, {"kind": "open"}]})
    with sqlite3.connect(tmp_path / "docs.sqlite3") as db:
        (stored,) = db.execute("SELECT created FROM rooms WHERE id = ?", (room["id"],)).fetchone()
    assert room["created"] == stored
    assert httpx.get(f"{server.url}/api/rooms/{room['id']}", timeout=10).json()["room"]["created"] == stored
    listed = [r for r in httpx.get(server.url + "/api/rooms", timeout=10).json() if r["id"] == room["id"]]
    assert listed and listed[0]["created"] == stored


# ---------------------------------------------------------------------- websocket


@pytest.mark.asyncio
async def test_state_echoes_its_id_as_ping_does(server: LiveServer) -> None:
    room = create_room(server.url, {"game": "dice", "rules": SMALL, "seats": [{"kind": "open"}, {"kind": "open"}]})
    c = await Client.connect(server.ws, room["id"])
    await c.until(lambda m: m["type"] == "state")
    await c.ws.send(json.dumps({"type": "state", "id": "s-1"}))
    reply = await c.until(lambda m: m.get("id") == "s-1")
    assert reply["type"] == "state" and reply["room"]["id"] == room["id"] and reply["you"] is None
    await c.ws.send(json.dumps({"type": "ping", "id": 9}))
    assert await c.until(lambda m: m.get("id") == 9) == {"type": "pong", "id": 9}
    await c.close()


@pytest.mark.asyncio
async def test_a_flood_gets_a_1008_close_frame(server: LiveServer) -> None:
    """Past ``message_strikes`` refused messages the server closes with 1008, a close frame
    after a last ``rate_limited`` error, not a dropped TCP connection (1006)."""
    room = create_room(server.url, {"game": "dice", "rules": SMALL, "seats": [{"kind": "open"}, {"kind": "open"}]})
    c = await Client.connect(server.ws, room["id"])
    await c.until(lambda m: m["type"] == "state")
    strikes = Limits().message_strikes
    with pytest.raises(websockets.ConnectionClosed) as closed:
        for _ in range(int(Limits().message_burst) + strikes + 50):
            await c.ws.send(json.dumps({"type": "ping"}))
        await c.until(lambda m: False, timeout=20)
    assert closed.value.rcvd is not None, "no close frame: the TCP connection was dropped"
    assert closed.value.rcvd.code == 1008 and "flooding" in closed.value.rcvd.reason
    errors = [m for m in c.received if m["type"] == "error"]
    assert errors and errors[-1]["error"] == "rate_limited" and "closed (1008)" in errors[-1]["message"]


@pytest.mark.asyncio
async def test_messages_over_the_limits_are_answered_too_large(server: LiveServer) -> None:
    room = create_room(server.url, {"game": "dice", "rules": SMALL, "seats": [{"kind": "open"}, {"kind": "open"}]})
    c = await Client.connect(server.ws, room["id"])
    await c.until(lambda m: m["type"] == "state")
    # Over message_bytes (16 KiB): too_large, and the connection goes on.
    await c.ws.send(json.dumps({"type": "chat", "text": "x" * 20_000}))
    error = await c.until(lambda m: m["type"] == "error")
    assert error["error"] == "too_large"
    assert (await c.request({"type": "ping"}))["type"] == "pong"
    # Over what the server reads at all (64 KiB): too_large, then the close (1009).
    await c.ws.send(json.dumps({"type": "chat", "text": "x" * 70_000}))
    with pytest.raises(websockets.ConnectionClosed) as closed:
        await c.until(lambda m: False, timeout=10)
    errors = [m for m in c.received if m["type"] == "error"]
    assert len(errors) == 2 and errors[1]["error"] == "too_large" and "closed (1009)" in errors[1]["message"]
    assert closed.value.rcvd is not None and closed.value.rcvd.code == 1009


# ---------------------------------------------------------------------- worker processes


def test_the_worker_processes_start_with_the_server(server: LiveServer) -> None:
    """The bot and replay workers start in the background at start-up: the first replay does
    not wait seconds for them to spawn and import."""
    lobby = server.app.state.lobby
    assert wait_for(lobby.bots.ready, timeout=60), "the workers did not start without a request"
    record = {"format": "tabletris/1", "game": "dice", "players": ["A"], "moves": []}
    r = httpx.post(server.url + "/api/replay", json=record, timeout=30)
    assert r.status_code == 200 and r.json()["frames"]


def test_stopping_the_server_leaks_no_semaphores(tmp_path: Path) -> None:
    """SIGTERM (which uvicorn raises again once it has shut down) after the workers ran: the
    pool's semaphores are released, and the resource tracker has nothing to warn about."""
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-c", "from tabletris.cli.app import main; main()", "serve", "--host", "127.0.0.1",
         "--port", str(port), "--db", str(tmp_path / "stop.sqlite3"), "--log-level", "warning"],
        cwd=str(ROOT), env={**os.environ, "PYTHONUNBUFFERED": "1"}, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
    )
    try:
        record = {"format": "tabletris/1", "game": "dice", "players": ["A"], "moves": []}

        def replayed() -> bool:
            try:
                return httpx.post(f"http://127.0.0.1:{port}/api/replay", json=record, timeout=30).status_code == 200
            except httpx.HTTPError:
                return proc.poll() is not None

        assert wait_for(replayed, timeout=60, step=0.1) and proc.poll() is None
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate(timeout=10)
    text = err.decode()
    assert "resource_tracker" not in text and "leaked" not in text, text
