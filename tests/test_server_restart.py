"""Crash recovery: ``tabletris serve`` killed with SIGKILL loses no acknowledged move.

The server runs as a child process with a temporary SQLite database. Moves are played over HTTP
(a 200 is the acknowledgement); the process is killed with -9 in the middle of the game, started
again on the same database, and every acknowledged move must be there, in order, with the seats'
tokens still valid and private tower submissions still pending.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import httpx
import pytest

from server_helpers import ServeProcess, dice_moves, tower_moves

pytestmark = pytest.mark.slow


def seat_state(base: str, room: str, token: str) -> dict[str, Any]:
    r = httpx.get(f"{base}/api/rooms/{room}", headers={"X-Seat-Token": token}, timeout=10)
    assert r.status_code == 200, r.text
    return dict(r.json())


def test_kill_9_loses_no_acknowledged_move(tmp_path: Path) -> None:
    db = tmp_path / "crash.sqlite3"
    server = ServeProcess(db).start()
    try:
        base = server.url
        room = httpx.post(base + "/api/rooms", json={"game": "dice", "seats": [{"kind": "open"}, {"kind": "open"}]}).json()["id"]
        tokens = [httpx.post(f"{base}/api/rooms/{room}/join", json={"name": n}).json()["token"] for n in ("Ann", "Bob")]
        tower = httpx.post(base + "/api/rooms", json={"game": "tower", "seats": [{"kind": "open"}] * 3}).json()["id"]
        tower_tokens = [httpx.post(f"{base}/api/rooms/{tower}/join", json={"name": f"T{i}"}).json()["token"] for i in range(3)]
        # A tower round with one private submission pending when the server dies.
        t0 = seat_state(base, tower, tower_tokens[0])
        pending = tower_moves(t0)[0]
        assert httpx.post(f"{base}/api/rooms/{tower}/moves", json=pending, headers={"X-Seat-Token": tower_tokens[0]}).status_code == 200

        acked: list[dict[str, Any]] = []
        stop = threading.Event()

        def play() -> None:
            """Play dice moves as fast as they are acknowledged until the server dies."""
            with httpx.Client(timeout=5) as client:
                while not stop.is_set():
                    try:
                        public = client.get(f"{base}/api/rooms/{room}").json()
                        if public["game"]["over"]:
                            return
                        seat = public["game"]["to_move"]
                        headers = {"X-Seat-Token": tokens[seat]}
                        state = client.get(f"{base}/api/rooms/{room}", headers=headers).json()
                        move = dice_moves(state)[-1]
                        r = client.post(f"{base}/api/rooms/{room}/moves", json=move, headers=headers)
                    except httpx.HTTPError:
                        return  # the server is gone: this move was never acknowledged
                    if r.status_code == 200:
                        acked.append({"seq": r.json()["seq"], "player": seat, "place": move["place"]})

        player = threading.Thread(target=play)
        player.start()
        while len(acked) < 12 and player.is_alive():
            stop.wait(0.01)
        server.kill9()
        stop.set()
        player.join(10)
        assert len(acked) >= 12
    finally:
        server.stop()

    restarted = ServeProcess(db, port=server.port).start()
    try:
        base = restarted.url
        state = seat_state(base, room, tokens[0])
        log = state["game"]["log"]
        assert state["seq"] >= acked[-1]["seq"], "every acknowledged move survived"
        assert acked[0]["seq"] - 1 >= state["game"]["log_start"], "the log sent holds every move played here"
        for ack in acked:
            move = log[ack["seq"] - 1 - state["game"]["log_start"]]
            assert (move["player"], move["place"]) == (ack["player"], ack["place"])
        assert state["you"] == 0, "the token still holds its seat"
        # the game goes on where it stopped
        if not state["game"]["over"]:
            mover = state["game"]["to_move"]
            s = seat_state(base, room, tokens[mover])
            r = httpx.post(f"{base}/api/rooms/{room}/moves", json=dice_moves(s)[0], headers={"X-Seat-Token": tokens[mover]})
            assert r.status_code == 200 and r.json()["seq"] == state["seq"] + 1
        # the pending tower submission is still there, still private
        t0 = seat_state(base, tower, tower_tokens[0])
        assert {**t0["private"]["pending"], "round": pending["round"]} == pending
        assert t0["game"]["submitted"] == [True, False, False]
        assert seat_state(base, tower, tower_tokens[1])["private"]["pending"] is None
    finally:
        restarted.stop()
