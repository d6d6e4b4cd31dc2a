"""The web table's API with point tokens (issue 11): a person names the tokens with the move, the
state shows the tokens that left the supply, a bad token is refused in the engine's words."""

from __future__ import annotations

from pathlib import Path

from fastapi.testclient import TestClient

from tabletris.server.app import create_app

ROW0 = [[0, 0], [1, 0], [2, 0], [3, 0]]


def test_a_person_names_the_point_token(tmp_path: Path) -> None:
    app = create_app(f"sqlite+aiosqlite:///{tmp_path / 'tokens.sqlite3'}", bot_delay=0)
    with TestClient(app) as c:
        rules = {"width": 4, "height": 6, "die": ["I"], "supply": 1}  # I: 2 in the supply
        room = c.post("/api/rooms", json={"game": "dice", "rules": rules, "seats": [{"kind": "open"}, {"kind": "open"}]}).json()
        ann = c.post(f"/api/rooms/{room['id']}/join", json={"name": "Ann"}).json()
        c.post(f"/api/rooms/{room['id']}/join", json={"name": "Bob"})
        headers = {"X-Seat-Token": ann["token"]}
        assert c.get(f"/api/rooms/{room['id']}").json()["game"]["roll"] == "I"
        bad = c.post(f"/api/rooms/{room['id']}/moves", headers=headers, json={"place": ROW0, "tokens": ["T"]})
        assert bad.status_code == 422 and "tokens: T is not a shape of the supply (I)" in bad.json()["message"]
        ok = c.post(f"/api/rooms/{room['id']}/moves", headers=headers, json={"place": ROW0, "tokens": ["I"]})
        assert ok.status_code == 200, ok.text
        game = c.get(f"/api/rooms/{room['id']}").json()["game"]
        assert game["tokens"] == [["I"], []] and game["supply"] == {"I": 0}
        assert game["log"][-1]["tokens"] == ["I"]
