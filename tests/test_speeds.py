"""Speeds (issue 26 item 1): untimed, real-time (a per-move timer or a Fischer game clock) and
turn-based rooms; the clock arithmetic (hypothesis), the contract of ``speed``, deadlines and
clocks worked out from what is stored, ``too_late``, ``expel`` and the turn-began hook.

Time is moved with the server's own time source (``timesource.advance``), never slept through;
each test puts the offset back (the process's other servers share the module)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import sqlite3
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from server_helpers import dice_moves, tower_moves, until
from tabletris.server import timesource
from tabletris.server.errors import ActionError
from tabletris.server.limits import Limits
from tabletris.server.lobby import Lobby
from tabletris.server.rooms import Room
from tabletris.server.speeds import Clocks, Speed, check_speed
from tabletris.server.storage import Storage

SMALL = {"width": 5, "height": 6}
DAY = 86400.0


# ---------------------------------------------------------------------- the clock arithmetic

seconds = st.floats(min_value=0, max_value=1e5, allow_nan=False, allow_infinity=False)


@given(
    initial=st.floats(min_value=1, max_value=1e4), increment=st.floats(min_value=0, max_value=300),
    moves=st.lists(st.tuples(st.integers(0, 2), seconds), max_size=40),
)
def test_a_game_clock_never_goes_negative_and_gains_the_increment_only_in_time(
    initial: float, increment: float, moves: list[tuple[int, float]],
) -> None:
    """Three seats taking turns (any seat, any time used): a seat that moves in time is charged
    what it used and gains the increment; one that used all its time stays at zero."""
    clocks = Clocks.start(initial, [True, True, True])
    started = 1000.0
    for seat, spend in moves:
        before = clocks.left[seat]
        assert before is not None
        used = (started + spend) - started  # what the clock sees, in floating point
        assert clocks.remaining(seat, started, started + spend, running=True) == max(0.0, before - used)
        clocks = clocks.acted(seat, started, started + spend).next_turn(increment)
        after = clocks.left[seat]
        assert after is not None and after >= 0
        if used < before:
            assert after == pytest.approx(before - used + increment)
        else:
            assert after == 0.0, "a clock that ran out stays at zero"
        others = [clocks.left[s] for s in range(3) if s != seat]
        assert all(x is not None and x >= 0 for x in others)
        started += spend


@given(left=seconds, started=seconds, now=st.floats(min_value=-1e5, max_value=1e6, allow_nan=False))
def test_what_a_clock_shows_is_between_zero_and_what_it_had(left: float, started: float, now: float) -> None:
    clocks = Clocks((left, None), (None, None))
    for running in (True, False):
        shown = clocks.remaining(0, started, now, running)
        assert shown is not None and 0 <= shown <= left
    assert clocks.remaining(1, started, now, True) is None, "a bot's seat has no clock"
    assert clocks.deadline(0, started) == started + left


@given(initial=st.floats(min_value=1, max_value=1e4), increment=st.floats(min_value=0, max_value=60),
       used=st.lists(seconds, min_size=2, max_size=4))
def test_a_tower_round_charges_each_seat_its_own_time(initial: float, increment: float, used: list[float]) -> None:
    """Seats submitting one after another in a round: each clock stops at its own submission
    (shown stopped meanwhile), and the round's end charges each its own time."""
    clocks = Clocks.start(initial, [True] * len(used))
    for seat, u in enumerate(used):
        clocks = clocks.acted(seat, 0.0, u)
        assert clocks.remaining(seat, 0.0, 1e9, running=True) == max(0.0, initial - u), "stopped at its submission"
    clocks = clocks.next_turn(increment)
    for seat, u in enumerate(used):
        assert clocks.left[seat] == (pytest.approx(initial - u + increment) if u < initial else 0.0)
    assert clocks.used == (None,) * len(used)
    assert Clocks.parse(clocks.text()) == clocks, "stored and read back unchanged"


# ---------------------------------------------------------------------- the contract


def test_a_speed_is_checked_against_the_servers_limits() -> None:
    limits = Limits()
    assert check_speed(limits, {"mode": "untimed"}, None, True) == Speed()
    assert check_speed(limits, {"mode": "turn", "per_move": DAY}, None, True) == Speed("turn", per_move=DAY)
    assert check_speed(limits, {"mode": "realtime", "initial": 300, "increment": 5}, None, True) == Speed(
        "realtime", initial=300, increment=5)
    assert check_speed(limits, {"mode": "realtime", "initial": 300}, None, True).increment == 0
    assert check_speed(limits, {"mode": "realtime", "per_move": 60}, None, True) == Speed("realtime", per_move=60)
    # the older timer: a per-move timer; neither: the default for rooms with people, none for bots
    assert check_speed(limits, None, 30, True) == Speed("realtime", per_move=30)
    assert check_speed(limits, None, None, True) == Speed("realtime", per_move=limits.default_timer)
    assert check_speed(limits, None, None, False) == Speed()
    refused = [
        ({"mode": "turn", "per_move": 60}, None, "per_move 60 s is out of range (3600-1209600 s)"),
        ({"mode": "realtime", "per_move": 3600}, None, "per_move 3600 s is out of range (10-600 s)"),
        ({"mode": "realtime", "initial": 5}, None, "initial 5 s is out of range (30-10800 s)"),
        ({"mode": "realtime", "initial": 60, "increment": 301}, None, "increment 301 s is out of range (0-300 s)"),
        ({"mode": "realtime", "initial": 60, "per_move": 60}, None, "not both"),
        ({"mode": "realtime"}, None, "per_move, or initial and increment"),
        ({"mode": "untimed", "per_move": 60}, None, "takes no times"),
        ({"mode": "turn"}, None, "per_move"),
        ({"mode": "untimed"}, 60, "a speed or a timer, not both"),
    ]
    for speed, timer, words in refused:
        with pytest.raises(ActionError) as e:
            check_speed(limits, speed, timer, True)
        assert e.value.code == "bad_timer" and words in e.value.message, (speed, e.value.message)


def test_an_old_rooms_timer_reads_as_a_per_move_speed() -> None:
    """Rooms stored before speeds have only ``timer``: a per-move timer, or none (untimed)."""
    assert Speed.of_config({"timer": 60}) == Speed("realtime", per_move=60)
    assert Speed.of_config({"timer": None}) == Speed()
    assert Speed.of_config({"speed": {"mode": "turn", "per_move": DAY}, "timer": DAY}) == Speed("turn", per_move=DAY)


# ---------------------------------------------------------------------- rooms on one lobby


@pytest.fixture
def moved_time(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The time source's offset, put back after the test (``advance`` only moves ahead)."""
    monkeypatch.setattr(timesource, "_offset", 0.0)
    yield


@contextlib.asynccontextmanager
async def open_lobby(db: Path, limits: Limits | None = None) -> AsyncIterator[Lobby]:
    lobby = Lobby(Storage(f"sqlite+aiosqlite:///{db}"), bot_delay=0, limits=limits or Limits.unlimited_clients())
    await lobby.open()
    try:
        yield lobby
    finally:
        await lobby.close()


async def seated(lobby: Lobby, game: str, speed: dict[str, Any], seats: int = 2, rules: Any = None) -> tuple[Room, list[str]]:
    room = await lobby.create(game, SMALL if rules is None and game == "dice" else rules or {}, [{"kind": "open"}] * seats, speed=speed)
    tokens = [(await room.join(i, f"P{i}"))[1] for i in range(seats)]
    assert room.status == "playing"
    return room, tokens


def to_move(room: Room) -> int:
    assert room.table is not None
    return room.table.to_act()[0]


def stored_row(db: Path, room: str) -> tuple[Any, ...]:
    with sqlite3.connect(db) as conn:
        row = conn.execute("SELECT turn_started, clocks FROM rooms WHERE id = ?", (room,)).fetchone()
    return tuple(row)


def test_an_alarm_rings_at_its_moment_sooner_when_time_moves_and_never_once_cancelled(moved_time: None) -> None:
    """``timesource.call_at``, what a turn's timer is: it rings at its wall-clock moment; moving
    the clocks past it rings it at once, short of it leaves it set for the same moment; a
    cancelled one never rings; one for a moment passed rings in ``call_at``."""

    async def scenario() -> None:
        rang: list[str] = []
        soon = timesource.call_at(timesource.now() + 0.05, lambda: rang.append("soon"))
        hour = timesource.call_at(timesource.now() + 3600, lambda: rang.append("hour"))
        day = timesource.call_at(timesource.now() + DAY, lambda: rang.append("day"))
        dropped = timesource.call_at(timesource.now() + 60, lambda: rang.append("dropped"))
        dropped.cancel()
        await until(lambda: rang == ["soon"])
        assert soon.rung and not hour.rung
        timesource.advance(hour.when - timesource.now() - 0.3)  # short of the hour: it stays set, for the same moment
        assert rang == ["soon"]
        await until(lambda: rang == ["soon", "hour"])
        timesource.advance(DAY)  # past the day's moment: at once, and the cancelled one never
        assert rang == ["soon", "hour", "day"] and day.rung and not dropped.rung
        day.cancel()  # after it rang: nothing
        passed = timesource.call_at(timesource.now() - 1, lambda: rang.append("passed"))
        assert passed.rung and rang[-1] == "passed"
        assert asyncio.get_running_loop() not in timesource._alarms  # nothing left set: the loop is not kept

    asyncio.run(scenario())


def test_a_turn_based_move_after_its_deadline_is_too_late_and_the_timer_plays(tmp_path: Path, moved_time: None) -> None:
    async def scenario() -> None:
        async with open_lobby(tmp_path / "turn.sqlite3") as lobby:
            room, _ = await seated(lobby, "dice", {"mode": "turn", "per_move": DAY})
            seat = to_move(room)
            assert room.turn_started is not None
            assert room.deadline == room.turn_started + DAY
            state = room.state(seat)
            assert state["room"]["speed"] == {"mode": "turn", "per_move": DAY}
            assert state["room"]["deadline"] == room.turn_started + DAY and state["room"]["timer"] == DAY
            events = len(room.events)
            timesource.advance(DAY + 1)
            # Before the loop runs the timer: the late move is refused and changes nothing.
            with pytest.raises(ActionError) as late:
                await room.act(seat, dice_moves(state)[0])
            assert late.value.code == "too_late" and "ran out 1.0 s ago" in late.value.message
            assert len(room.events) == events
            await until(lambda: len(room.events) > events)  # the timer's bot played the turn
            assert room.state(None)["game"]["log"][-1]["by"] == "timer"
            assert to_move(room) != seat

    asyncio.run(scenario())


def test_an_untimed_room_never_times_out_and_expel_waits_the_stated_time(tmp_path: Path, moved_time: None) -> None:
    async def scenario() -> None:
        async with open_lobby(tmp_path / "untimed.sqlite3") as lobby:
            room, _ = await seated(lobby, "dice", {"mode": "untimed"})
            seat = to_move(room)
            other = 1 - seat
            events = len(room.events)
            info = room.state(None)["room"]
            assert info["speed"] == {"mode": "untimed", "expel_after": Limits().untimed_expel}
            assert info["deadline"] is None and info["timer"] is None
            with pytest.raises(ActionError) as early:
                await room.expel(other, seat)
            assert early.value.code == "too_early" and "may be expelled in 168.0 h" in early.value.message
            assert early.value.retry_after is not None
            timesource.advance(6 * DAY)
            await lobby.housekeeping.sweep()
            await asyncio.sleep(0.2)
            assert (room.status, len(room.events)) == ("playing", events), "nothing ran out, nothing was swept"
            with pytest.raises(ActionError):
                await room.expel(other, seat)
            with pytest.raises(ActionError) as own:
                await room.expel(seat, seat)
            assert own.value.code == "bad_seat"
            timesource.advance(DAY + 1)
            await lobby.housekeeping.sweep()
            assert room.status == "playing" and len(room.events) == events
            assert await room.expel(other, seat) == "resigned"
            assert room.seats[seat].kind == "resigned"
            await until(lambda: len(room.events) > events)  # the timer's bot plays the seat now

    asyncio.run(scenario())


def test_game_clocks_are_charged_stored_and_read_back_by_a_restarted_server(tmp_path: Path, moved_time: None) -> None:
    """A Fischer clock: the mover is charged the time it used and gains the increment; the
    clocks are stored with the move and a server restarted on the database shows the same
    clocks and the same deadline (the old code gave the player to move a whole new turn)."""
    db = tmp_path / "clocks.sqlite3"

    async def first() -> tuple[str, float, list[Any]]:
        async with open_lobby(db) as lobby:
            room, _ = await seated(lobby, "dice", {"mode": "realtime", "initial": 100, "increment": 5})
            seat = to_move(room)
            info = room.state(None)["room"]
            assert info["clocks"][seat] == {"left": 100, "until": room.turn_started + 100}
            assert info["clocks"][1 - seat] == {"left": 100, "until": None}
            timesource.advance(30)
            await room.act(seat, dice_moves(room.state(seat))[0])
            assert room.clocks is not None
            assert room.clocks.left[seat] == pytest.approx(75, abs=1), "100 - 30 + 5"
            assert stored_row(db, room.id)[1] == room.clocks.text(), "stored with the move"
            nxt = to_move(room)
            timesource.advance(10)
            assert room.deadline == pytest.approx(room.turn_started + 100, abs=1e-6), "the next player's whole clock"
            assert room.state(None)["room"]["clocks"][nxt]["until"] == room.deadline
            return room.id, room.turn_started, room.state(None)["room"]["clocks"]

    async def restarted(room_id: str, started: float, clocks: list[Any]) -> None:
        async with open_lobby(db) as lobby:
            room = lobby.get(room_id)
            assert room.turn_started == started, "the turn keeps its start"
            assert room.state(None)["room"]["clocks"] == clocks
            assert room.deadline == pytest.approx(started + 100)
            # its clock runs out: the timer's bot plays, the clock stays at zero, the seat resigns
            seat = to_move(room)
            timesource.advance(100)
            await until(lambda: room.seats[seat].kind == "resigned")
            assert room.clocks is not None and room.clocks.left[seat] == 0
            assert room.state(None)["room"]["clocks"][seat]["left"] == 0

    room_id, started, clocks = asyncio.run(first())
    asyncio.run(restarted(room_id, started, clocks))


def test_a_tower_round_resolves_when_all_submit_and_charges_each_clock(tmp_path: Path, moved_time: None) -> None:
    async def scenario() -> None:
        async with open_lobby(tmp_path / "tower.sqlite3") as lobby:
            room, _ = await seated(lobby, "tower", {"mode": "realtime", "initial": 60, "increment": 2})
            first_round = room.state(None)["game"]["round"]
            timesource.advance(10)
            await room.act(0, tower_moves(room.state(0))[0])
            shown = room.state(None)["room"]["clocks"]
            assert shown[0] == {"left": pytest.approx(50, abs=1), "until": None}, "stopped at its submission"
            assert shown[1]["until"] == pytest.approx(room.turn_started + 60), "still running"
            timesource.advance(20)
            await room.act(1, tower_moves(room.state(1))[0])
            assert room.state(None)["game"]["round"] > first_round, "resolved as soon as both submitted"
            assert room.clocks is not None
            assert room.clocks.left == (pytest.approx(52, abs=1), pytest.approx(32, abs=1))

    asyncio.run(scenario())


def test_only_real_time_games_are_abandoned_and_a_turn_based_room_waits_for_players(tmp_path: Path, moved_time: None) -> None:
    async def scenario() -> None:
        async with open_lobby(tmp_path / "sweep.sqlite3") as lobby:
            rooms = {mode: (await seated(lobby, "dice", speed))[0] for mode, speed in (
                ("untimed", {"mode": "untimed"}), ("turn", {"mode": "turn", "per_move": DAY}),
                ("realtime", {"mode": "realtime", "initial": 10800}))}
            waiting = await lobby.create("dice", SMALL, [{"kind": "open"}] * 2, speed={"mode": "turn", "per_move": 3 * DAY})
            quick = await lobby.create("dice", SMALL, [{"kind": "open"}] * 2, speed={"mode": "realtime", "per_move": 60})
            timesource.advance(Limits().abandoned_expiry + Limits().waiting_expiry + 1)
            await lobby.housekeeping.sweep()
            assert {m: r.status for m, r in rooms.items()} == {"untimed": "playing", "turn": "playing", "realtime": "abandoned"}
            assert (waiting.status, quick.status) == ("waiting", "expired")

    asyncio.run(scenario())


def test_a_rated_room_needs_a_timed_speed(tmp_path: Path) -> None:
    async def scenario() -> None:
        async with open_lobby(tmp_path / "rated.sqlite3") as lobby:
            with pytest.raises(ActionError) as e:
                await lobby.create("dice", {}, [{"kind": "open"}] * 2, rated=True, speed={"mode": "untimed"})
            assert e.value.code == "bad_rated" and "a timed speed: real-time or turn-based" in e.value.message
            room = await lobby.create("dice", {}, [{"kind": "open"}] * 2, rated=True, speed={"mode": "turn", "per_move": DAY})
            assert room.info()["rated"] and room.info()["speed"]["mode"] == "turn"

    asyncio.run(scenario())


def test_a_rematch_keeps_the_speed(tmp_path: Path) -> None:
    async def scenario() -> None:
        async with open_lobby(tmp_path / "again.sqlite3") as lobby:
            room = await lobby.create("dice", {"width": 4, "height": 4}, [{"kind": "open"}] * 2,
                                      speed={"mode": "realtime", "initial": 120, "increment": 3})
            tokens = [(await room.join(i, f"P{i}"))[1] for i in range(2)]
            while room.status == "playing":
                seat = to_move(room)
                await room.act(seat, dice_moves(room.state(seat))[0])
            new, _, _ = await lobby.rematch(room, 0, tokens[0])
            assert new.speed == room.speed and json.loads(new.info_text)["speed"] == room.speed.as_json()

    asyncio.run(scenario())
