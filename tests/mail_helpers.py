"""Mail in tests: a real SMTP server on 127.0.0.1 (aiosmtpd) that keeps what it receives, and
can stall or refuse; a mail-sending live server; accounts that ask for your-turn mail; a
turn-based room where they sit."""

from __future__ import annotations

import asyncio
import contextlib
import email
import sqlite3
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from email.message import EmailMessage
from email.policy import default
from pathlib import Path
from typing import Any

import httpx
from aiosmtpd.controller import Controller

from account_helpers import logged_in
from server_helpers import LiveServer, dice_moves, free_port
from tabletris.server.mail import MailConfig

FAST: dict[str, float] = {"gather": 0.2, "spacing": 0.0, "poll": 0.2, "retry_first": 0.2, "retry_max": 0.5, "timeout": 30.0}
"""A test's mail pace: due at once, looked at often, retried soon."""


class SmtpSink:
    """aiosmtpd on 127.0.0.1 in a thread of its own. ``mode``: ``accept`` (keeps each mail),
    ``stall`` (holds every DATA until ``release`` is set; ``stalled`` tells it is holding one)
    or ``refuse`` (550 for every recipient)."""

    def __init__(self, port: int | None = None, mode: str = "accept") -> None:
        self.port = port or free_port()
        self.mode = mode
        self.messages: list[EmailMessage] = []
        self.envelopes: list[tuple[str, list[str]]] = []
        self.raw: list[bytes] = []
        self.refused = 0
        self.stalled = threading.Event()
        self.release = threading.Event()
        self.controller: Controller | None = None

    async def handle_RCPT(self, server: Any, session: Any, envelope: Any, address: str, rcpt_options: Any) -> str:
        if self.mode == "refuse":
            self.refused += 1
            return "550 5.1.1 no such mailbox here"
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        if self.mode == "stall":
            self.stalled.set()
            while not self.release.is_set():
                await asyncio.sleep(0.02)
        message = email.message_from_bytes(envelope.content, policy=default)
        assert isinstance(message, EmailMessage)
        self.envelopes.append((envelope.mail_from, list(envelope.rcpt_tos)))
        self.raw.append(bytes(envelope.original_content or envelope.content))
        self.messages.append(message)
        return "250 accepted"

    def start(self) -> SmtpSink:
        self.controller = Controller(self, hostname="127.0.0.1", port=self.port)
        self.controller.start()
        return self

    def stop(self) -> None:
        self.release.set()
        if self.controller is not None:
            self.controller.stop()
            self.controller = None


@contextmanager
def smtp_sink(port: int | None = None, mode: str = "accept") -> Iterator[SmtpSink]:
    sink = SmtpSink(port, mode).start()
    try:
        yield sink
    finally:
        sink.stop()


@contextmanager
def mail_server(db: Path, smtp_port: int, access_log: bool = False, **pace: float) -> Iterator[LiveServer]:
    """A live server that mails through ``127.0.0.1:smtp_port`` at the ``FAST`` pace (or ``pace``)."""
    config = MailConfig("127.0.0.1", smtp_port, "tabletris@example.com", **{**FAST, **pace})
    server = LiveServer(db, mail=config, access_log=access_log).start()
    try:
        yield server
    finally:
        server.stop()


def wants_mail(server: LiveServer, name: str, address: str, lang: str = "en") -> httpx.Client:
    """A logged-in account that asked for your-turn mail at ``address``."""
    client = logged_in(server.url, name)
    r = client.put("/api/me/notifications", json={"email": address, "turn_mail": True, "lang": lang})
    assert r.status_code == 200, r.text
    return client


def turn_based_room(server: LiveServer, *players: httpx.Client, game: str = "dice") -> tuple[str, list[str]]:
    """A turn-based room where ``players`` sit, in order, by their sessions (the game starts
    when the last sits); its id and each seat's token."""
    body = {"game": game, "seats": [{"kind": "open"} for _ in players], "speed": {"mode": "turn", "per_move": 86400.0}}
    r = httpx.post(server.url + "/api/rooms", json=body, timeout=10)
    assert r.status_code == 201, r.text
    room = str(r.json()["id"])
    tokens = []
    for seat, client in enumerate(players):
        joined = client.post(f"/api/rooms/{room}/join", json={"name": "x", "seat": seat})
        assert joined.status_code == 200, joined.text
        tokens.append(str(joined.json()["token"]))
    return room, tokens


def play_dice_turn(base: str, room: str, token: str) -> int:
    """The seat plays its dice turn (the first legal move): the move's ``seq`` once acknowledged."""
    state = httpx.get(f"{base}/api/rooms/{room}", headers={"X-Seat-Token": token}, timeout=10).json()
    move = dice_moves(state)[0]
    r = httpx.post(f"{base}/api/rooms/{room}/moves", json=move, headers={"X-Seat-Token": token}, timeout=10)
    assert r.status_code == 200, r.text
    return int(r.json()["seq"])


def to_act(base: str, room: str) -> list[int]:
    game = httpx.get(f"{base}/api/rooms/{room}", timeout=10).json()["game"]
    return list(game.get("to_act") or ([game["current"]] if "current" in game else []))


def queue_rows(db: Path) -> list[dict[str, Any]]:
    with contextlib.closing(sqlite3.connect(db)) as conn:
        conn.row_factory = sqlite3.Row
        return [dict(r) for r in conn.execute("SELECT * FROM mail_queue ORDER BY id")]


def wait_for(check: Any, timeout: float = 20.0, what: str = "condition") -> Any:
    """Poll ``check`` until it answers something true (returned), or fail after ``timeout`` s."""
    deadline = time.time() + timeout
    while True:
        got = check()
        if got:
            return got
        if time.time() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.05)


__all__ = [
    "FAST", "SmtpSink", "mail_server", "play_dice_turn", "queue_rows", "smtp_sink", "to_act", "turn_based_room",
    "wait_for", "wants_mail",
]
