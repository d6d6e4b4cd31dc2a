"""Your-turn mail (issue 26 item 3), against a real SMTP server on 127.0.0.1 (aiosmtpd): the
settings (an address checked before it is stored, shown to nobody else), the mail to a player
away from a turn-based room (a link to it, the one-click unsubscribe of RFC 8058, the
player's language), one mail per turn and a digest for several, and an SMTP server that is
down, slow or refusing: the moves go on, the mail is retried from the queue, given up after a
stated time, and logged without the address."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import re
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from typer.testing import CliRunner
from websockets.sync.client import connect as ws_connect

from account_helpers import logged_in
from mail_helpers import (
    mail_server,
    play_dice_turn,
    queue_rows,
    smtp_sink,
    turn_based_room,
    wait_for,
    wants_mail,
)
from server_helpers import free_port, live_server
from tabletris.cli.app import app as cli_app
from tabletris.server.logs import RedactTokens
from tabletris.server.mail import MailConfig, MailConfigError, store
from tabletris.server.mail.compose import compose, sign, verify
from tabletris.server.mail.store import Notice, Settings
from tabletris.server.storage import Storage

BOB = "bob@example.org"


class Captured(logging.Handler):
    """Every record the server logs (its own loggers and uvicorn's), formatted, from INFO up;
    not the test's own SMTP server's or HTTP client's."""

    def __init__(self) -> None:
        super().__init__(logging.INFO)
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        if record.name.startswith(("tabletris", "uvicorn")):
            self.lines.append(f"{record.name} {record.levelname} {record.getMessage()}")


@contextlib.contextmanager
def captured() -> Iterator[Captured]:
    """The records as the server's own log handlers get them (``logs.RedactTokens`` on them)."""
    handler = Captured()
    handler.addFilter(RedactTokens())
    loggers = [logging.getLogger(), logging.getLogger("uvicorn.access")]  # the access log does not propagate
    levels = [x.level for x in loggers]
    for x in loggers:
        x.addHandler(handler)
        x.setLevel(logging.INFO)
    try:
        yield handler
    finally:
        for x, level in zip(loggers, levels, strict=True):
            x.removeHandler(handler)
            x.setLevel(level)


def link_in(message: Any, pattern: str) -> str:
    body = message.get_content()
    found = re.search(pattern, body)
    assert found is not None, body
    return found.group(0)


# ---------------------------------------------------------------------- settings


def test_settings_check_the_address_first_and_show_it_to_nobody_else(tmp_path: Path) -> None:
    with smtp_sink() as sink, mail_server(tmp_path / "settings.sqlite3", sink.port) as server:
        bob = logged_in(server.url, "Bob")
        ann = logged_in(server.url, "Ann")
        try:
            first = bob.get("/api/me/notifications")
            assert first.status_code == 200
            assert first.json() == {"email": None, "turn_mail": False, "lang": "en", "available": True}
            for bad in ("not an address", "bob@", "@example.org", "bob@exa mple.org", "x" * 250 + "@example.org"):
                refused = bob.put("/api/me/notifications", json={"email": bad, "turn_mail": True})
                assert refused.status_code == 422 and refused.json()["error"] == "bad_email", (bad, refused.text)
            none = bob.put("/api/me/notifications", json={"email": None, "turn_mail": True})
            assert none.status_code == 422 and none.json()["error"] == "bad_email"
            lang = bob.put("/api/me/notifications", json={"email": BOB, "turn_mail": True, "lang": "klingon"})
            assert lang.status_code == 422 and lang.json()["error"] == "bad_request" and "lang" in lang.json()["message"]
            assert bob.get("/api/me/notifications").json()["email"] is None  # nothing refused was stored
            # the page's language when none is given; the address in its normal form
            ok = bob.put("/api/me/notifications", json={"email": "Bob@EXAMPLE.org", "turn_mail": True},
                         headers={"Accept-Language": "cs-CZ,cs;q=0.9"})
            assert ok.status_code == 200, ok.text
            assert bob.get("/api/me/notifications").json() == {"email": "Bob@example.org", "turn_mail": True, "lang": "cs", "available": True}
            # nobody else sees it: not another account, not a guest, not the profile, not a room
            assert ann.get("/api/me/notifications").json()["email"] is None
            assert httpx.get(server.url + "/api/me/notifications", timeout=10).status_code == 401
            room, _ = turn_based_room(server, ann, bob)
            for path in ("/api/players/Bob", f"/api/rooms/{room}", "/api/rooms"):
                assert "example.org" not in httpx.get(server.url + path, timeout=10).text.lower(), path
            # a cookie PUT from another site's page is refused like every account change
            forged = bob.put("/api/me/notifications", json={"email": "eve@evil.test", "turn_mail": True},
                             headers={"Origin": "https://evil.test"})
            assert forged.status_code == 403 and forged.json()["error"] == "bad_origin"
            assert bob.get("/api/me/notifications").json()["email"] == "Bob@example.org"
        finally:
            bob.close()
            ann.close()


def test_a_server_without_smtp_says_so_and_still_keeps_the_setting(tmp_path: Path) -> None:
    with live_server(tmp_path / "nomail.sqlite3") as server:
        bob = wants_mail(server, "Bob", BOB)
        try:
            assert bob.get("/api/me/notifications").json() == {"email": BOB, "turn_mail": True, "lang": "en", "available": False}
        finally:
            bob.close()


# ---------------------------------------------------------------------- the mail


def test_a_player_away_gets_one_mail_with_a_link_and_a_one_click_unsubscribe(tmp_path: Path) -> None:
    db = tmp_path / "flow.sqlite3"
    with smtp_sink() as sink, mail_server(db, sink.port) as server:
        ann = logged_in(server.url, "Ann")  # asked for no mail
        bob = wants_mail(server, "Bob", BOB)
        try:
            room, tokens = turn_based_room(server, ann, bob)
            play_dice_turn(server.url, room, tokens[0])  # Bob's turn begins; he is not connected
            message = wait_for(lambda: sink.messages, what="the your-turn mail")[0]
            assert sink.envelopes[0] == ("tabletris@example.com", [BOB])
            assert message["To"] == BOB and message["From"] == "tabletris@example.com"
            assert message["Subject"] == "tabletris: Your turn in Dice Tetris with Ann"
            assert link_in(message, r"http://\S+/room/\S+") == f"{server.url}/room/{room}"
            unsubscribe = message["List-Unsubscribe"]
            assert message["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
            assert unsubscribe.startswith(f"<{server.url}/unsubscribe?token=") and unsubscribe.endswith(">")
            assert b"\nList-Unsubscribe: <http" in sink.raw[0]  # a plain header, not an encoded word
            wait_for(lambda: [r["status"] for r in queue_rows(db)] == ["sent"], what="the notice marked sent")
            assert not [m for m in sink.messages if m["To"] != BOB]  # Ann asked for none

            url = unsubscribe[1:-1]
            page = httpx.get(url, timeout=10)
            assert page.status_code == 200 and "<form" in page.text and 'method="post"' in page.text
            assert bob.get("/api/me/notifications").json()["turn_mail"] is True  # a GET changes nothing
            tampered = httpx.post(url[:-3] + "xyz", data={"List-Unsubscribe": "One-Click"}, timeout=10)
            assert tampered.status_code == 404
            assert bob.get("/api/me/notifications").json()["turn_mail"] is True
            # the mail program's one-click POST: no cookie, no Origin of ours
            done = httpx.post(url, data={"List-Unsubscribe": "One-Click"}, headers={"Origin": "https://mail.example"}, timeout=10)
            assert done.status_code == 200
            assert bob.get("/api/me/notifications").json() == {"email": BOB, "turn_mail": False, "lang": "en", "available": True}

            # Bob plays, Ann plays: Bob's next turn mails nobody now
            play_dice_turn(server.url, room, tokens[1])
            play_dice_turn(server.url, room, tokens[0])
            wait_for(lambda: len(queue_rows(db)) >= 1 and httpx.get(f"{server.url}/api/rooms/{room}", timeout=10).json()["game"]["turn"] == 3,
                     what="Bob's next turn")
            assert len(queue_rows(db)) == 1 and len(sink.messages) == 1
        finally:
            ann.close()
            bob.close()


def test_the_mail_speaks_the_players_language(tmp_path: Path) -> None:
    with smtp_sink() as sink, mail_server(tmp_path / "cs.sqlite3", sink.port) as server:
        ann = logged_in(server.url, "Ann")
        bob = wants_mail(server, "Bob", BOB, lang="cs")
        try:
            room, tokens = turn_based_room(server, ann, bob)
            play_dice_turn(server.url, room, tokens[0])
            message = wait_for(lambda: sink.messages, what="the mail")[0]
            assert message["Subject"] == "tabletris: Jste na tahu: Kostkový Tetris (spoluhráči: Ann)"
            assert message["Content-Language"] == "cs"
            body = message.get_content()
            assert "Dobrý den, Bob," in body and f"{server.url}/room/{room}" in body
            page = httpx.get(message["List-Unsubscribe"][1:-1], timeout=10)
            assert '<html lang="cs"' in page.text and "Zastavit" in page.text
        finally:
            ann.close()
            bob.close()


def test_compose_in_each_language_and_the_digest() -> None:
    one = [Notice("a", "R1", "3", 1, "dice", ["Ann"])]
    several = [Notice("a", "R1", "3", 1, "dice", ["Ann"]), Notice("a", "R2", "1", 0, "tower", ["Cid", "Dee"])]
    for lang, subject, digest in (
        ("en", "Your turn in Dice Tetris with Ann", "2 games wait for your move"),
        ("cs", "Jste na tahu: Kostkový Tetris (spoluhráči: Ann)", "Na váš tah čekají 2 hry"),
        ("zh_CN", "轮到你了：骰子俄罗斯方块（对手：Ann）", "有 2 局游戏在等你走棋"),
    ):
        single = compose("t@example.com", BOB, lang, "Bob", "http://127.0.0.1:1", one, "tok")
        assert single["Subject"] == "tabletris: " + subject, lang
        many = compose("t@example.com", BOB, lang, "Bob", "http://127.0.0.1:1", several, "tok")
        assert many["Subject"] == "tabletris: " + digest, lang
        body = many.get_content()
        assert "http://127.0.0.1:1/room/R1" in body and "http://127.0.0.1:1/room/R2" in body and "Cid, Dee" in body
        assert "http://127.0.0.1:1/unsubscribe?token=tok" in body
    key = b"k" * 32
    token = sign(key, "acc-1")
    assert verify(key, token) == "acc-1"
    assert verify(b"other key" * 4, token) is None and verify(key, "acc-2" + token[5:]) is None and verify(key, "junk") is None


def test_several_games_waiting_make_one_digest_and_a_connected_player_gets_none(tmp_path: Path) -> None:
    db = tmp_path / "digest.sqlite3"
    with smtp_sink() as sink, mail_server(db, sink.port, gather=3600.0) as server:
        ann = logged_in(server.url, "Ann")
        bob = wants_mail(server, "Bob", BOB)
        try:
            watched, watched_tokens = turn_based_room(server, ann, bob)
            with ws_connect(f"{server.ws}/ws/{watched}") as ws:  # Bob is at this table
                ws.send(json.dumps({"type": "hello", "token": watched_tokens[1]}))
                ws.recv(10)
                wait_for(lambda: httpx.get(f"{server.url}/api/rooms/{watched}", timeout=10).json()["room"]["seats"][1]["connected"],
                         what="Bob connected")
                play_dice_turn(server.url, watched, watched_tokens[0])
                # a real-time room mails nobody, away or not
                realtime = ann.post("/api/rooms", json={"game": "dice", "seats": [{"kind": "open"}, {"kind": "open"}],
                                                       "speed": {"mode": "realtime", "per_move": 600.0}}).json()["id"]
                ann_seat = ann.post(f"/api/rooms/{realtime}/join", json={"name": "x", "seat": 0}).json()["token"]
                assert bob.post(f"/api/rooms/{realtime}/join", json={"name": "x", "seat": 1}).status_code == 200
                play_dice_turn(server.url, realtime, ann_seat)
                rooms = [turn_based_room(server, ann, bob) for _ in range(2)]
                for room, tokens in rooms:
                    play_dice_turn(server.url, room, tokens[0])
                pending = wait_for(lambda: [r for r in queue_rows(db) if r["status"] == "pending"] if len(queue_rows(db)) >= 2 else None,
                                   what="two notices")
                assert {r["room_id"] for r in pending} == {room for room, _ in rooms}
                with contextlib.closing(sqlite3.connect(db)) as conn:  # gathered long enough: due now
                    conn.execute("UPDATE mail_queue SET due = 0")
                    conn.commit()
                message = wait_for(lambda: sink.messages, what="the digest")[0]
            assert message["Subject"] == "tabletris: 2 games wait for your move"
            body = message.get_content()
            for room, _ in rooms:
                assert f"{server.url}/room/{room}" in body
            assert watched not in body and realtime not in body
            assert {r["room_id"] for r in queue_rows(db)} == {room for room, _ in rooms}
            assert len(sink.messages) == 1
            wait_for(lambda: [r["status"] for r in queue_rows(db)] == ["sent", "sent"], what="both notices marked sent")
        finally:
            ann.close()
            bob.close()


# ---------------------------------------------------------------------- bad SMTP servers


def test_an_smtp_server_that_is_down_delays_no_move_and_the_mail_goes_when_it_is_back(tmp_path: Path) -> None:
    db = tmp_path / "down.sqlite3"
    port = free_port()  # nothing listens there: connection refused
    with mail_server(db, port) as server:
        ann = logged_in(server.url, "Ann")
        bob = wants_mail(server, "Bob", BOB)
        try:
            room, tokens = turn_based_room(server, ann, bob)
            play_dice_turn(server.url, room, tokens[0])
            row = wait_for(lambda: [r for r in queue_rows(db) if r["attempts"] >= 2], what="two failed tries")[0]
            assert row["status"] == "pending" and row["error"] == "connection refused"
            with smtp_sink(port) as sink:  # the server is back
                message = wait_for(lambda: sink.messages, what="the retried mail")[0]
                wait_for(lambda: [r["status"] for r in queue_rows(db)] == ["sent"], what="the notice sent")
            assert f"{server.url}/room/{room}" in message.get_content()
            assert server.app.state.mailer.retried >= 2
        finally:
            ann.close()
            bob.close()


def test_the_queue_outlives_a_restart(tmp_path: Path) -> None:
    """A notice queued while the SMTP server was down is sent by the next server on the same
    database (the queue is a table, not a task)."""
    db = tmp_path / "restart.sqlite3"
    port = free_port()
    with mail_server(db, port) as server:
        ann = logged_in(server.url, "Ann")
        bob = wants_mail(server, "Bob", BOB)
        try:
            room, tokens = turn_based_room(server, ann, bob)
            play_dice_turn(server.url, room, tokens[0])
            wait_for(lambda: [r for r in queue_rows(db) if r["attempts"] >= 1], what="a failed try")
        finally:
            ann.close()
            bob.close()
    with smtp_sink(port) as sink, mail_server(db, port):
        message = wait_for(lambda: sink.messages, what="the mail, from the restarted server")[0]
        assert message["To"] == BOB and f"/room/{room}" in message.get_content()
        wait_for(lambda: [r["status"] for r in queue_rows(db)] == ["sent"], what="the notice sent")


def test_a_server_stopped_while_sending_lets_the_next_one_send_at_once(tmp_path: Path) -> None:
    """A server stopped while a mail is in flight (the SMTP server holds its DATA) hands its
    claim back as it stops: the next server on the database sends the mail at once, not after
    the claim's hold (``3 * timeout + 60`` s; CI once hit this when a stop landed inside a
    retry). The mail may go twice: a send cut off mid-DATA may or may not have landed."""
    db = tmp_path / "stopped.sqlite3"
    port = free_port()
    with smtp_sink(port, mode="stall") as stalled:
        with mail_server(db, port) as server:
            ann = logged_in(server.url, "Ann")
            bob = wants_mail(server, "Bob", BOB)
            try:
                room, tokens = turn_based_room(server, ann, bob)
                play_dice_turn(server.url, room, tokens[0])
                wait_for(stalled.stalled.is_set, what="the SMTP server to stall on the mail")
                assert [r["claim"] is not None for r in queue_rows(db)] == [True]
            finally:
                ann.close()
                bob.close()
        assert not server.thread.is_alive()  # stopped, without waiting out the SMTP timeout (30 s)
        assert [(r["status"], r["claim"]) for r in queue_rows(db)] == [("pending", None)]
    with smtp_sink(port) as sink, mail_server(db, port):
        message = wait_for(lambda: sink.messages, what="the mail, from the next server")[0]
        assert message["To"] == BOB and f"/room/{room}" in message.get_content()
        wait_for(lambda: [r["status"] for r in queue_rows(db)] == ["sent"], what="the notice sent")


def test_a_mail_whose_turn_passed_while_the_server_was_down_is_not_sent(tmp_path: Path) -> None:
    db = tmp_path / "passed.sqlite3"
    port = free_port()
    with mail_server(db, port) as server:
        ann = logged_in(server.url, "Ann")
        bob = wants_mail(server, "Bob", BOB)
        try:
            room, tokens = turn_based_room(server, ann, bob)
            play_dice_turn(server.url, room, tokens[0])
            wait_for(lambda: [r for r in queue_rows(db) if r["attempts"] >= 1], what="a failed try")
            play_dice_turn(server.url, room, tokens[1])  # Bob played (from elsewhere): the turn passed
            with smtp_sink(port) as sink:
                wait_for(lambda: [r["status"] for r in queue_rows(db)] == ["dropped"], what="the notice dropped")
                assert sink.messages == []
        finally:
            ann.close()
            bob.close()


def test_a_slow_smtp_server_never_holds_a_moves_ack(tmp_path: Path) -> None:
    """The SMTP server holds the mail's DATA; meanwhile both players' moves are acknowledged,
    each while the handler is still stalled (no timing: the order of events)."""
    db = tmp_path / "slow.sqlite3"
    with smtp_sink(mode="stall") as sink, mail_server(db, sink.port) as server:
        ann = logged_in(server.url, "Ann")
        bob = wants_mail(server, "Bob", BOB)
        try:
            room, tokens = turn_based_room(server, ann, bob)
            play_dice_turn(server.url, room, tokens[0])
            wait_for(sink.stalled.is_set, what="the SMTP server to stall on the mail")
            for seat in (1, 0, 1, 0):
                seq = play_dice_turn(server.url, room, tokens[seat])  # acknowledged...
                assert not sink.release.is_set() and not sink.messages  # ...while the mail is held
                assert seq > 0
            sink.release.set()
            wait_for(lambda: len(sink.messages) >= 2, what="the held mail and the next one")
        finally:
            sink.release.set()
            ann.close()
            bob.close()


def test_an_smtp_server_that_refuses_is_given_up_at_once_and_logged_without_the_address(tmp_path: Path) -> None:
    db = tmp_path / "refuse.sqlite3"
    with captured() as logs, smtp_sink(mode="refuse") as sink, mail_server(db, sink.port) as server:
        ann = logged_in(server.url, "Ann")
        bob = wants_mail(server, "Bob", BOB)
        try:
            room, tokens = turn_based_room(server, ann, bob)
            play_dice_turn(server.url, room, tokens[0])
            row = wait_for(lambda: [r for r in queue_rows(db) if r["status"] == "failed"], what="the mail given up")[0]
            assert row["attempts"] == 0 and row["error"] == "recipient refused (SMTP 550)" and sink.refused == 1
            play_dice_turn(server.url, room, tokens[1])  # the game goes on
            gave_up = [line for line in logs.lines if "gave up" in line]
            assert len(gave_up) == 1 and "SMTP 550" in gave_up[0]
            assert not [line for line in logs.lines if "example.org" in line]
            scraped = httpx.get(server.url + "/metrics", timeout=10).text
            assert 'tabletris_mails_total{outcome="failed"} 1.0' in scraped
        finally:
            ann.close()
            bob.close()


def test_a_mail_that_cannot_be_sent_is_given_up_after_the_stated_time(tmp_path: Path) -> None:
    db = tmp_path / "giveup.sqlite3"
    with captured() as logs, mail_server(db, free_port(), give_up=1.0) as server:
        ann = logged_in(server.url, "Ann")
        bob = wants_mail(server, "Bob", BOB)
        try:
            room, tokens = turn_based_room(server, ann, bob)
            play_dice_turn(server.url, room, tokens[0])
            row = wait_for(lambda: [r for r in queue_rows(db) if r["status"] == "failed"], what="the mail given up")[0]
            assert row["error"] == "connection refused" and row["attempts"] >= 1
            gave_up = [line for line in logs.lines if "gave up" in line]
            assert len(gave_up) == 1 and "connection refused" in gave_up[0] and "tries" in gave_up[0]
            assert not [line for line in logs.lines if BOB in line]
        finally:
            ann.close()
            bob.close()


def test_no_address_reaches_the_log_at_info(tmp_path: Path) -> None:
    """Settings, a mail sent, the unsubscribe link followed: every record logged (access lines
    included) at INFO, and not one names the address or the link's token."""
    with (
        smtp_sink() as sink,
        mail_server(tmp_path / "logs.sqlite3", sink.port, access_log=True) as server,
        captured() as logs,  # once uvicorn has set its loggers up (it replaces their handlers)
    ):
        ann = logged_in(server.url, "Ann")
        bob = wants_mail(server, "Bob", BOB)
        try:
            room, tokens = turn_based_room(server, ann, bob)
            play_dice_turn(server.url, room, tokens[0])
            message = wait_for(lambda: sink.messages, what="the mail")[0]
            url = message["List-Unsubscribe"][1:-1]
            assert httpx.get(url, timeout=10).status_code == 200
            assert httpx.post(url, data={"List-Unsubscribe": "One-Click"}, timeout=10).status_code == 200
            wait_for(lambda: [line for line in logs.lines if "sent a your-turn mail" in line], what="the sent line")
        finally:
            ann.close()
            bob.close()
    token = url.split("token=")[1]
    assert [line for line in logs.lines if "/unsubscribe" in line], logs.lines  # the access lines were seen
    assert not [line for line in logs.lines if BOB in line or token in line or "example.org" in line]


# ---------------------------------------------------------------------- the queue, on one database or two


async def opened(url: str) -> Storage:
    storage = Storage(url)
    await storage.open()
    return storage


async def an_account(storage: Storage, account_id: str, turn_mail: bool = True) -> None:
    from sqlalchemy import insert

    from tabletris.server.accounts.core import users

    async def work(conn: Any) -> None:
        await conn.execute(insert(users).values(id=account_id, username=account_id, skeleton=account_id, password_hash="x", created=0.0))

    await storage.transact(work)
    await store.put_settings(storage, account_id, Settings(f"{account_id}@example.org", turn_mail, "en", "http://127.0.0.1:1"))


def test_one_mail_per_turn_and_two_instances_never_claim_the_same_notice(db_url: str) -> None:
    """Two storages on one database, as two instances have (SQLite and PostgreSQL): the same
    turn noticed on both is queued once; claiming at once on both, each notice goes to one."""

    async def run() -> None:
        a, b = await opened(db_url), await opened(db_url)
        try:
            ids = [f"acc-{i}" for i in range(6)]
            for account in ids:
                await an_account(a, account)
            await an_account(a, "quiet", turn_mail=False)
            notices = [Notice(account, f"room{r}", "4", 1, "dice", ["Ann"]) for account in [*ids, "quiet"] for r in range(3)]
            queued = await asyncio.gather(*(store.enqueue(s, notices, 0.0, 0.0) for s in (a, b, a, b)))
            assert sorted(queued) == [0, 0, 0, 18]  # once, whoever noticed it; none for "quiet"
            claims = await asyncio.gather(*(store.claim(s, f"claim{i}", 60.0, accounts=2) for i, s in enumerate((a, b, a, b, a, b))))
            taken = [n.id for c in claims for notices_ in c.values() for n in notices_]
            assert len(taken) == len(set(taken)) == 18
            by_account = {account for c in claims for account in c}
            assert by_account == set(ids)
            assert await store.claim(a, "late", 60.0) == {}  # held: nobody else takes them
            holder = next(i for i, c in enumerate(claims) if c)
            first = sorted(n.id for notices_ in claims[holder].values() for n in notices_)
            assert await store.release(b, f"claim{holder}") == len(first)  # an instance stopping
            late = await store.claim(a, "late", 60.0)
            assert sorted(n.id for notices_ in late.values() for n in notices_) == first  # only those
        finally:
            await a.close()
            await b.close()

    asyncio.run(run())


def test_a_deleted_account_takes_its_address_and_queue_with_it(tmp_path: Path) -> None:
    db = tmp_path / "delete.sqlite3"
    with live_server(db) as server:
        bob = wants_mail(server, "Bob", BOB)
        ann = logged_in(server.url, "Ann")
        try:
            turn_based_room(server, ann, bob)
            assert bob.request("DELETE", "/api/me", json={"password": "correct horse battery"}).status_code == 204
            with contextlib.closing(sqlite3.connect(db)) as conn:
                assert conn.execute("SELECT count(*) FROM mail_settings").fetchone() == (0,)
                assert conn.execute("SELECT count(*) FROM mail_queue").fetchone() == (0,)
        finally:
            bob.close()
            ann.close()


# ---------------------------------------------------------------------- the command line


@pytest.mark.parametrize(("args", "says"), [
    (["--smtp", "smtp://127.0.0.1:2525"], "--smtp needs --mail-from"),
    (["--mail-from", "t@example.com"], "--mail-from needs --smtp"),
    (["--smtp", "http://127.0.0.1:2525", "--mail-from", "t@example.com"], "expected smtp://host:port"),
    (["--smtp", "smtp://127.0.0.1:99999", "--mail-from", "t@example.com"], "--smtp:"),
    (["--smtp", "smtp://127.0.0.1:2525", "--mail-from", "nobody"], "--mail-from:"),
])
def test_serve_refuses_a_mail_setting_it_cannot_use(tmp_path: Path, args: list[str], says: str) -> None:
    result = CliRunner().invoke(cli_app, ["serve", "--db", str(tmp_path / "cli.sqlite3"), *args])
    assert result.exit_code == 2, result.output
    assert says in result.output


def test_the_smtp_url_is_read_whole() -> None:
    config = MailConfig.parse("smtps://me%40x:p%20w@mail.example:2465", "t@example.com")
    assert (config.host, config.port, config.tls, config.username, config.password) == ("mail.example", 2465, True, "me@x", "p w")
    assert config.shown == "smtps://me@x:***@mail.example:2465"
    assert MailConfig.parse("smtp://127.0.0.1", "t@example.com").port == 25
    with pytest.raises(MailConfigError):
        MailConfig.parse("smtp://127.0.0.1:25/path", "t@example.com")

