"""The server serves every registered game with a server front end, and only the bots each
game's spec offers."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

from tabletris.engine.games import register, unregister
from tabletris.server.app import create_app
from tabletris.server.games import ADAPTERS, adapter_for
from tabletris.server.limits import Limits

SMALL = {"width": 5, "height": 5}


@pytest.fixture
def client(db_url: str) -> Iterator[TestClient]:
    app = create_app(db_url, bot_delay=0, limits=Limits.unlimited_clients())
    with TestClient(app) as c:
        yield c


@pytest.fixture
def third() -> Iterator[str]:
    from server_third_game import THIRD

    register(THIRD)
    try:
        yield THIRD.name
    finally:
        unregister(THIRD.name)


def wait_for(client: TestClient, room_id: str, status: str, seconds: float = 60.0) -> dict[str, Any]:
    deadline = time.monotonic() + seconds
    state: dict[str, Any] = {}
    while time.monotonic() < deadline:
        state = client.get(f"/api/rooms/{room_id}").json()
        if state["room"]["status"] == status:
            return state
        time.sleep(0.05)
    raise AssertionError(f"room {room_id} is {state['room']['status']}, not {status}")


def test_a_game_registered_later_is_served(client: TestClient, third: str) -> None:
    """No shared server file names a game: a third one registered after start-up is listed,
    created and played like the built-in ones."""
    assert third in ADAPTERS and adapter_for(third).name == third
    meta = client.get("/api/meta").json()["games"]
    assert meta[third]["title"] == "Third Tetris" and meta[third]["bots"] == ["random", "greedy"]
    assert meta[third]["view"] is None
    r = client.post("/api/rooms", json={"game": third, "rules": SMALL, "seats": [{"kind": "random"}] * 2})
    assert r.status_code == 201, r.text
    state = wait_for(client, r.json()["id"], "over")
    assert state["game"]["game"] == third and state["room"]["game"] == third


def test_an_unknown_game_is_refused_with_the_games_served(client: TestClient, third: str) -> None:
    r = client.post("/api/rooms", json={"game": "chess", "seats": [{"kind": "open"}]})
    assert r.status_code == 422
    assert r.json() == {"error": "bad_request", "message": "game: Input should be 'dice', 'tower' or 'third'"}
