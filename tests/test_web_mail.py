"""Your-turn mail in Debian's Chromium (issue 26's "Done means"): a player asks for mail on the
account page, sits at a turn-based table, leaves it; the other plays; the mail arrives on the
loopback SMTP server (aiosmtpd) with a link; the player follows it on another device (a phone,
logged in there: the seat comes from the session) and plays the turn. And the account page's mail section: the address refused and accepted as
the server says, in each language, at desktop and phone size, with no axe violation."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import httpx
import pytest

from account_helpers import PASSWORD, logged_in, register
from mail_helpers import mail_server, play_dice_turn, smtp_sink, wait_for
from server_helpers import LiveServer
from web_helpers import DESKTOP, PHONE, Page, axe_violations, browser, errors_of

__all__ = ["browser"]  # fixtures, used by name

pytestmark = pytest.mark.browser

BOB = "bob@example.org"


def log_in(page: Page, server: LiveServer, name: str) -> None:
    """Through the login page, as a player does."""
    page.goto(server.url + "/login")
    page.fill("#username", name)
    page.fill("#password", PASSWORD)
    page.click("#auth-submit")
    page.wait_for_url(server.url + "/")
    page.wait_for_selector("#nav-profile", state="attached")


def ask_for_mail(page: Page, server: LiveServer, address: str) -> None:
    """The account page's mail section: the address, the box ticked, saved."""
    page.goto(server.url + "/account")
    page.wait_for_selector("#mail-section")
    page.fill("#mail-address", address)
    page.check("#turn-mail")
    page.click("#mail-submit")
    page.wait_for_selector(".toast.info")


def test_a_player_who_left_gets_the_mail_follows_its_link_and_plays(tmp_path: Path, browser: Any) -> None:
    db = tmp_path / "done.sqlite3"
    with smtp_sink() as sink, mail_server(db, sink.port) as server:
        register(server.url, "Bob")
        ann = logged_in(server.url, "Ann")
        context = browser.new_context(**DESKTOP)
        page = context.new_page()
        errors = errors_of(page)
        try:
            log_in(page, server, "Bob")
            ask_for_mail(page, server, BOB)
            created = ann.post("/api/rooms", json={"game": "dice", "seats": [{"kind": "open"}, {"kind": "open"}],
                                                   "speed": {"mode": "turn", "per_move": 86400.0}})
            assert created.status_code == 201, created.text
            room = str(created.json()["id"])
            joined = ann.post(f"/api/rooms/{room}/join", json={"name": "x", "seat": 0})
            assert joined.status_code == 200, joined.text
            page.goto(f"{server.url}/room/{room}")  # Bob sits down, logged in, in his browser
            page.click("[data-join='1']")
            page.wait_for_selector("#scores tr.me")
            page.close()  # Bob leaves the table
            wait_for(lambda: not httpx.get(f"{server.url}/api/rooms/{room}", timeout=10).json()["room"]["seats"][1]["connected"],
                     what="Bob gone from the table")
            play_dice_turn(server.url, room, joined.json()["token"])  # Ann plays: Bob's turn

            message = wait_for(lambda: sink.messages, what="the your-turn mail")[0]
            assert message["To"] == BOB
            found = re.search(r"http://\S+/room/\S+", message.get_content())
            assert found is not None
            link = found.group(0)
            assert link == f"{server.url}/room/{room}"

            context.close()  # Bob reads the mail on his phone: another browser, where he logs in
            context = browser.new_context(**PHONE)
            page = context.new_page()
            errors += errors_of(page)
            log_in(page, server, "Bob")
            page.goto(link)
            page.wait_for_selector("#place:visible", timeout=15000)  # his seat, from his session
            board = page.locator(".board").first.bounding_box()
            page.touchscreen.tap(board["x"] + board["width"] * 0.3, board["y"] + board["height"] * 0.95)
            page.locator(".cell.ghost").first.wait_for(timeout=5000)
            page.click("#place")
            page.click("#confirm")
            page.wait_for_function("document.querySelectorAll('#log li').length >= 2", timeout=10000)
            state = httpx.get(f"{server.url}/api/rooms/{room}", timeout=10).json()
            assert [m["player"] for m in state["game"]["log"]] == [0, 1]  # Ann's move, then Bob's
            assert len(sink.messages) == 1

            page.goto(message["List-Unsubscribe"][1:-1])  # the mail's unsubscribe link, in the browser
            page.wait_for_selector("form button[type=submit]")
            assert axe_violations(page) == []
            page.click("form button[type=submit]")
            page.wait_for_selector("a[href='/account']")
            assert axe_violations(page) == []
            bob = httpx.Client(base_url=server.url, timeout=10)
            assert bob.post("/api/auth/login", json={"username": "Bob", "password": PASSWORD}).status_code == 204
            assert bob.get("/api/me/notifications").json()["turn_mail"] is False
            bob.close()
            assert errors == []
        finally:
            context.close()
            ann.close()


@pytest.mark.parametrize("lang", ["en", "cs", "zh_CN"])
def test_the_mail_section_refuses_a_bad_address_and_keeps_a_good_one(tmp_path: Path, browser: Any, lang: str) -> None:
    with smtp_sink() as sink, mail_server(tmp_path / f"section-{lang}.sqlite3", sink.port) as server:
        register(server.url, "Bob")
        for size, options in (("desktop", DESKTOP), ("phone", PHONE)):
            context = browser.new_context(**options)
            context.add_cookies([{"name": "tabletris_lang", "value": lang, "url": server.url}])
            page = context.new_page()
            errors = errors_of(page)
            try:
                log_in(page, server, "Bob")
                page.goto(server.url + "/account")
                page.wait_for_selector("#mail-section")
                assert page.locator("#mail-lang").input_value() == lang  # the page's language, until chosen
                assert page.locator("#mail-off").count() == 0  # this server sends mail
                page.fill("#mail-address", "bob at example")
                page.check("#turn-mail")
                page.click("#mail-submit")
                page.wait_for_function("document.querySelector('#mail-error').textContent.length > 0")
                said = page.locator("#mail-error").inner_text()
                if lang != "en":
                    assert "is not a mail address" not in said, said  # the server's sentence, translated
                assert "bob at example" in said
                page.fill("#mail-address", BOB)
                page.click("#mail-submit")
                page.wait_for_selector(".toast.info")
                assert page.locator("#mail-error").inner_text() == ""
                assert axe_violations(page) == [], size
                assert errors == []
            finally:
                context.close()
        bob = httpx.Client(base_url=server.url, timeout=10)
        assert bob.post("/api/auth/login", json={"username": "Bob", "password": PASSWORD}).status_code == 204
        assert bob.get("/api/me/notifications").json() == {"email": BOB, "turn_mail": True, "lang": lang, "available": True}
        bob.close()
