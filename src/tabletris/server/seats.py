"""A room's seats and their secret tokens (only a token's hash is kept)."""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

TIMER_BOT = "random"
"""The bot that plays a human's turn when the turn timer runs out, and a resigned seat."""


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def rematch_token(old_token: str, new_room: str) -> str:
    """The seat token in a rematch, derived from the player's old token: asking twice gives the
    same token (the rematch is idempotent), and nobody without the old token can compute it."""
    return hmac.new(old_token.encode("utf-8"), new_room.encode("utf-8"), hashlib.sha256).hexdigest()[:32]


@dataclass
class Seat:
    """One seat: ``kind`` is ``open`` (waiting for a person), ``reserved`` (a rematch seat kept
    for the previous game's player: ``token_hash`` is their old token's), ``human``,
    ``resigned`` (a person who gave up or timed out: the timer bot plays on) or a bot's name."""

    index: int
    kind: str
    name: str | None = None
    strength: float | None = None
    token_hash: str | None = None
    connected: int = 0
    tower: str | None = None
    """The tower and end this seat chose (tower game); None: a free one drawn at the start."""
    remote: int = 0
    """Connections to this seat on other instances (approximate: see ``Replica.remote``)."""
    account_id: str | None = None
    """The account seated here (None: a guest, a bot, an open seat): it may act for the
    seat with its session as well as with the token."""

    @property
    def is_bot(self) -> bool:
        return self.kind not in ("open", "human", "reserved")

    @property
    def bot_name(self) -> str:
        return TIMER_BOT if self.kind == "resigned" else self.kind

    def info(self) -> dict[str, Any]:
        return {
            "seat": self.index,
            "kind": self.kind,
            "name": self.name,
            "strength": self.strength,
            "tower": self.tower,
            "open": self.kind == "open",
            "bot": self.is_bot,
            "connected": self.is_bot or self.connected + self.remote > 0,
            "account": self.account_id is not None,
        }

    @classmethod
    def stored(cls, row: Mapping[str, Any]) -> Seat:
        """The seat of a ``seats`` row."""
        return cls(row["seat"], row["kind"], row["name"], row["strength"], row["token_hash"], tower=row.get("tower"),
                   account_id=row.get("account_id"))

    def row(self) -> dict[str, Any]:
        """What another instance needs to know about the seat (the bus message)."""
        return {"kind": self.kind, "name": self.name, "strength": self.strength,
                "token_hash": self.token_hash, "tower": self.tower, "account_id": self.account_id}


def seat_facts(row: Mapping[str, Any]) -> tuple[Any, ...]:
    """A seat as the database has it (a seat that became an account's, or stopped being one,
    differs: the receiving instance reads the room back)."""
    return (row["kind"], row["name"], row["strength"], row["token_hash"], row.get("tower"), row.get("account_id"))



__all__ = ["TIMER_BOT", "Seat", "hash_token", "rematch_token", "seat_facts"]
