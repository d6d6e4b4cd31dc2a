"""The mail tables and every query on them: each account's mail settings, the queue of
your-turn notices, and the server's signing key (migration 0008).

Every write goes through ``Storage.transact`` (the one writer: on SQLite it never waits for
another connection's write lock); reads use their own connection. The queue holds one row per
(account, room, turn), so a turn is mailed at most once whoever notices it, on any instance.
An instance that sends claims the rows first, in a transaction (``claim``): another instance
skips rows claimed and not yet expired, so no mail goes out twice.
"""

from __future__ import annotations

import json
import secrets
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import (
    Boolean,
    Column,
    Float,
    ForeignKey,
    Index,
    Integer,
    String,
    Table,
    Text,
    UniqueConstraint,
    false,
    or_,
    select,
    update,
)
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.ext.asyncio import AsyncConnection

from tabletris.server.storage import Storage, metadata, rooms

PENDING, SENT, FAILED, DROPPED = "pending", "sent", "failed", "dropped"
"""A notice's status: waiting to be sent (or retried); sent; given up; no longer wanted (the
turn moved on, the player came back or turned mail off)."""
KEEP_DAYS = 30
"""Days a sent, failed or dropped notice is kept (it stops a second mail for the same turn)."""

mail_settings = Table(
    "mail_settings",
    metadata,
    Column("account_id", String(36), ForeignKey("users.id", ondelete="CASCADE"), primary_key=True),
    Column("email", String(254), nullable=True),
    Column("turn_mail", Boolean, nullable=False, server_default=false()),
    Column("lang", String(8), nullable=False),
    Column("base_url", String(300), nullable=True),
    Column("last_sent", Float, nullable=True),
    Column("updated", Float, nullable=False),
)

mail_queue = Table(
    "mail_queue",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("account_id", String(36), ForeignKey("users.id", ondelete="CASCADE"), nullable=False),
    Column("room_id", String(32), nullable=False),
    Column("turn", String(32), nullable=False),
    Column("turn_started", Float, nullable=True),
    Column("seat", Integer, nullable=False),
    Column("game", String(16), nullable=False),
    Column("players", Text, nullable=False),
    Column("created", Float, nullable=False),
    Column("due", Float, nullable=False),
    Column("status", String(12), nullable=False),
    Column("attempts", Integer, nullable=False, server_default="0"),
    Column("claim", String(32), nullable=True),
    Column("claim_until", Float, nullable=True),
    Column("error", String(200), nullable=True),
    UniqueConstraint("account_id", "room_id", "turn", name="uq_mail_queue_turn"),
    Index("ix_mail_queue_status_due", "status", "due"),
    Index("ix_mail_queue_account", "account_id"),
)

server_keys = Table(
    "server_keys",
    metadata,
    Column("name", String(32), primary_key=True),
    Column("secret", String(128), nullable=False),
    Column("created", Float, nullable=False),
)


@dataclass(frozen=True)
class Settings:
    """One account's mail settings (the address is only ever shown to the account itself)."""

    email: str | None
    turn_mail: bool
    lang: str
    base_url: str | None = None
    last_sent: float | None = None


@dataclass(frozen=True)
class Notice:
    """A turn that began for a person away from the room: what its mail says."""

    account_id: str
    room_id: str
    turn: str
    seat: int
    game: str
    players: list[str] = field(default_factory=list)
    """The other seats' names, as the room shows them."""
    turn_started: float | None = None
    """When the turn began (the room's stored ``turn_started``): the turn is still the room's
    when the database still says this."""


@dataclass(frozen=True)
class Queued(Notice):
    id: int = 0
    created: float = 0.0
    attempts: int = 0


def _insert(conn: AsyncConnection, table: Table) -> Any:
    """The dialect's insert, which has ``on_conflict_do_nothing`` (SQLite and PostgreSQL)."""
    return (postgresql.insert if conn.dialect.name == "postgresql" else sqlite.insert)(table)


# ---------------------------------------------------------------------- settings


async def get_settings(storage: Storage, account_id: str) -> Settings | None:
    async with storage.engine.connect() as conn:
        row = (await conn.execute(select(mail_settings).where(mail_settings.c.account_id == account_id))).mappings().first()
    if row is None:
        return None
    return Settings(row["email"], bool(row["turn_mail"]), row["lang"], row["base_url"], row["last_sent"])


async def put_settings(storage: Storage, account_id: str, settings: Settings) -> None:
    """Store an account's settings; turning mail off (or changing the address) drops the
    notices still waiting, so nothing goes to an address the player took back."""

    async def work(conn: AsyncConnection) -> None:
        values = {
            "email": settings.email, "turn_mail": settings.turn_mail, "lang": settings.lang,
            "base_url": settings.base_url, "updated": time.time(),
        }
        before = (await conn.execute(select(mail_settings.c.email).where(mail_settings.c.account_id == account_id))).first()
        statement = _insert(conn, mail_settings).values(account_id=account_id, **values)
        await conn.execute(statement.on_conflict_do_update(index_elements=["account_id"], set_=values))
        if not settings.turn_mail or (before is not None and before[0] != settings.email):
            await _drop_pending(conn, account_id)

    await storage.transact(work)


async def unsubscribe(storage: Storage, account_id: str) -> bool:
    """Turn the account's your-turn mail off (the one-click link); True when it was on."""

    async def work(conn: AsyncConnection) -> bool:
        done = await conn.execute(
            update(mail_settings).where(mail_settings.c.account_id == account_id, mail_settings.c.turn_mail.is_(True))
            .values(turn_mail=False, updated=time.time())
        )
        await _drop_pending(conn, account_id)
        return bool(done.rowcount)

    return bool(await storage.transact(work))


async def _drop_pending(conn: AsyncConnection, account_id: str) -> None:
    await conn.execute(
        update(mail_queue).where(mail_queue.c.account_id == account_id, mail_queue.c.status == PENDING)
        .values(status=DROPPED, claim=None, claim_until=None)
    )


# ---------------------------------------------------------------------- the queue


async def enqueue(storage: Storage, notices: Sequence[Notice], gather: float, spacing: float) -> int:
    """Queue a notice for each account that asked for your-turn mail (the others are skipped
    here, in the database, not on the move's path); a turn already queued is not queued again.
    It is due after ``gather`` seconds, and not before ``spacing`` seconds after the account's
    last mail. Returns how many were queued."""
    now = time.time()

    async def work(conn: AsyncConnection) -> int:
        ids = sorted({n.account_id for n in notices})
        found = await conn.execute(
            select(mail_settings.c.account_id, mail_settings.c.last_sent).where(
                mail_settings.c.account_id.in_(ids), mail_settings.c.turn_mail.is_(True), mail_settings.c.email.is_not(None)
            )
        )
        wanted = {str(r.account_id): r.last_sent for r in found}
        queued = 0
        for n in notices:
            if n.account_id not in wanted:
                continue
            last = wanted[n.account_id]
            due = max(now + gather, (last or 0.0) + spacing)
            statement = _insert(conn, mail_queue).values(
                account_id=n.account_id, room_id=n.room_id, turn=n.turn[:32], turn_started=n.turn_started, seat=n.seat,
                game=n.game, players=json.dumps(n.players, ensure_ascii=False), created=now, due=due, status=PENDING,
                attempts=0,
            )
            done = await conn.execute(statement.on_conflict_do_nothing(index_elements=["account_id", "room_id", "turn"]))
            queued += max(0, done.rowcount or 0)
        return queued

    return int(await storage.transact(work))


def _queued(row: Any) -> Queued:
    try:
        players = [str(p) for p in json.loads(row["players"] or "[]")]
    except ValueError:
        players = []
    return Queued(
        row["account_id"], row["room_id"], row["turn"], row["seat"], row["game"], players, row["turn_started"],
        id=row["id"], created=row["created"], attempts=row["attempts"],
    )


async def claim(storage: Storage, claim_id: str, hold: float, accounts: int = 20) -> dict[str, list[Queued]]:
    """Claim the notices of up to ``accounts`` accounts that have one due: every notice still
    pending for such an account goes with it (the digest gathers them), held for ``hold``
    seconds. Rows another instance holds are skipped (PostgreSQL: ``SKIP LOCKED``, so no
    claim waits for another's; SQLite has one writer). An instance that dies while holding a
    claim lets it expire, and another sends the mail."""
    now = time.time()
    free = or_(mail_queue.c.claim.is_(None), mail_queue.c.claim_until < now)

    async def work(conn: AsyncConnection) -> dict[str, list[Queued]]:
        due = await conn.execute(
            select(mail_queue.c.account_id).where(mail_queue.c.status == PENDING, mail_queue.c.due <= now, free)
            .group_by(mail_queue.c.account_id).limit(accounts)
        )
        ids = [str(r[0]) for r in due]
        if not ids:
            return {}
        rows = await conn.execute(
            select(mail_queue.c.id).where(mail_queue.c.account_id.in_(ids), mail_queue.c.status == PENDING, free)
            .with_for_update(skip_locked=True)
        )
        taken = [int(r[0]) for r in rows]
        if not taken:
            return {}
        await conn.execute(
            update(mail_queue).where(mail_queue.c.id.in_(taken), mail_queue.c.status == PENDING, free)
            .values(claim=claim_id, claim_until=now + hold)
        )
        mine = await conn.execute(select(mail_queue).where(mail_queue.c.claim == claim_id, mail_queue.c.status == PENDING))
        by_account: dict[str, list[Queued]] = {}
        for row in mine.mappings():
            by_account.setdefault(row["account_id"], []).append(_queued(row))
        return by_account

    result: dict[str, list[Queued]] = await storage.transact(work)
    return result


async def settle(
    storage: Storage, ids: Sequence[int], status: str, error: str | None = None, account_id: str | None = None,
) -> None:
    """The claimed notices are done: sent (the account's ``last_sent`` noted), given up or
    dropped."""
    if not ids:
        return
    now = time.time()

    async def work(conn: AsyncConnection) -> None:
        await conn.execute(
            update(mail_queue).where(mail_queue.c.id.in_(list(ids)))
            .values(status=status, claim=None, claim_until=None, error=None if error is None else error[:200])
        )
        if status == SENT and account_id is not None:
            await conn.execute(update(mail_settings).where(mail_settings.c.account_id == account_id).values(last_sent=now))

    await storage.transact(work)


async def retry_later(storage: Storage, ids: Sequence[int], due: float, error: str) -> None:
    """The claimed notices could not be sent: pending again, due at ``due``, one more attempt."""
    if not ids:
        return

    async def work(conn: AsyncConnection) -> None:
        await conn.execute(
            update(mail_queue).where(mail_queue.c.id.in_(list(ids)))
            .values(status=PENDING, claim=None, claim_until=None, due=due, attempts=mail_queue.c.attempts + 1, error=error[:200])
        )

    await storage.transact(work)


async def release(storage: Storage, claim_id: str) -> int:
    """An instance that stops hands back what it still holds (``claim_id``'s pending notices,
    a mail cut off mid-send among them): the next instance sends them at once instead of after
    the claim's hold. How many were handed back."""

    async def work(conn: AsyncConnection) -> int:
        done = await conn.execute(
            update(mail_queue).where(mail_queue.c.claim == claim_id, mail_queue.c.status == PENDING)
            .values(claim=None, claim_until=None)
        )
        return int(done.rowcount or 0)

    released: int = await storage.transact(work)
    return released


async def prune(storage: Storage, days: float = KEEP_DAYS) -> None:
    """Forget notices settled more than ``days`` ago."""
    before = time.time() - days * 86400

    async def work(conn: AsyncConnection) -> None:
        await conn.execute(mail_queue.delete().where(mail_queue.c.status != PENDING, mail_queue.c.created < before))

    await storage.transact(work)


async def rooms_now(storage: Storage, room_ids: Sequence[str]) -> dict[str, tuple[str, float | None]]:
    """Each room's stored status and turn start: a notice whose turn is no longer the room's is
    dropped before its mail is written."""
    async with storage.engine.connect() as conn:
        found = await conn.execute(select(rooms.c.id, rooms.c.status, rooms.c.turn_started).where(rooms.c.id.in_(list(room_ids))))
        return {str(r.id): (str(r.status), r.turn_started) for r in found}


# ---------------------------------------------------------------------- the signing key


async def signing_key(storage: Storage, name: str = "unsubscribe") -> bytes:
    """The server's secret for signing links, made once and kept in the database, so every
    instance sharing it signs and checks alike, and a restart keeps old links valid."""

    async def work(conn: AsyncConnection) -> str:
        made = _insert(conn, server_keys).values(name=name, secret=secrets.token_hex(32), created=time.time())
        await conn.execute(made.on_conflict_do_nothing(index_elements=["name"]))
        return str((await conn.execute(select(server_keys.c.secret).where(server_keys.c.name == name))).scalar_one())

    return bytes.fromhex(await storage.transact(work))


__all__ = [
    "DROPPED", "FAILED", "KEEP_DAYS", "PENDING", "SENT", "Notice", "Queued", "Settings", "claim", "enqueue", "get_settings",
    "mail_queue", "mail_settings", "prune", "put_settings", "release", "retry_later", "rooms_now", "server_keys", "settle",
    "signing_key", "unsubscribe",
]
