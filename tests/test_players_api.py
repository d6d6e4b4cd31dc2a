"""The profile and the ranking over HTTP (issue 25 item 2): a logged-in player's rated game shows
on their profile and in the game's ranking, paginated; unknown names and games are refused."""

from __future__ import annotations

from pathlib import Path

import httpx

from account_helpers import logged_in
from server_helpers import create_room, live_server
from web_helpers import wait_until


def test_a_rated_game_shows_on_the_profile_and_in_the_ranking(tmp_path: Path) -> None:
    with live_server(tmp_path / "players.sqlite3") as server:
        ann = logged_in(server.url, "Ann")
        try:
            room = create_room(server.url, {"game": "dice", "rated": True, "seats": [{"kind": "open"}, {"kind": "greedy"}]})["id"]
            joined = ann.post(f"/api/rooms/{room}/join", json={"name": "whatever"})
            assert joined.status_code == 200, joined.text
            left = ann.post(f"/api/rooms/{room}/leave", headers={"X-Seat-Token": joined.json()["token"]})
            assert left.json()["done"] == "resigned", left.text

            def profile() -> dict:
                answer = httpx.get(server.url + "/api/players/ann", timeout=10)
                assert answer.status_code == 200, answer.text
                return answer.json()

            wait_until(lambda: profile()["games"].get("dice", {}).get("played") == 1, 60, "the rated game on the profile")
            shown = profile()
            assert shown["username"] == "Ann"
            dice = shown["games"]["dice"]
            assert dice["won"] == 0 and dice["rating"] < 1000
            assert [h["room"] for h in dice["history"]] == [room]
            assert shown["recent"][0]["replay"] == f"/replay/{room}" and shown["recent"][0]["rated"] is True

            ranking = httpx.get(server.url + "/api/ratings/dice", timeout=10).json()
            assert ranking["total"] == 1
            assert ranking["players"] == [{"rank": 1, "username": "Ann", "rating": dice["rating"], "games": 1}]
            later = httpx.get(server.url + "/api/ratings/dice?offset=1&limit=10", timeout=10).json()
            assert (later["total"], later["offset"], later["players"]) == (1, 1, [])
        finally:
            ann.close()


def test_unknown_players_and_games_and_bad_pages_are_refused(tmp_path: Path) -> None:
    with live_server(tmp_path / "refused.sqlite3") as server:
        nobody = httpx.get(server.url + "/api/players/nobody", timeout=10)
        assert nobody.status_code == 404 and "nobody" in nobody.json()["message"]
        chess = httpx.get(server.url + "/api/ratings/chess", timeout=10)
        assert chess.status_code == 404 and "chess" in chess.json()["message"]
        assert httpx.get(server.url + "/api/ratings/dice?limit=0", timeout=10).status_code == 422
        assert httpx.get(server.url + "/api/ratings/dice", timeout=10).json() == {"game": "dice", "total": 0, "offset": 0, "players": []}
