"""HAProxy in front of two instances (issue 28 item 2): the proxy hashes on the room id, so all of
a room's pages, API calls and websockets reach one instance; when that instance is killed the
clients reconnect through the proxy to the other, which takes the room's lease over (its bot
plays on there) and serves the moves. A room created on the instance the proxy does not route it
to hands its lease on to the one it does (the lease follows the room's websockets), so its bots,
timer and moves all run there. The configuration is docs/deploy.md's (``HAPROXY_CFG``)."""

from __future__ import annotations

import asyncio
import contextlib
import random
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
import redis
import websockets

from server_helpers import Client, ServeProcess, create_room, dice_moves, join, until
from services import HAPROXY_CFG
from tabletris.server.leases import KEY
from tabletris.server.lobby import ROUTE_KEY, new_room_id
from test_multi_instance import replays, stored_events


@pytest.fixture
def proxied(postgres_cluster: str, redis_url: str) -> Iterator[tuple[str, list[ServeProcess], str]]:
    """Two instances on a fresh database behind HAProxy; yields the proxy's URL, them, the database."""
    from services import ServiceMissing, haproxy_server, new_database

    db = new_database(postgres_cluster)
    extra = ["--redis", redis_url, "--lease-ttl", "2"]
    servers: list[ServeProcess] = []
    with contextlib.ExitStack() as stack:
        stack.callback(lambda: [s.stop() for s in servers])
        for _ in range(2):
            servers.append(ServeProcess(db, extra=extra).start())  # type: ignore[arg-type]
        try:
            url, _proc = stack.enter_context(haproxy_server([s.port for s in servers]))
        except ServiceMissing as e:
            pytest.skip(str(e))
        yield url, servers, db


def metric(server: ServeProcess, name: str) -> float:
    """The sum of a metric's samples on one instance (-1: the instance does not answer)."""
    try:
        text = httpx.get(server.url + "/metrics", timeout=5).text
    except httpx.HTTPError:
        return -1.0
    return sum(float(line.split()[-1]) for line in text.splitlines() if line.startswith((name + " ", name + "{")))


def connections(server: ServeProcess) -> float:
    return metric(server, "tabletris_connections")


async def reconnect(ws: str, room: str, token: str, timeout: float = 30.0) -> Client:
    """Connect again the way the web client does, retrying until the proxy has an instance up for
    the room (it answers 502 until its health check marks the killed one down)."""
    end = time.monotonic() + timeout
    while True:
        try:
            return await Client.connect(ws, room, token)
        except (OSError, websockets.exceptions.InvalidStatus):
            assert time.monotonic() < end, "no instance took the room's websocket"
            await asyncio.sleep(0.2)


async def play(clients: list[Client], moves: int, acked: list[int]) -> None:
    """``moves`` people's moves, by whichever client has the turn."""

    async def one_move(c: Client) -> None:
        state = await c.state_where(lambda m: bool(m["private"] and m["private"]["options"]), timeout=60)
        reply = await c.request({"type": "move", **random.Random(len(acked)).choice(dice_moves(state))}, timeout=30)
        assert reply["type"] in ("ack", "error"), reply
        if reply["type"] == "ack":
            acked.append(reply["seq"])

    for _ in range(moves):
        done, pending = await asyncio.wait([asyncio.create_task(one_move(c)) for c in clients], timeout=60,
                                           return_when=asyncio.FIRST_COMPLETED)
        for task in pending:
            task.cancel()
        await asyncio.gather(*pending, return_exceptions=True)
        assert done, "nobody got the turn"
        for task in done:
            task.result()


@pytest.mark.asyncio
async def test_a_rooms_traffic_reaches_one_instance_and_moves_when_it_is_killed(
    proxied: tuple[str, list[ServeProcess], str],
) -> None:
    url, servers, db = proxied
    ws = url.replace("http", "ws")
    room = create_room(url, {"game": "dice", "seats": [{"kind": "open"}, {"kind": "random"}, {"kind": "open"}]})
    tokens = [join(url, room["id"], f"P{i}", seat=i)["token"] for i in (0, 2)]
    clients = [await Client.connect(ws, room["id"], t) for t in tokens]
    # Both websockets on one instance, none on the other: the proxy routes by the room's id.
    await until(lambda: sorted(connections(s) for s in servers) == [0.0, 2.0], 30.0)
    serving = next(s for s in servers if connections(s) == 2.0)
    other = next(s for s in servers if s is not serving)
    acked: list[int] = []
    await play(clients, 3, acked)
    before = len(await stored_events(db, room["id"]))

    serving.kill9()
    back = [await reconnect(ws, room["id"], t) for t in tokens]
    await until(lambda: connections(other) == 2.0, 30.0)
    await play(back, 4, acked)
    # The bot plays on the instance left (its lease taken over there when the killed one held it).
    later = await back[0].state_where(lambda m: bool(m["game"]) and len(m["game"]["log"]) > before + 4, timeout=60)
    assert any(entry.get("player") == 1 for entry in later["game"]["log"][before:]), "the bot moved after the kill"
    log = await stored_events(db, room["id"])
    assert [seq for seq, _ in log] == list(range(len(log))), "no gap, no move stored twice"
    assert all(seq - 1 < len(log) for seq in acked), "every acknowledged move is stored"
    assert await replays(db, room["id"])
    for c in [*clients, *back]:
        with contextlib.suppress(Exception):
            await c.close()


@pytest.mark.asyncio
async def test_a_room_created_on_another_instance_moves_its_lease_to_the_one_the_proxy_routes_it_to(
    proxied: tuple[str, list[ServeProcess], str], redis_url: str,
) -> None:
    """Created on A (not through the proxy), routed by the proxy to B: B ends up with the lease,
    the bots, the timer, every socket and every move; A does no work for the room, nothing is
    lost, and the lease stays put (no churn). On the old code A kept the lease: its bots moved
    there and every move crossed the bus."""
    url, servers, db = proxied
    ws = url.replace("http", "ws")
    keys = redis.Redis.from_url(redis_url, decode_responses=True)
    creator = servers[0]
    body = {"game": "dice", "timer": 10, "seats": [{"kind": "open"}, {"kind": "random"}, {"kind": "open"}]}
    # Rooms made on A until one whose id the proxy routes to B (half of them): a spectator
    # through the proxy lands there.
    for _ in range(30):
        room = create_room(creator.url, body)
        created_by = keys.get(KEY + room["id"])
        assert created_by, "the creating instance takes the lease"
        probe = await Client.connect(ws, room["id"])
        await until(lambda: sum(connections(s) for s in servers) == 1.0, 30.0)
        if connections(servers[1]) == 1.0:
            break
        await probe.close()
        await until(lambda: sum(connections(s) for s in servers) == 0.0, 30.0)
    else:
        pytest.fail("no room of 30 was routed to the other instance")
    routed = servers[1]
    # The lease moves to B as soon as B serves the room's socket and A serves none.
    await until(lambda: keys.get(KEY + room["id"]) not in (None, created_by), 30.0)
    holder = keys.get(KEY + room["id"])
    assert metric(creator, "tabletris_lease_handoffs_total") == 1.0

    tokens = [join(url, room["id"], f"P{i}", seat=i)["token"] for i in (0, 2)]
    clients = [await Client.connect(ws, room["id"], t) for t in tokens]
    await until(lambda: (connections(creator), connections(routed)) == (0.0, 3.0), 30.0)
    acked: list[int] = []
    await play(clients, 4, acked)
    # Nobody moves now: B's timer plays for the idle person, B's bot for the bot seat.
    later = await clients[0].state_where(
        lambda m: bool(m["game"]) and any(x.get("by") == "timer" for x in m["game"]["log"]), timeout=60
    )
    log_seen = later["game"]["log"]
    assert any(x.get("player") == 1 for x in log_seen), "the bot moved"
    assert keys.get(KEY + room["id"]) == holder, "the lease stayed on B"
    assert metric(creator, "tabletris_moves_total") == 0.0, "A committed no move: bots and timer ran on B"
    assert metric(routed, "tabletris_moves_total") >= len(acked) + 2
    assert metric(routed, "tabletris_lease_takeovers_total") == 0.0
    assert metric(creator, "tabletris_lease_takeovers_total") == 0.0
    assert (connections(creator), connections(routed)) == (0.0, 3.0)
    log = await stored_events(db, room["id"])
    assert [seq for seq, _ in log] == list(range(len(log))), "no gap, no move stored twice"
    assert all(seq - 1 < len(log) for seq in acked), "every acknowledged move is stored"
    assert await replays(db, room["id"])
    for c in [probe, *clients]:
        with contextlib.suppress(Exception):
            await c.close()
    keys.close()


@pytest.mark.asyncio
async def test_rematches_stay_on_the_instance_serving_the_game_without_a_hand_off(
    proxied: tuple[str, list[ServeProcess], str],
) -> None:
    """A rematch is asked on the game's websockets, so the instance serving the game makes it; its
    id keeps the game's route key, which the proxy hashes on, so its players' websockets come
    back to that instance and its lease stays there. On the old code a rematch's id was new
    throughout: the proxy sent half of them to the other instance, which took each one's lease
    over from its maker (a hand-off per rematch, a room read back from the database)."""
    url, servers, db = proxied
    ws = url.replace("http", "ws")
    body = {"game": "dice", "rules": {"width": 4, "height": 4}, "seats": [{"kind": "open"}, {"kind": "open"}]}
    room = create_room(url, body)["id"]
    tokens = [join(url, room, name, seat=i)["token"] for i, name in enumerate(("Ann", "Bob"))]
    clients = [await Client.connect(ws, room, t) for t in tokens]
    await until(lambda: sorted(connections(s) for s in servers) == [0.0, 2.0], 30.0)
    serving = next(s for s in servers if connections(s) == 2.0)
    other = next(s for s in servers if s is not serving)
    # The first room was created wherever the proxy spread its POST: at most one hand-off, and
    # the lease ends up with the instance serving the sockets.
    await until(lambda: metric(other, "tabletris_rooms") == 0.0, 30.0)
    handoffs = sum(metric(s, "tabletris_lease_handoffs_total") for s in servers)
    assert handoffs <= 1.0
    rooms = [room]
    for _ in range(6):
        while True:  # a 4x4 board fills in a few moves
            state = await clients[0].state_where(lambda m: bool(m["game"]))
            if state["game"]["over"]:
                break
            mover = clients[state["game"]["to_move"]]
            mine = await mover.state_where(lambda m, t=state["game"]["turn"]: bool(m["game"]) and (
                m["game"]["over"] or (m["game"]["turn"] == t and bool(m["private"] and m["private"]["options"]))))
            if not mine["game"]["over"]:
                assert (await mover.request({"type": "move", **dice_moves(mine)[0]}))["type"] == "ack"
            await clients[0].state_where(lambda m, t=state["game"]["turn"]: bool(m["game"]) and (m["game"]["over"] or m["game"]["turn"] > t))
        replies = [await c.request({"type": "rematch"}, timeout=30) for c in clients]
        assert [r["type"] for r in replies] == ["rematch", "rematch"], replies
        new = replies[0]["room"]
        assert replies[1]["room"] == new and new not in rooms
        assert new[:ROUTE_KEY] == room[:ROUTE_KEY], "a rematch keeps its game's route key"
        rooms.append(new)
        for c in clients:
            await c.close()
        clients = [await Client.connect(ws, new, r["token"]) for r in sorted(replies, key=lambda r: int(r["seat"]))]
        await until(lambda: (connections(serving), connections(other)) == (2.0, 0.0), 30.0)
    assert sum(metric(s, "tabletris_lease_handoffs_total") for s in servers) == handoffs, "no rematch was handed on"
    assert metric(other, "tabletris_moves_total") == 0.0, "every move was played on the serving instance"
    for s in servers:
        assert metric(s, "tabletris_lease_takeovers_total") == 0.0
    for played in rooms[:-1]:
        assert await replays(db, played)
    for c in clients:
        with contextlib.suppress(Exception):
            await c.close()


def test_the_documented_proxies_hash_on_the_route_key_a_rematch_keeps() -> None:
    """The proxies' configurations in docs/deploy.md, the HAProxy one these tests run
    (``HAPROXY_CFG``) and ``lobby.ROUTE_KEY`` must agree: a proxy hashing on more of the id than
    a rematch keeps would send rematches to the other instance, and one hashing on less would
    put more rooms on the same instance than it needs to."""
    deploy = (Path(__file__).parent.parent / "docs" / "deploy.md").read_text()
    rules = [line.strip() for line in HAPROXY_CFG.splitlines() if "set-var(txn.room) path," in line]
    assert len(rules) == 2 and all(f"bytes(0,{ROUTE_KEY})" in r for r in rules)
    for rule in rules:
        assert rule.replace("{{", "{").replace("}}", "}") in deploy, rule
    assert f"(?<room_key>[A-Za-z0-9_-]{{1,{ROUTE_KEY}}})" in deploy  # nginx's map
    game = new_room_id()
    assert len(new_room_id(game)) == len(game) and new_room_id(game)[:ROUTE_KEY] == game[:ROUTE_KEY]
