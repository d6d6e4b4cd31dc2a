"""The HTTP API against the ASGI app: rooms, seats, tokens, moves, records, replays, bad input,
and a schemathesis run over the OpenAPI document."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient
from hypothesis import given

from server_helpers import dice_moves, live_server
from tabletris.engine.records import replay
from tabletris.server.app import create_app
from tabletris.server.limits import Limits
from tabletris.server.lobby import ROUTE_KEY

SMALL = {"width": 5, "height": 5}


@pytest.fixture
def client(db_url: str) -> Iterator[TestClient]:
    app = create_app(db_url, bot_delay=0, limits=Limits.unlimited_clients())
    with TestClient(app) as c:
        yield c


def new_room(c: TestClient, seats: list[dict[str, Any]] | None = None, **body: Any) -> dict[str, Any]:
    payload = {"game": "dice", "rules": SMALL, "seats": seats or [{"kind": "open"}, {"kind": "open"}], **body}
    r = c.post("/api/rooms", json=payload)
    assert r.status_code == 201, r.text
    return dict(r.json())


def seated(c: TestClient) -> tuple[str, dict[str, str], dict[str, str]]:
    room = new_room(c)
    a = c.post(f"/api/rooms/{room['id']}/join", json={"name": "Ann"}).json()
    b = c.post(f"/api/rooms/{room['id']}/join", json={"name": "Bob"}).json()
    return room["id"], {"X-Seat-Token": a["token"]}, {"X-Seat-Token": b["token"]}


def test_meta_lists_games_rules_help_bots_and_colours(client: TestClient) -> None:
    meta = client.get("/api/meta").json()
    assert set(meta["games"]) == {"dice", "tower"}
    dice = meta["games"]["dice"]
    assert {"standard", "long", "clear-rows"} <= set(dice["presets"])
    options = {o["name"]: o for o in dice["options"]}
    assert options["height"]["default"] == 20 and "long board" in options["height"]["help"]
    assert "advanced" in meta["games"]["tower"]["presets"]
    assert "random" in meta["bots"]
    assert meta["colours"]["T"] == "purple"


def test_meta_describes_each_game_from_its_spec(client: TestClient, monkeypatch: pytest.MonkeyPatch) -> None:
    """A front end builds its game list, seat forms and views from these fields alone."""
    from tabletris.bots.registry import bots_for
    from tabletris.engine.games import GAMES

    bot = "ext:./mybot"
    monkeypatch.setenv("TABLETRIS_EXT_ALLOW", bot)
    games = client.get("/api/meta").json()["games"]
    assert set(games) == set(GAMES)
    for name, entry in games.items():
        game = GAMES[name]
        assert (entry["title"], entry["label"]) == (game.title, game.label)
        assert entry["simultaneous"] is game.simultaneous
        assert (entry["min_seats"], entry["max_seats"]) == (game.min_players, game.max_players)
        assert entry["bots"] == [*bots_for(name), bot]
        assert entry["view"] == "/static/" + game.front_ends["web"]
    assert "mcts" in games["dice"]["bots"] and "mcts" not in games["tower"]["bots"]
    assert "oracle" in games["tower"]["bots"] and "oracle" not in games["dice"]["bots"]
    assert games["dice"]["view"] == "/static/js/views/dice.js"


def test_create_join_and_start(client: TestClient) -> None:
    room = new_room(client)
    assert room["status"] == "waiting" and all(s["open"] for s in room["seats"])
    a = client.post(f"/api/rooms/{room['id']}/join", json={"name": "Ann", "seat": 1})
    assert a.status_code == 200 and a.json()["seat"] == 1
    taken = client.post(f"/api/rooms/{room['id']}/join", json={"name": "Bob", "seat": 1})
    assert taken.status_code == 409 and taken.json()["error"] == "seat_taken"
    same = client.post(f"/api/rooms/{room['id']}/join", json={"name": " Ann "})
    assert same.status_code == 409 and same.json()["error"] == "name_taken"
    b = client.post(f"/api/rooms/{room['id']}/join", json={"name": "Bob"})
    assert b.json()["seat"] == 0
    state = client.get(f"/api/rooms/{room['id']}").json()
    assert state["room"]["status"] == "playing"
    assert state["private"] is None and state["you"] is None
    assert state["game"]["roll"] in ("I", "O", "T", "S", "L", "*")
    full = client.post(f"/api/rooms/{room['id']}/join", json={"name": "Cy"})
    assert full.status_code == 409 and full.json()["error"] == "room_full"
    listed = {r["id"] for r in client.get("/api/rooms?status=playing").json()}
    assert room["id"] in listed


def test_bad_rooms_are_refused_with_the_reason(client: TestClient) -> None:
    r = client.post("/api/rooms", json={"game": "dice", "rules": {"height": 2}, "seats": [{"kind": "open"}]})
    assert r.status_code == 422 and "rules.height" in r.json()["message"]
    r = client.post("/api/rooms", json={"game": "dice", "rules": {"colour": 1}, "seats": [{"kind": "open"}]})
    assert r.status_code == 422 and "rules.colour: unknown option" in r.json()["message"]
    r = client.post("/api/rooms", json={"game": "dice", "seats": [{"kind": "wizard"}]})
    assert r.status_code == 422 and "wizard" in r.json()["message"]
    r = client.post("/api/rooms", json={"game": "tower", "seats": [{"kind": "open"}] * 5})
    assert r.status_code == 422 and "1 to 4 seats" in r.json()["message"]
    r = client.post("/api/rooms", json={"game": "dice", "seats": [], "extra": 1})
    assert r.status_code == 422 and r.json()["error"] == "bad_request"
    r = client.post("/api/rooms/nope/join", json={"name": "Ann"})
    assert r.status_code == 404 and r.json()["error"] == "unknown_room"
    assert client.get("/api/rooms").json() == []  # nothing was stored


def test_seat_view_lists_legal_moves_and_moves_are_checked_by_the_engine(client: TestClient) -> None:
    room, ann, bob = seated(client)
    state = client.get(f"/api/rooms/{room}", headers=ann).json()
    assert state["you"] == 0 and state["private"]["options"]
    assert client.get(f"/api/rooms/{room}", headers=bob).json()["private"] is None
    wrong = client.get(f"/api/rooms/{room}", headers={"X-Seat-Token": "forged"})
    assert wrong.status_code == 403 and wrong.json()["error"] == "bad_token"
    move = dice_moves(state)[0]
    out_of_turn = client.post(f"/api/rooms/{room}/moves", json=move, headers=bob)
    assert out_of_turn.status_code == 409 and out_of_turn.json()["error"] == "not_your_turn"
    other_seat = client.post(f"/api/rooms/{room}/moves", json={**move, "seat": 1}, headers=ann)
    assert other_seat.status_code == 403 and other_seat.json()["error"] == "wrong_seat"
    floating = [[0, 4], [1, 4], [2, 4], [3, 4]] if state["game"]["roll"] == "I" else [[0, 3], [1, 3], [0, 4], [1, 4]]
    shape = state["game"]["roll"] if state["game"]["roll"] in ("I", "O") else None
    bad = client.post(f"/api/rooms/{room}/moves", json={"place": floating, "turn": state["game"]["turn"], **({"shape": shape} if shape else {})}, headers=ann)
    assert bad.status_code == 422 and bad.json()["error"] == "illegal"
    assert client.get(f"/api/rooms/{room}").json()["seq"] == 0  # the game is untouched
    malformed = client.post(f"/api/rooms/{room}/moves", json={"place": [["a", 1]]}, headers=ann)
    assert malformed.status_code == 422 and "place" in malformed.json()["message"]
    ok = client.post(f"/api/rooms/{room}/moves", json=move, headers=ann)
    assert ok.status_code == 200 and ok.json()["seq"] >= 1
    after = client.get(f"/api/rooms/{room}").json()
    assert after["game"]["log"][0]["place"] == move["place"]


def play_out(c: TestClient, room: str, tokens: list[dict[str, str]]) -> dict[str, Any]:
    for _ in range(200):
        public = c.get(f"/api/rooms/{room}").json()
        if public["game"]["over"]:
            return dict(public)
        seat = public["game"]["to_move"]
        state = c.get(f"/api/rooms/{room}", headers=tokens[seat]).json()
        r = c.post(f"/api/rooms/{room}/moves", json=dice_moves(state)[0], headers=tokens[seat])
        assert r.status_code == 200, r.text
    raise AssertionError("the game did not end")


def test_record_replay_and_rematch(client: TestClient) -> None:
    room, ann, bob = seated(client)
    live = client.get(f"/api/rooms/{room}/record")
    assert live.status_code == 409 and "reveal" in live.json()["message"]
    final = play_out(client, room, [ann, bob])
    record = client.get(f"/api/rooms/{room}/record?download=true")
    assert "attachment" in record.headers["content-disposition"]
    game = replay(record.json())
    assert game.over and game.scores == final["game"]["scores"]
    rep = client.get(f"/api/rooms/{room}/replay").json()
    assert len(rep["frames"]) == len(record.json()["moves"]) + 1
    assert rep["frames"][0]["stones"] == [] and rep["frames"][-1]["scores"] == final["game"]["scores"]
    upload = client.post("/api/replay", json=record.json())
    assert upload.status_code == 200 and upload.json()["summary"]["over"]
    broken = json.loads(json.dumps(record.json()))
    broken["moves"][0]["place"] = [[0, 4], [0, 3], [0, 2], [1, 2]]
    bad = client.post("/api/replay", json=broken)
    assert bad.status_code == 422 and bad.json()["message"].startswith("move 1 (Ann)")
    assert client.post("/api/replay", json={"format": "x"}).json()["message"].startswith("key 'format'")
    again = client.post(f"/api/rooms/{room}/rematch", headers=bob)
    assert again.status_code == 200
    new = again.json()
    assert new["room"] != room and new["seat"] == 1
    assert new["room"][:ROUTE_KEY] == room[:ROUTE_KEY] and len(new["room"]) == len(room), "a rematch keeps its game's route key"
    assert client.post(f"/api/rooms/{room}/rematch", headers=ann).json()["room"] == new["room"]
    assert client.get(f"/api/rooms/{new['room']}").json()["room"]["status"] == "playing"
    # The loser of the game before starts the rematch (the engine's match rule).
    from tabletris.engine.dice import next_starter

    starter = next_starter(game)
    again_state = client.get(f"/api/rooms/{new['room']}").json()
    assert again_state["room"]["rules"]["first_player"] == starter
    assert again_state["game"]["to_move"] == starter


def test_oversized_body_is_refused(client: TestClient) -> None:
    r = client.post("/api/replay", content=b"{" + b" " * (2 * 1024 * 1024) + b"}", headers={"Content-Type": "application/json"})
    assert r.status_code == 413 and r.json()["error"] == "too_large"
    assert client.get("/api/meta").status_code == 200


def test_bot_only_room_plays_itself_to_the_end(client: TestClient) -> None:
    room = new_room(client, seats=[{"kind": "random"}, {"kind": "random"}])
    for _ in range(200):
        state = client.get(f"/api/rooms/{room['id']}").json()
        if state["room"]["status"] == "over":
            break
        import time

        time.sleep(0.02)
    assert state["game"]["over"] and state["room"]["status"] == "over"
    assert replay(client.get(f"/api/rooms/{room['id']}/record").json()).over


def test_pages_are_served(client: TestClient) -> None:
    for path in ("/", "/room/abc", "/replay", "/replay/abc", "/static/js/room.js", "/static/style.css"):
        assert client.get(path).status_code == 200, path
    assert "tabletris" in client.get("/openapi.json").json()["info"]["title"]


def test_schemathesis_finds_no_server_error(tmp_path: Path) -> None:
    """Property-based requests from the OpenAPI document against a live server on 127.0.0.1:
    no 5xx, every status documented, every response body and content type fits its schema, and
    the documented headers are sent. (The CLI's every check, ``schemathesis run --checks all``,
    also finds requests the schema allows that the games refuse: a tower in the dice game, an
    empty record; docs/api.md.)"""
    import schemathesis
    from hypothesis import HealthCheck, settings
    from schemathesis.checks import not_a_server_error
    from schemathesis.specs.openapi.checks import (
        content_type_conformance,
        response_headers_conformance,
        response_schema_conformance,
        status_code_conformance,
    )

    checks = [
        not_a_server_error, response_schema_conformance, status_code_conformance,
        content_type_conformance, response_headers_conformance,
    ]
    with live_server(tmp_path / "st.sqlite3") as server:
        httpx.post(server.url + "/api/rooms", json={"game": "dice", "seats": [{"kind": "open"}]})
        schema = schemathesis.openapi.from_url(server.url + "/openapi.json")
        failures: list[str] = []
        calls: list[int] = []
        operations = 0
        for result in schema.get_all_operations():
            op = result.ok()
            operations += 1

            @settings(max_examples=15, deadline=None, suppress_health_check=list(HealthCheck), database=None)
            @given(case=op.as_strategy())
            def check(case: Any) -> None:
                calls.append(1)
                try:
                    case.call_and_validate(base_url=server.url, checks=checks)
                except Exception as e:  # collect every finding, then fail once with all of them
                    failures.append(f"{case.method} {case.formatted_path}: {type(e).__name__}: {str(e)[:400]}")

            check()
        assert operations >= 9 and len(calls) >= 5 * operations
        assert not failures, "\n".join(failures[:10])


def test_external_bots_sit_only_when_the_operator_allows_them(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An ext: seat runs a program on the server: refused unless listed in TABLETRIS_EXT_ALLOW."""
    bot = f"ext:{Path(__file__).resolve().parent.parent / 'examples' / 'random_bot.py'}"
    payload = {"game": "dice", "rules": SMALL, "seats": [{"kind": bot}, {"kind": "random"}]}
    refused = client.post("/api/rooms", json=payload)
    assert refused.status_code == 422 and "is not 'open' or a bot" in refused.text
    monkeypatch.setenv("TABLETRIS_EXT_ALLOW", bot)
    assert bot in client.get("/api/meta").json()["bots"]
    room = new_room(client, seats=payload["seats"])
    state: dict[str, Any] = {}
    for _ in range(400):
        state = client.get(f"/api/rooms/{room['id']}").json()
        if state["room"]["status"] == "over":
            break
        import time

        time.sleep(0.02)
    assert state["game"]["over"]
    game = replay(client.get(f"/api/rooms/{room['id']}/record").json())
    assert game.over and any(m.player == 0 for m in game.moves)
