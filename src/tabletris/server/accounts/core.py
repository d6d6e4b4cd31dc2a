"""Accounts, their sessions, and the FastAPI dependencies that find the caller's account."""

from __future__ import annotations

import asyncio
import hashlib
import json
import secrets
import time
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from fastapi import Request
from pwdlib import PasswordHash
from pwdlib.hashers.argon2 import Argon2Hasher
from sqlalchemy import Column, Float, ForeignKey, String, Table, delete, insert, select, update
from sqlalchemy.ext.asyncio import AsyncConnection
from starlette.requests import HTTPConnection

from tabletris.i18n import _
from tabletris.server.errors import ActionError
from tabletris.server.guard import allowed_origins, same_site
from tabletris.server.limits import Bucket, Limits, clean_name, name_skeleton
from tabletris.server.ratings import forget_account
from tabletris.server.storage import Storage, metadata, rooms, seats

COOKIE = "tabletris_session"
SESSION_DAYS = 30
"""A session's lifetime; logging in again starts a new one."""
PASSWORD_MIN = 8
PASSWORD_MAX = 256
"""Characters; the upper bound keeps one login's hashing work bounded."""
DELETED_NAME = "(deleted player)"
LOGIN_BURST = 10
LOGIN_PER_MINUTE = 5.0
"""Login attempts per address and per username: a burst of ``LOGIN_BURST``, then
``LOGIN_PER_MINUTE`` (each instance counts its own)."""

users = Table(
    "users",
    metadata,
    Column("id", String(36), primary_key=True),
    Column("username", String(64), nullable=False, unique=True),
    Column("skeleton", String(128), nullable=False, unique=True),
    Column("password_hash", String(255), nullable=False),
    Column("created", Float, nullable=False),
)

sessions = Table(
    "sessions",
    metadata,
    Column("id_hash", String(64), primary_key=True),
    Column("user_id", String(36), ForeignKey("users.id", ondelete="CASCADE"), nullable=False, index=True),
    Column("created", Float, nullable=False),
    Column("expires", Float, nullable=False),
)


@dataclass(frozen=True)
class Account:
    id: str
    username: str
    created: float = 0.0


def renamed_start(start: Any, places: Sequence[int]) -> dict[str, Any] | None:
    """A stored game start (its record's header) with the players at ``places`` named
    ``DELETED_NAME`` (None: no start, or no such players)."""
    if isinstance(start, str):
        start = json.loads(start)
    if not isinstance(start, dict) or not isinstance(start.get("players"), list):
        return None
    players = list(start["players"])
    for place in places:
        if 0 <= place < len(players):
            players[place] = DELETED_NAME
    return {**start, "players": players}


def session_hash(session_id: str) -> str:
    """Only this is stored: a stolen database copy holds no usable session."""
    return hashlib.sha256(session_id.encode("utf-8")).hexdigest()


class Accounts:
    """Users and sessions in the server's database (``Storage``'s engine: SQLite or
    PostgreSQL, so every instance sharing it accepts every session)."""

    def __init__(self, storage: Storage, limits: Limits, origins: Sequence[str] = ()) -> None:
        self.storage = storage
        self.limits = limits
        self.origins = allowed_origins(origins)
        self.hasher = PasswordHash((Argon2Hasher(),))
        self._dummy: str | None = None
        self.by_address: dict[str, Bucket] = {}
        self.by_account: dict[str, Bucket] = {}

    # ------------------------------------------------------------------ passwords

    def check_password(self, password: Any) -> str:
        if not isinstance(password, str) or not (PASSWORD_MIN <= len(password) <= PASSWORD_MAX):
            raise ActionError(
                "bad_password", _("a password has {low} to {high} characters").format(low=PASSWORD_MIN, high=PASSWORD_MAX)
            )
        return password

    async def _hash(self, password: str) -> str:
        return await asyncio.to_thread(self.hasher.hash, password)

    async def _verify(self, password: str, hashed: str | None) -> bool:
        """Argon2 in a thread; an unknown user is checked against a dummy hash, so the answer
        takes the same work as a wrong password."""
        if hashed is None:
            if self._dummy is None:
                self._dummy = await self._hash(secrets.token_urlsafe(16))
            await asyncio.to_thread(self.hasher.verify, "x" * 12, self._dummy)
            return False
        return bool(await asyncio.to_thread(self.hasher.verify, password, hashed))

    # ------------------------------------------------------------------ accounts

    async def register(self, username: Any, password: Any) -> Account:
        name = clean_name(self.limits, username)
        self.check_password(password)
        skeleton = name_skeleton(name)
        hashed = await self._hash(password)
        account = Account(str(uuid.uuid4()), name, time.time())
        async with self.storage.engine.begin() as conn:
            found = await conn.execute(select(users.c.username).where(users.c.skeleton == skeleton))
            other = found.scalar()
            if other is not None:
                raise ActionError("username_taken", _("the username {name!r} is taken, or looks the same as one taken").format(name=name))
            await conn.execute(insert(users).values(
                id=account.id, username=name, skeleton=skeleton, password_hash=hashed, created=account.created))
        return account

    async def authenticate(self, username: Any, password: Any, address: str) -> Account:
        """The account whose password this is; one answer for an unknown user and a wrong
        password. Rate-limited per address and per username (``rate_limited`` with the wait)."""
        name = username if isinstance(username, str) else ""
        self._take(self.by_address, address)
        self._take(self.by_account, name_skeleton(name[:64]))
        async with self.storage.engine.connect() as conn:
            row = (await conn.execute(select(users).where(users.c.username == name[:64]))).mappings().first()
        ok = await self._verify(password if isinstance(password, str) else "", None if row is None else row["password_hash"])
        if row is None or not ok:
            raise ActionError("bad_login", _("wrong username or password"))
        return Account(row["id"], row["username"], row["created"])

    async def _check_own_password(self, account: Account, password: Any) -> None:
        """Changing or deleting an account asks for its password again: a session left open on
        a shared device must not be enough."""
        async with self.storage.engine.connect() as conn:
            hashed = (await conn.execute(select(users.c.password_hash).where(users.c.id == account.id))).scalar()
        self._take(self.by_account, "id:" + account.id)
        if hashed is None or not await self._verify(password if isinstance(password, str) else "", hashed):
            raise ActionError("bad_login", _("wrong password"))

    async def change_password(self, account: Account, current: Any, new: Any, keep_session: str | None) -> None:
        """A new hash; every session of the account but ``keep_session`` ends (a thief's too)."""
        await self._check_own_password(account, current)
        hashed = await self._hash(self.check_password(new))
        async with self.storage.engine.begin() as conn:
            await conn.execute(update(users).where(users.c.id == account.id).values(password_hash=hashed))
            ended = delete(sessions).where(sessions.c.user_id == account.id)
            if keep_session:
                ended = ended.where(sessions.c.id_hash != session_hash(keep_session))
            await conn.execute(ended)

    async def delete_account(self, account: Account, password: Any) -> list[str]:
        """The account, its sessions and its ratings go; its games stay, their seats named
        ``DELETED_NAME`` and tied to no account, and the players' names their records keep
        (``rooms.start``) say the same. The rooms whose names changed (to tell every instance
        holding one: ``Lobby.renamed``)."""
        await self._check_own_password(account, password)

        async def work(conn: AsyncConnection) -> list[str]:
            held = (await conn.execute(
                select(seats.c.room_id, seats.c.seat).where(seats.c.account_id == account.id)
            )).all()
            await conn.execute(update(seats).where(seats.c.account_id == account.id).values(account_id=None, name=DELETED_NAME))
            by_room: dict[str, list[int]] = {}
            for room_id, seat in held:
                by_room.setdefault(str(room_id), []).append(int(seat))
            for room_id, places in by_room.items():
                start = (await conn.execute(select(rooms.c.start).where(rooms.c.id == room_id))).scalar()
                renamed = renamed_start(start, places)
                if renamed is not None:
                    await conn.execute(update(rooms).where(rooms.c.id == room_id).values(start=renamed))
            await conn.execute(delete(sessions).where(sessions.c.user_id == account.id))
            await conn.execute(delete(users).where(users.c.id == account.id))
            return sorted(by_room)

        changed: list[str] = await self.storage.transact(work)
        await forget_account(self.storage, account.id)
        return changed

    def _take(self, buckets: dict[str, Bucket], key: str) -> None:
        bucket = buckets.get(key)
        if bucket is None:
            if len(buckets) > 10_000:
                buckets.clear()
            bucket = buckets[key] = Bucket(LOGIN_PER_MINUTE / 60.0, LOGIN_BURST)
        if not bucket.take():
            raise ActionError("rate_limited", _("too many login attempts: try again later"), retry_after=bucket.wait())

    # ------------------------------------------------------------------ sessions

    async def start_session(self, account: Account) -> str:
        """A new random session id (never one the client offered: no session fixation)."""
        session_id = secrets.token_urlsafe(32)
        now = time.time()
        async with self.storage.engine.begin() as conn:
            await conn.execute(insert(sessions).values(
                id_hash=session_hash(session_id), user_id=account.id, created=now, expires=now + SESSION_DAYS * 86400))
        return session_id

    async def end_session(self, session_id: str) -> None:
        async with self.storage.engine.begin() as conn:
            await conn.execute(delete(sessions).where(sessions.c.id_hash == session_hash(session_id)))

    async def account_for_session(self, session_id: str | None) -> Account | None:
        if not session_id or len(session_id) > 128:
            return None
        async with self.storage.engine.connect() as conn:
            row = (await conn.execute(
                select(users.c.id, users.c.username, users.c.created)
                .join(sessions, sessions.c.user_id == users.c.id)
                .where(sessions.c.id_hash == session_hash(session_id), sessions.c.expires > time.time())
            )).first()
        return None if row is None else Account(row[0], row[1], row[2])

    # ------------------------------------------------------------------ origin

    def origin_ok(self, request: HTTPConnection) -> bool:
        """A cookie-authenticated POST/DELETE (or websocket) from another site's page is refused
        (CSRF): its Origin must be this server's or a configured one (``guard.same_site``);
        without an Origin, a browser's ``Sec-Fetch-Site: cross-site`` is refused too. Programs
        send neither."""
        if "origin" not in request.headers:
            return request.headers.get("sec-fetch-site", "same-origin") != "cross-site"
        return same_site(request.headers, self.origins)

    async def session_account(self, conn: HTTPConnection) -> Account | None:
        """The account of a request's or websocket's session cookie, when it passes the
        Origin check (None: no session, an ended one, or another site's page)."""
        session_id = conn.cookies.get(COOKIE)
        if session_id is None or not self.origin_ok(conn):
            return None
        return await self.account_for_session(session_id)

    def check_origin(self, request: Request) -> None:
        if not self.origin_ok(request):
            raise ActionError("bad_origin", _("this request comes from a page of another site"))


def accounts_of(request: Request) -> Accounts:
    accounts: Accounts = request.app.state.accounts
    return accounts


async def optional_account(request: Request) -> Account | None:
    """The logged-in account, else None. An unsafe method with a session cookie must pass the
    Origin check (``bad_origin``), whether or not the session is valid."""
    accounts = accounts_of(request)
    session_id = request.cookies.get(COOKIE)
    if session_id is None:
        return None
    if request.method not in ("GET", "HEAD", "OPTIONS"):
        accounts.check_origin(request)
    return await accounts.account_for_session(session_id)


async def required_account(request: Request) -> Account:
    """The logged-in account, or 401 ``login_required``."""
    account = await optional_account(request)
    if account is None:
        raise ActionError("login_required", _("log in first"))
    return account


__all__ = [
    "COOKIE", "DELETED_NAME", "Account", "Accounts", "optional_account", "required_account", "seats", "session_hash", "sessions", "users",
]
