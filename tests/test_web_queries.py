"""The dice token query the web client's token picker asks, over a real websocket."""

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
from tabletris.engine.dice import DiceGame


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    with live_server(Path(tmp_path_factory.mktemp("query")) / "query.sqlite3") as s:
        yield s


async def reply(ws: Any, id_: int) -> dict[str, Any]:
    while True:
        msg = json.loads(await asyncio.wait_for(ws.recv(), 10))
        if msg.get("id") == id_:
            return dict(msg)


def test_dice_query_names_the_default_tokens_as_the_engine_takes_them(server: LiveServer) -> None:
    rules = {"width": 4, "die": ["I"]}
    room = httpx.post(server.url + "/api/rooms", json={"game": "dice", "rules": rules, "seats": [{"kind": "open"}, {"kind": "open"}]}).json()["id"]
    ann = httpx.post(f"{server.url}/api/rooms/{room}/join", json={"name": "Ann"}).json()["token"]
    bob = httpx.post(f"{server.url}/api/rooms/{room}/join", json={"name": "Bob"}).json()["token"]
    row = [[0, 0], [1, 0], [2, 0], [3, 0]]
    expected = DiceGame(["Ann", "Bob"], rules, seed=0)
    expected.roll("I")
    want = [t.value for t in expected.play(row).tokens or ()]
    assert want  # a full row is a point, and the point takes a token

    async def run() -> None:
        async with websockets.connect(f"{server.ws}/ws/{room}?token={ann}") as a, websockets.connect(f"{server.ws}/ws/{room}?token={bob}") as b:
            await a.send(json.dumps({"type": "query", "id": 1, "place": row}))
            answer = await reply(a, 1)
            assert answer["type"] == "answer" and answer["tokens"] == want and answer["choices"] == ["I"]
            await a.send(json.dumps({"type": "query", "id": 2, "place": [[0, 5], [1, 5], [2, 5], [3, 5]]}))
            err = await reply(a, 2)
            assert err["error"] == "illegal" and "rest" in err["message"]
            await b.send(json.dumps({"type": "query", "id": 3, "place": row}))
            assert (await reply(b, 3))["error"] == "not_your_turn"
            # asking changed nothing: the move is still Ann's to make, and takes the same token
            await a.send(json.dumps({"type": "move", "id": 4, "place": row}))
            assert (await reply(a, 4))["type"] == "ack"
        assert httpx.get(f"{server.url}/api/rooms/{room}").json()["game"]["tokens"][0] == want

    asyncio.run(run())
