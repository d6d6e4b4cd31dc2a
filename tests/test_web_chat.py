"""The room chat over real websockets against a real uvicorn: broadcast, limits, history, data only."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import websockets

from server_helpers import LiveServer, live_server
from tabletris.server.rooms import CHAT_MAX, CHAT_RATE


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    with live_server(Path(tmp_path_factory.mktemp("chat")) / "chat.sqlite3") as s:
        yield s


def room_with_ann(server: LiveServer) -> tuple[str, str]:
    room = httpx.post(server.url + "/api/rooms", json={"game": "dice", "seats": [{"kind": "open"}, {"kind": "open"}]}).json()["id"]
    token = httpx.post(f"{server.url}/api/rooms/{room}/join", json={"name": "Ann"}).json()["token"]
    return room, token


async def next_of(ws: Any, kind: str, id_: int | None = None) -> dict[str, Any]:
    while True:
        msg = json.loads(await asyncio.wait_for(ws.recv(), 10))
        if msg["type"] == kind and (id_ is None or msg.get("id") == id_):
            return dict(msg)


def test_chat_reaches_everyone_as_data_and_late_comers_see_it(server: LiveServer) -> None:
    room, token = room_with_ann(server)

    async def run() -> None:
        async with websockets.connect(f"{server.ws}/ws/{room}?token={token}") as ann, websockets.connect(f"{server.ws}/ws/{room}") as watcher:
            await ann.send(json.dumps({"type": "chat", "text": "  <b>hi</b>   all  "}))
            for ws in (ann, watcher):
                line = await next_of(ws, "chat")
                assert (line["seat"], line["name"], line["text"]) == (0, "Ann", "<b>hi</b> all")
                assert isinstance(line["at"], float)
            await watcher.send(json.dumps({"type": "chat", "text": "hello"}))
            line = await next_of(ann, "chat")
            assert (line["seat"], line["name"]) == (None, "Spectator")
        async with websockets.connect(f"{server.ws}/ws/{room}") as late:
            first, second = await next_of(late, "chat"), await next_of(late, "chat")
            assert [first["text"], second["text"]] == ["<b>hi</b> all", "hello"]

    asyncio.run(run())


def test_chat_limits_length_blank_lines_and_rate(server: LiveServer) -> None:
    room, token = room_with_ann(server)

    async def run() -> None:
        async with websockets.connect(f"{server.ws}/ws/{room}?token={token}") as ann:
            await ann.send(json.dumps({"type": "chat", "id": 1, "text": "x" * (CHAT_MAX + 1)}))
            err = await next_of(ann, "error", 1)
            assert err["error"] == "bad_chat" and f"at most {CHAT_MAX} characters, got {CHAT_MAX + 1}" in err["message"]
            await ann.send(json.dumps({"type": "chat", "id": 2, "text": "   "}))
            assert (await next_of(ann, "error", 2))["error"] == "bad_chat"
            await ann.send(json.dumps({"type": "chat", "id": 3, "text": 5}))
            assert (await next_of(ann, "error", 3))["error"] == "bad_chat"
            count = CHAT_RATE[0]
            for i in range(count):
                await ann.send(json.dumps({"type": "chat", "id": 10 + i, "text": f"line {i}"}))
                assert (await next_of(ann, "chat"))["text"] == f"line {i}"
            await ann.send(json.dumps({"type": "chat", "id": 99, "text": "one too many"}))
            err = await next_of(ann, "error", 99)
            assert err["error"] == "rate_limited" and f"at most {count} chat lines" in err["message"]

    asyncio.run(run())
