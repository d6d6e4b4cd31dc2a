"""Issue 26 item 5: pass and play in the browser. Several people at one device: the lobby's form
seats them all, the room page holds every seat (one socket each, so each seat gets only its own
private state) and, between two people, shows a curtain instead of the table, so a tower player's
drop is gone from the page before the next player looks. Debian's Chromium against a real server.

Nothing of this existed before (no form option, no curtain, one seat per page): these tests fail
on the old code.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from web_helpers import Page, axe_violations, browser, errors_of, server, state, wait_until

__all__ = ["browser", "server"]  # fixtures, used by name

pytestmark = pytest.mark.browser

DESKTOP: dict[str, Any] = {"viewport": {"width": 1366, "height": 768}, "bypass_csp": True}


def create_here(page: Page, server: Any, game: str, names: list[str], bots: int) -> str:
    """The lobby's form: pass and play, ``names`` at this device, then ``bots`` random bots."""
    page.goto(server.url + "/")
    page.wait_for_selector("#create")
    page.select_option("#game", game)
    page.fill("#count", str(len(names) + bots))
    page.dispatch_event("#count", "input")
    for seat in range(len(names), len(names) + bots):
        page.select_option(f"[data-seat='{seat}']", "random")
    page.check("#hotseat")
    page.fill("#myname", names[0])
    for seat, name in enumerate(names[1:], 1):
        page.fill(f"[data-hotseat='{seat}']", name)
    page.fill("#timer", "600")
    page.click("#create-btn")
    page.wait_for_url("**/room/**")
    return str(page.url.rstrip("/").split("/")[-1])


def tokens(page: Page, room: str) -> dict[str, str]:
    """This device's seats at the room, by name, as the page keeps them."""
    mine = json.loads(page.evaluate(f"localStorage.getItem('tabletris:hotseat:{room}')"))
    return {s["name"]: s["token"] for s in mine}


def shown_seat(page: Page) -> int:
    """The seat whose table the page shows (its row in the scores is the page's own)."""
    return int(page.get_attribute("#scores tr.me", "data-seat") or -1)


def test_the_form_asks_a_name_for_each_person_here(server: Any, browser: Any) -> None:
    ctx = browser.new_context(**DESKTOP)
    page = ctx.new_page()
    page.goto(server.url + "/")
    page.wait_for_selector("#create")
    assert not page.is_visible("#hotseat-names")
    page.check("#hotseat")
    assert page.is_visible("[data-hotseat='1']")  # seat 2 of the two open seats
    page.fill("#myname", "Ann")
    page.click("#create-btn")  # Bob's name not typed: no room is made
    page.wait_for_selector(".toast")
    assert "seat 2" in page.inner_text(".toast")
    page.fill("[data-hotseat='1']", "ann")
    page.click("#create-btn")
    page.wait_for_function("document.querySelector('.toast').textContent.includes('name of their own')")
    ctx.close()


def test_a_tower_round_keeps_each_players_choice_hidden_from_the_next(server: Any, browser: Any) -> None:
    ctx = browser.new_context(**DESKTOP)
    page = ctx.new_page()
    errors = errors_of(page)
    room = create_here(page, server, "tower", ["Ann", "Bob"], bots=1)
    mine = tokens(page, room)
    assert set(mine) == {"Ann", "Bob"}
    page.wait_for_selector("#play-card")
    assert shown_seat(page) == 0 and "Your move" in page.inner_text("#status")
    # Ann drops: her drop waits for the reveal, known to her seat only.
    page.click("#place")
    wait_until(lambda: state(server, room, mine["Ann"])["private"]["pending"] is not None, what="Ann's drop")
    ann = state(server, room, mine["Ann"])["private"]["pending"]["place"]
    page.wait_for_selector("#curtain")
    assert page.inner_text("#curtain-title") == "Pass the device to Bob"
    assert page.locator(".stage").count() == 0 and page.locator(".cell.pending").count() == 0
    assert page.evaluate("document.activeElement.id") == "curtain-go" and axe_violations(page) == []
    # Bob looks: his own table; nothing of Ann's drop is in the page while he chooses.
    page.click("#curtain-go")
    page.wait_for_selector("#play-card")
    assert shown_seat(page) == 1 and "Your move" in page.inner_text("#status")
    assert page.locator(".cell.pending").count() == 0
    assert page.locator("[data-tower='0'] .cell.filled").count() == 0  # Ann's tower: nothing resolved yet
    drawn = page.eval_on_selector_all(".cell.filled, .cell.pending, .cell.staged", "cs => cs.map((c) => [Number(c.dataset.x), Number(c.dataset.y)])")
    assert drawn == [], drawn
    assert "dropped" not in page.inner_text("main") and "ready" in page.inner_text("[data-tower='0']")
    bob_state = page.evaluate("async () => (await import('/static/js/table.js')).app.state")
    assert bob_state["you"] == 1 and bob_state["private"]["pending"] is None
    assert json.dumps(ann) not in json.dumps(bob_state)
    # Bob drops; with the bot's the round is revealed to everyone, Ann's drop too.
    page.click("#place")
    page.wait_for_function("document.querySelectorAll('#log li').length >= 1")
    log = page.inner_text("#log")
    assert "Ann" in log and "Bob" in log
    assert page.locator("[data-tower='0'] .cell.filled").count() == 4
    # Bob holds the device and the next round is his to choose too; then the curtain for Ann.
    page.wait_for_function("document.querySelector('#status') && document.querySelector('#status').textContent.includes('Your move')")
    assert shown_seat(page) == 1
    page.click("#place")
    page.wait_for_selector("#curtain")
    assert page.inner_text("#curtain-title") == "Pass the device to Ann"
    page.click("#curtain-go")
    page.wait_for_selector("#play-card")
    assert shown_seat(page) == 0 and page.locator(".cell.pending").count() == 0
    assert errors == []
    ctx.close()


def test_a_dice_games_turns_go_round_the_device_behind_the_curtain(server: Any, browser: Any) -> None:
    ctx = browser.new_context(**DESKTOP)
    page = ctx.new_page()
    errors = errors_of(page)
    room = create_here(page, server, "dice", ["Ann", "Bob"], bots=1)
    names = ["Ann", "Bob", "Random 3"]
    curtains: list[str] = []
    moved: list[int] = []
    for _ in range(4):  # Ann, Bob (behind a curtain), the bot, Ann again (behind a curtain)
        page.wait_for_selector("#curtain, #place:not(.hidden)")
        if page.query_selector("#curtain"):
            title = page.inner_text("#curtain-title")
            curtains.append(title)
            page.click("#curtain-go")
        page.wait_for_selector("#place:not(.hidden)")
        seat = shown_seat(page)
        before = len(state(server, room)["game"]["log"])
        page.click("#place")
        page.click("#confirm")
        if page.query_selector("#tokens-ok"):
            page.click("#tokens-ok")
        wait_until(lambda before=before: len(state(server, room)["game"]["log"]) > before, what="the move")
        moved.append(seat)
    log = state(server, room)["game"]["log"]
    players = [m["player"] for m in log]
    assert players[:5] == [0, 1, 2, 0, 1], players
    assert moved == [0, 1, 0, 1], moved
    # Every change of hands was a curtain naming the next person; the bot's turn needs none.
    assert curtains == ["Pass the device to Bob", "Pass the device to Ann", "Pass the device to Bob"], curtains
    assert names[players[2]] == "Random 3"
    assert errors == []
    ctx.close()
