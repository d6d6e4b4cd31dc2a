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


@pytest.mark.parametrize(("game", "bot"), [("tower", "mcts"), ("dice", "oracle")])
def test_a_bot_the_game_does_not_offer_is_refused(client: TestClient, game: str, bot: str) -> None:
    """The spec decides which bots a game offers; a seat for another one used to be accepted (201),
    and every turn of it then fell to the timer's random move."""
    r = client.post("/api/rooms", json={"game": game, "seats": [{"kind": bot}, {"kind": "random"}]})
    assert r.status_code == 422, r.text
    body = r.json()
    assert body["error"] == "bad_seats"
    assert body["message"].startswith(f"seats[0]: the {bot} bot plays only the ") and game in body["message"]
    assert body["text"]["template"] == "seats[{seat}]: {reason}", "a catalog message: translated pages read it"
    assert body["text"]["params"]["reason"]["params"]["bot"] == bot
    assert client.get("/api/rooms").json() == []  # nothing was stored


def test_the_timer_bot_sits_in_every_game_that_offers_it(client: TestClient) -> None:
    from tabletris.server.rooms import TIMER_BOT

    for name, entry in client.get("/api/meta").json()["games"].items():
        assert TIMER_BOT in entry["bots"]
        r = client.post("/api/rooms", json={"game": name, "rules": {}, "seats": [{"kind": TIMER_BOT}, {"kind": "open"}]})
        assert r.status_code == 201, r.text


def test_outside_programs_only_where_the_game_takes_them(
    client: TestClient, third: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TABLETRIS_EXT_ALLOW", "ext:./mybot")
    assert "ext:./mybot" not in client.get("/api/meta").json()["games"][third]["bots"]
    r = client.post("/api/rooms", json={"game": third, "seats": [{"kind": "ext:./mybot"}, {"kind": "open"}]})
    assert r.status_code == 422
    assert r.json()["message"] == "seats[0]: the third game takes no outside programs"


def test_a_rematch_seats_only_bots_the_game_still_offers(client: TestClient, monkeypatch: pytest.MonkeyPatch) -> None:
    """The rematch seats the last game's bots again, through the same check as a new room."""
    from dataclasses import replace

    from tabletris.engine.games import DICE, GAMES

    room = client.post("/api/rooms", json={"game": "dice", "rules": SMALL, "seats": [{"kind": "open"}, {"kind": "random"}]}).json()
    ann = {"X-Seat-Token": client.post(f"/api/rooms/{room['id']}/join", json={"name": "Ann"}).json()["token"]}
    from server_helpers import dice_moves

    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        state = client.get(f"/api/rooms/{room['id']}", headers=ann).json()
        if state["game"]["over"]:
            break
        if state["private"] is not None:
            client.post(f"/api/rooms/{room['id']}/moves", json=dice_moves(state)[0], headers=ann)
        else:
            time.sleep(0.02)
    assert state["game"]["over"]
    monkeypatch.setitem(GAMES, "dice", replace(DICE, bots=("greedy", "expert")))
    r = client.post(f"/api/rooms/{room['id']}/rematch", headers=ann)
    assert r.status_code == 422 and r.json()["error"] == "bad_seats", r.text
    assert "the random bot" in r.json()["message"]


def test_the_refusal_reads_in_the_players_language() -> None:
    from tabletris.bots.registry import bot_refusal
    from tabletris.engine.texts import Message
    from tabletris.i18n import translate

    refusal = bot_refusal("mcts", "tower")
    assert refusal is not None
    message = Message("seats[{seat}]: {reason}", seat=0, reason=refusal)
    czech = translate(message, "cs", domain="web")
    assert czech.startswith("seats[0]: bot mcts hraje jen hru dice: ") and "ISMCTSBot" in czech
    assert "机器人只玩" in translate(message, "zh_CN", domain="web")
