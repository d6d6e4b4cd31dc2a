"""Load benchmark for the game server (a script, not a test).

Setups (``--setup``, several allowed; the client is the same for all):

- ``sqlite``: one ``tabletris serve`` on a fresh SQLite file;
- ``pg``: one instance on a throw-away PostgreSQL, with a throw-away Redis as its bus;
- ``pg2``: two instances on the same PostgreSQL and Redis; each room is created on one
  instance and its two people connect one to each instance, so every move crosses the bus;
- ``pgproxy``: one instance on PostgreSQL and Redis behind that HAProxy (below): the one
  instance with the proxy's cost to the instances (its health checks, the loopback hop, a
  third busy process on the cores), so that against ``pg2proxy`` only the second instance differs;
- ``pg2proxy``: the same two instances behind HAProxy with docs/deploy.md's configuration
  (hashing on the room id): rooms are created through it (on either instance) and all of a
  room's people reach the instance its id hashes to, which takes the room's lease (a hand-off
  when the other one created it). It reports the lease takeovers and hand-offs, and the proxy's
  own CPU apart from the instances'.

PostgreSQL and Redis are started by the script (``tests/services.py``, the same code the tests
use: ``initdb`` into a temp dir, ``redis-server`` saving nothing) and thrown away after.

For each room count N: creates N dice rooms (two scripted people and one ``random`` bot each),
opens one websocket per person, and lets every person play for ``--duration`` seconds, thinking
``--think`` seconds (uniformly 50-150%) before each move. It reports moves stored per second
(people's, bots' and the rolls that end games, counted in the database), the move round trip
(send -> ``ack``, which the server sends only after the move is committed) at p50 and p99, and
errors, and each instance's event rows per commit over the play (``events_per_commit``, from its
metrics: how well group commit shares the commits). At the end it reads the database and checks
that every acknowledged move is stored exactly once, in its place, with no gap in any room's log.
With ``--clients N`` the people are played by N client processes, and their CPU per move is
reported too (``client_processes_cpu_ms_per_move``): on a machine whose cores the clients share with the
server, it says how much of the machine the offered load itself took.

``--stagger S``: all rooms' first games begin in the same second by default, so they also end in
the same few seconds (a wave of game ends and rematches); with S, each room's first game begins
at its own moment within S seconds, and the measuring (moves, round trips, CPU) starts after
them, for ``--duration`` seconds: games end at any moment, as at a table that has been open a while.

``--rss``: instead of timed levels, plays ``--rss-games`` short games (6x6 board, two people, no
bot, no thinking) over ``--rooms`` concurrent rooms (for ``--duration`` seconds at most) and
prints each instance's resident memory at start, every ``--rss-every`` games (before and after a
full garbage collection, with the number of objects the collector tracks), after the games, and
after a last collection (``POST /debug/gc``, allowed from this machine only), to show whether
finished games leave memory.

    .venv/bin/python benchmarks/load.py                              # sqlite: 10, 100 and 500 rooms
    .venv/bin/python benchmarks/load.py --setup sqlite pg pg2 --rooms 500 --duration 30
    .venv/bin/python benchmarks/load.py --setup sqlite --rss --rooms 100 --rss-games 10000 --duration 1800
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import functools
import gc
import json
import multiprocessing
import os
import random
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import orjson
import picows
from sqlalchemy import text
from sqlalchemy.ext.asyncio import create_async_engine

ROOT = Path(__file__).resolve().parent.parent


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class Stats:
    rtts: list[float] = field(default_factory=list)
    acked_at: list[float] = field(default_factory=list)  # wall time of each ack (the timeline)
    asked_at: list[float] = field(default_factory=list)  # wall time of each rematch asked
    errors: list[str] = field(default_factory=list)
    acked: list[tuple[str, int, int, str]] = field(default_factory=list)  # room, seq, seat, place as JSON
    rematches: int = 0
    late: int = 0  # people whose websocket was not open and greeted when the play began
    games_wanted: int | None = None  # --rss: stop once this many games have ended
    playing: set[Any] = field(default_factory=set)  # the people (``Person``) still playing: stopped once enough

    def enough(self) -> bool:
        return self.games_wanted is not None and self.rematches // 2 >= self.games_wanted


TIMELINE_STEP = 5.0
"""Seconds of play each entry of the report's ``timeline`` covers."""


def timeline_of(stats: Stats, wall_start: float) -> list[dict[str, Any]]:
    """The play in steps of ``TIMELINE_STEP`` seconds: the people's moves acknowledged, the
    rematches asked (games ending), and the round trip's p50 and p99 of the moves acknowledged
    in each: when the slow moves came, and whether with a wave of games ending."""
    steps: dict[int, list[float]] = {}
    for at, rtt in zip(stats.acked_at, stats.rtts, strict=True):
        steps.setdefault(int((at - wall_start) // TIMELINE_STEP), []).append(rtt)
    asked: dict[int, int] = {}
    for at in stats.asked_at:
        step = int((at - wall_start) // TIMELINE_STEP)
        asked[step] = asked.get(step, 0) + 1
    out = []
    for step in sorted(set(steps) | set(asked)):
        rtts = sorted(steps.get(step, []))
        out.append({
            "from_s": step * TIMELINE_STEP,
            "acked": len(rtts),
            "rematches": asked.get(step, 0) // 2,
            "p50_ms": round(1000 * rtts[len(rtts) // 2], 1) if rtts else None,
            "p99_ms": round(1000 * rtts[min(len(rtts) - 1, int(0.99 * len(rtts)))], 1) if rtts else None,
        })
    return out


def random_move(state: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    """A move drawn uniformly from the state's legal placements, built alone: building every one
    to pick one was a fifth of the client's CPU. The same draw as ``rng.choice`` over all of them
    in the state's order (``randrange(n)`` is ``choice``'s draw), so runs play the same moves."""
    options = state["private"]["options"]
    k = rng.randrange(sum(len(form["places"]) for opt in options for form in opt["orientations"]))
    for opt in options:
        for form in opt["orientations"]:
            places = form["places"]
            if k >= len(places):
                k -= len(places)
                continue
            x, y = places[k]
            move: dict[str, Any] = {"place": [[x + dx, y + dy] for dx, dy in form["cells"]], "shape": opt["shape"]}
            if opt["take"]:
                move["take"] = opt["take"]["cells"]
            return move
    raise AssertionError("unreachable: k < the number of placements")


async def person(
    ws_url: str, room: str, seat: int, token: str, think: float, until: float, stats: Stats, rng: random.Random,
    rematch: str = "follow", start_at: float = 0.0,
) -> None:
    """One scripted person: on each state that gives them the move, pick a legal move, think, send it
    and wait for its ``ack``; when the game is over, ask for the rematch and go on playing there, so
    the server keeps ``rooms`` games running however long the run. ``rematch``: "follow" asks for
    the rematch with ``follow`` and plays it on the same websocket, "new" opens a new websocket
    for it (as before the server could move one), "" ends.

    ``start_at`` (wall time): the first room's websocket is opened and greeted at once, and the
    person starts playing only then, so a thousand handshakes at once are not counted into the
    play's latency and CPU (they are a rush of connections, not moves)."""
    while room:
        _, player = await picows.ws_connect(
            functools.partial(Person, room, seat, token, think, until, stats, rng, rematch, start_at),
            f"{ws_url}/ws/{room}", websocket_handshake_timeout=60, max_frame_size=2**22,
        )
        assert isinstance(player, Person)
        room, seat, token = await player.done
        start_at = 0.0


IDLE_HEAD = 80
"""How far into a state's text its ``private`` is looked for: the server writes it first, after
the type, the seat and the sequence number (``Room.state_text``); a state whose ``private`` is
further in is parsed whole, as every other message."""
ACK_WAIT = 30.0
"""Seconds a person waits for the answer to a move or a rematch before giving up (an error)."""


class Person(picows.WSListener):
    """One person's play in one room, as callbacks on the websocket's frames (``person``), with
    no task, future or timeout per message: a coroutine waiting on each message (the websockets
    library's ``recv`` under a timeout; aiohttp's cost the same) took 0.40-0.54 ms of the
    clients' CPU per move at 500 rooms, about two thirds of what the server it measured took, and on a
    machine whose cores they share the round trips then measured the queue for a core. The
    picks are a coroutine's: a state that gives the move draws the move, then the thinking
    time; a state seen while a move or rematch is out is kept, and looked at once the answer is in.

    ``done``: the next room, seat and token (a rematch on a new websocket), or an empty room."""

    def __init__(
        self, room: str, seat: int, token: str, think: float, until: float, stats: Stats, rng: random.Random,
        rematch: str, start_at: float,
    ) -> None:
        self.room, self.seat, self.token = room, seat, token
        self.think, self.until, self.stats, self.rng, self.rematch = think, until, stats, rng, rematch
        self.start_at = start_at
        self.loop = asyncio.get_running_loop()
        self.done: asyncio.Future[tuple[str, int, str]] = self.loop.create_future()
        self.transport: picows.WSTransport | None = None
        self.playing = False
        self.kept: dict[str, Any] | None = None  # the newest state not looked at yet
        self.waiting: bytes | None = None  # the newest message before the play began, as it came
        self.thinking: asyncio.TimerHandle | None = None
        self.out: int | str | None = None  # the move's id (or "rematch") whose answer is awaited
        self.move: dict[str, Any] = {}
        self.sent = 0.0
        self.next_id = 1
        self.timers: list[asyncio.TimerHandle] = []  # the start and the end
        self.answer_due: asyncio.TimerHandle | None = None  # the answer's deadline (``ACK_WAIT``)
        self.time_is_up = False  # set by the timer itself: the loop's clock may run a little behind
        stats.playing.add(self)

    # ------------------------------------------------------------------ the websocket's events

    def on_ws_connected(self, transport: picows.WSTransport) -> None:
        self.transport = transport
        self.send({"type": "hello", "token": self.token})
        if self.start_at and time.time() > self.start_at:
            self.stats.late += 1
        self.timers.append(self.loop.call_later(max(0.0, self.start_at - time.time()), self.begin))
        self.timers.append(self.loop.call_later(max(0.0, self.until - time.monotonic()), self.time_up))

    def on_ws_frame(self, transport: picows.WSTransport, frame: picows.WSFrame) -> None:
        if not frame.fin:  # the server writes every message as one frame (``guard.write_texts``)
            self.fail("a message in several frames: this client reads one frame a message")
            return
        if frame.msg_type is not picows.WSMsgType.TEXT:
            if frame.msg_type is picows.WSMsgType.CLOSE and not self.done.done():
                self.fail(f"the server closed the websocket: {frame.get_close_code()} {frame.get_close_message()!r}")
            return
        payload = frame.get_payload_as_bytes()
        if b'"private":null' in payload[:IDLE_HEAD] and b'"over":true' not in payload:
            # A state that neither gives this person the move nor ends the game: the newest
            # state, and nothing to do (a state is a few kilobytes, and a person is given the
            # move in one state of three: by perf, orjson parsing every state was 15% of the
            # client's CPU, and skipping these cut its CPU per move by 10-15%).
            self.kept, self.waiting = None, None
            return
        if not self.playing:  # a state is kept as bytes until the play begins: a thousand parsed
            if payload.startswith(b'{"type":"state"'):  # ones held through the start would be
                self.waiting = payload  # the collector's to walk
            return
        self.hear(payload)

    def hear(self, payload: bytes) -> None:
        try:
            self.on_message(orjson.loads(payload))
        except Exception as e:  # a client bug is reported, not lost in a callback
            self.fail(f"client: {type(e).__name__}: {e}")

    def on_ws_disconnected(self, transport: picows.WSTransport) -> None:
        if not self.done.done():
            self.fail("the websocket was closed")

    # ------------------------------------------------------------------ the play

    def on_message(self, msg: dict[str, Any]) -> None:
        answer = msg.get("id")
        if answer is not None and answer == self.out:
            if self.answer_due is not None:
                self.answer_due.cancel()
            if answer == "rematch":
                self.rematched(msg)
            elif msg["type"] in ("ack", "error"):
                self.answered(msg)
        elif msg["type"] == "state" and msg["game"] is not None:
            self.kept = msg
            if self.playing and self.out is None:
                self.look()

    def begin(self) -> None:
        self.playing = True
        if self.waiting is not None:
            waiting, self.waiting = self.waiting, None
            self.hear(waiting)
        self.look()

    def look(self) -> None:
        """The newest state, looked at now that nothing is out: the person's turn, or the end."""
        msg, self.kept = self.kept, None
        if msg is None or self.thinking is not None:
            return
        game = msg["game"]
        if game["over"]:
            self.ask_rematch()
        elif game["to_move"] == self.seat and msg["private"] is not None:
            move = {**random_move(msg, self.rng), "turn": game["turn"]}
            self.thinking = self.loop.call_later(self.think * self.rng.uniform(0.5, 1.5), self.send_move, move)

    def send_move(self, move: dict[str, Any]) -> None:
        self.thinking = None
        if self.stopping():
            return
        self.out, self.move = self.next_id, move
        self.next_id += 1
        self.sent = time.perf_counter()
        self.send({"type": "move", "id": self.out, **move})
        self.answer_due = self.loop.call_later(ACK_WAIT, self.waited)

    def answered(self, reply: dict[str, Any]) -> None:
        self.out = None
        if reply["type"] == "ack":
            self.stats.rtts.append(time.perf_counter() - self.sent)
            self.stats.acked_at.append(time.time())
            self.stats.acked.append((self.room, reply["seq"], self.seat, json.dumps(self.move["place"])))
        else:
            self.stats.errors.append(f"{reply['error']}: {reply['message']}")
        if not self.stopping():
            self.look()

    def ask_rematch(self) -> None:
        if self.stopping():
            return
        if not self.rematch:
            self.finish()
            return
        self.out = "rematch"
        self.send({"type": "rematch", "id": "rematch", **({"follow": True} if self.rematch == "follow" else {})})
        self.answer_due = self.loop.call_later(ACK_WAIT, self.waited)

    def rematched(self, reply: dict[str, Any]) -> None:
        self.out = None
        if reply["type"] != "rematch":
            self.fail(f"rematch: {reply.get('error')}: {reply.get('message')}")
            return
        self.stats.rematches += 1
        self.stats.asked_at.append(time.time())
        if self.stats.enough():
            for player in list(self.stats.playing):
                player.time_up()
        if not reply.get("follow"):
            self.finish((reply["room"], reply["seat"], reply["token"]))
            return
        # What came before the answer was the old game's (the server sends the old room's last
        # state, the answer, then the new room's state): the new game starts from its own.
        self.room, self.seat, self.token, self.kept = reply["room"], reply["seat"], reply["token"], None
        if not self.stopping():
            self.look()

    # ------------------------------------------------------------------ the end

    def stopping(self) -> bool:
        """The time is up (or enough games were played): the person ends, now or when the
        answer it waits for is in."""
        if not self.time_is_up and time.monotonic() < self.until and not self.stats.enough():
            return False
        if self.out is None:
            self.finish()
        return True

    def time_up(self) -> None:
        self.time_is_up = True
        if self.thinking is not None:
            self.thinking.cancel()
            self.thinking = None
        self.stopping()

    def waited(self) -> None:
        if not self.done.done():
            self.fail(f"no answer to {self.out!r} in {ACK_WAIT:.0f} s")

    def fail(self, error: str) -> None:
        self.stats.errors.append(error)
        self.finish()

    def finish(self, next_room: tuple[str, int, str] | None = None) -> None:
        if self.done.done():
            return
        self.done.set_result(next_room or ("", self.seat, ""))
        self.stats.playing.discard(self)
        for timer in (*self.timers, self.answer_due):
            if timer is not None:
                timer.cancel()
        if self.thinking is not None:
            self.thinking.cancel()
        if self.transport is not None and not self.transport.is_disconnected:
            self.transport.send_close(picows.WSCloseCode.OK)
            self.transport.disconnect()

    def send(self, message: dict[str, Any]) -> None:
        assert self.transport is not None
        self.transport.send(picows.WSMsgType.TEXT, orjson.dumps(message))


async def loop_lag(lags: list[float], every: float = 0.01) -> None:
    """Record how late the client's event loop wakes up: a late wake-up delays reading acks, and
    would be counted as server latency, so the benchmark reports it."""
    while True:
        t = time.perf_counter()
        await asyncio.sleep(every)
        lags.append(time.perf_counter() - t - every)


async def fetch(db_url: str, sql: str, **params: Any) -> list[Any]:
    """Rows of a query on the benchmark's database (SQLite or PostgreSQL: the server's own URL)."""
    engine = create_async_engine(db_url)
    try:
        async with engine.connect() as conn:
            return list((await conn.execute(text(sql), params)).all())
    finally:
        await engine.dispose()


async def events_between(db_url: str, start: float, end: float) -> int:
    """Moves (people's, bots' and the rolls that end games) the server stored in a time window."""
    rows = await fetch(db_url, "SELECT COUNT(*) FROM events WHERE created >= :start AND created < :end",
                       start=start, end=end)
    return int(rows[0][0])


DICE_ROOM: dict[str, Any] = {"game": "dice", "seats": [{"kind": "open"}, {"kind": "random"}, {"kind": "open"}]}
"""The timed levels' room: two people and a bot, standard rules."""
SHORT_ROOM: dict[str, Any] = {"game": "dice", "rules": {"width": 6, "height": 6}, "seats": [{"kind": "open"}, {"kind": "open"}]}
"""The --rss run's room: two people, a 6x6 board (a game of about a dozen moves)."""


def play_share(
    seats: list[tuple[str, int, str, str]], think: float, start_at: float, duration: float, seed: float, rematch: str,
    offsets: dict[str, float] | None = None,
) -> dict[str, Any]:
    """A client process's share of the people (``--clients``): they play from ``start_at``
    (wall time; a room's first game ``offsets[room]`` seconds later) until ``duration`` seconds
    after it; what they saw, for the parent to add up."""
    stats = Stats()
    lags: list[float] = []
    offsets = offsets or {}
    cpu = [0.0, 0.0]  # the process's CPU time when the play began and ended

    async def play() -> None:
        until = time.monotonic() + (start_at - time.time()) + duration
        rng = random.Random(seed)
        people = asyncio.gather(
            *(person(ws_url, room, seat, token, think, until, stats, random.Random(rng.random()), rematch,
                     start_at + offsets.get(room, 0.0))
              for room, seat, token, ws_url in seats),
            return_exceptions=True,
        )
        await asyncio.sleep(max(0.0, start_at - time.time()))
        cpu[0] = time.process_time()
        monitor = asyncio.create_task(loop_lag(lags))
        results = await people
        cpu[1] = time.process_time()
        monitor.cancel()
        for r in results:
            if isinstance(r, BaseException):
                stats.errors.append(f"client: {type(r).__name__}: {r}")

    gc.freeze()
    gc.set_threshold(10_000, 10, 100)
    with asyncio.Runner(loop_factory=loop_factory()) as runner:
        runner.run(play())
    return {"rtts": stats.rtts, "acked": stats.acked, "errors": stats.errors, "rematches": stats.rematches,
            "lags": lags, "late": stats.late, "acked_at": stats.acked_at, "asked_at": stats.asked_at,
            "cpu_s": cpu[1] - cpu[0]}


def start_helpers(
    seats: list[tuple[str, int, str, str]], processes: int, think: float, duration: float, rng: random.Random,
    rematch: str, offsets: dict[str, float],
) -> tuple[list[Any], float]:
    """Start ``processes`` client processes, each playing the people of its share of the rooms
    (a room's two people in the same process); they begin together a few seconds from now (a
    spawned process takes a second or two to import), at the wall time returned."""
    from concurrent.futures import ProcessPoolExecutor

    rooms = sorted({room for room, *_ in seats})
    share = {room: k % processes for k, room in enumerate(rooms)}
    pool = ProcessPoolExecutor(max_workers=processes, mp_context=multiprocessing.get_context("spawn"))
    start_at = time.time() + 4.0 + 0.005 * len(seats)  # spawned, imported, connected
    futures = [
        pool.submit(play_share, [x for x in seats if share[x[0]] == k], think, start_at, duration, rng.random(), rematch,
                    {room: offsets[room] for room in rooms if share[room] == k})
        for k in range(processes)
    ]
    pool.shutdown(wait=False)
    return futures, start_at


async def run_level(
    bases: Sequence[str], db_url: str, rooms: int, duration: float, think: float, seed: int, rematch: str,
    room_body: dict[str, Any] = DICE_ROOM, games_wanted: int | None = None,
    progress: Callable[[int], None] | None = None, pids: Sequence[int] = (), split: bool = False,
    profile: Path | None = None, processes: int = 1, stagger: float = 0.0,
    counts: Callable[[], list[dict[str, float]]] | None = None,
) -> dict[str, Any]:
    """One level: ``rooms`` rooms, created round-robin on the instances at ``bases``; a room's
    two people connect to consecutive instances (with two, one each). ``pids``: the servers'
    processes, whose CPU time is counted over the play only (not the rooms' creation);
    ``split``: sample them with py-spy over the play to split that time into its parts;
    ``processes``: the people are played by this many client processes (``--clients``);
    ``stagger``: the rooms' first games begin at moments drawn uniformly over this many seconds,
    and what is measured (moves, round trips, CPU) starts after them and lasts ``duration``;
    ``counts``: reads the instances' counters (``Instance.counts``), over the same span."""
    rng = random.Random(seed)
    stats = Stats(games_wanted=games_wanted)
    seats: list[tuple[str, int, str, str]] = []  # room, seat, token, websocket base
    # Drop idle connections well before uvicorn's 5 s keep-alive timeout: with httpx's default
    # (also 5 s) a request now and then went out on a connection the server was closing (ReadError).
    limits = httpx.Limits(max_connections=50, keepalive_expiry=1.0)
    clients = [httpx.AsyncClient(base_url=b, timeout=60, limits=limits) for b in bases]
    try:
        sem = asyncio.Semaphore(50)

        async def post(http: httpx.AsyncClient, path: str, body: dict[str, Any]) -> dict[str, Any]:
            r = await http.post(path, json=body)
            if r.status_code >= 300:
                sys.exit(f"load.py: POST {path}: {r.status_code} {r.text[:200]}")
            return dict(r.json())

        async def make(i: int) -> None:
            async with sem:
                http = clients[i % len(clients)]
                room = (await post(http, "/api/rooms", room_body))["id"]
                for k, name in enumerate(("Ann", "Bob")):
                    j = await post(http, f"/api/rooms/{room}/join", {"name": name})
                    seats.append((room, j["seat"], j["token"], bases[(i + k) % len(bases)].replace("http", "ws")))

        t0 = time.perf_counter()
        await asyncio.gather(*(make(i) for i in range(rooms)))
        setup = time.perf_counter() - t0
    finally:
        for c in clients:
            await c.aclose()
    # Everything alive now lives to the end: keep the collector from walking it again and again,
    # and collect the young objects less often, so that few of them reach the old generation,
    # whose full collections would stall every connection of this client at once.
    gc.collect()
    gc.freeze()
    thresholds = gc.get_threshold()
    gc.set_threshold(10_000, 10, 100)
    lags: list[float] = []
    monitor = asyncio.create_task(loop_lag(lags))

    async def watch_games() -> None:
        while progress is not None:
            await asyncio.sleep(1.0)
            progress(stats.rematches // 2)

    watcher = asyncio.create_task(watch_games())
    helpers: list[Any] = []
    people: asyncio.Future[list[Any]] | None = None
    # A room's first game begins at its own moment (``stagger``), drawn apart from ``rng``: the
    # people's draws stay those of a run without it.
    spread = random.Random(seed + 7919)
    offsets = {room: spread.uniform(0.0, stagger) if stagger else 0.0 for room in sorted({s[0] for s in seats})}
    if processes > 1:  # the people in other processes: one event loop cannot offer 1,500 moves/s
        helpers, start_at = start_helpers(seats, processes, think, stagger + duration, rng, rematch, offsets)
    else:  # connected and greeted first (``person``), then all begin together
        start_at = time.time() + 1.0 + 0.003 * len(seats)
        until = time.monotonic() + (start_at - time.time()) + stagger + duration
        people = asyncio.gather(
            *(person(ws_url, room, seat, token, think, until, stats, random.Random(rng.random()), rematch,
                     start_at + offsets[room])
              for room, seat, token, ws_url in seats),
            return_exceptions=True,
        )
    await asyncio.sleep(max(0.0, start_at + stagger - time.time()))
    samplers = [Sampler(pid, duration, None if profile is None else profile.with_suffix(f".{k}.txt"))
                for k, pid in enumerate(pids)] if split else []
    cpu_start = [cpu_seconds(pid) for pid in pids]
    main_start = [cpu_seconds(pid, children=False) for pid in pids]
    threads_start = [thread_cpu(pid) for pid in pids]
    counts_start = await asyncio.to_thread(counts) if counts is not None else []
    start, wall_start = time.perf_counter(), time.time()
    clients_cpu = 0.0  # the client processes' (``--clients``), over their whole play
    if helpers:
        results = list(await asyncio.gather(*(asyncio.to_thread(h.result) for h in helpers), return_exceptions=True))
        for r in results:
            if isinstance(r, dict):
                stats.rtts += r["rtts"]
                stats.acked_at += r["acked_at"]
                stats.asked_at += r["asked_at"]
                stats.acked += r["acked"]
                stats.errors += r["errors"]
                stats.rematches += r["rematches"]
                stats.late += r["late"]
                lags += r["lags"]
                clients_cpu += r["cpu_s"]
    else:
        assert people is not None
        results = await people
    elapsed, wall_end = time.perf_counter() - start, time.time()
    server_cpu = sum(cpu_seconds(pid) - c for pid, c in zip(pids, cpu_start, strict=True))
    main_cpu = sum(cpu_seconds(pid, children=False) - c for pid, c in zip(pids, main_start, strict=True))
    threads = thread_split([thread_cpu(pid) for pid in pids], threads_start)
    counted = [{k: a[k] - b[k] for k in a} for a, b in
               zip(await asyncio.to_thread(counts) if counts is not None else [], counts_start, strict=True)]
    monitor.cancel()
    watcher.cancel()
    gc.set_threshold(*thresholds)
    gc.unfreeze()
    lags.sort()
    for r in results:
        if isinstance(r, BaseException):
            stats.errors.append(f"client: {type(r).__name__}: {r}")
    all_moves = await events_between(db_url, wall_start, wall_end)
    played = await events_between(db_url, start_at, wall_end) if stagger else all_moves  # the clients' whole play
    warmup = 0
    if stagger:  # the round trips of the warm-up (the first games beginning) are not measured
        timed = [(at, rtt) for at, rtt in zip(stats.acked_at, stats.rtts, strict=True) if at >= wall_start]
        warmup = len(stats.rtts) - len(timed)
        stats.asked_at = [at for at in stats.asked_at if at >= wall_start]
        stats.rematches = len(stats.asked_at)
        stats.acked_at, stats.rtts = [at for at, _ in timed], [rtt for _, rtt in timed]
    statuses = {str(k): int(v) for k, v in await fetch(db_url, "SELECT status, COUNT(*) FROM rooms GROUP BY status")}
    timeline = timeline_of(stats, wall_start)
    rtts = sorted(stats.rtts)
    parts = split_parts(samplers, main_cpu, max(1, all_moves)) if samplers else None
    return {
        "rooms": rooms,
        "connections": len(seats),
        "setup_s": round(setup, 2),
        "seconds": round(elapsed, 1),
        "people_moves_acked": len(rtts),
        **({"stagger_s": stagger, "warmup_moves_acked": warmup} if stagger else {}),
        "rematches": stats.rematches // 2,
        "late_connections": stats.late,
        "rooms_by_status": statuses,
        "all_moves_stored": all_moves,
        "moves_per_s": round(all_moves / elapsed, 1),
        "p50_ms": round(1000 * statistics.median(rtts), 1) if rtts else None,
        "p99_ms": round(1000 * rtts[min(len(rtts) - 1, int(0.99 * len(rtts)))], 1) if rtts else None,
        "max_ms": round(1000 * rtts[-1], 1) if rtts else None,
        "client_lag_p99_ms": round(1000 * lags[int(0.99 * (len(lags) - 1))], 1) if lags else None,
        "client_lag_max_ms": round(1000 * lags[-1], 1) if lags else None,
        "errors": len(stats.errors),
        "error_samples": stats.errors[:5],
        "server_cpu_s": round(server_cpu, 2),
        "server_cpu_ms_per_move": round(1000 * server_cpu / max(1, all_moves), 3),
        **({"client_processes_cpu_ms_per_move": round(1000 * clients_cpu / max(1, played), 3)} if helpers else {}),
        "of_which_bot_workers_ms_per_move": round(1000 * (server_cpu - main_cpu) / max(1, all_moves), 3),
        **({"cpu_ms_per_move_by_part": parts} if parts is not None else {}),
        "cpu_ms_per_move_by_thread": {k: round(1000 * v / max(1, all_moves), 3) for k, v in threads.items()},
        # How well the writes shared their commits (group commit), each instance's over the play.
        **({"events_per_commit": [round(c["events"] / max(1.0, c["commits"]), 2) for c in counted]} if counted else {}),
        "timeline": timeline,
        "acked": stats.acked,
    }


def loop_factory() -> Callable[[], asyncio.AbstractEventLoop] | None:
    """uvloop when it is installed (it comes with uvicorn[standard]): the client then spends less
    of the shared CPUs than the server it measures."""
    try:
        import uvloop
    except ImportError:
        return None
    return uvloop.new_event_loop


def _stat(pid: int) -> list[str]:
    return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()


def descendants(pid: int) -> list[int]:
    """The processes started by ``pid``, and theirs (Linux /proc): the server's bot workers."""
    parents: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                parents.setdefault(int(_stat(int(entry.name))[1]), []).append(int(entry.name))
            except (OSError, IndexError, ValueError):
                continue
    found, todo = [], [pid]
    while todo:
        children = parents.get(todo.pop(), [])
        found += children
        todo += children
    return found


def cpu_seconds(pid: int, children: bool = True) -> float:
    """User + system CPU time so far of a process and (``children``) of the processes it
    started that are still running (Linux /proc), to report CPU per move: the server's bot
    worker processes are the server's work too."""
    total = 0.0
    for p in [pid, *(descendants(pid) if children else [])]:
        try:
            fields = _stat(p)
            total += (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
        except (OSError, IndexError, ValueError):
            if p == pid:
                return float("nan")
    return total


def thread_cpu(pid: int) -> dict[str, float]:
    """A server process's CPU seconds so far by thread and kind (Linux /proc/PID/task): the
    event loop's thread is the one whose id is the process's, the rest are the database
    driver's and the executors' threads; user time is Python and C code, system time the
    kernel's calls (sockets, the database file, waking threads)."""
    tick = os.sysconf("SC_CLK_TCK")
    found = {"loop_user": 0.0, "loop_system": 0.0, "threads_user": 0.0, "threads_system": 0.0}
    try:
        tasks = list(Path(f"/proc/{pid}/task").iterdir())
    except OSError:
        return found
    for task in tasks:
        try:
            fields = Path(task, "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue  # a thread that ended: its time is lost to this count
        who = "loop" if task.name == str(pid) else "threads"
        found[f"{who}_user"] += int(fields[11]) / tick
        found[f"{who}_system"] += int(fields[12]) / tick
    return found


def thread_split(ends: Sequence[dict[str, float]], starts: Sequence[dict[str, float]]) -> dict[str, float]:
    """The CPU seconds of every server process between two ``thread_cpu`` readings, by kind."""
    total: dict[str, float] = {}
    for end, start in zip(ends, starts, strict=True):
        for k, v in end.items():
            total[k] = total.get(k, 0.0) + v - start.get(k, 0.0)
    return total


async def check_store(db_url: str, acked: list[tuple[str, int, int, str]]) -> dict[str, int]:
    """Every acknowledged move stored once at its sequence number, and no gaps in any room."""
    rows = await fetch(db_url, "SELECT room_id, seq, data FROM events ORDER BY room_id, seq")
    stored: dict[tuple[str, int], dict[str, Any]] = {}
    gaps = 0
    last: dict[str, int] = {}
    for room, seq, data in rows:
        if seq != last.get(room, -1) + 1:
            gaps += 1
        last[room] = seq
        stored[(room, seq)] = json.loads(data)
    lost = duplicated = 0
    seen: set[tuple[str, int]] = set()
    for room, seq, seat, place in acked:
        key = (room, seq - 1)
        if key in seen:
            duplicated += 1
        seen.add(key)
        event = stored.get(key)
        if event is None or event.get("player") != seat or event.get("place") != json.loads(place):
            lost += 1
    return {"stored_events": len(rows), "lost": lost, "duplicated": duplicated, "gaps": gaps}


PARTS: tuple[tuple[str, tuple[str, ...]], ...] = (
    # (part, the functions that mark it): a sample's part is that of its innermost marked frame.
    ("broadcast", ("Room.broadcast", "Room.refresh", "Room.state_text", "Connection._pump", "Connection.send",
                   "Replica.broadcast", "WebSocketsSansIOProtocol.send")),
    # SQLAlchemy's async layer runs its work in greenlets, whose frames show without their caller.
    ("store", ("Room._commit", "Storage.", "SqliteMoveWriter.", "_connection_worker_thread", "sqlalchemy/", "aiosqlite/",
               "asyncpg/")),
    ("bots", ("TurnClock.", "BotPool.")),
    ("engine", ("Room._act_locked", "Room.act")),
    ("decode", ("serve_socket", "socket_router.<locals>.handle", "WebSocketsSansIOProtocol.data_received")),
)
"""How ``--split`` names the parts of a move: decode (the websocket frame, the JSON, the move's
validation), engine (the room's checks and the game applying the move), store (the events'
text, the guarded update and the insert, the database driver's thread), broadcast (rendering
the state once and sending it to each socket, acks included), bots (the bots' and the timer's
turns: deciding and submitting); anything else (HTTP requests, rematches, the garbage
collector) is ``other``."""
SAMPLE_RATE = 100
"""py-spy samples a second (``--split``)."""


class Sampler:
    """``py-spy record --gil`` on one server process over the play: samples of the thread holding
    the GIL, so idle threads are not counted (py-spy cannot always tell an idle thread here)."""

    def __init__(self, pid: int, duration: float, keep: Path | None = None) -> None:
        exe = shutil.which("py-spy", path=str(Path(sys.executable).parent)) or shutil.which("py-spy")
        if exe is None:
            sys.exit("load.py: --split needs py-spy (pip install py-spy)")
        fd, name = tempfile.mkstemp(suffix=".txt", prefix="tabletris-load-spy-")
        os.close(fd)
        self.out = Path(name)
        self.keep = keep
        self.proc = subprocess.Popen(
            [exe, "record", "-p", str(pid), "--gil", "-r", str(SAMPLE_RATE), "-d", str(max(1, int(duration))),
             "--nonblocking", "-f", "raw", "-o", str(self.out)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )

    def stacks(self) -> Iterator[tuple[list[str], int]]:
        """Each sampled stack (outermost frame first) and how many times it was seen."""
        try:
            self.proc.wait(60)
        except subprocess.TimeoutExpired:
            self.proc.send_signal(signal.SIGINT)
            self.proc.wait(10)
        try:
            lines = self.out.read_text().splitlines()
            if self.keep is not None:  # --profile: the collapsed stacks, for a flame graph
                shutil.copyfile(self.out, self.keep)
        finally:
            self.out.unlink(missing_ok=True)
        for line in lines:
            stack, _, count = line.rpartition(" ")
            if stack and count.isdigit():
                yield stack.split(";"), int(count)


def part_of(frames: Sequence[str]) -> str:
    for frame in reversed(frames):
        for part, markers in PARTS:
            if any(m in frame for m in markers):
                return part
    return "other"


def split_parts(samplers: Sequence[Sampler], server_cpu: float, moves: int) -> dict[str, Any]:
    """Milliseconds per move of each part: its samples (GIL held, in seconds) over the moves.
    ``outside_gil`` is the rest of the servers' CPU time: C code that let the GIL go (SQLite's
    own work, the kernel's sends) and py-spy's missed samples. ``other_top``: where the samples
    of ``other`` were (the innermost frame of this project, else the innermost frame)."""
    seconds: dict[str, float] = {part: 0.0 for part, _ in PARTS} | {"other": 0.0}
    other: dict[str, int] = {}
    for sampler in samplers:
        for frames, count in sampler.stacks():
            part = part_of(frames)
            seconds[part] += count / SAMPLE_RATE
            if part == "other":
                ours = [f for f in frames if "tabletris/" in f]
                where = (ours or frames or ["?"])[-1].split(" (", 1)[0]
                other[where] = other.get(where, 0) + count
    sampled = sum(seconds.values())
    # On a loaded machine a thread that holds the GIL while the kernel has it waiting for a core
    # is sampled all the same: the samples then add up to more than the CPU time measured, and
    # each part is scaled down in proportion (``scaled``: by how much).
    scale = min(1.0, server_cpu / sampled) if sampled > 0 else 1.0
    parts: dict[str, Any] = {part: round(1000 * s * scale / moves, 3) for part, s in seconds.items()}
    parts["outside_gil"] = round(1000 * max(0.0, server_cpu - sampled) / moves, 3)
    parts["scaled"] = round(scale, 2)
    parts["other_top"] = {k: round(1000 * v * scale / SAMPLE_RATE / moves, 3)
                          for k, v in sorted(other.items(), key=lambda kv: -kv[1])[:6]}
    return parts


def rss_mb(pid: int) -> float:
    """Resident memory of a process in MiB (Linux /proc)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return round(int(line.split()[1]) / 1024, 1)
    return float("nan")


def services_module() -> Any:
    """``tests/services.py``: the throw-away PostgreSQL and Redis the tests use (one copy)."""
    sys.path.insert(0, str(ROOT / "tests"))
    try:
        import services
    except ImportError:
        sys.exit("load.py: the pg setups need tests/services.py (PostgreSQL and Redis for the tests)")
    return services


@contextlib.contextmanager
def backing(setup: str, tmp: Path) -> Iterator[tuple[str, str | None]]:
    """The database URL (and Redis URL) of a setup, started fresh and thrown away after."""
    if setup == "sqlite":
        yield f"sqlite+aiosqlite:///{tmp / 'load.sqlite3'}", None
        return
    services = services_module()
    with services.postgres_server() as pg, services.redis_server() as redis:
        yield services.new_database(pg), redis


def serve_has_redis() -> bool:
    """Whether this ``tabletris serve`` takes ``--redis`` (the bus between instances)."""
    out = subprocess.run([sys.executable, "-c", "from tabletris.cli.app import main; main()", "serve", "--help"],
                         cwd=str(ROOT), capture_output=True, text=True, env={**os.environ, "COLUMNS": "200"})
    return "--redis" in out.stdout


class Instance:
    """One ``tabletris serve`` child process on a free local port."""

    def __init__(self, db_url: str, redis: str | None, bot_delay: float, commit_delay: float | None = None) -> None:
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        extra = ["--redis", redis] if redis else []
        if commit_delay is not None:
            extra += ["--commit-delay", str(commit_delay)]
        self.proc = subprocess.Popen(
            [sys.executable, "-c", "from tabletris.cli.app import main; main()", "serve", "--port", str(self.port),
             "--db", db_url, "--bot-delay", str(bot_delay), "--log-level", "warning", "--no-client-limits", *extra],
            cwd=str(ROOT), env={**os.environ, "PYTHONUNBUFFERED": "1"},
        )

    def wait_ready(self, timeout: float = 120) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                sys.exit(f"load.py: tabletris serve exited with {self.proc.returncode}")
            try:
                if httpx.get(self.base + "/readyz", timeout=2).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            time.sleep(0.2)
        sys.exit(f"load.py: tabletris serve on {self.base} not ready within {timeout:g} s")

    def counts(self) -> dict[str, float]:
        """The instance's lease takeovers and hand-offs, and its storage's commits and event rows,
        so far (its metrics)."""
        text = httpx.get(self.base + "/metrics", timeout=10).text
        names = {"takeovers": "tabletris_lease_takeovers_total", "handoffs": "tabletris_lease_handoffs_total",
                 "commits": "tabletris_store_commits_total", "events": "tabletris_store_events_total"}
        found = dict.fromkeys(names, 0.0)
        for line in text.splitlines():
            for key, name in names.items():
                if line.startswith(name + " "):
                    found[key] = float(line.split()[-1])
        return found

    def collect(self) -> dict[str, Any]:
        """A full garbage collection in the server (its loopback-only debug endpoint)."""
        return dict(httpx.post(self.base + "/debug/gc", timeout=60).json())

    def stop(self) -> None:
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(15)
        except subprocess.TimeoutExpired:
            self.proc.kill()


def load_average() -> str:
    return " ".join(Path("/proc/loadavg").read_text().split()[:3])


def machine_reference_ms() -> float:
    """CPU milliseconds of a fixed pure-Python workload (small dicts and lists made, encoded and
    sorted: the kind of work a move is), the best of three. The host of this project's machines
    ran 40% slower on one day than on the day before, with no change of code; figures taken on
    different days are compared through this one, which does not depend on the project's code."""
    best = float("inf")
    for _ in range(3):
        start = time.process_time()
        total = 0
        for i in range(100_000):
            item: dict[str, Any] = {"id": i, "cells": [[i % 10, i % 20], [i % 7, i % 3]], "by": "person"}
            total += len(json.dumps(item)) + len(sorted(item["cells"]))
        best = min(best, time.process_time() - start)
    assert total > 0
    return round(1000 * best, 1)


def machine_rest_ratio(pieces: int = 900, rest_s: float = 0.001) -> float:
    """How much more CPU a piece of a move's work costs after the core rested ``rest_s`` than
    right after the previous piece (``idle_cost.measure``: the engine plays and renders a move,
    about 0.1 ms). On this project's machines 1.3-2.0 after 1 ms (1.4 after 0.2 ms, 3.4 after
    5 ms: docs/api.md, "Eighth round"), which is why a server costs more per move at a lower
    load; printed with each run to show the host's state. (A small loop's work, as ``machine_reference_ms``'s, hardly shows it.)"""
    from idle_cost import measure  # benchmarks/, this script's folder

    back_to_back = after_rest = 0.0
    for round_ in range(3):  # interleaved, so a slow spell of the host hits both alike
        back_to_back += measure(pieces // 3, 0.0, seed=round_)
        after_rest += measure(pieces // 3, rest_s, seed=round_)
    return round(after_rest / back_to_back, 2)


def machine_memory_reference_ms() -> float:
    """CPU milliseconds of reading a million small lists in a shuffled order (most reads miss
    the caches), the best of three. The cache-resident reference above read the same on a day
    when this benchmark's server took 25-50% more CPU per move with the same code (issue 28,
    docs/api.md). A host whose other tenants fill the shared caches would slow a server's
    scattered reads and not a small loop: this one is printed beside it to show whether that is
    what such a day is (not yet compared across days)."""
    rng = random.Random(0)
    cells = [[i, i] for i in range(1_000_000)]
    order = list(range(len(cells)))
    rng.shuffle(order)
    best = float("inf")
    for _ in range(3):
        start = time.process_time()
        total = 0
        for k in order:
            total += cells[k][0]
        best = min(best, time.process_time() - start)
    assert total > 0
    return round(1000 * best, 1)


def run_setup(setup: str, args: argparse.Namespace) -> None:
    tmp = Path(tempfile.mkdtemp(prefix=f"tabletris-load-{setup}-"))
    with backing(setup, tmp) as (db_url, redis):
        if redis is not None and not serve_has_redis():
            if setup == "pg2":
                sys.exit("load.py: pg2 needs tabletris serve --redis (the bus between instances)")
            print(json.dumps({"setup": setup, "note": "tabletris serve has no --redis yet: PostgreSQL only"}))
            redis = None
        instances: list[Instance] = []
        stack = contextlib.ExitStack()
        try:
            # One after the other: the first one creates the schema.
            for _ in range(2 if setup in ("pg2", "pg2proxy") else 1):
                instances.append(Instance(db_url, redis, args.bot_delay, args.commit_delay))
                instances[-1].wait_ready()
            bases = [i.base for i in instances]
            proxy: subprocess.Popen[bytes] | None = None
            if setup in ("pgproxy", "pg2proxy"):  # every room's traffic through HAProxy to the instance its id hashes to
                url, proxy = stack.enter_context(services_module().haproxy_server([i.port for i in instances]))
                bases = [url]
            print(json.dumps({"setup": setup, "instances": [i.base for i in instances], "clients_use": bases,
                              "pids": [i.proc.pid for i in instances],
                              "think_s": args.think, "bot_delay_s": args.bot_delay, "commit_delay_s": args.commit_delay,
                              "cpus": os.cpu_count(),
                              "load_average_before": load_average()}), flush=True)
            acked_all = []
            levels = [args.rooms[0]] if args.rss else args.rooms
            for n in levels:
                reference, memory_reference = machine_reference_ms(), machine_memory_reference_ms()
                rest_ratio = machine_rest_ratio()
                before_rss = [rss_mb(i.proc.pid) for i in instances]
                server_cpu, client_cpu = [cpu_seconds(i.proc.pid) for i in instances], time.process_time()
                counts_before = [i.counts() for i in instances]
                proxy_cpu = cpu_seconds(proxy.pid) if proxy is not None else 0.0
                with asyncio.Runner(loop_factory=loop_factory()) as runner:
                    if args.rss:
                        checkpoints: list[dict[str, Any]] = []
                        t0 = time.perf_counter()

                        def progress(games: int, checkpoints: list[dict[str, Any]] = checkpoints,
                                     t0: float = t0) -> None:
                            if games >= (len(checkpoints) + 1) * args.rss_every:
                                rss = [rss_mb(i.proc.pid) for i in instances]
                                collected = [i.collect() for i in instances]
                                checkpoints.append({
                                    "games": games, "seconds": round(time.perf_counter() - t0), "rss_mb": rss,
                                    "rss_mb_after_gc": [round(c["rss_bytes"] / 2**20, 1) for c in collected],
                                    "objects": [c.get("objects") for c in collected],
                                })
                                print(json.dumps({"rss_checkpoint": checkpoints[-1]}), flush=True)

                        result = runner.run(run_level(bases, db_url, n, args.duration, 0.0, args.seed + n, args.rematch_socket,
                                                      SHORT_ROOM, args.rss_games, progress))
                    else:
                        result = runner.run(run_level(bases, db_url, n, args.duration, args.think, args.seed + n,
                                                      "" if args.no_rematch else args.rematch_socket, pids=[i.proc.pid for i in instances],
                                                      split=args.split or args.profile is not None,
                                                      profile=args.profile, processes=args.clients,
                                                      stagger=args.stagger,
                                                      counts=lambda: [i.counts() for i in instances]))
                    acked_all.extend(result.pop("acked"))
                moves = max(1, result["all_moves_stored"])
                result["setup"] = setup
                if args.rss:  # the whole run (the memory run's games include the rooms' creation)
                    result["server_cpu_s"] = round(
                        sum(cpu_seconds(i.proc.pid) - c for i, c in zip(instances, server_cpu, strict=True)), 1)
                    result["server_cpu_ms_per_move"] = round(1000 * result["server_cpu_s"] / moves, 2)
                result["client_cpu_s"] = round(time.process_time() - client_cpu, 1)
                if redis is not None:  # lease churn: takeovers (a holder that stopped renewing) and hand-offs
                    counts = [i.counts() for i in instances]
                    for key in ("takeovers", "handoffs"):
                        result[f"lease_{key}"] = sum(a[key] - b[key] for a, b in zip(counts, counts_before, strict=True))
                if proxy is not None:
                    result["proxy_cpu_ms_per_move"] = round(1000 * (cpu_seconds(proxy.pid) - proxy_cpu) / moves, 3)
                result["load_average"] = load_average()
                result["machine_reference_ms"] = reference
                result["machine_memory_reference_ms"] = memory_reference
                result["machine_rest_ratio"] = rest_ratio
                result["rss_mb_before_after"] = [[b, rss_mb(i.proc.pid)] for b, i in zip(before_rss, instances, strict=True)]
                if args.rss:
                    after = [rss_mb(i.proc.pid) for i in instances]
                    collected = [i.collect() for i in instances]
                    result["rss_mb"] = [
                        {"start": b, "after_games": a, "after_gc": round(c["rss_bytes"] / 2**20, 1),
                         "gc_collected": c["collected"], "objects_after_gc": c.get("objects")}
                        for b, a, c in zip(before_rss, after, collected, strict=True)
                    ]
                print(json.dumps(result), flush=True)
            with asyncio.Runner() as runner:
                check = runner.run(check_store(db_url, acked_all))
            print(json.dumps({"setup": setup, "store_check": check}), flush=True)
        finally:
            stack.close()
            for i in instances:
                i.stop()
    shutil.rmtree(tmp, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--setup", nargs="*", choices=["sqlite", "pg", "pgproxy", "pg2", "pg2proxy"], default=["sqlite"],
                        help="sqlite (1 instance), pg (1 instance, PostgreSQL + Redis), pg2 (2 instances, each room's "
                             "people split over them), pgproxy (pg behind HAProxy), pg2proxy (2 instances behind HAProxy hashing on the room)")
    parser.add_argument("--rooms", type=int, nargs="*", default=[10, 100, 500])
    parser.add_argument("--duration", type=float, default=20.0, help="seconds of play per level")
    parser.add_argument("--think", type=float, default=1.0, help="mean seconds a person thinks before a move")
    parser.add_argument("--bot-delay", type=float, default=0.5, help="the server's pause before a bot moves")
    parser.add_argument("--commit-delay", type=float, default=None,
                        help="the servers' --commit-delay (seconds; default: the server's own)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--no-rematch", action="store_true", help="let finished games end instead of playing the rematch")
    parser.add_argument("--rematch-socket", choices=("follow", "new"), default="follow",
                        help="play the rematch on the same websocket (follow) or open a new one for it (new)")
    parser.add_argument("--rss", action="store_true", help="memory run: --rss-games short games over --rooms rooms")
    parser.add_argument("--rss-games", type=int, default=10_000)
    parser.add_argument("--rss-every", type=int, default=1000, help="print the RSS after every this many games")
    parser.add_argument("--split", action="store_true",
                        help="sample the servers with py-spy during play and split their CPU per move into parts")
    parser.add_argument("--clients", type=int, default=1,
                        help="client processes playing the people (one event loop cannot offer 1,500 moves/s)")
    parser.add_argument("--stagger", type=float, default=0.0, metavar="S",
                        help="the rooms' first games begin at moments spread over S seconds, and the measuring starts "
                             "after them (a table's games end at any moment; 0: all begin in the same second, and end "
                             "in the same few)")
    parser.add_argument("--profile", type=Path, default=None, metavar="PATH",
                        help="with --split: keep each server's py-spy stacks (collapsed) as PATH.N.txt")
    args = parser.parse_args()
    for setup in args.setup:
        run_setup(setup, args)


if __name__ == "__main__":
    main()
