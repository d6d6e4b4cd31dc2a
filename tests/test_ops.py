"""Operations against a real uvicorn on 127.0.0.1: health and readiness probes, Prometheus metrics
after real websocket moves, and the JSON log lines of ``tabletris serve``."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
import websockets
from prometheus_client.parser import text_string_to_metric_families
from typer.testing import CliRunner

from server_helpers import (
    ROOT,
    Client,
    LiveServer,
    create_room,
    dice_moves,
    free_port,
    join,
    live_server,
)
from services import redis_server
from tabletris.cli.app import app as cli_app
from tabletris.server.app import RedisCheck


@pytest.fixture
def server(tmp_path: Path) -> Iterator[LiveServer]:
    with live_server(tmp_path / "ops.sqlite3") as s:
        yield s


def scrape(base: str) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    """Every sample of ``/metrics``, by name and labels."""
    r = httpx.get(base + "/metrics", timeout=10)
    assert r.status_code == 200, r.text
    assert r.headers["content-type"].startswith("text/plain")
    return {
        (s.name, tuple(sorted(s.labels.items()))): s.value
        for family in text_string_to_metric_families(r.text)
        for s in family.samples
    }


def test_healthz_and_readyz_answer(server: LiveServer) -> None:
    r = httpx.get(server.url + "/healthz", timeout=10)
    assert (r.status_code, r.json()) == (200, {"status": "ok"})
    r = httpx.get(server.url + "/readyz", timeout=10)
    assert r.status_code == 200
    assert r.json() == {"status": "ready", "checked": ["database"]}


def test_readyz_fails_while_the_database_file_is_gone(server: LiveServer, tmp_path: Path) -> None:
    """A SQLite connection keeps working on a file moved or deleted under it, and every move
    stored then is lost at the next restart: not ready. Liveness stays 200 (the process is
    fine; restarting it would not bring the file back)."""
    db = tmp_path / "ops.sqlite3"
    away = tmp_path / "moved.sqlite3"
    db.rename(away)
    r = httpx.get(server.url + "/readyz", timeout=10)
    assert r.status_code == 503
    assert r.json() == {"status": "unavailable", "failed": {"database": "FileNotFoundError"}}
    assert httpx.get(server.url + "/healthz", timeout=10).status_code == 200
    away.rename(db)
    assert httpx.get(server.url + "/readyz", timeout=10).status_code == 200


def test_readyz_fails_when_a_check_times_out(server: LiveServer) -> None:
    """A dependency that hangs is as bad as one that fails (a Redis registers its own check)."""

    async def hangs() -> None:
        await asyncio.sleep(60)

    server.app.state.ready_checks["redis"] = hangs
    r = httpx.get(server.url + "/readyz", timeout=10)
    assert r.status_code == 503
    assert r.json()["failed"] == {"redis": "timeout"}


def test_readyz_names_redis_when_it_stops(server: LiveServer) -> None:
    """With a Redis bus, readiness includes a PING of it (a real redis-server, then stopped):
    Redis down degrades the instance (still 200, naming Redis), it does not take it out of the
    pool (issue 30: every instance left the load balancer at once)."""
    with redis_server() as url:
        server.app.state.ready_checks["redis"] = RedisCheck(url)
        r = httpx.get(server.url + "/readyz", timeout=10)
        assert (r.status_code, r.json()) == (200, {"status": "ready", "checked": ["database", "redis"]})
    r = httpx.get(server.url + "/readyz", timeout=10)
    assert r.status_code == 200
    assert r.json()["status"] == "degraded" and list(r.json()["degraded"]) == ["redis"]


def test_metrics_only_for_this_machine_or_the_token(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TABLETRIS_METRICS_TOKEN", "s3cret-scrape")
    with live_server(tmp_path / "m.sqlite3") as s:
        assert httpx.get(s.url + "/metrics", timeout=10).status_code == 200
        # Through a proxy (which connects from loopback too, but says for whom): refused ...
        proxied = {"X-Forwarded-For": "203.0.113.9"}
        r = httpx.get(s.url + "/metrics", headers=proxied, timeout=10)
        assert r.status_code == 404
        assert "tabletris" not in r.text
        assert httpx.post(s.url + "/debug/gc", headers=proxied, timeout=10).status_code == 404
        wrong = {**proxied, "Authorization": "Bearer guess"}
        assert httpx.get(s.url + "/metrics", headers=wrong, timeout=10).status_code == 404
        # ... unless the scraper shows the token.
        right = {**proxied, "Authorization": "Bearer s3cret-scrape"}
        r = httpx.get(s.url + "/metrics", headers=right, timeout=10)
        assert r.status_code == 200 and "tabletris_moves_total" in r.text
        gc = httpx.post(s.url + "/debug/gc", headers=right, timeout=10)
        assert gc.status_code == 200 and gc.json()["rss_bytes"] > 10_000_000 and gc.json()["objects"] > 100


@pytest.mark.asyncio
async def test_metrics_follow_real_moves(server: LiveServer, tmp_path: Path) -> None:
    room = create_room(server.url, {"game": "dice", "rules": {"width": 6, "height": 6},
                                    "seats": [{"kind": "open"}, {"kind": "open"}]})
    a = join(server.url, room["id"], "Ann")
    b = join(server.url, room["id"], "Bob")
    before = scrape(server.url)
    clients = {a["seat"]: await Client.connect(server.ws, room["id"], a["token"]),
               b["seat"]: await Client.connect(server.ws, room["id"], b["token"])}
    watcher = await Client.connect(server.ws, room["id"])
    await watcher.state_where(lambda m: m["game"] is not None)
    during = await asyncio.to_thread(scrape, server.url)
    assert during[("tabletris_connections", ())] == 3
    assert during[("tabletris_rooms", (("state", "live"),))] == 1
    acked = 0
    for _ in range(4):
        for seat, client in clients.items():
            state = await client.state_where(
                lambda m, seat=seat: m["game"]["over"] or (m["game"]["to_move"] == seat and m["private"] is not None)
            )
            if state["game"]["over"]:
                break
            reply = await client.request({"type": "move", **dice_moves(state)[0]})
            assert reply["type"] == "ack", reply
            acked += 1
    after = await asyncio.to_thread(scrape, server.url)
    moves = ("tabletris_moves_total", (("game", "dice"),))
    assert after[moves] - before.get(moves, 0.0) == acked
    count = ("tabletris_move_seconds_count", ())
    assert after[count] - before[count] == acked
    # Every acknowledged move was committed: as event rows, in at least one commit and at most
    # one a row (bots' moves and rolls add rows of their own).
    events = ("tabletris_store_events_total", ())
    commits = ("tabletris_store_commits_total", ())
    assert after[events] - before[events] >= acked
    assert 1 <= after[commits] - before[commits] <= after[events] - before[events]
    assert ("tabletris_store_gathered_total", ()) in after
    assert after[("tabletris_move_seconds_sum", ())] > 0
    # Another app in the same process has its own registry: none of these moves shows there.
    with live_server(tmp_path / "other.sqlite3") as other:
        theirs = await asyncio.to_thread(scrape, other.url)
    assert theirs.get(moves, 0.0) == 0 and theirs[count] == 0
    for client in [*clients.values(), watcher]:
        await client.close()
    deadline = time.monotonic() + 10
    while (await asyncio.to_thread(scrape, server.url))[("tabletris_connections", ())] != 0:
        assert time.monotonic() < deadline, "connections gauge did not drop after the sockets closed"
        await asyncio.sleep(0.1)


def test_bad_log_format_is_refused() -> None:
    result = CliRunner().invoke(cli_app, ["serve", "--log-format", "xml", "--db-memory", "--db", "sqlite://"])
    assert result.exit_code == 2
    assert "--log-format 'xml': expected text or json" in result.output


@pytest.mark.asyncio
async def test_json_log_lines_carry_the_room_and_never_a_token(tmp_path: Path) -> None:
    """``tabletris serve`` with TABLETRIS_LOG_FORMAT=json: every line on stderr after the start
    banner is one JSON object; the lines of a room's websocket carry its id and seat; neither
    the seat token sent properly (in the hello) nor one put in a URL by an old client shows."""
    port = free_port()
    log_path = tmp_path / "serve.log"
    env = {**os.environ, "PYTHONUNBUFFERED": "1", "TABLETRIS_LOG_FORMAT": "json"}
    with log_path.open("wb") as log_file:
        proc = subprocess.Popen(
            [sys.executable, "-c", "from tabletris.cli.app import main; main()", "serve", "--port", str(port),
             "--db", str(tmp_path / "logs.sqlite3"), "--bot-delay", "0", "--no-client-limits"],
            cwd=str(ROOT), env=env, stdout=subprocess.DEVNULL, stderr=log_file,
        )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            assert proc.poll() is None, log_path.read_text()
            try:
                if httpx.get(base + "/healthz", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            assert time.monotonic() < deadline, "tabletris serve did not answer"
            await asyncio.sleep(0.2)
        room = create_room(base, {"game": "dice", "rules": {"width": 6, "height": 6},
                                  "seats": [{"kind": "open"}, {"kind": "random"}]})
        ann = join(base, room["id"], "Ann")
        client = await Client.connect(base.replace("http", "ws"), room["id"], ann["token"])
        state = await client.state_where(lambda m: m["game"] is not None and m["game"]["to_move"] == ann["seat"]
                                         and m["private"] is not None)
        reply = await client.request({"type": "move", **dice_moves(state)[0]})
        assert reply["type"] == "ack", reply
        await client.close()
        # An old client's URL with a token in it: refused, and the token stays out of the log.


        async with websockets.connect(f"ws://127.0.0.1:{port}/ws/{room['id']}?token={ann['token']}") as old:
            with pytest.raises(websockets.ConnectionClosed):
                while True:
                    await asyncio.wait_for(old.recv(), 10)
        await asyncio.sleep(0.5)
    finally:
        proc.terminate()
        proc.wait(20)
    lines = log_path.read_text().splitlines()
    assert lines[0].startswith("tabletris: serving")  # the banner, before logging is configured
    events = [json.loads(line) for line in lines[1:] if line.strip()]
    assert events and all({"time", "level", "logger", "event"} <= e.keys() for e in events)
    assert any(e.get("room") == room["id"] and e["event"].startswith("room created") for e in events)
    joined = [e for e in events if e["event"] == f"websocket joined as seat {ann['seat']}"]
    assert joined and joined[0]["room"] == room["id"] and joined[0]["seat"] == ann["seat"]
    assert any(e.get("logger") == "uvicorn.access" and e.get("path") == "/api/rooms" and e.get("status") == 201
               for e in events)
    text = log_path.read_text()
    assert ann["token"] not in text
    assert "token=***" in text  # the refused URL was logged, masked
