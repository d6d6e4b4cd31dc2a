"""The lobby list's filters (``GET /api/rooms``: game, preset, seats, rated, list=open|recent),
answered from the cached list (server/listing.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx

from server_helpers import LiveServer, create_room, join, live_server
from tabletris.server.listing import Filters
from web_helpers import finished_room, wait_until


def ids(server: LiveServer, **query: Any) -> list[str]:
    answer = httpx.get(server.url + "/api/rooms", params=query, timeout=10)
    assert answer.status_code == 200, answer.text
    return [room["id"] for room in answer.json()]


def test_the_lobby_filters_by_game_preset_open_seats_and_rated(tmp_path: Path) -> None:
    with live_server(tmp_path / "lobby.sqlite3") as server:
        two_open = create_room(server.url, {"game": "dice", "seats": [{"kind": "open"}, {"kind": "open"}]})["id"]
        rated = create_room(server.url, {"game": "dice", "rated": True, "seats": [{"kind": "open"}, {"kind": "greedy"}]})["id"]
        tower = create_room(server.url, {"game": "tower", "seats": [{"kind": "open"}, {"kind": "greedy"}]})["id"]
        other = create_room(server.url, {"game": "dice", "rules": {"preset": "long"}, "seats": [{"kind": "open"}, {"kind": "open"}]})["id"]
        full = create_room(server.url, {"game": "dice", "seats": [{"kind": "open"}, {"kind": "open"}]})["id"]
        join(server.url, full, "Ann")
        assert set(ids(server, game="tower")) == {tower}
        assert set(ids(server, game="dice", preset="standard")) == {two_open, rated, full}
        assert set(ids(server, preset="long")) == {other}
        assert set(ids(server, seats=2)) == {two_open, other}
        assert set(ids(server, rated="true")) == {rated}
        assert rated not in ids(server, rated="false")
        assert set(ids(server, list="open")) == {two_open, rated, tower, other, full}
        assert set(ids(server, list="open", game="dice", seats=2)) == {two_open, other}
        bad = httpx.get(server.url + "/api/rooms", params={"list": "all"}, timeout=10)
        assert bad.status_code == 422 and bad.json()["error"] == "bad_request"


def test_finished_games_go_to_the_recent_list_not_the_open_one(tmp_path: Path) -> None:
    with live_server(tmp_path / "recent.sqlite3") as server:
        waiting = create_room(server.url, {"game": "dice", "seats": [{"kind": "open"}, {"kind": "open"}]})["id"]
        done = finished_room(server, "dice", {"preset": "standard"})
        wait_until(lambda: done in ids(server, list="recent"), 20, "the ended room in the recent list")
        assert ids(server, list="recent") == [done]
        assert done not in ids(server, list="open") and waiting in ids(server, list="open")
        assert ids(server, list="recent", game="tower") == []
        assert ids(server, list="open", status="over") == []


def test_filters_decide_which_statuses_a_list_may_show() -> None:
    assert Filters(list="open").statuses(None) == ("waiting",)
    assert Filters(list="recent").statuses("playing") == ()
    assert Filters().statuses("over") == ("over",)
    assert Filters(list="open").keeps("dice", "standard", 0, False) is False
    assert Filters(seats=2).keeps("dice", "standard", 2, False) is True
