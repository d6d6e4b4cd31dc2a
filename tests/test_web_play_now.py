"""The flow of issue 25's "Done means" in Debian's Chromium: two people register in two browsers
(one on a desktop, one on a 390x844 phone), press Play now (dice, standard, 2 players, no bot), are
paired, play a rated dice game through the table's controls (their pages act for their seats by the
session alone: no seat token in the browser), one resigns (a resigned rated game is lost) while the
other plays on to the end, and both see their ratings move on their profiles and in the ranking.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from account_helpers import PASSWORD
from server_helpers import LiveServer, live_server
from web_helpers import DESKTOP, PHONE, Page, browser, errors_of, state, wait_until

__all__ = ["browser"]  # fixtures, used by name

pytestmark = pytest.mark.browser


@pytest.fixture
def site(tmp_path: Path) -> Iterator[LiveServer]:
    with live_server(tmp_path / "playnow.sqlite3", bot_delay=0.05) as s:
        yield s


def register(page: Page, server: LiveServer, name: str) -> None:
    page.goto(server.url + "/register")
    page.fill("#username", name)
    page.fill("#password", PASSWORD)
    page.fill("#password2", PASSWORD)
    page.click("#auth-submit")
    page.wait_for_url(server.url + "/")
    page.wait_for_selector("#playnow-btn")


def press_play_now(page: Page) -> None:
    page.select_option("#pn-game", "dice")
    page.select_option("#pn-preset", "standard")
    page.select_option("#pn-players", "2")
    page.select_option("#pn-bot", "")  # never: the two people must find each other
    page.click("#playnow-btn")


def my_move(page: Page) -> None:
    """Place the piece where its ghost stands and confirm it (the Place and Confirm buttons)."""
    page.wait_for_selector("#place:visible", timeout=20000)
    page.locator(".cell.ghost").first.wait_for(timeout=5000)
    page.click("#place")
    page.click("#confirm")


def profile_rating(page: Page, server: LiveServer, name: str) -> int:
    page.goto(f"{server.url}/players/{name}")
    page.wait_for_selector("#game-dice [data-stat=rating]")
    return int(page.locator("#game-dice [data-stat=rating]").inner_text().replace(",", ""))


def test_two_people_play_now_a_rated_dice_game_and_see_their_ratings_move(site: LiveServer, browser: Any) -> None:
    ann_ctx = browser.new_context(**DESKTOP)
    bob_ctx = browser.new_context(**PHONE)
    ann, bob = ann_ctx.new_page(), bob_ctx.new_page()
    errors = {"Ann": errors_of(ann), "Bob": errors_of(bob)}
    register(ann, site, "Ann")
    register(bob, site, "Bob")
    # before: no rating in the ranking
    assert httpx.get(site.url + "/api/ratings/dice").json()["total"] == 0
    press_play_now(ann)
    ann.wait_for_selector("#playnow-waiting")
    assert "Looking for players" in ann.locator("#playnow-waiting").inner_text()
    press_play_now(bob)
    for page in (ann, bob):
        page.wait_for_url("**/room/**", timeout=30000)
    room = ann.url.rsplit("/", 1)[1]
    assert bob.url.rsplit("/", 1)[1] == room
    info = state(site, room)["room"]
    assert info["rated"] is True and {s["name"] for s in info["seats"]} == {"Ann", "Bob"}
    seat = {s["name"]: s["seat"] for s in info["seats"]}
    pages = {"Ann": ann, "Bob": bob}
    for name, page in pages.items():
        page.wait_for_selector("#scores tr.me", timeout=20000)  # the session holds the seat
        assert name in page.locator("#scores tr.me").inner_text()
        assert page.evaluate(f"localStorage.getItem('tabletris:seat:{room}')") is None  # no token in this browser
        assert page.locator(f"#scores tr[data-seat='{seat['Ann']}'] a.player-link").get_attribute("href") == "/players/Ann"
    # real moves through the table, two each
    for _ in range(4):
        to_move = state(site, room)["game"]["to_move"]
        name = "Ann" if to_move == seat["Ann"] else "Bob"
        played = len(state(site, room)["game"]["log"])
        my_move(pages[name])
        wait_until(lambda played=played: len(state(site, room)["game"]["log"]) > played, 20, f"{name}'s move")
    # Ann resigns (a rated game resigned is lost); Bob plays on to the end
    ann.click("#resign")
    ann.click("#confirm-yes")
    wait_until(lambda: state(site, room)["room"]["seats"][seat["Ann"]]["kind"] == "resigned", 20, "Ann's resignation")
    moves = 0
    while not state(site, room)["game"]["over"]:
        assert moves < 200, "the game did not end"
        if state(site, room)["game"]["to_move"] == seat["Bob"] and bob.locator("#place:visible").count():
            my_move(bob)
            moves += 1
        bob.wait_for_timeout(100)
    bob.wait_for_selector("#end [role=dialog]", timeout=20000)
    # the engine names the winner by the score; the ratings count Ann's resignation as last, and say so
    assert bob.locator("#end-rated").inner_text() == "A rated game: Ann resigned, which counts as the last place for the ratings."

    def rated() -> bool:
        games = [httpx.get(f"{site.url}/api/players/{n}").json()["games"].get("dice", {}) for n in ("Ann", "Bob")]
        return all(g.get("rating") is not None for g in games)

    wait_until(rated, 30, "both ratings")
    # each sees the ratings on the profile, reached from the header, with the chart of the one game
    ann.goto(site.url + "/")
    ann.click("#nav-profile")
    ann.wait_for_url("**/players/Ann")
    bob.goto(site.url + "/")
    bob.click("#nav-menu summary")
    bob.click("#nav-menu a[href='/players/Bob']")
    bob.wait_for_url("**/players/Bob")
    ratings = {"Ann": profile_rating(ann, site, "Ann"), "Bob": profile_rating(bob, site, "Bob")}
    assert ratings["Bob"] > ratings["Ann"]
    assert ratings != {"Ann": 1000, "Bob": 1000}
    for name, page in pages.items():
        assert page.locator("#game-dice [data-stat=played]").inner_text() == "1"
        assert page.locator("#game-dice [data-stat=won]").inner_text() == ("1" if name == "Bob" else "0")
        assert page.locator("#chart-dice").get_attribute("data-points") == "1"
        assert page.locator(f"#recent tr[data-room='{room}']").count() == 1
    ann.goto(site.url + "/ratings/dice")
    ann.wait_for_selector("#ranking")
    rows = ann.locator("#ranking tr[data-player]")
    assert rows.evaluate_all("rs => rs.map((r) => r.dataset.player)") == ["Bob", "Ann"]
    assert [int(r.split("\t")[2].replace(",", "")) for r in rows.all_inner_texts()] == [ratings["Bob"], ratings["Ann"]]
    assert ann.locator("#ranking tr.me").inner_text().startswith("2\tAnn")
    assert errors == {"Ann": [], "Bob": []}
    ann_ctx.close()
    bob_ctx.close()
