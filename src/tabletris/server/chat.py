"""A room's chat: lines to everybody in the room, players and spectators, on every instance.

Chat is not stored: a room keeps its last ``chat_keep`` lines in memory for people who connect
later (``log``); another instance's lines arrive through the bus (``hear``).
"""

from __future__ import annotations

import json
import time
from collections import deque
from typing import Any, Protocol

from tabletris.i18n import _
from tabletris.server.bus import Bus
from tabletris.server.connection import Connection
from tabletris.server.errors import ActionError
from tabletris.server.limits import Limits
from tabletris.server.seats import Seat


class ChatHost(Protocol):
    @property
    def bus(self) -> Bus: ...


class ChatRoom(Protocol):
    """What the chat asks of its room."""

    @property
    def id(self) -> str: ...
    @property
    def seats(self) -> list[Seat]: ...
    @property
    def conns(self) -> set[Connection]: ...
    @property
    def limits(self) -> Limits: ...
    @property
    def lobby(self) -> ChatHost: ...


class Chat:
    """One room's chat."""

    def __init__(self, room: ChatRoom) -> None:
        self.room = room
        self.log: deque[str] = deque()
        """The last lines, as sent (JSON text), for people who connect later."""

    def say(self, conn: Connection, text: Any) -> None:
        """A chat line from ``conn`` to everybody in the room (players and spectators).

        The text is sent as data, never markup (the client renders it as text); length and rate are
        limited per connection, and a refused line is answered with the reason.
        """
        if not isinstance(text, str):
            raise ActionError("bad_chat", "'text' is the chat line, a string")
        text = " ".join(text.split())
        if not text:
            raise ActionError("bad_chat", _("an empty chat line is not sent"))
        limits = self.room.limits
        if len(text) > limits.chat_chars:
            raise ActionError("bad_chat", _("a chat line has at most {most} characters, got {got}").format(most=limits.chat_chars, got=len(text)))
        now = time.time()
        said = conn.said
        while said and now - said[0] >= limits.chat_window:
            said.popleft()
        if len(said) >= limits.chat_lines:
            wait = limits.chat_window - (now - said[0])
            raise ActionError(
                "rate_limited", _("at most {lines} chat lines in {window:g} s: wait {wait:.0f} s").format(
                    lines=limits.chat_lines, window=limits.chat_window, wait=wait)
            )
        conn.said.append(now)
        seat = conn.seat
        name = (self.room.seats[seat].name if seat is not None else None) or "Spectator"
        line = json.dumps(
            {"type": "chat", "seat": seat, "name": name, "text": text, "at": now}, separators=(",", ":")
        )
        self.hear(line)
        bus = self.room.lobby.bus
        if bus.distributed:
            bus.publish(self.room.id, {"kind": "chat", "line": line})

    def hear(self, line: str) -> None:
        """A chat line (said here or on another instance) to this instance's connections."""
        self.log.append(line)
        while len(self.log) > self.room.limits.chat_keep:
            self.log.popleft()
        for other in list(self.room.conns):
            other.send(line)


__all__ = ["Chat"]
