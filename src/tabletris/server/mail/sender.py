"""The your-turn mail: noticing a turn that began for someone away, and sending the queue.

Nothing here runs on a move's path but ``Mailer.turn_began``: a few attribute checks on the
room (turn-based? a person to act, with an account, not connected?), and when a notice is due a
task is spawned that queues it in the database. The database decides whether the account wants
mail (no query per move, no settings cached in memory that another instance could change).

A background task per instance sends the queue: it claims the due notices of a few accounts
(``store.claim``: in a transaction, so two instances never send the same mail), checks each is
still wanted (the turn is still the room's, the player has not come back), writes one mail per
account (a digest when several games wait) and sends it with aiosmtplib. An SMTP server that is
down, slow or refusing only ever delays this task: a mail that fails is tried again with
backoff until ``MailConfig.give_up`` after its turn began, then given up with one log line
(never an address in the log); a refusal (5xx) is given up at once.
"""

from __future__ import annotations

import asyncio
import contextlib
import email.policy
import logging
import secrets
import time
from collections.abc import Callable, Mapping, Sequence
from email.message import EmailMessage
from typing import Any

import aiosmtplib
from sqlalchemy import select

from tabletris.server.accounts.core import users
from tabletris.server.mail import store
from tabletris.server.mail.compose import compose, sign
from tabletris.server.mail.config import MailConfig
from tabletris.server.mail.store import DROPPED, FAILED, SENT, Notice, Queued
from tabletris.server.metrics import Metrics
from tabletris.server.storage import Storage
from tabletris.server.storage_errors import FaultLog

log = logging.getLogger("tabletris.server.mail")

CONCURRENT = 4
"""Mails sent at once (each a connection to the SMTP server)."""
PRUNE_EVERY = 3600.0
"""Seconds between two sweeps of old settled notices."""
CLOSE_GRACE = 1.0
"""Seconds a stopping instance gives a send it cancelled to finish before cancelling it again."""


def _reason(e: BaseException) -> str:
    """Why a send failed, in a few words with no address in them (aiosmtplib's texts quote
    the recipients)."""
    code = getattr(e, "code", None)
    if isinstance(e, aiosmtplib.SMTPRecipientsRefused):
        codes = sorted({r.code for r in e.recipients})
        return f"recipient refused (SMTP {', '.join(str(c) for c in codes)})"
    if isinstance(e, aiosmtplib.SMTPResponseException) and isinstance(code, int):
        return f"SMTP {code}"
    if isinstance(e, (aiosmtplib.SMTPTimeoutError, TimeoutError)):
        return "timed out"
    if isinstance(e, ConnectionRefusedError) or (isinstance(e, aiosmtplib.SMTPConnectError) and "refused" in str(e).lower()):
        return "connection refused"
    if isinstance(e, (aiosmtplib.SMTPConnectError, aiosmtplib.SMTPServerDisconnected, OSError)):
        return "cannot connect" if isinstance(e, aiosmtplib.SMTPConnectError) else "connection lost"
    return type(e).__name__


def _permanent(e: BaseException) -> bool:
    """The SMTP server refused the mail for good (a 5xx answer): trying again cannot help."""
    if isinstance(e, aiosmtplib.SMTPRecipientsRefused):
        return all(r.code >= 500 for r in e.recipients)
    code = getattr(e, "code", None)
    return isinstance(e, aiosmtplib.SMTPResponseException) and isinstance(code, int) and code >= 500


class Mailer:
    """One instance's mail: the trigger (``turn_began``) and the sending task (``start``)."""

    def __init__(
        self, storage: Storage, config: MailConfig, rooms: Mapping[str, Any],
        spawn: Callable[[Any], asyncio.Task[Any]] | None = None, metrics: Metrics | None = None,
    ) -> None:
        self.storage = storage
        self.config = config
        self.rooms = rooms
        """The rooms this instance holds (``Lobby.rooms``): a notice for one of them is checked
        against its live state before its mail goes; the others against the database."""
        self._spawn = spawn
        self._wake = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._tasks: set[asyncio.Task[Any]] = set()
        self._key: bytes | None = None
        self._pruned = 0.0
        self.claim_id = secrets.token_hex(8)
        self.faults = FaultLog(log)
        self.metrics = metrics
        self.sent = 0
        self.failed = 0
        self.retried = 0
        self.dropped = 0
        """Counts since start (also ``tabletris_mails_total{outcome}``)."""

    # ------------------------------------------------------------------ lifecycle

    async def start(self) -> None:
        self._key = await store.signing_key(self.storage)
        self._task = asyncio.create_task(self._loop(), name="mail-sender")

    async def close(self) -> None:
        """Stop sending and hand back what this instance still holds. A send cut off here is
        cancelled again after ``CLOSE_GRACE`` seconds: aiosmtplib answers a cancellation by
        saying QUIT to the SMTP server and waiting up to its whole timeout for the reply, which
        a stalled server never gives (a stop then took the SMTP timeout, 30 s by default)."""
        tasks = [t for t in (self._task, *self._tasks) if t is not None]
        pending = set(tasks)
        for _ in range(3):
            if not pending:
                break
            for task in pending:
                task.cancel()
            _, pending = await asyncio.wait(pending, timeout=CLOSE_GRACE)
        for task in tasks:
            if task.done() and not task.cancelled():
                task.exception()  # retrieved: a task that failed as it stopped is no warning
        self._task = None
        try:  # a mail cut off above goes from the next instance now, not when its claim expires
            await store.release(self.storage, self.claim_id)
        except Exception as e:
            self.faults.failed("release", "mail: the notices held here could not be handed back", e)

    def wake(self, delay: float = 0.0) -> None:
        """Look at the queue now (or after ``delay`` seconds)."""
        if delay <= 0:
            self._wake.set()
        else:
            asyncio.get_running_loop().call_later(delay, self._wake.set)

    def _start(self, coro: Any) -> asyncio.Task[Any]:
        task = self._spawn(coro) if self._spawn is not None else asyncio.create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    # ------------------------------------------------------------------ the trigger

    def turn_began(self, room: Any) -> None:
        """A turn began in ``room`` (its commit is stored): queue a notice for each person to
        act who has an account and is not connected to the room, when the room is turn-based
        (``speeds.Speed``: hours or days per move). Cheap checks only; the queueing runs in a
        task of its own."""
        if room.speed.mode != "turn" or room.table is None or room.status != "playing":
            return
        notices = []
        for seat in room.table.to_act():
            s = room.seats[seat]
            if s.kind == "human" and s.account_id and s.connected + s.remote <= 0:
                notices.append(Notice(
                    s.account_id, room.id, str(room.adapter.turn_key(room.game)), seat, room.game_name,
                    [o.name or "" for o in room.seats if o.index != seat], room.turn_started,
                ))
        if notices:
            self._start(self.queue(notices))

    async def queue(self, notices: Sequence[Notice]) -> int:
        """Queue the notices (those whose accounts want mail), and wake the sender when they
        are due. Never raises: a notice the database did not take is a mail not sent."""
        try:
            queued = await store.enqueue(self.storage, notices, self.config.gather, self.config.spacing)
        except Exception as e:
            self.faults.failed("queue", "mail: a your-turn notice could not be queued", e)
            return 0
        if queued:
            self.wake(self.config.gather + 0.01)
        return queued

    # ------------------------------------------------------------------ the sender

    async def _loop(self) -> None:
        while True:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), self.config.poll)
            self._wake.clear()
            try:
                while await self.send_due():
                    pass
                if time.time() - self._pruned > PRUNE_EVERY:
                    self._pruned = time.time()
                    await store.prune(self.storage)
            except asyncio.CancelledError:
                raise
            except Exception as e:  # the database is down: the next round tries again
                self.faults.failed("send", "mail: the queue could not be read", e)
            else:
                self.faults.recovered("send", "mail: the queue is read again")

    async def send_due(self) -> int:
        """Claim and send the due mails of up to ``CONCURRENT`` accounts, at once; how many
        accounts were claimed (0: nothing is due)."""
        hold = 3 * self.config.timeout + 60.0
        claimed = await store.claim(self.storage, self.claim_id, hold, accounts=CONCURRENT)
        if claimed:
            await asyncio.gather(*(self._deliver(account, notices) for account, notices in claimed.items()))
        return len(claimed)

    async def _deliver(self, account_id: str, notices: list[Queued]) -> None:
        """One account's mail: the notices still wanted, in one mail; then settled or retried."""
        ids = [n.id for n in notices]
        try:
            settings = await store.get_settings(self.storage, account_id)
            if settings is None or not settings.turn_mail or not settings.email:
                await self._settle(ids, DROPPED)
                return
            wanted = await self._still_waiting(notices)
            kept = {n.id for n in wanted}
            gone = [n.id for n in notices if n.id not in kept]
            if gone:
                await self._settle(gone, DROPPED)
            if not wanted:
                return
            ids = [n.id for n in wanted]
            async with self.storage.engine.connect() as conn:
                username = (await conn.execute(select(users.c.username).where(users.c.id == account_id))).scalar()
            assert self._key is not None
            message = compose(
                self.config.sender, settings.email, settings.lang, username, settings.base_url or "", wanted,
                sign(self._key, account_id),
            )
        except asyncio.CancelledError:
            raise
        except Exception as e:  # the database failed: the claim expires and a later round retries
            self.faults.failed("deliver", "mail: a mail could not be prepared", e)
            return
        first = min(n.created for n in wanted)
        attempts = max(n.attempts for n in wanted) + 1
        try:
            await self._send(message)
        except asyncio.CancelledError:
            raise
        except Exception as e:
            reason = _reason(e)
            if _permanent(e) or time.time() + self._backoff(attempts) - first > self.config.give_up:
                self._count("failed")
                log.warning(
                    "mail: gave up on a your-turn mail for account %s after %d tries: %s", account_id, attempts, reason
                )
                await self._settle(ids, FAILED, reason)
            else:
                self._count("retried")
                log.debug("mail: a your-turn mail for account %s failed (%s); trying again later", account_id, reason)
                with contextlib.suppress(Exception):
                    await store.retry_later(self.storage, ids, time.time() + self._backoff(attempts), reason)
                self.wake(self._backoff(attempts) + 0.01)
            return
        self._count("sent")
        log.info("mail: sent a your-turn mail for account %s (%d games)", account_id, len(wanted))
        await self._settle(ids, SENT, account_id=account_id)

    def _count(self, outcome: str, n: int = 1) -> None:
        setattr(self, outcome, getattr(self, outcome) + n)
        if self.metrics is not None:
            self.metrics.mails.labels(outcome).inc(n)

    def _backoff(self, attempts: int) -> float:
        """Seconds before try ``attempts + 1``: ``retry_first``, doubling up to ``retry_max``."""
        return float(min(self.config.retry_max, self.config.retry_first * 2 ** max(0, attempts - 1)))

    async def _settle(self, ids: Sequence[int], status: str, error: str | None = None, account_id: str | None = None) -> None:
        if status == DROPPED:
            self._count("dropped", len(ids))
        try:
            await store.settle(self.storage, ids, status, error, account_id)
        except Exception as e:  # the claim expires; a sent mail may then go again, once
            self.faults.failed("settle", "mail: a sent mail could not be marked sent", e)

    async def _send(self, message: EmailMessage) -> None:
        """Send through the operator's server. The mail is flattened here, with lines up to
        RFC 5322's 998 characters: aiosmtplib's own flattening folds at 78, which turns the long
        ``List-Unsubscribe`` URL into an encoded word no mail program reads as a link."""
        c = self.config
        utf8 = not all(str(message[h]).isascii() for h in ("From", "To"))
        policy = (email.policy.SMTPUTF8 if utf8 else email.policy.SMTP).clone(max_line_length=998)
        await aiosmtplib.send(
            message.as_bytes(policy=policy), sender=c.sender, recipients=[str(message["To"])],
            mail_options=["SMTPUTF8"] if utf8 else None,
            hostname=c.host, port=c.port, username=c.username, password=c.password, use_tls=c.tls, timeout=c.timeout,
        )

    async def _still_waiting(self, notices: Sequence[Queued]) -> list[Queued]:
        """The notices whose turn is still the room's and whose player is still away: a room
        held here is asked directly; the others through the database (the turn's start)."""
        wanted: list[Queued] = []
        elsewhere: list[Queued] = []
        for n in notices:
            room = self.rooms.get(n.room_id)
            if room is None or room.game is None:
                elsewhere.append(n)
                continue
            seat = room.seats[n.seat] if 0 <= n.seat < len(room.seats) else None
            if (
                room.status == "playing" and room.table is not None and seat is not None and seat.kind == "human"
                and seat.account_id == n.account_id and n.seat in room.table.to_act()
                and str(room.adapter.turn_key(room.game)) == n.turn and seat.connected + seat.remote <= 0
            ):
                wanted.append(n)
        if elsewhere:
            now = await store.rooms_now(self.storage, [n.room_id for n in elsewhere])
            for n in elsewhere:
                status, started = now.get(n.room_id, ("gone", None))
                same_turn = n.turn_started is None or (started is not None and abs(started - n.turn_started) < 1e-3)
                if status == "playing" and same_turn:
                    wanted.append(n)
        wanted.sort(key=lambda n: n.created)
        return wanted


__all__ = ["CLOSE_GRACE", "CONCURRENT", "Mailer"]
