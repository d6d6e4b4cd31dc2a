"""What keeps move latency low under load (docs/api.md, Load benchmark): dice games keep no copy
of the board per move (undo replays), rooms keep their event log as stored text, the server runs
with paced garbage collection, and every database write goes through the one grouped writer.
"""

from __future__ import annotations

import asyncio
import gc
import json
import random
import sqlite3
import time
import types
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from helpers import state_of
from server_helpers import dice_moves
from tabletris.engine.board import Board
from tabletris.engine.dice import DiceGame
from tabletris.engine.errors import IllegalMove
from tabletris.engine.records import record_of, replay
from tabletris.server.app import GC_THRESHOLDS, create_app, paced_gc
from tabletris.server.dice_adapter import DiceAdapter
from tabletris.server.games import ADAPTERS
from tabletris.server.storage import Conflict, Storage
from tabletris.table.driver import Table

RULES: list[dict[str, Any]] = [
    {"preset": "standard"},
    {"width": 4, "height": 8, "supply": 1, "access": "free"},
    {"width": 4, "height": 8, "supply": 1, "access": "free", "row_reward": "choose"},
    {"width": 4, "height": 6, "access": "free", "clear_rows": True, "target": 8},
    {"width": 6, "height": 8, "garbage": 3, "stuck_penalty": True},
]


def play_one(game: DiceGame, rng: random.Random) -> None:
    """Roll if needed and play a random legal option (rewards as points under ``choose``)."""
    if game.roll_face is None:
        game.roll()
    if game.over:
        return
    option = rng.choice(game.turn_options())
    rewards = ["point"] * len(game.scoring_rows_after(option.placement, option.take))
    game.play(
        option.placement,
        shape=option.shape,
        take=option.take,
        rewards=rewards if game.rules.row_reward == "choose" else None,
    )


def boards_reachable(root: object) -> int:
    """How many Board objects hang off ``root`` (instances, lists, dicts and tuples followed)."""
    seen: set[int] = set()
    todo = [root]
    boards = 0
    while todo:
        obj = todo.pop()
        if id(obj) in seen or isinstance(obj, type | types.ModuleType | types.FunctionType):
            continue
        seen.add(id(obj))
        boards += isinstance(obj, Board)
        todo.extend(gc.get_referents(obj))
    return boards


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rules=st.sampled_from(RULES), seed=st.integers(0, 2**32 - 1), choices=st.integers(0, 2**32 - 1))
def test_a_dice_game_keeps_no_copy_of_the_board_per_move(rules: dict[str, Any], seed: int, choices: int) -> None:
    """The board now and the starting position, however long the game: undo replays instead."""
    game = DiceGame(["Ann", "Bob", "Cid"], rules, seed=seed)
    rng = random.Random(choices)
    for _ in range(40):
        if game.over:
            break
        play_one(game, rng)
    assert boards_reachable(game) == 2


def test_an_illegal_move_leaves_the_game_untouched_after_many_moves() -> None:
    game = DiceGame(["Ann", "Bob"], {"preset": "standard"}, seed=7)
    rng = random.Random(1)
    for _ in range(5):
        play_one(game, rng)
    game.roll()
    before = state_of(game)
    with pytest.raises(IllegalMove):
        game.play([[0, 0], [0, 1], [0, 2], [5, 5]])  # not a piece
    assert state_of(game) == before


def test_a_view_can_take_back_its_own_moves() -> None:
    """Bots look ahead on views; a view undoes its own trial moves without touching the game."""
    game = DiceGame(["Ann", "Bob"], {"preset": "standard"}, seed=5)
    rng = random.Random(3)
    for _ in range(3):
        play_one(game, rng)
    game.roll()
    real = state_of(game)
    view = game.view()
    before = state_of(view)
    play_one(view, rng)
    view.undo()
    assert state_of(view)["board"] == before["board"]
    assert view.scores == before["scores"] and view.to_move == before["to_move"]
    assert state_of(game) == real


def test_the_server_rebuilds_a_dice_game_exactly_from_its_events() -> None:
    adapter = DiceAdapter()
    game = adapter.new_game(["Ann", "Bot", "Bob"], {}, 11)
    table = Table(game)
    table.advance()
    rng = random.Random(4)
    for _ in range(3):
        play_one(game, rng)
        table.advance()
    start = adapter.start_record(adapter.new_game(["Ann", "Bot", "Bob"], {}, 11))
    rebuilt = adapter.rebuild(start, [m.to_dict() for m in game.moves])
    Table(rebuilt).advance()
    assert record_of(rebuilt)["moves"] == record_of(game)["moves"]
    assert state_of(rebuilt)["board"] == state_of(game)["board"]


def test_paced_gc_sets_the_thresholds_freezes_start_up_objects_and_restores_both() -> None:
    before = gc.get_threshold()
    assert before != GC_THRESHOLDS
    with paced_gc():
        assert gc.get_threshold() == GC_THRESHOLDS
        assert gc.get_freeze_count() > 0
    assert gc.get_threshold() == before
    assert gc.get_freeze_count() == 0


# ---------------------------------------------------------------------- storage


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    app = create_app(f"sqlite+aiosqlite:///{tmp_path / 'mem.sqlite3'}", bot_delay=0)
    with TestClient(app) as c:
        yield c


def test_a_move_that_cannot_be_stored_changes_nothing_and_the_next_one_is_stored(
    client: TestClient, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The room rebuilds its game from its stored log (kept as text) when a commit fails."""
    room = client.post(
        "/api/rooms", json={"game": "dice", "rules": {"width": 5, "height": 5}, "seats": [{"kind": "open"}, {"kind": "open"}]}
    ).json()["id"]
    ann = {"X-Seat-Token": client.post(f"/api/rooms/{room}/join", json={"name": "Ann"}).json()["token"]}
    bob = {"X-Seat-Token": client.post(f"/api/rooms/{room}/join", json={"name": "Bob"}).json()["token"]}
    state = client.get(f"/api/rooms/{room}", headers=ann).json()
    first = client.post(f"/api/rooms/{room}/moves", json=dice_moves(state)[0], headers=ann)
    assert first.status_code == 200
    before = client.get(f"/api/rooms/{room}", headers=bob).json()
    storage = client.app.state.lobby.storage  # type: ignore[attr-defined]
    real = storage._write_batch

    async def broken(batch: Any) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(storage, "_write_batch", broken)
    failed = client.post(f"/api/rooms/{room}/moves", json=dice_moves(before)[0], headers=bob)
    assert failed.status_code == 503 and failed.json()["error"] == "storage"
    assert client.get(f"/api/rooms/{room}", headers=bob).json() == before
    monkeypatch.setattr(storage, "_write_batch", real)
    again = client.post(f"/api/rooms/{room}/moves", json=dice_moves(before)[0], headers=bob)
    assert again.status_code == 200 and again.json()["seq"] == before["seq"] + 1
    con = sqlite3.connect(tmp_path / "mem.sqlite3")
    stored = [json.loads(d) for (d,) in con.execute("SELECT data FROM events WHERE room_id = ? ORDER BY seq", (room,))]
    con.close()
    assert [e.get("place") for e in stored if e.get("player") == 1] == [dice_moves(before)[0]["place"]]


@pytest.mark.asyncio
async def test_all_writes_share_grouped_commits_in_order_and_a_bad_one_fails_alone(tmp_path: Path) -> None:
    storage = Storage(f"sqlite+aiosqlite:///{tmp_path / 'w.sqlite3'}")
    await storage.open()
    try:
        seat_rows = [{"seat": 0, "kind": "open", "name": None, "strength": None, "token_hash": None}]
        # Each room's creation and its first events are queued together: the writer must keep
        # their order (the events table refers to the room).
        jobs = []
        for i in range(30):
            jobs.append(storage.create_room(f"r{i}", "dice", {"rules": {}}, seat_rows))
            jobs.append(storage.append(f"r{i}", 0, [json.dumps({"n": i}), json.dumps({"n": i + 100})], None))
        await asyncio.gather(*jobs)
        assert storage.commits < len(jobs)  # grouped, not one commit per write
        duplicate = storage.append("r0", 1, [json.dumps({"dup": True})])
        fine = storage.append("r1", 2, [json.dumps({"n": 201})], "over")
        results = await asyncio.gather(duplicate, fine, return_exceptions=True)
        # The room's version check refuses a write that does not follow its stored log.
        assert isinstance(results[0], Conflict) and isinstance(results[1], float)  # the time it stored
        loaded, broken = await storage.load_rooms(("waiting", "playing", "over"))
        assert not broken
        stored = {room.id: room for room in loaded}
        assert [json.loads(e) for e in stored["r0"].events] == [{"n": 0}, {"n": 100}]
        assert [json.loads(e) for e in stored["r1"].events] == [{"n": 1}, {"n": 101}, {"n": 201}]
        assert stored["r1"].status == "over" and stored["r2"].status == "waiting"
    finally:
        await storage.close()


@pytest.mark.parametrize("game", ["dice", "tower"])
def test_a_finished_room_keeps_its_game_as_text_and_still_serves_state_record_and_replay(
    client: TestClient, tmp_path: Path, game: str
) -> None:
    """A finished room keeps text, not the game's objects, and is served again after a restart
    (read back from the database: finished rooms are not loaded at start-up)."""
    seats = [{"kind": "random"}, {"kind": "random"}]
    rules = {"width": 5, "height": 5} if game == "dice" else {}
    room_id = client.post("/api/rooms", json={"game": game, "rules": rules, "seats": seats}).json()["id"]
    state: dict[str, Any] = {}
    for _ in range(1000):
        state = client.get(f"/api/rooms/{room_id}").json()
        if state["room"]["status"] == "over":
            break
        time.sleep(0.01)
    assert state["room"]["status"] == "over" and state["game"]["over"]
    room = client.app.state.lobby.get(room_id)  # type: ignore[attr-defined]
    assert room.game is None and room.start is None and not room.clock.release_bots()
    record = client.get(f"/api/rooms/{room_id}/record").json()
    rebuilt = ADAPTERS[game].public(replay(record))
    assert json.loads(json.dumps(rebuilt)) == state["game"]
    frames = client.get(f"/api/rooms/{room_id}/replay").json()["frames"]
    assert frames[-1]["over"] is True
    # A restarted server retires it the same way and serves the same state.
    restarted = create_app(f"sqlite+aiosqlite:///{tmp_path / 'mem.sqlite3'}", bot_delay=0)
    with TestClient(restarted) as again:
        assert again.get(f"/api/rooms/{room_id}").json()["game"] == state["game"]
        assert again.app.state.lobby.get(room_id).game is None  # type: ignore[attr-defined]
        assert again.get(f"/api/rooms/{room_id}/record").json() == record
