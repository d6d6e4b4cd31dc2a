"""Several ``tabletris serve`` processes on one PostgreSQL database and one Redis (issue 13):
real processes on 127.0.0.1, real websocket and HTTP clients, the stored log checked at the end.

Every wait is for a state (a seq, a turn, a status), never a fixed sleep, within a bound."""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import time
from collections.abc import Iterator
from typing import Any

import asyncpg
import httpx
import pytest

from account_helpers import logged_in
from server_helpers import Client, ServeProcess, create_room, dice_moves, join, tower_moves
from tabletris.server.games import adapter_for

SMALL = {"width": 5, "height": 6}
LEASE_TTL = 2.0


@pytest.fixture(scope="module")
def instances(postgres_cluster: str, redis_url: str) -> Iterator[tuple[list[ServeProcess], str]]:
    """Three instances on a fresh database; yields them and the database URL. Shared by the
    module's tests (each uses rooms of its own; starting three servers costs half a minute):
    the kill -9 test, which ends the first instance, comes last."""
    from services import new_database

    db = new_database(postgres_cluster)
    extra = ["--redis", redis_url, "--lease-ttl", str(LEASE_TTL)]
    started: list[ServeProcess] = []
    try:
        for _ in range(3):
            started.append(ServeProcess(db, extra=extra).start())  # type: ignore[arg-type]
        yield started, db
    finally:
        for server in started:
            server.stop()


def ws(server: ServeProcess) -> str:
    return f"ws://127.0.0.1:{server.port}"


async def stored_events(db: str, room: str) -> list[tuple[int, dict[str, Any]]]:
    conn = await asyncpg.connect(db.replace("postgresql+asyncpg://", "postgresql://"))
    try:
        rows = await conn.fetch("SELECT seq, data FROM events WHERE room_id = $1 ORDER BY seq", room)
        return [(int(r["seq"]), json.loads(r["data"])) for r in rows]
    finally:
        await conn.close()


async def replays(db: str, room: str) -> bool:
    """The stored start and events rebuild the game through the engine (a move stored twice, or
    one for a turn already played, fails the replay)."""
    conn = await asyncpg.connect(db.replace("postgresql+asyncpg://", "postgresql://"))
    try:
        row = await conn.fetchrow("SELECT game, start FROM rooms WHERE id = $1", room)
    finally:
        await conn.close()
    assert row is not None
    events = [e for _, e in await stored_events(db, room)]
    adapter_for(row["game"]).rebuild(json.loads(row["start"]), events)
    return True


async def latest_state(client: Client, quiet: float = 0.5) -> dict[str, Any]:
    """The client's last state once the server has sent nothing more for ``quiet`` seconds."""
    with contextlib.suppress(TimeoutError):
        while True:
            await client.recv(quiet)
    assert client.state is not None
    return client.state


def states(client: Client) -> list[dict[str, Any]]:
    return [m for m in client.received if m.get("type") == "state" and m.get("game")]


@pytest.mark.asyncio
async def test_players_on_different_instances_see_the_same_events_in_the_same_order(
    instances: tuple[list[ServeProcess], str],
) -> None:
    servers, db = instances
    # Dice: two people, each on their own instance, and a spectator on the third.
    room = create_room(servers[0].url, {"game": "dice", "rules": SMALL, "seats": [{"kind": "open"}] * 2})
    tokens = [join(servers[i].url, room["id"], f"P{i}")["token"] for i in range(2)]
    players = [await Client.connect(ws(servers[i]), room["id"], tokens[i]) for i in range(2)]
    watcher = await Client.connect(ws(servers[2]), room["id"])

    async def play(seat: int) -> None:
        c, rng = players[seat], random.Random(seat)
        while True:
            state = await c.state_where(
                lambda m: bool(m["game"] and (m["game"]["over"] or (m["private"] and m["private"]["options"]))),
                timeout=30,
            )
            if state["game"]["over"]:
                return
            reply = await c.request({"type": "move", **rng.choice(dice_moves(state))})
            assert reply["type"] in ("ack", "error"), reply
            if reply["type"] == "error":
                assert reply["error"] == "stale_move", reply
            await c.state_where(lambda m, s=state["seq"]: m["seq"] > s, timeout=30)

    await asyncio.wait_for(asyncio.gather(play(0), play(1)), 240)
    final = await watcher.state_where(lambda m: bool(m["game"] and m["game"]["over"]), timeout=30)
    log = await stored_events(db, room["id"])
    assert [seq for seq, _ in log] == list(range(len(log))), "the stored log has no gap and no repeat"
    # Every client saw the states in increasing seq order, and the same game at each seq.
    seen: dict[int, str] = {}
    for c in [*players, watcher]:
        seqs = [m["seq"] for m in states(c)]
        assert seqs == sorted(seqs), "states arrive in commit order"
        for m in states(c):
            text = json.dumps(m["game"]["log"], sort_keys=True)
            assert seen.setdefault(m["seq"], text) == text, f"seq {m['seq']} differs between instances"
    assert final["seq"] == len(log)

    # Tower: four seats over three instances; nobody ever sees another seat's pending action.
    room = create_room(servers[1].url, {"game": "tower", "seats": [{"kind": "open"}] * 4})
    tokens = [join(servers[i % 3].url, room["id"], f"T{i}")["token"] for i in range(4)]
    clients = [await Client.connect(ws(servers[i % 3]), room["id"], tokens[i]) for i in range(4)]
    submitted: list[dict[int, Any]] = [{} for _ in range(4)]

    async def play_tower(seat: int) -> None:
        c, rng, done_round = clients[seat], random.Random(seat), 0
        while True:
            state = await c.state_where(
                lambda m, after=done_round: bool(
                    m["game"] and (m["game"]["over"] or (m["private"] and m["game"]["round"] > after and not m["private"]["forced"]))
                ),
                timeout=60,
            )
            if state["game"]["over"]:
                return
            move = rng.choice(tower_moves(state))
            reply = await c.request({"type": "move", **move})
            assert reply["type"] == "ack", reply
            done_round = state["game"]["round"]
            submitted[seat][done_round] = {k: v for k, v in move.items() if k != "round"}

    await asyncio.wait_for(asyncio.gather(*(play_tower(i) for i in range(4))), 300)
    seen = {}
    for viewer, c in enumerate(clients):
        for m in states(c):
            assert m["you"] == viewer
            if m["private"] is not None and m["private"]["pending"] is not None and not m["private"]["forced"]:
                assert m["private"]["pending"] == submitted[viewer][m["game"]["round"]], "only its own action"
            assert all(entry["round"] <= m["game"]["rounds_played"] for entry in m["game"]["log"])
            text = json.dumps(m["game"]["log"], sort_keys=True)
            assert seen.setdefault(m["seq"], text) == text, f"seq {m['seq']} differs between instances"
        seqs = [m["seq"] for m in states(c)]
        assert seqs == sorted(seqs)
    log = await stored_events(db, room["id"])
    assert [seq for seq, _ in log] == list(range(len(log)))
    for c in [*players, watcher, *clients]:
        await c.close()


@pytest.mark.asyncio
async def test_fifty_concurrent_moves_for_one_turn_over_three_instances_accept_exactly_one(
    instances: tuple[list[ServeProcess], str],
) -> None:
    servers, db = instances
    room = create_room(servers[0].url, {"game": "dice", "rules": SMALL, "seats": [{"kind": "open"}] * 2})
    tokens = [join(servers[0].url, room["id"], f"P{i}")["token"] for i in range(2)]
    for s in servers:  # every instance has the room in its cache
        assert httpx.get(f"{s.url}/api/rooms/{room['id']}", timeout=10).status_code == 200
    state = httpx.get(f"{servers[0].url}/api/rooms/{room['id']}", headers={"X-Seat-Token": tokens[0]}, timeout=10).json()
    if not (state["private"] and state["private"]["options"]):
        state = httpx.get(f"{servers[0].url}/api/rooms/{room['id']}", headers={"X-Seat-Token": tokens[1]}, timeout=10).json()
        tokens.reverse()
    moves = dice_moves(state)
    before = len(await stored_events(db, room["id"]))

    async def attempt(i: int, client: httpx.AsyncClient) -> httpx.Response:
        server = servers[i % 3]
        return await client.post(
            f"{server.url}/api/rooms/{room['id']}/moves", json=moves[i % len(moves)],
            headers={"X-Seat-Token": tokens[0]}, timeout=60,
        )

    async with httpx.AsyncClient(limits=httpx.Limits(max_connections=60)) as client:
        replies = await asyncio.gather(*(attempt(i, client) for i in range(50)))
    accepted = [r for r in replies if r.status_code == 200]
    refused = [r for r in replies if r.status_code != 200]
    assert len(accepted) == 1, [r.text for r in replies]
    assert all(r.status_code == 409 and r.json()["error"] in ("stale_move", "not_your_turn") for r in refused), [
        r.text for r in refused if r.status_code != 409
    ]
    log = await stored_events(db, room["id"])
    assert [seq for seq, _ in log] == list(range(len(log)))
    assert len(log) == before + 1, "one turn stored for the one turn played"
    assert accepted[0].json()["seq"] == before + 1
    assert await replays(db, room["id"])


@pytest.mark.asyncio
async def test_the_last_seats_taken_on_two_instances_at_once_start_the_game_once(
    instances: tuple[list[ServeProcess], str],
) -> None:
    servers, db = instances
    for _ in range(3):
        room = create_room(servers[0].url, {"game": "dice", "rules": SMALL, "seats": [{"kind": "open"}] * 2})
        for s in servers[1:]:  # both instances have the room cached before the joins
            assert httpx.get(f"{s.url}/api/rooms/{room['id']}", timeout=10).status_code == 200
        async with httpx.AsyncClient() as client:
            replies = await asyncio.gather(*(
                client.post(f"{servers[1 + i].url}/api/rooms/{room['id']}/join", json={"name": f"P{i}", "seat": i}, timeout=30)
                for i in range(2)
            ))
        assert [r.status_code for r in replies] == [200, 200], [r.text for r in replies]
        watcher = await Client.connect(ws(servers[2]), room["id"])
        state = await watcher.state_where(lambda m: m["room"]["status"] == "playing" and bool(m["game"]), timeout=30)
        assert state["game"]["turn"] >= 0
        await watcher.close()
        log = await stored_events(db, room["id"])
        assert [seq for seq, _ in log] == list(range(len(log)))
        assert await replays(db, room["id"])


def test_a_session_made_on_one_instance_is_valid_on_every_instance_and_ends_everywhere(
    instances: tuple[list[ServeProcess], str],
) -> None:
    """Sessions live in the shared database (issue 25 item 5): logged in on one instance, the
    account is known, and sits in its seat, on the others; logged out on one, on none."""
    servers, _db = instances
    a, b, c = servers
    ann = logged_in(a.url, "Ann" + str(random.randrange(10**6)))
    try:
        cookie = {"tabletris_session": ann.cookies["tabletris_session"]}
        room = create_room(a.url, {"game": "dice", "seats": [{"kind": "open"}, {"kind": "open"}]})["id"]
        assert ann.post(f"/api/rooms/{room}/join", json={"name": "x"}).status_code == 200
        for other in (b, c):
            me = httpx.get(other.url + "/api/me", cookies=cookie, timeout=10)
            assert me.status_code == 200 and me.json()["id"] == ann.account["id"]  # type: ignore[attr-defined]
            assert httpx.get(f"{other.url}/api/rooms/{room}", cookies=cookie, timeout=10).json()["you"] == 0
        assert httpx.post(b.url + "/api/auth/logout", cookies=cookie, timeout=10).status_code == 204
        for server in servers:
            assert httpx.get(server.url + "/api/me", cookies=cookie, timeout=10).status_code == 401
    finally:
        ann.close()


def test_every_instance_lists_the_rooms_created_on_the_others(instances: tuple[list[ServeProcess], str]) -> None:
    """A player asks whichever instance the proxy picks for the list of open rooms: a room
    created on another instance is listed (it was missing: each instance listed its memory)."""
    servers, _ = instances
    room = create_room(servers[0].url, {"game": "dice", "rules": SMALL, "seats": [{"kind": "open"}, {"kind": "open"}]})
    for server in servers[1:]:
        # The entry comes over the bus (the list reads no database per request): wait for it.
        end = time.monotonic() + 10
        while True:
            listed = httpx.get(server.url + "/api/rooms", params={"status": "waiting"}, timeout=10).json()
            mine = [r for r in listed if r["id"] == room["id"]]
            if mine or time.monotonic() > end:
                break
            time.sleep(0.05)
        assert len(mine) == 1 and mine[0]["status"] == "waiting"
        assert [s["kind"] for s in mine[0]["seats"]] == ["open", "open"]
        assert room["id"] in [r["id"] for r in httpx.get(server.url + "/api/rooms", timeout=10).json()]
    join(servers[1].url, room["id"], "Far", seat=1)
    seats = [s["kind"] for s in httpx.get(servers[2].url + f"/api/rooms/{room['id']}", timeout=10).json()["room"]["seats"]]
    assert seats == ["open", "human"]


def test_play_now_pairs_players_who_queue_on_different_instances_once(instances: tuple[list[ServeProcess], str]) -> None:
    """Issue 25 item 5: eight accounts press Play now at once, each on one of three instances
    (each instance matches on its own posts and every second): four tables, each account
    seated once, each ticket followed to its room from another instance."""
    from concurrent.futures import ThreadPoolExecutor

    servers, db = instances
    people = [logged_in(servers[i % 3].url) for i in range(8)]
    try:
        wish = {"game": "dice", "preset": "standard", "players": 2, "bot_after": None}
        with ThreadPoolExecutor(8) as pool:
            posted = list(pool.map(lambda p: p.post("/api/queue", json=wish), people))
        assert all(r.status_code == 201 for r in posted), [r.text for r in posted]
        tickets: dict[int, dict[str, Any]] = {}

        def all_matched() -> bool:
            for i, p in enumerate(people):
                r = httpx.get(servers[(i + 1) % 3].url + "/api/queue", cookies=p.cookies, timeout=10)
                assert r.status_code == 200, r.text
                tickets[i] = r.json()
            return all(t["status"] == "matched" for t in tickets.values())

        deadline = time.monotonic() + 30
        while not all_matched():
            assert time.monotonic() < deadline, tickets
            time.sleep(0.2)
        tables: dict[str, list[int]] = {}
        for t in tickets.values():
            tables.setdefault(t["room"], []).append(t["seat"])
        assert len(tables) == 4 and all(sorted(seats) == [0, 1] for seats in tables.values())

        async def seated() -> list[tuple[str, str]]:
            conn = await asyncpg.connect(db.replace("postgresql+asyncpg://", "postgresql://"))
            try:
                ids = [p.account["id"] for p in people]  # type: ignore[attr-defined]
                rows = await conn.fetch("SELECT room_id, account_id FROM seats WHERE account_id = ANY($1::text[])", ids)
                return [(r["room_id"], r["account_id"]) for r in rows]
            finally:
                await conn.close()

        rows = asyncio.run(seated())
        assert sorted(a for _, a in rows) == sorted(p.account["id"] for p in people)  # type: ignore[attr-defined]
        assert {r for r, _ in rows} == set(tables)
        for room in tables:
            state = httpx.get(f"{servers[2].url}/api/rooms/{room}", timeout=10).json()["room"]
            assert state["status"] == "playing" and state["rated"] is True
    finally:
        for p in people:
            p.close()


@pytest.mark.asyncio
async def test_a_deleted_players_new_name_reaches_a_live_room_held_by_another_instance(
    instances: tuple[list[ServeProcess], str],
) -> None:
    """The deleting instance tells every instance holding the room (the bus's reload): the
    watcher on another instance sees the neutral name at once, not at the next move."""
    servers, _db = instances
    a, b, c = servers
    name = "Gone" + str(random.randrange(10**6))
    ann = logged_in(a.url, name)
    try:
        room = create_room(a.url, {"game": "dice", "rules": SMALL, "seats": [{"kind": "open"}, {"kind": "open"}]})["id"]
        assert ann.post(f"/api/rooms/{room}/join", json={"name": "x"}).status_code == 200
        guest = join(b.url, room, "Guest")
        watcher = await Client.connect(ws(b), room, guest["token"])
        await watcher.state_where(lambda m: m["room"]["status"] == "playing", timeout=20)
        cookie = {"tabletris_session": ann.cookies["tabletris_session"]}
        gone = await asyncio.to_thread(
            httpx.request, "DELETE", c.url + "/api/me", json={"password": "correct horse battery"}, cookies=cookie, timeout=20,
        )
        assert gone.status_code == 204, gone.text
        renamed = await watcher.state_where(lambda m: m["room"]["seats"][0]["name"] == "(deleted player)", timeout=15)
        assert name not in json.dumps(renamed)
        await watcher.close()
    finally:
        ann.close()


@pytest.mark.asyncio
async def test_kill_9_of_the_lease_holder_moves_bots_and_timer_to_another_instance(
    instances: tuple[list[ServeProcess], str],
) -> None:
    servers, db = instances
    holder = servers[0]
    # Two people and a bot, with a turn timer: the creating instance holds the lease.
    # The standard board: the game outlasts the takeover (timer_min is 10 s).
    room = create_room(holder.url, {"game": "dice", "timer": 10,
                                    "seats": [{"kind": "open"}, {"kind": "random"}, {"kind": "open"}]})
    tokens = [join(holder.url, room["id"], f"P{i}", seat=i)["token"] for i in (0, 2)]
    clients = [await Client.connect(ws(holder), room["id"], t) for t in tokens]
    acked: list[int] = []

    async def one_move(c: Client) -> None:
        state = await c.state_where(lambda m: bool(m["private"] and m["private"]["options"]), timeout=30)
        reply = await c.request({"type": "move", **random.Random(len(acked)).choice(dice_moves(state))})
        if reply["type"] == "ack":
            acked.append(reply["seq"])

    # A few rounds of people and the bot on the holder.
    for _ in range(2):
        done, pending = await asyncio.wait([asyncio.create_task(one_move(c)) for c in clients], timeout=40,
                                           return_when=asyncio.FIRST_COMPLETED)
        for task in pending:
            task.cancel()
        await asyncio.gather(*pending, return_exceptions=True)  # no recv of theirs left running
        for task in done:
            task.result()
    assert acked
    # A person's turn in play: its deadline is the same on an instance that does not run the
    # clock (the turn's start comes with the events); it was missing there before.
    await clients[0].state_where(
        lambda m: bool(m["game"]) and m["game"]["to_move"] in (0, 2) and m["room"]["deadline"] is not None, timeout=30
    )
    person_to_move = await latest_state(clients[0])  # nobody moves in a person's turn: it stays
    assert person_to_move["game"]["to_move"] in (0, 2)
    seq_before = person_to_move["seq"]
    turn, deadline = person_to_move["game"]["turn"], person_to_move["room"]["deadline"]
    watcher = await Client.connect(ws(servers[2]), room["id"])
    seen = await watcher.state_where(lambda m: bool(m["game"]) and m["game"]["turn"] >= turn, timeout=30)
    assert (seen["game"]["turn"], seen["room"]["deadline"]) == (turn, deadline)
    holder.kill9()
    killed_at = time.monotonic()

    # The clients come back on another instance with their tokens; nobody moves: the new lease
    # holder's timer plays for the people and its bots for the bot seat.
    back = [await Client.connect(ws(servers[1 + i]), room["id"], t) for i, t in enumerate(tokens)]
    # The new lease holder keeps the turn's deadline: the clock did not restart with the takeover.
    for c in back:
        first = await c.state_where(lambda m: bool(m["game"]), timeout=30)
        if first["game"]["turn"] == turn:  # (unless the timer has played meanwhile)
            assert first["room"]["deadline"] == deadline
    later = await back[0].state_where(
        lambda m: bool(m["game"]) and m["seq"] >= seq_before + 3 and any(x.get("by") == "timer" for x in m["game"]["log"]),
        timeout=90,
    )
    resumed_after = time.monotonic() - killed_at
    by_timer = [m for m in later["game"]["log"] if m.get("by") == "timer"]
    assert by_timer, "the timer played for an idle person after the takeover"
    assert resumed_after < 90
    log = await stored_events(db, room["id"])
    assert [seq for seq, _ in log] == list(range(len(log))), "no gap, no move stored twice"
    for seq in acked:
        assert seq - 1 < len(log), f"acknowledged move {seq} is stored"
    assert await replays(db, room["id"]), "the log replays: no move applied twice"
    takeovers = 0.0
    for server in servers[1:]:
        for line in httpx.get(server.url + "/metrics", timeout=10).text.splitlines():
            if line.startswith("tabletris_lease_takeovers_total"):
                takeovers += float(line.split()[-1])
    assert takeovers >= 1, "the takeover is counted"
    for c in [*clients, *back, watcher]:
        with contextlib.suppress(Exception):
            await c.close()


@pytest.mark.asyncio
async def test_a_seat_taken_elsewhere_a_moment_ago_is_recognised_on_hello(instances: tuple[list[ServeProcess], str]) -> None:
    """B holds a copy of the room read before a seat was taken elsewhere (a rematch's second
    player, seated on the instance that made the rematch): B reads the room back before refusing
    the token. Here the seat is written to the database without telling the bus, so B's copy is
    surely stale; B answered 4403 "this token holds no seat" (the load benchmark saw it through
    HAProxy)."""
    import secrets

    from tabletris.server.seats import hash_token
    from tabletris.server.storage import Storage

    servers, db = instances  # (the instances of the module; the kill -9 test stopped the first)
    room = create_room(servers[2].url, {"game": "dice", "seats": [{"kind": "open"}, {"kind": "open"}]})
    first = join(servers[2].url, room["id"], "Ann", seat=0)["token"]
    ann = await Client.connect(ws(servers[1]), room["id"], first)  # B reads the room: seat 1 open
    await ann.state_where(lambda m: m["room"]["seats"][1]["kind"] == "open")
    token = secrets.token_urlsafe(24)
    storage = Storage(db)
    await storage.open()
    try:
        await storage.take_seat(room["id"], 1, "Bob", hash_token(token))
    finally:
        await storage.close()
    bob = await Client.connect(ws(servers[1]), room["id"], token)
    state = await bob.state_where(lambda m: True, timeout=20)
    assert state["type"] == "state" and state["you"] == 1
    for c in (ann, bob):
        await c.close()
