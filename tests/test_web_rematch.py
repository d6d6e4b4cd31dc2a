"""A rematch followed on the room page's own websocket (docs/api.md, ``rematch`` with
``follow``), in Debian's Chromium against a real server.

The page used to open the new room's page for a rematch (a navigation: a new page, a new
websocket, a hello); it now asks the server to move its socket to the new room and becomes the new
room's page in place. The first test fails on the old page (its URL reached the new room through
a navigation: the page's marker was gone and a second websocket was opened). Pass and play keeps
the navigation (one socket per seat of the device): the second test.

The cheapest whole game the page can play: a 4x4 dice board whose die shows only O, no point
tokens (no picker), against a random bot: four pieces fill it.
"""

from __future__ import annotations

import json
import time
from typing import Any

import httpx
import pytest

from web_helpers import (
    DESKTOP,
    LiveServer,
    Page,
    SocketSpy,
    browser,
    errors_of,
    new_room,
    server,
    state,
    wait_until,
)

pytestmark = pytest.mark.browser
__all__ = ["browser", "server"]  # fixtures, used by name

RULES: dict[str, Any] = {"width": 4, "height": 4, "die": ["O"], "tokens_from_supply": False}
APP = "async () => { const { app } = await import('/static/js/table.js'); return { room: app.roomId, token: app.token, seat: app.seat }; }"


def seated_page(browser: Any, server: LiveServer, room: str, name: str = "Ann") -> tuple[Any, Page, str]:
    """Seated by the API, the token put where the page keeps it: the page opens one websocket
    (joining from the page would close its watching socket and open a seated one)."""
    token = httpx.post(f"{server.url}/api/rooms/{room}/join", json={"name": name}).json()["token"]
    ctx = browser.new_context(**DESKTOP)
    ctx.add_init_script(f"if (!localStorage.getItem('tabletris:seat:{room}')) localStorage.setItem('tabletris:seat:{room}', JSON.stringify({{seat: 0, token: '{token}', name: '{name}'}}))")
    return ctx, ctx.new_page(), token


def place_a_piece(page: Page, server: LiveServer, room: str) -> None:
    """This seat's turn: place the piece where the page offers it, confirm, and wait for the
    server to have it."""
    before = len(state(server, room)["game"]["log"])
    page.click("#place")
    page.click("#confirm")
    wait_until(lambda: len(state(server, room)["game"]["log"]) > before, what="the move on the server")
    # and the page has the state after it (or, at pass and play, the curtain for the next person)
    page.wait_for_function(f"document.querySelector('#curtain-go') || document.querySelectorAll('#log li').length > {before}")


def play_to_the_end(page: Page, server: LiveServer, room: str, curtains: bool = False) -> None:
    """Play this page's turns (lifting the pass-and-play curtain when there is one) until the
    end dialog shows."""
    deadline = time.time() + 60
    wanted = "#end [role=dialog], #place:visible" + (", #curtain-go" if curtains else "")
    while not state(server, room)["game"]["over"]:
        assert time.time() < deadline, "the game did not end"
        page.wait_for_selector(wanted, timeout=20000)
        if curtains and page.query_selector("#curtain-go"):
            page.click("#curtain-go")
        elif page.query_selector("#place:visible"):
            place_a_piece(page, server, room)
    page.wait_for_selector("#end [role=dialog]", timeout=20000)


def test_the_rematch_is_followed_on_the_same_websocket(server: LiveServer, browser: Any) -> None:
    room = new_room(server, "dice", ["open", "random"], RULES)
    ctx, page, old_token = seated_page(browser, server, room)
    errors = errors_of(page)
    sockets: list[str] = []
    page.on("websocket", lambda ws: sockets.append(ws.url))
    page.goto(f"{server.url}/room/{room}")
    page.wait_for_selector("#scores tr.me")
    # a line in the old room's chat: it stays there
    page.fill("#chat-input", "good luck in the first game")
    page.click("#chat-send")
    page.wait_for_function("document.querySelector('#chat-log').textContent.includes('good luck in the first game')")
    play_to_the_end(page, server, room)
    assert state(server, room)["room"]["status"] == "over"
    assert len(sockets) == 1, sockets
    page.evaluate("window.__marker = 1")
    history_length = page.evaluate("history.length")

    page.click("#rematch")
    page.wait_for_function(f"location.pathname !== '/room/{room}'", timeout=15000)
    new = state(server, room)["room"]["rematch"]
    assert new and new != room
    page.wait_for_function(f"location.pathname === '/room/{new}'")
    # the new room's table drawn: its id in the title, its board and scores, no end dialog
    page.wait_for_function(f"document.querySelector('#title').textContent.includes('{new}') && document.querySelector('#scores tr.me') && document.querySelector('.board')", timeout=15000)
    assert page.locator("#end").count() == 0
    assert page.evaluate("window.__marker") == 1, "the page was not reloaded"
    assert sockets == [sockets[0]], f"no new websocket for the rematch: {sockets}"
    assert page.evaluate("history.length") == history_length, "the old room's history entry became the new room's"
    mine = json.loads(page.evaluate(f"localStorage.getItem('tabletris:seat:{new}')"))
    app = page.evaluate(APP)
    assert app == {"room": new, "token": mine["token"], "seat": mine["seat"]} and mine["token"] != old_token
    assert mine["name"] == "Ann"
    assert "good luck in the first game" not in page.inner_text("#chat-log")
    assert "Ann" in page.inner_text("#scores tr.me")
    # the token the page keeps holds that seat in the new room
    assert state(server, new, mine["token"])["you"] == mine["seat"]

    # a move in the new room, from the page, on the followed socket
    page.wait_for_selector("#place:visible", timeout=20000)
    before = [m for m in state(server, new)["game"]["log"] if m["player"] == mine["seat"]]
    place_a_piece(page, server, new)
    after = [m for m in state(server, new)["game"]["log"] if m["player"] == mine["seat"]]
    assert len(after) == len(before) + 1
    page.wait_for_function(f"document.querySelectorAll('#log li').length >= {len(state(server, new)['game']['log'])}")
    assert len(sockets) == 1 and page.evaluate("window.__marker") == 1

    # a reload comes back to the new room, at Ann's seat (the stored token)
    page.reload()
    page.wait_for_function(f"document.querySelector('#title') && document.querySelector('#title').textContent.includes('{new}') && document.querySelector('#scores tr.me')", timeout=15000)
    assert page.evaluate("location.pathname") == f"/room/{new}"
    assert page.evaluate("window.__marker") is None
    assert "Ann" in page.inner_text("#scores tr.me")
    assert page.evaluate(APP)["seat"] == mine["seat"]
    assert len(sockets) == 2  # the reload's own
    assert not errors, errors
    ctx.close()


def test_pass_and_play_still_opens_the_rematch_page(server: LiveServer, browser: Any) -> None:
    """Pass and play keeps the navigation: every seat here asks without ``follow`` and the page
    opens the new room once each has its seat there."""
    room = new_room(server, "dice", ["open", "open"], RULES)
    local = [httpx.post(f"{server.url}/api/rooms/{room}/join", json={"name": n}).json() | {"name": n} for n in ("Ann", "Bob")]
    here = json.dumps([{"seat": s["seat"], "token": s["token"], "name": s["name"]} for s in local])
    ctx = browser.new_context(**DESKTOP)
    ctx.add_init_script(f"if (location.pathname === '/room/{room}') localStorage.setItem('tabletris:hotseat:{room}', {json.dumps(here)})")
    page = ctx.new_page()
    errors = errors_of(page)
    spy = SocketSpy(page)
    page.goto(f"{server.url}/room/{room}")
    play_to_the_end(page, server, room, curtains=True)
    page.click("#rematch")
    page.wait_for_function(f"location.pathname !== '/room/{room}'", timeout=15000)
    new = state(server, room)["room"]["rematch"]
    page.wait_for_url(f"**/room/{new}")
    asked = spy.of_type("rematch")
    assert len(asked) == 2 and not any("follow" in m for m in asked), asked
    page.wait_for_selector("#curtain-go, #place:not(.hidden)", timeout=15000)
    mine = json.loads(page.evaluate(f"localStorage.getItem('tabletris:hotseat:{new}')"))
    assert sorted(s["name"] for s in mine) == ["Ann", "Bob"]
    assert not errors, errors
    ctx.close()
