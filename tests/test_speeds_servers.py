"""Deadlines and game clocks survive a killed server and an instance taking a room over (issue
26 item 1): real ``tabletris serve`` processes on 127.0.0.1, time moved ahead through each
server's own time source (``--debug-time``: ``POST /debug/time``), never slept through. Every
wait is for a state, within a bound."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest

from server_helpers import ServeProcess, create_room, dice_moves, join

pytestmark = pytest.mark.slow

SMALL = {"width": 5, "height": 6}
DAY = 86400.0


def state(base: str, room: str, token: str | None = None) -> dict[str, Any]:
    headers = {"X-Seat-Token": token} if token else {}
    r = httpx.get(f"{base}/api/rooms/{room}", headers=headers, timeout=10)
    assert r.status_code == 200, r.text
    return dict(r.json())


def advance(base: str, seconds: float) -> float:
    r = httpx.post(base + "/debug/time", json={"advance": seconds}, timeout=10)
    assert r.status_code == 200, r.text
    return float(r.json()["now"])


def wait_for(check: Callable[[], Any], timeout: float = 30.0, what: str = "a state") -> Any:
    end = time.monotonic() + timeout
    while True:
        found = check()
        if found:
            return found
        assert time.monotonic() < end, f"timed out waiting for {what}"
        time.sleep(0.1)


def move(base: str, room: str, token: str) -> httpx.Response:
    s = state(base, room, token)
    return httpx.post(f"{base}/api/rooms/{room}/moves", json=dice_moves(s)[0], headers={"X-Seat-Token": token}, timeout=10)


def test_debug_time_is_off_unless_asked_for(tmp_path: Path) -> None:
    server = ServeProcess(tmp_path / "plain.sqlite3").start()
    try:
        assert httpx.post(server.url + "/debug/time", json={"advance": 10}, timeout=10).status_code == 404
    finally:
        server.stop()


def test_a_killed_server_keeps_the_deadline_and_the_clocks(tmp_path: Path) -> None:
    """A turn-based room and a room with game clocks, a move made on each, then ``kill -9``: the
    restarted server shows the same turn start, deadline and clocks (the old code gave the
    player to move a whole new turn), and its timer plays when the deadline passes."""
    db = tmp_path / "restart.sqlite3"
    server = ServeProcess(db, extra=["--debug-time"]).start()
    try:
        base = server.url
        turn = create_room(base, {"game": "dice", "rules": SMALL, "seats": [{"kind": "open"}] * 2,
                                  "speed": {"mode": "turn", "per_move": DAY}})["id"]
        turn_tokens = [join(base, turn, f"T{i}")["token"] for i in range(2)]
        clock = create_room(base, {"game": "dice", "rules": SMALL, "seats": [{"kind": "open"}] * 2,
                                   "speed": {"mode": "realtime", "initial": 600, "increment": 10}})["id"]
        clock_tokens = [join(base, clock, f"C{i}")["token"] for i in range(2)]
        advance(base, 100)
        for room, tokens in ((turn, turn_tokens), (clock, clock_tokens)):
            mover = state(base, room)["game"]["to_move"]
            assert move(base, room, tokens[mover]).status_code == 200
        before = {room: state(base, room)["room"] for room in (turn, clock)}
        mover = state(base, clock)["game"]["to_move"]
        left = before[clock]["clocks"][1 - mover]["left"]
        assert 480 <= left <= 510, "600 - (100 moved + what the moves took) + 10"
        assert before[turn]["deadline"] == before[turn]["turn_started"] + DAY
        server.kill9()
    finally:
        server.stop()

    restarted = ServeProcess(db, port=server.port, extra=["--debug-time"]).start()
    try:
        base = restarted.url
        for room in (turn, clock):
            after = state(base, room)["room"]
            for key in ("turn_started", "deadline", "clocks", "speed"):
                assert after[key] == before[room][key], (room, key)
        # A day later the turn-based turn is played by the timer (this server's clock starts
        # from the real time again: the first one's was 100 s ahead).
        events = state(base, turn)["room"]["events"]
        assert advance(base, DAY + 200) > before[turn]["deadline"]
        played = wait_for(lambda: (s := state(base, turn))["room"]["events"] > events and s, what="the timer's move")
        assert played["game"]["log"][-1]["by"] == "timer"
    finally:
        restarted.stop()


def test_two_instances_show_one_deadline_refuse_a_late_move_and_take_the_timer_over(
    postgres_cluster: str, redis_url: str,
) -> None:
    """Two instances on PostgreSQL + Redis: a turn-based room created on the first (the lease
    holder) shows the same deadline and game clocks on the second; a move that reaches the
    second after its deadline (its clock moved ahead) is ``too_late`` and changes nothing;
    once the first is killed, the second takes the room over with the same deadline, and its
    timer plays when the deadline passes."""
    from services import new_database

    db = new_database(postgres_cluster)
    extra = ["--redis", redis_url, "--lease-ttl", "2", "--debug-time"]
    holder = ServeProcess(db, extra=extra).start()  # type: ignore[arg-type]
    other = ServeProcess(db, extra=extra).start()  # type: ignore[arg-type]
    try:
        room = create_room(holder.url, {"game": "dice", "rules": SMALL, "seats": [{"kind": "open"}] * 2,
                                        "speed": {"mode": "turn", "per_move": DAY}})["id"]
        tokens = [join(holder.url, room, f"P{i}")["token"] for i in range(2)]
        clocked = create_room(holder.url, {"game": "dice", "rules": SMALL, "seats": [{"kind": "open"}] * 2,
                                           "speed": {"mode": "realtime", "initial": 300, "increment": 5}})["id"]
        clocked_tokens = [join(holder.url, clocked, f"Q{i}")["token"] for i in range(2)]
        mover = state(holder.url, clocked)["game"]["to_move"]
        assert move(other.url, clocked, clocked_tokens[mover]).status_code == 200
        mine = state(holder.url, room)["room"]
        for r in (room, clocked):
            seen = wait_for(lambda r=r: (s := state(other.url, r)["room"])["events"] == state(holder.url, r)["room"]["events"] and s)
            theirs = state(holder.url, r)["room"]
            for key in ("turn_started", "deadline", "clocks"):
                assert seen[key] == theirs[key], (r, key)
        assert mine["deadline"] == mine["turn_started"] + DAY

        # The second instance's clock is a day and a second ahead: a move sent there is late.
        mover = state(other.url, room)["game"]["to_move"]
        events = mine["events"]
        advance(other.url, DAY + 1)
        late = move(other.url, room, tokens[mover])
        assert late.status_code == 409 and late.json()["error"] == "too_late", late.text
        assert state(holder.url, room)["room"]["events"] == events, "the late move was not stored"

        holder.kill9()
        # The second takes the room over (the lease expires in 2 s): its timer, a day and a
        # second ahead, plays the turn at once, for the deadline the first instance set.
        played = wait_for(lambda: (s := state(other.url, room))["room"]["events"] > events and s, 60, "the takeover's timer")
        assert played["game"]["log"][-1]["by"] == "timer"
        assert played["room"]["turn_started"] >= mine["deadline"], "the next turn began after the old deadline"
    finally:
        holder.stop()
        other.stop()
