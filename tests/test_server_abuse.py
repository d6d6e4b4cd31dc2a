"""The online table in the open (issue 12): each attack a stranger could make against a real
uvicorn on 127.0.0.1, in bounded loops, with what the server must answer.

One section per item of the issue; every test here failed on the server before it (seeds of
32 bits, no limits, everything on the event loop, queues of full states, no hello, moves
without a turn, finished rooms kept in memory forever, one damaged room stopping the start,
external bot processes left running). Speed is measured by ``benchmarks/abuse_probe.py``,
not asserted here: these tests check what happens, not how fast.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import socket
import sqlite3
import subprocess
import sys
import time
import unicodedata
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import websockets

from server_helpers import ROOT, Client, LiveServer, create_room, dice_moves, join, live_server
from tabletris.cli.serve import DatabaseURLError, normalise_db_url
from tabletris.server.app import STATUS
from tabletris.server.connection import Connection
from tabletris.server.limits import LIMIT_TABLE, Limits, limit_value

SMALL = {"width": 5, "height": 5}
EXAMPLE_BOT = ROOT / "examples" / "random_bot.py"


def wait_for(check: Any, timeout: float = 20.0, step: float = 0.05) -> Any:
    """Poll ``check()`` until it returns something true (bounded)."""
    end = time.monotonic() + timeout
    while True:
        value = check()
        if value or time.monotonic() > end:
            return value
        time.sleep(step)


def state(server: LiveServer, room: str, token: str | None = None) -> dict[str, Any]:
    headers = {"X-Seat-Token": token} if token else {}
    return dict(httpx.get(f"{server.url}/api/rooms/{room}", headers=headers, timeout=10).json())


def over(server: LiveServer, room: str) -> dict[str, Any]:
    return dict(wait_for(lambda: (s := state(server, room))["room"]["status"] != "playing" and s))


@pytest.fixture
def server(db_url: str) -> Iterator[LiveServer]:
    with live_server(db_url) as s:
        yield s


def limited(tmp_path: Path, **changes: Any) -> Any:
    return live_server(tmp_path / "limited.sqlite3", limits=Limits(**changes))


# ---------------------------------------------------------------------- 1. secrets


def test_server_games_draw_from_a_128_bit_secret_seed_that_no_client_sees(server: LiveServer) -> None:
    people = create_room(server.url, {"game": "tower", "seats": [{"kind": "open"}, {"kind": "random"}]})
    token = join(server.url, people["id"], "Ann")["token"]
    for seen in (state(server, people["id"]), state(server, people["id"], token)):
        assert seen["room"]["status"] == "playing" and "seed" not in json.dumps(seen), "no state carries the seed"
    assert httpx.get(f"{server.url}/api/rooms/{people['id']}/record").json()["error"] == "not_over"
    room = create_room(server.url, {"game": "tower", "seats": [{"kind": "random"}, {"kind": "random"}]})
    over(server, room["id"])
    seeds = [httpx.get(f"{server.url}/api/rooms/{room['id']}/record").json()["seed"]]
    for _ in range(3):
        r = create_room(server.url, {"game": "dice", "rules": SMALL, "seats": [{"kind": "random"}, {"kind": "random"}]})
        over(server, r["id"])
        seeds.append(httpx.get(f"{server.url}/api/rooms/{r['id']}/record").json()["seed"])
    # 2**-64 per seed that a 128-bit secret is this short; a 32-bit seed always is.
    assert all(s.bit_length() > 64 for s in seeds), seeds
    assert len(set(seeds)) == len(seeds)


# ---------------------------------------------------------------------- 2. limits


def test_limits_table_in_docs_matches_the_code() -> None:
    text = (ROOT / "docs" / "security.md").read_text()
    limits = Limits()
    for row in LIMIT_TABLE:
        line = next((ln for ln in text.splitlines() if ln.startswith(f"| `{row.field}` |")), None)
        assert line is not None, f"docs/security.md has no row for {row.field}"
        cells = [c.strip() for c in line.strip("|").split("|")]
        assert cells[1] == limit_value(limits, row), (row.field, cells)
        assert cells[3] == (f"`{row.error}`" if row.error != "-" else "-"), (row.field, cells)


def test_error_codes_in_docs_match_the_server() -> None:
    """docs/api.md's error table gives each code the HTTP status the server answers with."""
    text = (ROOT / "docs" / "api.md").read_text()
    documented = {}
    for line in text.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 3 and cells[0].startswith("`") and cells[1].isdigit():
            documented[cells[0].strip("`")] = int(cells[1])
    for code, status in STATUS.items():
        assert documented.get(code) == status, (code, status, documented.get(code))
    for code, status in documented.items():
        assert STATUS.get(code, 422) == status, code
    for row in LIMIT_TABLE:
        assert row.error == "-" or row.error in documented, row.error


def test_rules_names_and_timers_beyond_the_limits_get_the_documented_error(server: LiveServer) -> None:
    def create(body: dict[str, Any]) -> httpx.Response:
        return httpx.post(server.url + "/api/rooms", json={"seats": [{"kind": "open"}, {"kind": "open"}], **body}, timeout=10)

    huge = create({"game": "dice", "rules": {"width": 40, "height": 100, "garbage": 5000, "supply": 100000}})
    assert huge.status_code == 422 and huge.json() == {"error": "bad_rules", "message": huge.json()["message"]}
    assert "rules.width: 40 is over this server's limit (20)" in huge.json()["message"]
    garbage = create({"game": "dice", "rules": {"garbage": 20}})
    assert garbage.status_code == 422 and "rules.garbage" in garbage.json()["message"]
    echo = create({"game": "dice", "rules": {"die": ["I"] * 2000}})
    assert echo.status_code == 422 and "bytes of JSON" in echo.json()["message"]
    bulky = create({"game": "dice", "rules": {"die": ["I"] * 100_000}})
    assert bulky.status_code == 413 and bulky.json()["error"] == "too_large", "refused before it is read"
    target = create({"game": "dice", "rules": {"clear_rows": True, "target": 10**9}})
    assert target.status_code == 422 and "rules.target" in target.json()["message"]
    timer = create({"game": "dice", "timer": 0.1})
    assert timer.status_code == 422 and timer.json()["error"] == "bad_timer"
    room = create_room(server.url, {"game": "dice", "seats": [{"kind": "open"}, {"kind": "open"}, {"kind": "open"}]})
    join(server.url, room["id"], "Ann")
    for lookalike in ("\u0410nn", "ANN", "A n n", "Ａｎｎ"):  # Cyrillic A, case, spaces, full-width
        r = httpx.post(f"{server.url}/api/rooms/{room['id']}/join", json={"name": lookalike}, timeout=10)
        assert r.status_code == 409 and r.json()["error"] == "name_taken", (lookalike, r.text)
    join(server.url, room["id"], unicodedata.normalize("NFD", "Zoé"))
    nfc = httpx.post(f"{server.url}/api/rooms/{room['id']}/join", json={"name": "Zoé"}, timeout=10)
    assert nfc.status_code == 409 and nfc.json()["error"] == "name_taken"
    invisible = httpx.post(f"{server.url}/api/rooms/{room['id']}/join", json={"name": "Bob\u200d"}, timeout=10)
    assert invisible.status_code == 422 and invisible.json()["error"] == "bad_name"
    names = [s["name"] for s in state(server, room["id"])["room"]["seats"]]
    assert names[1] == "Zoé" and unicodedata.is_normalized("NFC", names[1])


def test_a_long_record_is_refused_before_it_is_replayed(server: LiveServer) -> None:
    moves = [{"roll": "I", "place": [[0, 0], [1, 0], [2, 0], [3, 0]]}] * (Limits().record_moves + 1)
    r = httpx.post(server.url + "/api/replay", json={"format": "tabletris/1", "game": "dice", "players": ["A"], "moves": moves}, timeout=30)
    assert r.status_code == 422 and r.json()["error"] == "bad_record" and "at most 2000" in r.json()["message"]


def test_per_client_and_per_server_limits(tmp_path: Path) -> None:
    with limited(tmp_path, rooms_per_minute=3, open_rooms=2, spectators=1, http_rate=1, http_burst=20) as server:
        body = {"game": "dice", "rules": SMALL, "seats": [{"kind": "open"}, {"kind": "open"}]}
        codes = [httpx.post(server.url + "/api/rooms", json=body, timeout=10) for _ in range(3)]
        assert [c.status_code for c in codes] == [201, 201, 429]
        assert codes[2].json()["error"] == "too_many_rooms"
        bots = {"game": "dice", "rules": SMALL, "seats": [{"kind": "random"}, {"kind": "random"}]}
        third = httpx.post(server.url + "/api/rooms", json=bots, timeout=10)
        assert third.status_code == 201, third.text
        fourth = httpx.post(server.url + "/api/rooms", json=bots, timeout=10)
        assert fourth.status_code == 429 and fourth.json()["error"] == "rate_limited"
        room = codes[0].json()["id"]

        async def spectators() -> tuple[Any, Any]:
            first = await Client.connect(server.ws, room)
            await first.recv()
            second = await Client.connect(server.ws, room)
            refused = await second.recv()
            with pytest.raises(websockets.ConnectionClosed):
                await second.recv()
            code = second.ws.close_code
            await first.close()
            return refused, code

        refused, code = asyncio.run(spectators())
        assert refused["error"] == "room_full" and code == 4409
        flood = [httpx.get(server.url + "/api/meta", timeout=10).status_code for _ in range(40)]
        assert 429 in flood
        limited_body = httpx.get(server.url + "/api/meta", timeout=10)
        if limited_body.status_code == 429:
            assert limited_body.json()["error"] == "rate_limited"


# ---------------------------------------------------------------------- 3. off the loop


WAITING_BOT = """import json, os, sys, time
marker, release = sys.argv[1], sys.argv[2]
for line in sys.stdin:
    r = json.loads(line)
    if r.get("type") == "hello":
        print(json.dumps({"type": "ready", "id": r["id"], "name": "waits"}), flush=True)
    elif r.get("type") == "quit":
        break
    else:
        open(marker, "w").close()
        end = time.time() + 20
        while not os.path.exists(release) and time.time() < end:
            time.sleep(0.05)
        print(json.dumps({"id": r["id"], "option": 0}), flush=True)
"""


def test_an_external_bot_thinking_blocks_nobody(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    script = tmp_path / "waits.py"
    script.write_text(WAITING_BOT)
    marker, release = tmp_path / "asked", tmp_path / "release"
    bot = f"ext:{sys.executable} {script} {marker} {release}"
    monkeypatch.setenv("TABLETRIS_EXT_ALLOW", bot)
    with live_server(tmp_path / "ext.sqlite3") as server:
        room = create_room(server.url, {"game": "dice", "rules": SMALL, "seats": [{"kind": bot}, {"kind": "random"}]})
        assert wait_for(marker.exists), "the bot was asked for a move"
        lobby = httpx.get(server.url + "/api/rooms", timeout=3)
        assert lobby.status_code == 200, "the server answers while the bot thinks"
        assert state(server, room["id"])["seq"] == 0
        release.touch()
        assert over(server, room["id"])["game"]["over"]


def test_built_in_bots_and_replays_run_in_worker_processes(server: LiveServer) -> None:
    room = create_room(server.url, {"game": "dice", "rules": SMALL, "seats": [{"kind": "expert"}, {"kind": "random"}]})
    assert over(server, room["id"])["game"]["over"]
    replayed = httpx.get(f"{server.url}/api/rooms/{room['id']}/replay", timeout=60)
    assert replayed.status_code == 200 and replayed.json()["frames"][-1]["over"]
    workers = server.app.state.lobby.bots._procs
    assert workers is not None and workers._processes, "bots and replays ran in the worker processes"
    assert all(p.pid != os.getpid() for p in workers._processes.values())
    bad = httpx.post(server.url + "/api/replay", json={"format": "tabletris/1", "game": "dice", "players": ["A"],
                                                       "moves": [{"roll": "I", "place": [[0, 3], [1, 3], [2, 3], [3, 3]]}]}, timeout=60)
    assert bad.status_code == 422 and bad.json()["error"] == "bad_record", "the engine's refusal comes back from the worker"


# ---------------------------------------------------------------------- 4. slow and idle clients


@pytest.mark.asyncio
async def test_a_connection_that_does_not_read_holds_one_state_and_is_closed() -> None:
    blocked = asyncio.Event()

    async def never(_text: str) -> None:
        blocked.set()
        await asyncio.sleep(3600)

    conn = Connection(never, None, outbox=8, send_timeout=0.5)
    for i in range(1000):
        conn.send_latest("state", json.dumps({"type": "state", "n": i, "pad": "x" * 1000}))
        await asyncio.sleep(0)
    await blocked.wait()
    queued = [i for i in conn.items]
    assert len(queued) <= 1, "states coalesce to the newest one"
    assert all(json.loads(getattr(item, "text", "{}")).get("n") == 999 for item in queued)
    await asyncio.wait_for(conn.dead.wait(), 5)
    assert not conn.alive and conn.close_code == 4408 and not conn.items
    replies = Connection(never, None, outbox=8, send_timeout=60)
    for _ in range(20):
        replies.send('{"type":"pong"}')
        await asyncio.sleep(0)
    assert not replies.alive and replies.close_code == 4408
    for c in (conn, replies):
        c.task.cancel()


def test_presence_is_a_small_delta_and_idle_connections_are_dropped(tmp_path: Path) -> None:
    with limited(tmp_path, header_timeout=1.0, hello_timeout=1.0) as server:
        room = create_room(server.url, {"game": "dice", "rules": SMALL, "seats": [{"kind": "open"}, {"kind": "open"}]})
        ann = join(server.url, room["id"], "Ann")

        async def presence() -> tuple[dict[str, Any], int | None]:
            a = await Client.connect(server.ws, room["id"], ann["token"])
            await a.state_where(lambda m: True)
            watcher = await Client.connect(server.ws, room["id"])
            await watcher.recv()
            delta = await a.recv()
            silent = await websockets.connect(f"{server.ws}/ws/{room['id']}")
            with pytest.raises(websockets.ConnectionClosed):
                while True:
                    await asyncio.wait_for(silent.recv(), 5)
            await a.close()
            await watcher.close()
            return delta, silent.close_code

        delta, code = asyncio.run(presence())
        assert delta["type"] == "presence" and delta["spectators"] == 1 and len(json.dumps(delta)) < 200
        assert code == 4401, "no hello within the hello timeout"
        idle = socket.create_connection(("127.0.0.1", server.port))
        idle.settimeout(5)
        assert idle.recv(1) == b"", "a connection that sends no request is closed"
        idle.close()


@pytest.mark.asyncio
async def test_deep_json_and_huge_integers_get_an_error_and_the_connection_lives(server: LiveServer) -> None:
    room = create_room(server.url, {"game": "dice", "rules": SMALL, "seats": [{"kind": "open"}, {"kind": "open"}]})
    c = await Client.connect(server.ws, room["id"])
    await c.recv()
    for junk in ("[" * 8000 + "]" * 8000, '{"type": "ping", "n": ' + "9" * 5000 + "}"):
        await c.ws.send(junk)
        reply = await c.until(lambda m: m["type"] == "error")
        assert reply["error"] == "bad_json", reply
    assert (await c.request({"type": "ping"}))["type"] == "pong", "the connection is still up"
    await c.close()
    deep = httpx.post(server.url + "/api/replay", content="[" * 100_000 + "]" * 100_000,
                      headers={"content-type": "application/json"}, timeout=30)
    assert 400 <= deep.status_code < 500 and set(deep.json()) == {"error", "message"}, deep.text


# ---------------------------------------------------------------------- 5. turns, leaving, timers


@pytest.mark.asyncio
async def test_moves_name_their_turn_and_a_stale_one_changes_nothing(server: LiveServer) -> None:
    room = create_room(server.url, {"game": "dice", "rules": SMALL, "seats": [{"kind": "open"}, {"kind": "open"}]})
    a, b = join(server.url, room["id"], "Ann"), join(server.url, room["id"], "Bob")
    assert state(server, room["id"])["room"]["timer"] == Limits().default_timer, "rooms with people are timed"
    ca = await Client.connect(server.ws, room["id"], a["token"])
    s0 = await ca.state_where(lambda m: m["private"] is not None)
    move = dice_moves(s0)[0]
    missing = await ca.request({"type": "move", **{k: v for k, v in move.items() if k != "turn"}})
    assert missing["error"] == "stale_move" and '"turn"' in missing["message"]
    assert (await ca.request({"type": "move", **move}))["type"] == "ack"
    cb = await Client.connect(server.ws, room["id"], b["token"])
    s1 = await cb.state_where(lambda m: m["private"] is not None)
    late = await ca.request({"type": "move", **move})
    assert late["error"] in ("stale_move", "not_your_turn")
    replayed = httpx.post(f"{server.url}/api/rooms/{room['id']}/moves", json={**dice_moves(s1)[0], "turn": s0["game"]["turn"]},
                          headers={"X-Seat-Token": b["token"]}, timeout=10)
    assert replayed.status_code == 409 and replayed.json()["error"] == "stale_move"
    assert state(server, room["id"])["seq"] == s1["seq"], "nothing changed"
    for c in (ca, cb):
        await c.close()


def test_leave_resign_and_kick_after_timeouts_keep_a_room_moving(tmp_path: Path) -> None:
    with live_server(tmp_path / "leave.sqlite3", limits=Limits.unlimited_clients(timer_min=0.2, kick_after=2)) as server:
        room = create_room(server.url, {"game": "dice", "rules": SMALL, "seats": [{"kind": "open"}, {"kind": "open"}]})
        a = join(server.url, room["id"], "Ann")
        left = httpx.post(f"{server.url}/api/rooms/{room['id']}/leave", headers={"X-Seat-Token": a["token"]}, timeout=10)
        assert left.json() == {"done": "left"} and state(server, room["id"])["room"]["seats"][0]["open"]
        a = join(server.url, room["id"], "Ann")
        b = join(server.url, room["id"], "Bob")

        async def resign() -> dict[str, Any]:
            cb = await Client.connect(server.ws, room["id"], b["token"])
            reply = await cb.request({"type": "resign"})
            await cb.close()
            return reply

        assert asyncio.run(resign())["done"] == "resigned"
        seats = state(server, room["id"])["room"]["seats"]
        assert seats[b["seat"]]["kind"] == "resigned" and seats[b["seat"]]["bot"]
        moved = httpx.post(f"{server.url}/api/rooms/{room['id']}/moves", json={"turn": 0, "place": [[0, 0]] * 4},
                           headers={"X-Seat-Token": b["token"]}, timeout=10)
        assert moved.status_code == 403 and moved.json()["error"] == "not_seated"
        # Ann plays nothing: a timed room with a 0.3 s timer plays her turns, then resigns her.
        timed = create_room(server.url, {"game": "dice", "rules": {"width": 8, "height": 10}, "timer": 0.3, "seats": [{"kind": "open"}, {"kind": "random"}]})
        join(server.url, timed["id"], "Cy")
        kicked = wait_for(lambda: (s := state(server, timed["id"]))["room"]["seats"][0]["kind"] == "resigned" and s)
        assert kicked, "two timeouts in a row resign the seat"
        assert [m.get("by") for m in kicked["game"]["log"] if m["player"] == 0][:2] == ["timer", "timer"]
        assert over(server, timed["id"])["game"]["over"], "the room does not stall"


def test_a_rematch_seat_is_kept_for_its_player_and_asking_twice_is_the_same_seat(server: LiveServer) -> None:
    room = create_room(server.url, {"game": "dice", "rules": {"width": 4, "height": 4}, "seats": [{"kind": "open"}, {"kind": "open"}]})
    tokens = [join(server.url, room["id"], n)["token"] for n in ("Ann", "Bob")]
    while not (s := state(server, room["id"]))["game"]["over"]:
        seat = s["game"]["to_move"]
        mine = state(server, room["id"], tokens[seat])
        r = httpx.post(f"{server.url}/api/rooms/{room['id']}/moves", json=dice_moves(mine)[0], headers={"X-Seat-Token": tokens[seat]}, timeout=10)
        assert r.status_code == 200, r.text
    first = httpx.post(f"{server.url}/api/rooms/{room['id']}/rematch", headers={"X-Seat-Token": tokens[0]}, timeout=10).json()
    again = httpx.post(f"{server.url}/api/rooms/{room['id']}/rematch", headers={"X-Seat-Token": tokens[0]}, timeout=10).json()
    assert first == again, "the rematch is idempotent"
    same_join = httpx.post(f"{server.url}/api/rooms/{first['room']}/join", json={"name": "Ann"}, headers={"X-Seat-Token": first["token"]}, timeout=10)
    assert same_join.json() == first, "join with the seat's token answers the same seat"
    for name in ("Bob", "Mallory"):
        stranger = httpx.post(f"{server.url}/api/rooms/{first['room']}/join", json={"name": name, "seat": 1}, timeout=10)
        assert stranger.status_code == 409 and stranger.json()["error"] in ("seat_reserved", "room_full", "name_taken"), stranger.text
    bob = httpx.post(f"{server.url}/api/rooms/{room['id']}/rematch", headers={"X-Seat-Token": tokens[1]}, timeout=10).json()
    assert bob["room"] == first["room"] and bob["seat"] == 1
    assert state(server, first["room"])["room"]["status"] == "playing"


# ---------------------------------------------------------------------- 6. tokens, headers, origin


def test_no_token_in_urls_or_logs_and_the_security_headers(tmp_path: Path) -> None:
    lines: list[str] = []

    class Keep(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            lines.append(self.format(record))

    keep = Keep()
    loggers = [logging.getLogger(n) for n in ("uvicorn.access", "uvicorn.error")]
    server = LiveServer(tmp_path / "log.sqlite3", limits=Limits.unlimited_clients(), access_log=True).start()
    for lg in loggers:
        lg.addHandler(keep)
    try:
        room = create_room(server.url, {"game": "dice", "rules": SMALL, "seats": [{"kind": "open"}, {"kind": "open"}]})
        token = join(server.url, room["id"], "Ann")["token"]

        async def old_style() -> tuple[dict[str, Any], int | None]:
            ws = await websockets.connect(f"{server.ws}/ws/{room['id']}?token={token}")
            reply = json.loads(await ws.recv())
            with pytest.raises(websockets.ConnectionClosed):
                await ws.recv()
            return reply, ws.close_code

        reply, code = asyncio.run(old_style())
        assert reply["error"] == "bad_message" and code == 4400
        httpx.get(f"{server.url}/api/rooms/{room['id']}?token={token}", timeout=10)
        page = httpx.get(server.url + "/", timeout=10)
        csp = page.headers["content-security-policy"]
        assert "frame-ancestors 'none'" in csp and "script-src 'self'" in csp and "unsafe-inline" not in csp.split("script-src")[1].split(";")[0]
        assert page.headers["x-content-type-options"] == "nosniff"
        docs = httpx.get(server.url + "/docs", timeout=10)
        assert docs.status_code == 404 and docs.json()["error"] == "not_found" and "cdn" not in docs.text
        icon = httpx.get(server.url + "/favicon.ico", timeout=10)
        assert icon.status_code == 200 and icon.headers["content-type"].startswith("image/")

        async def foreign() -> Exception | None:
            try:
                await websockets.connect(f"{server.ws}/ws/{room['id']}", origin="http://evil.example")  # type: ignore[arg-type]
            except Exception as e:
                return e
            return None

        refused = asyncio.run(foreign())
        assert refused is not None and "403" in str(refused), refused
    finally:
        for lg in loggers:
            lg.removeHandler(keep)
        server.stop()
    assert any(f"/api/rooms/{room['id']}" in line for line in lines), "the access log was captured"
    assert not any(token in line for line in lines), [line for line in lines if token in line]


# ---------------------------------------------------------------------- 7. retention


def test_ended_rooms_leave_memory_abandoned_ones_expire_and_bot_rooms_are_capped(tmp_path: Path) -> None:
    limits = Limits.unlimited_clients(finished_linger=0.3, waiting_expiry=0.5, bot_only_moves=12)
    db = tmp_path / "keep.sqlite3"
    with live_server(db, limits=limits) as server:
        lobby = server.app.state.lobby
        done = create_room(server.url, {"game": "dice", "rules": SMALL, "seats": [{"kind": "random"}, {"kind": "random"}]})
        capped = create_room(server.url, {"game": "dice", "rules": {"width": 20, "height": 40}, "seats": [{"kind": "random"}, {"kind": "random"}]})
        waiting = create_room(server.url, {"game": "dice", "seats": [{"kind": "open"}]})
        final = over(server, done["id"])
        stopped = over(server, capped["id"])
        assert stopped["room"]["status"] == "stopped" and stopped["room"]["events"] <= 12 and not stopped["game"]["over"]
        assert wait_for(lambda: done["id"] not in lobby.rooms and waiting["id"] not in lobby.rooms), "ended rooms left memory"
        unmarked = {**final["game"], "log": [{k: v for k, v in m.items() if k != "by"} for m in final["game"]["log"]]}
        assert state(server, done["id"])["game"] == unmarked, "served from the database (timer marks are not stored)"
        listed = {r["id"]: r["status"] for r in httpx.get(server.url + "/api/rooms", timeout=10).json()}
        assert listed[done["id"]] == "over" and listed[waiting["id"]] == "expired"
    with live_server(db, limits=limits) as again:
        assert not again.app.state.lobby.rooms, "start-up loads only live rooms, not the history"
        assert httpx.get(f"{again.url}/api/rooms/{done['id']}/record", timeout=10).status_code == 200


# ---------------------------------------------------------------------- 8. robust start


def test_a_damaged_room_is_quarantined_and_the_rest_start(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    db = tmp_path / "damaged.sqlite3"
    with live_server(db) as server:
        good = create_room(server.url, {"game": "dice", "rules": SMALL, "seats": [{"kind": "open"}, {"kind": "open"}]})
        bad = create_room(server.url, {"game": "dice", "rules": SMALL, "seats": [{"kind": "open"}, {"kind": "open"}]})
        gap = create_room(server.url, {"game": "dice", "rules": SMALL, "seats": [{"kind": "open"}, {"kind": "open"}]})
        for r in (good, bad, gap):
            tokens = [join(server.url, r["id"], n)["token"] for n in ("Ann", "Bob")]
        mover = tokens[state(server, gap["id"])["game"]["to_move"]]
        played = httpx.post(f"{server.url}/api/rooms/{gap['id']}/moves", json=dice_moves(state(server, gap["id"], mover))[0],
                            headers={"X-Seat-Token": mover}, timeout=10)
        assert played.status_code == 200
    with sqlite3.connect(db) as conn:
        conn.execute("UPDATE rooms SET config = '{not json' WHERE id = ?", (bad["id"],))
        conn.execute("UPDATE events SET seq = 7 WHERE room_id = ?", (gap["id"],))
    with caplog.at_level(logging.ERROR, logger="tabletris.server"), live_server(db) as server:
        assert state(server, good["id"])["room"]["status"] == "playing"
        assert httpx.get(f"{server.url}/api/rooms/{gap['id']}", timeout=10).status_code == 404
    quarantined = [r.getMessage() for r in caplog.records if "set aside" in r.getMessage()]
    assert len(quarantined) == 2 and any(bad["id"] in m for m in quarantined) and any(gap["id"] in m for m in quarantined)
    with sqlite3.connect(db) as conn:
        statuses = dict(conn.execute("SELECT id, status FROM rooms").fetchall())
    assert statuses[bad["id"]] == statuses[gap["id"]] == "broken" and statuses[good["id"]] == "playing"


def test_db_urls_are_normalised_and_a_bad_one_is_one_masked_line(tmp_path: Path) -> None:
    file = tmp_path / "x.db"
    assert normalise_db_url(f"sqlite:///{file}") == f"sqlite+aiosqlite:///{file}"
    assert normalise_db_url(str(file)) == f"sqlite+aiosqlite:///{file}"
    for memory in ("sqlite+aiosqlite:///", "sqlite:///:memory:", "sqlite://"):
        with pytest.raises(DatabaseURLError, match="in-memory"):
            normalise_db_url(memory)
    assert normalise_db_url("sqlite://", allow_memory=True).startswith("sqlite+aiosqlite://")
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    for url, wanted in (
        (f"sqlite:///{tmp_path}/missing/dir/x.db", "does not exist"),
        ("postgresql://admin:hunter2@127.0.0.1:1/db", "--db postgresql+asyncpg://admin:***@127.0.0.1:1/db"),
    ):
        run = subprocess.run(
            [sys.executable, "-c", "from tabletris.cli.app import main; main()", "serve", "--db", url, "--port", "1"],
            capture_output=True, text=True, timeout=60, env=env, cwd=str(tmp_path),
        )
        assert run.returncode == 2, run.stderr
        err = run.stderr.strip()
        assert wanted in err and len(err.splitlines()) == 1, err
        assert "hunter2" not in err and "Traceback" not in err and "serving" not in err


# ---------------------------------------------------------------------- 9. external bots


def bot_processes(marker: str) -> int:
    """Running processes whose command line holds ``marker`` (this test's own copy of the bot)."""
    mine = 0
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                cmd = f.read()
        except OSError:
            continue
        if marker.encode() in cmd:
            mine += 1
    return mine


def test_external_bots_stop_with_their_room_and_are_capped(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    copy = tmp_path / "capped_random_bot.py"  # its own path: other tests' bots are not counted
    copy.write_text(EXAMPLE_BOT.read_text())
    copy.chmod(0o755)
    bot = f"ext:{copy}"
    monkeypatch.setenv("TABLETRIS_EXT_ALLOW", bot)
    with live_server(tmp_path / "ext.sqlite3", limits=Limits.unlimited_clients(ext_processes=2)) as server:
        # Over the cap in one request (a bot-only game on a small board may end before a second
        # request could count its processes, so the cap is checked where no race can hide it).
        three = [{"kind": bot}] * 3
        capped = httpx.post(server.url + "/api/rooms", json={"game": "dice", "rules": SMALL, "seats": three}, timeout=10)
        assert capped.status_code == 422 and capped.json()["error"] == "bad_seats" and "at most 2" in capped.json()["message"]
        seats = [{"kind": bot}, {"kind": bot}]
        room = create_room(server.url, {"game": "dice", "rules": SMALL, "seats": seats})
        assert over(server, room["id"])["game"]["over"]
        assert wait_for(lambda: bot_processes(str(copy)) == 0, timeout=20) is True, "the bots stopped with their room"
