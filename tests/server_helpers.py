"""Helpers for the server tests: a real uvicorn on 127.0.0.1, websocket clients, move pickers."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import random
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import uvicorn
import websockets

from tabletris.server.app import create_app, uvicorn_options
from tabletris.server.limits import Limits

ROOT = Path(__file__).resolve().parent.parent


async def until(check: Callable[[], Any], timeout: float = 20.0, what: str = "the condition") -> None:
    """Poll ``check`` (a state of a server, a room, a socket) until it holds; fail after ``timeout``."""
    end = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < end, f"timed out waiting for {what}"
        await asyncio.sleep(0.02)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class LiveServer:
    """uvicorn serving ``create_app`` in a thread of the test process, on a free local port."""

    def __init__(
        self, db_path: Path | str, bot_delay: float = 0.0, limits: Limits | None = None, log_config: Any = None,
        access_log: bool = False, **app_options: Any,
    ) -> None:
        self.port = free_port()
        self.limits = limits or Limits.unlimited_clients(timer_min=0.5)
        url = db_path if isinstance(db_path, str) else f"sqlite+aiosqlite:///{db_path}"
        self.app = create_app(url, bot_delay=bot_delay, limits=self.limits, **app_options)
        extra: dict[str, Any] = {"log_config": log_config} if log_config is not None else {}
        config = uvicorn.Config(
            self.app, host="127.0.0.1", port=self.port, log_level="info" if access_log else "warning",
            lifespan="on", access_log=access_log, **uvicorn_options(self.limits), **extra,
        )
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def ws(self) -> str:
        return f"ws://127.0.0.1:{self.port}"

    def start(self) -> LiveServer:
        self.thread.start()
        deadline = time.time() + 20
        while not self.server.started:
            if time.time() > deadline or not self.thread.is_alive():
                raise RuntimeError("uvicorn did not start")
            time.sleep(0.02)
        return self

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(10)


@contextmanager
def live_server(db_path: Path | str, bot_delay: float = 0.0, limits: Limits | None = None) -> Iterator[LiveServer]:
    server = LiveServer(db_path, bot_delay, limits).start()
    try:
        yield server
    finally:
        server.stop()


class ServeProcess:
    """``tabletris serve`` as a child process (for the kill -9 test)."""

    def __init__(self, db_path: Path, port: int | None = None, extra: list[str] | None = None) -> None:
        self.port = port or free_port()
        self.db_path = db_path
        self.extra = extra or []
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> ServeProcess:
        env = {**os.environ, "PYTHONUNBUFFERED": "1"}
        self.proc = subprocess.Popen(
            [
                sys.executable, "-c", "from tabletris.cli.app import main; main()", "serve",
                "--host", "127.0.0.1", "--port", str(self.port), "--db", str(self.db_path),
                "--bot-delay", "0", "--log-level", "warning", "--no-client-limits", *self.extra,
            ],
            cwd=str(ROOT), env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
        )
        deadline = time.time() + 30
        while time.time() < deadline:
            if self.proc.poll() is not None:
                err = self.proc.stderr.read().decode() if self.proc.stderr else ""
                raise RuntimeError(f"tabletris serve exited: {err}")
            try:
                if httpx.get(self.url + "/api/meta", timeout=1).status_code == 200:
                    return self
            except httpx.HTTPError:
                pass
            time.sleep(0.1)
        raise RuntimeError("tabletris serve did not answer")

    def kill9(self) -> None:
        assert self.proc is not None
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(10)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)


# ------------------------------------------------------------------ moves from a state


def dice_moves(state: dict[str, Any]) -> list[dict[str, Any]]:
    """Every legal move the server listed in a seat's state (with point rewards), each naming
    the turn it answers."""
    moves = []
    turn = state["game"]["turn"]
    for opt in state["private"]["options"]:
        for form in opt["orientations"]:
            for i, (x, y) in enumerate(form["places"]):
                move: dict[str, Any] = {
                    "place": [[x + dx, y + dy] for dx, dy in form["cells"]],
                    "shape": opt["shape"],
                    "turn": turn,
                }
                if opt["take"]:
                    move["take"] = opt["take"]["cells"]
                if "rows" in form:
                    move["rewards"] = ["point"] * form["rows"][i]
                moves.append(move)
    return moves


def tower_moves(state: dict[str, Any]) -> list[dict[str, Any]]:
    """Every legal drop (and hold) in a seat's state, each naming the round it answers."""
    private, number = state["private"], state["game"]["round"]
    moves: list[dict[str, Any]] = [
        {"place": [[x + dx, y + dy] for dx, dy in form["cells"]], "round": number}
        for form in private["drops"]
        for x, y in form["places"]
    ]
    if private["can_hold"]:
        moves.append({"hold": True, "round": number})
    return moves


# ------------------------------------------------------------------ websocket client


class Client:
    """A websocket client that keeps every message it received, in order."""

    def __init__(self, ws: Any) -> None:
        self.ws = ws
        self.received: list[dict[str, Any]] = []
        self.raw: list[str] = []
        self.state: dict[str, Any] | None = None
        self.next_id = 1

    @classmethod
    async def connect(cls, base: str, room: str, token: str | None = None, **options: Any) -> Client:
        """Connect and say hello: the seat token goes in the first message, never in the URL."""
        ws = await websockets.connect(f"{base}/ws/{room}", max_size=2**22, **options)
        hello: dict[str, Any] = {"type": "hello"}
        if token:
            hello["token"] = token
        await ws.send(json.dumps(hello))
        return cls(ws)

    async def recv(self, timeout: float = 10.0) -> dict[str, Any]:
        text = await asyncio.wait_for(self.ws.recv(), timeout)
        self.raw.append(text)
        msg = json.loads(text)
        self.received.append(msg)
        if msg.get("type") == "state":
            self.state = msg
        return dict(msg)

    async def until(self, pred: Callable[[dict[str, Any]], bool], timeout: float = 10.0) -> dict[str, Any]:
        end = time.monotonic() + timeout
        while True:
            msg = await self.recv(max(0.01, end - time.monotonic()))
            if pred(msg):
                return msg

    async def state_where(self, pred: Callable[[dict[str, Any]], bool], timeout: float = 10.0) -> dict[str, Any]:
        if self.state is not None and pred(self.state):
            return self.state
        return await self.until(lambda m: m.get("type") == "state" and pred(m), timeout)

    async def send(self, message: dict[str, Any] | str) -> int:
        msg_id = self.next_id
        self.next_id += 1
        if isinstance(message, dict):
            message = json.dumps({**message, "id": msg_id})
        await self.ws.send(message)
        return msg_id

    async def request(self, message: dict[str, Any], timeout: float = 10.0) -> dict[str, Any]:
        """Send with an id and return the reply carrying it (ack, error or answer)."""
        msg_id = await self.send(message)
        return await self.until(lambda m: m.get("id") == msg_id and m.get("type") != "state", timeout)

    async def close(self) -> None:
        await self.ws.close()


def create_room(base: str, body: dict[str, Any]) -> dict[str, Any]:
    r = httpx.post(base + "/api/rooms", json=body, timeout=10)
    assert r.status_code == 201, r.text
    return dict(r.json())


def join(base: str, room: str, name: str, seat: int | None = None) -> dict[str, Any]:
    body: dict[str, Any] = {"name": name}
    if seat is not None:
        body["seat"] = seat
    r = httpx.post(f"{base}/api/rooms/{room}/join", json=body, timeout=10)
    assert r.status_code == 200, r.text
    return dict(r.json())


def pick(rng: random.Random, options: list[dict[str, Any]]) -> dict[str, Any]:
    return rng.choice(options)


@contextlib.asynccontextmanager
async def hello_socket(ws_base: str, room: str, token: str | None = None) -> AsyncIterator[Any]:
    """A raw websocket to ``room`` that has said hello (the token in the first message)."""
    async with websockets.connect(f"{ws_base}/ws/{room}") as ws:
        await ws.send(json.dumps({"type": "hello", "token": token} if token else {"type": "hello"}))
        yield ws
