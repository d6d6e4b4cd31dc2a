"""The lobby's list (issue 28 item 3): served from entries rendered on change, in pages with a
``Link`` to the next one, and never behind the rooms it lists. Against a real uvicorn on
127.0.0.1. Its speed is ``benchmarks/lobby_wrk.py``'s (wrk), not asserted here."""

from __future__ import annotations

import asyncio
import json
import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from server_helpers import Client, LiveServer, create_room, join, live_server
from tabletris.server.rooms import Room

SMALL = {"width": 5, "height": 5}
TWO_OPEN = {"game": "dice", "rules": SMALL, "seats": [{"kind": "open"}, {"kind": "open"}]}


@pytest.fixture
def server(tmp_path: Path) -> Iterator[LiveServer]:
    with live_server(tmp_path / "list.sqlite3") as s:
        yield s


def next_page(r: httpx.Response) -> str | None:
    link = r.headers.get("link")
    if link is None:
        return None
    found = re.fullmatch(r'<([^>]+)>; rel="next"', link)
    assert found, link
    return found.group(1)


def test_the_list_comes_in_pages_that_do_not_shift(server: LiveServer) -> None:
    made = [create_room(server.url, TWO_OPEN)["id"] for _ in range(7)]
    first = httpx.get(server.url + "/api/rooms?limit=3", timeout=10)
    assert first.status_code == 200 and [r["id"] for r in first.json()] == made[::-1][:3]
    link = next_page(first)
    assert link is not None and link.startswith("/api/rooms?") and "limit=3" in link
    newer = create_room(server.url, TWO_OPEN)["id"]  # a room made meanwhile comes before page 1
    second = httpx.get(server.url + link, timeout=10)
    assert [r["id"] for r in second.json()] == made[::-1][3:6]
    last_link = next_page(second)
    assert last_link is not None
    last = httpx.get(server.url + last_link, timeout=10)
    assert [r["id"] for r in last.json()] == made[:1] and next_page(last) is None
    everything = httpx.get(server.url + "/api/rooms", timeout=10)
    assert [r["id"] for r in everything.json()] == [newer, *made[::-1]] and next_page(everything) is None
    waiting = httpx.get(server.url + "/api/rooms?status=waiting&limit=4", timeout=10)
    assert len(waiting.json()) == 4 and "status=waiting" in (next_page(waiting) or "")
    bad = httpx.get(server.url + "/api/rooms?after=nonsense", timeout=10)
    assert bad.status_code == 422 and bad.json()["error"] == "bad_request" and "after" in bad.json()["message"]


@pytest.mark.asyncio
async def test_the_list_follows_every_change_of_its_rooms(server: LiveServer) -> None:
    """Seats taken, a spectator, a game started: the list says what the room's own state says."""
    room = create_room(server.url, TWO_OPEN)

    def listed() -> dict[str, Any]:
        found = [r for r in httpx.get(server.url + "/api/rooms", timeout=10).json() if r["id"] == room["id"]]
        assert len(found) == 1
        return dict(found[0])

    def own() -> dict[str, Any]:
        return dict(httpx.get(f"{server.url}/api/rooms/{room['id']}", timeout=10).json()["room"])

    assert listed() == own() and listed()["seats"][0]["open"]
    join(server.url, room["id"], "Ann")
    assert listed() == own() and not listed()["seats"][0]["open"] and listed()["status"] == "waiting"
    watcher = await Client.connect(server.ws, room["id"])
    await watcher.until(lambda m: m["type"] == "state")
    end = time.monotonic() + 10
    while listed()["spectators"] != 1 and time.monotonic() < end:
        await asyncio.sleep(0.02)
    assert listed()["spectators"] == 1 and listed() == own()
    join(server.url, room["id"], "Bob")
    assert listed()["status"] == "playing" and listed() == own()
    await watcher.close()


def test_the_list_is_not_built_per_request(server: LiveServer, monkeypatch: pytest.MonkeyPatch) -> None:
    """Once rendered, the entries are answered again: asking 30 times describes no room anew
    (each room's entry is rendered when the room changes)."""
    for _ in range(5):
        create_room(server.url, TWO_OPEN)
    calls = []
    info = Room.info

    def counted(self: Room) -> dict[str, Any]:
        calls.append(self.id)
        return info(self)

    monkeypatch.setattr(Room, "info", counted)
    first = httpx.get(server.url + "/api/rooms", timeout=10).text
    for _ in range(30):
        assert httpx.get(server.url + "/api/rooms", timeout=10).text == first
    assert calls == [], f"{len(calls)} room descriptions built for 31 requests"
    assert len(json.loads(first)) == 5
