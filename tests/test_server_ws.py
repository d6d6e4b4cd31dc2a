"""Websocket play against a real uvicorn on 127.0.0.1: whole games, privacy, bad input, rejoin."""

from __future__ import annotations

import asyncio
import json
import random
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
import websockets

from server_helpers import (
    Client,
    LiveServer,
    create_room,
    dice_moves,
    join,
    live_server,
    tower_moves,
)
from tabletris.engine.records import replay


@pytest.fixture
def server(db_url: str) -> Iterator[LiveServer]:
    with live_server(db_url) as s:
        yield s


async def play_dice_seat(client: Client, seat: int, rng: random.Random, acks: list[int]) -> None:
    """Play every turn of ``seat`` with a random legal move until the game ends."""
    while True:
        state = await client.state_where(
            lambda m: m["game"] is not None and (m["game"]["over"] or (m["game"]["to_move"] == seat and m["private"] is not None)),
            timeout=20,
        )
        if state["game"]["over"]:
            return
        reply = await client.request({"type": "move", **rng.choice(dice_moves(state))})
        assert reply["type"] == "ack", reply
        acks.append(reply["seq"])


@pytest.mark.asyncio
async def test_two_people_and_a_bot_finish_a_dice_game(server: LiveServer) -> None:
    room = create_room(server.url, {"game": "dice", "rules": {"width": 6, "height": 6}, "seats": [{"kind": "open"}, {"kind": "random"}, {"kind": "open"}]})
    a = join(server.url, room["id"], "Ann")
    b = join(server.url, room["id"], "Bob")
    assert (a["seat"], b["seat"]) == (0, 2)
    ca = await Client.connect(server.ws, room["id"], a["token"])
    cb = await Client.connect(server.ws, room["id"], b["token"])
    watcher = await Client.connect(server.ws, room["id"])
    acks: list[int] = []
    rng = random.Random(7)
    await asyncio.gather(play_dice_seat(ca, 0, rng, acks), play_dice_seat(cb, 2, rng, acks))
    final = await watcher.state_where(lambda m: m["game"]["over"])
    assert final["room"]["status"] == "over" and final["private"] is None
    assert len(acks) == len(set(acks)), "every acknowledged move has its own sequence number"
    record = httpx.get(f"{server.url}/api/rooms/{room['id']}/record").json()
    game = replay(record)
    assert game.scores == final["game"]["scores"]
    players = [m["player"] for m in record["moves"]]
    assert {0, 1, 2} <= set(players), "both people and the bot moved"
    assert len(record["moves"]) == final["seq"]
    for c in (ca, cb, watcher):
        await c.close()


def action_paths(value: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    """Where in a message something shaped like a tower action (``place`` / ``hold``) sits."""
    if isinstance(value, dict):
        if "place" in value or "hold" in value:
            yield path
        for k, v in value.items():
            yield from action_paths(v, (*path, k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from action_paths(v, (*path, i))


@pytest.mark.asyncio
async def test_four_seats_finish_a_tower_game_and_nobody_sees_a_pending_action(server: LiveServer) -> None:
    room = create_room(server.url, {"game": "tower", "seats": [{"kind": "open"}] * 4})
    tokens = [join(server.url, room["id"], f"P{i}")["token"] for i in range(4)]
    clients = [await Client.connect(server.ws, room["id"], t) for t in tokens]
    submitted: list[list[tuple[int, str]]] = [[] for _ in range(4)]  # (round, action json) per seat

    async def play(seat: int) -> None:
        c = clients[seat]
        rng = random.Random(seat)
        done_round = 0
        while True:
            def ready(m: dict[str, Any], after: int = done_round) -> bool:
                private = m["private"]
                return bool(m["game"]["over"] or (private is not None and m["game"]["round"] > after and not private["forced"]))

            state = await c.state_where(ready, timeout=20)
            if state["game"]["over"]:
                return
            assert state["private"]["pending"] is None
            move = rng.choice(tower_moves(state))
            reply = await c.request({"type": "move", **move})
            assert reply["type"] == "ack", reply
            done_round = state["game"]["round"]
            action = {k: v for k, v in move.items() if k != "round"}
            submitted[seat].append((done_round, json.dumps(action, separators=(",", ":"))))

    await asyncio.gather(*(play(i) for i in range(4)))
    record = httpx.get(f"{server.url}/api/rooms/{room['id']}/record").json()
    game = replay(record)
    assert game.over and len(record["rounds"]) >= 10
    by_round = [{r: json.loads(a) for r, a in submitted[seat]} for seat in range(4)]
    for viewer in range(4):
        for msg in clients[viewer].received:
            if msg["type"] != "state" or not msg["game"]:
                continue
            game_state = msg["game"]
            if msg["private"] is not None:
                assert set(msg["private"]) == {"pending", "forced", "can_hold", "minos", "drops"}
                pending = msg["private"]["pending"]
                if pending is not None and not msg["private"]["forced"]:
                    assert pending == by_round[viewer][game_state["round"]], "only its own action, this round's"
            # Outside the seat's own private part, actions appear only in last_round and the game
            # log, both once resolved.
            paths = list(action_paths({k: v for k, v in msg.items() if k != "private"}))
            assert all(p[:2] in (("game", "last_round"), ("game", "log")) for p in paths), paths
            played = game_state["rounds_played"]
            assert all(entry["round"] <= played for entry in game_state["log"])
            if game_state["log"]:
                assert game_state["log"][-1]["actions"] == game_state["last_round"]
            for seat, action in enumerate(game_state["last_round"] or []):
                if action is not None and played in by_round[seat]:
                    assert action == by_round[seat][played], "last_round is the round just resolved"
    for c in clients:
        await c.close()


@pytest.mark.asyncio
async def test_bad_input_gets_a_specific_error_and_changes_nothing(server: LiveServer) -> None:
    room = create_room(server.url, {"game": "dice", "rules": {"width": 6, "height": 8}, "seats": [{"kind": "open"}, {"kind": "open"}]})
    a = join(server.url, room["id"], "Ann")
    b = join(server.url, room["id"], "Bob")
    ca = await Client.connect(server.ws, room["id"], a["token"])
    cb = await Client.connect(server.ws, room["id"], b["token"])
    spectator = await Client.connect(server.ws, room["id"])
    state = await ca.state_where(lambda m: m["private"] is not None)
    seq = state["seq"]
    legal = dice_moves(state)[0]

    async def error_for(client: Client, raw: str | dict[str, Any]) -> dict[str, Any]:
        if isinstance(raw, dict):
            return await client.request(raw)
        await client.send(raw)
        return await client.until(lambda m: m["type"] == "error")

    cases: list[tuple[Client, str | dict[str, Any], str]] = [
        (ca, "{not json", "bad_json"),
        (ca, "[1, 2]", "bad_message"),
        (ca, json.dumps({"type": "move", "place": "x" * 20000}), "too_large"),
        (ca, {"type": "teleport"}, "unknown_type"),
        (ca, {"type": "move", "place": [[0, 0]], "extra": 1}, "bad_message"),
        (ca, {"type": "move", "place": [[0, 7], [1, 7], [2, 7], [3, 7]], "shape": "I", "turn": state["game"]["turn"]}, "illegal"),
        (ca, {"type": "move", **legal, "seat": 1}, "wrong_seat"),
        (cb, {"type": "move", **legal}, "not_your_turn"),
        (spectator, {"type": "move", **legal}, "not_seated"),
        (ca, {"type": "rematch"}, "not_over"),
    ]
    for client, raw, code in cases:
        reply = await error_for(client, raw)
        assert reply["type"] == "error" and reply["error"] == code, (raw, reply)
        assert reply["message"]
    await ca.ws.send(b"\x00\x01")
    binary = await ca.until(lambda m: m["type"] == "error")
    assert binary["error"] == "bad_message"
    # nobody else was told about any of it, and the game did not move
    assert not [m for m in cb.received if m["type"] == "error" and m.get("error") != "not_your_turn"]
    current = httpx.get(f"{server.url}/api/rooms/{room['id']}").json()
    assert current["seq"] == seq and current["game"]["turn"] == state["game"]["turn"]
    # the connection is alive and the legal move still goes through
    reply = await ca.request({"type": "move", **legal})
    assert reply["type"] == "ack" and reply["seq"] == seq + 1
    for c in (ca, cb, spectator):
        await c.close()


@pytest.mark.asyncio
async def test_wrong_token_and_unknown_room_are_refused(server: LiveServer) -> None:
    room = create_room(server.url, {"game": "dice", "seats": [{"kind": "open"}, {"kind": "open"}]})
    c = await Client.connect(server.ws, room["id"], "forged-token")
    msg = await c.recv()
    assert msg["type"] == "error" and msg["error"] == "bad_token"
    with pytest.raises(websockets.ConnectionClosed) as closed:
        await c.recv()
    assert closed.value.rcvd is not None and closed.value.rcvd.code == 4403
    c = await Client.connect(server.ws, "no-such-room")
    msg = await c.recv()
    assert msg["error"] == "unknown_room"
    with pytest.raises(websockets.ConnectionClosed):
        await c.recv()
    assert httpx.get(server.url + "/api/meta").status_code == 200


@pytest.mark.asyncio
async def test_rate_limit_refuses_floods_and_the_connection_survives(server: LiveServer) -> None:
    room = create_room(server.url, {"game": "dice", "seats": [{"kind": "open"}, {"kind": "open"}]})
    c = await Client.connect(server.ws, room["id"])
    await c.recv()
    for _ in range(80):
        await c.ws.send(json.dumps({"type": "ping"}))
    replies = [await c.until(lambda m: m["type"] in ("pong", "error")) for _ in range(80)]
    limited = [m for m in replies if m["type"] == "error"]
    assert limited and all(m["error"] == "rate_limited" for m in limited)
    assert 30 <= sum(1 for m in replies if m["type"] == "pong") < 80
    await asyncio.sleep(1.0)
    assert (await c.request({"type": "ping"}))["type"] == "pong"
    await c.close()


@pytest.mark.asyncio
async def test_a_closed_tab_comes_back_with_its_token(server: LiveServer) -> None:
    room = create_room(server.url, {"game": "tower", "seats": [{"kind": "open"}, {"kind": "open"}]})
    a = join(server.url, room["id"], "Ann")
    join(server.url, room["id"], "Bob")
    c = await Client.connect(server.ws, room["id"], a["token"])
    state = await c.state_where(lambda m: m["private"] is not None)
    move = tower_moves(state)[0]
    assert (await c.request({"type": "move", **move}))["type"] == "ack"
    await c.close()
    again = await Client.connect(server.ws, room["id"], a["token"])
    back = await again.state_where(lambda m: m["private"] is not None)
    assert back["you"] == a["seat"]
    assert {**back["private"]["pending"], "round": move["round"]} == move  # its own pending action, and only its own
    assert back["room"]["seats"][a["seat"]]["connected"]
    answer = await again.request({"type": "query", "minos": [0]})
    assert answer["type"] == "answer" and answer["mino_cells"] == [[0, answer["mino_cells"][0][1]]]
    await again.close()


@pytest.mark.asyncio
async def test_turn_timer_lets_a_bot_play_for_an_idle_seat(server: LiveServer) -> None:
    room = create_room(server.url, {"game": "dice", "timer": 1, "seats": [{"kind": "open"}, {"kind": "open"}]})
    a = join(server.url, room["id"], "Ann")
    join(server.url, room["id"], "Bob")
    c = await Client.connect(server.ws, room["id"], a["token"])
    first = await c.state_where(lambda m: m["game"] is not None)
    assert first["room"]["deadline"] is not None
    moved = await c.state_where(lambda m: m["seq"] >= 1, timeout=5)
    assert moved["game"]["log"][0]["player"] == 0, "the idle first player's turn was played for them"
    await c.close()


@pytest.mark.asyncio
async def test_a_rematch_followed_on_the_same_socket_plays_there_and_leaves_the_old_room(server: LiveServer) -> None:
    room = create_room(server.url, {"game": "dice", "rules": {"width": 6, "height": 6}, "seats": [{"kind": "open"}, {"kind": "random"}, {"kind": "open"}]})
    a = join(server.url, room["id"], "Ann")
    b = join(server.url, room["id"], "Bob")
    ca = await Client.connect(server.ws, room["id"], a["token"])
    cb = await Client.connect(server.ws, room["id"], b["token"])
    watcher = await Client.connect(server.ws, room["id"])
    rng = random.Random(11)
    await asyncio.gather(play_dice_seat(ca, 0, rng, []), play_dice_seat(cb, 2, rng, []))
    await watcher.state_where(lambda m: m["game"]["over"])

    refused = await watcher.request({"type": "rematch", "follow": True})
    assert refused["type"] == "error" and refused["error"] == "not_seated", refused
    bad = await ca.request({"type": "rematch", "follow": "yes"})
    assert bad["type"] == "error" and bad["error"] == "bad_message" and "follow" in bad["message"], bad

    replies = []
    for c in (ca, cb):
        reply = await c.request({"type": "rematch", "follow": True})
        assert reply["type"] == "rematch" and reply["follow"] is True, reply
        # On the same socket: the reply, then the new room's state (never the other way round)
        assert all(m["room"]["id"] == room["id"] for m in c.received[:-1] if m.get("type") == "state")
        first_state = await c.until(lambda m: m.get("type") == "state")
        assert first_state["room"]["id"] == reply["room"] and first_state["you"] == reply["seat"]
        replies.append(reply)
    new = replies[0]["room"]
    assert replies[1]["room"] == new != room["id"] and [r["seat"] for r in replies] == [0, 2]

    # The new game is played through the followed sockets, each with its new seat's token.
    started = await ca.state_where(lambda m: m["room"]["id"] == new and m["room"]["status"] == "playing", timeout=20)
    mover = ca if started["game"]["to_move"] == 0 else cb
    state = await mover.state_where(lambda m: m["room"]["id"] == new and m["private"] is not None, timeout=20)
    ack = await mover.request({"type": "move", **rng.choice(dice_moves(state))})
    assert ack["type"] == "ack" and ack["seq"] >= 1, ack
    record = httpx.get(f"{server.url}/api/rooms/{new}", timeout=10).json()
    assert record["room"]["events"] >= ack["seq"]

    # The old room no longer counts them; the watcher there saw them leave, and a rematch asked
    # again from the new room's socket is the new game's own (its token moved with it).
    left = await watcher.until(lambda m: m.get("type") == "presence" and m["connected"] == [False, True, False])
    assert left["connected"] == [False, True, False]
    old_seats = httpx.get(f"{server.url}/api/rooms/{room['id']}", timeout=10).json()["room"]["seats"]
    assert [s["connected"] for s in old_seats] == [False, True, False]
    not_over = await ca.request({"type": "rematch", "follow": True})
    assert not_over["type"] == "error" and not_over["error"] == "not_over", not_over
    for c in (ca, cb, watcher):
        await c.close()
