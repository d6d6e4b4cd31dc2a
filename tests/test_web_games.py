"""Issue 24 in the browser: the pages list the registered games and ask each game's own module.

The lobby, the rules page, the room and the replay page take the games from /api/meta (which the
server builds from ``tabletris.engine.games.GAMES``) and load each game's view by the URL it
names; a game that offers only some bots gets only those in the create form, and a game without
a web view is said so where its table or its replay would be. A game the pages do not know is
added by rewriting /api/meta in the browser (the server's own third-game tests are elsewhere).
"""

from __future__ import annotations

import copy
import json
from typing import Any

import httpx
import pytest

from tabletris.engine.games import GAMES
from web_helpers import (
    DESKTOP,
    FakeTable,
    LiveServer,
    Page,
    browser,
    errors_of,
    finished_room,
    new_room,
    server,
    state,
)

pytestmark = pytest.mark.browser
__all__ = ["browser", "server"]  # fixtures, used by name

PLUG = "plug"


def seat_options(page: Page) -> list[list[str]]:
    return [list(o) for o in page.locator("#seats select").evaluate_all("ss => ss.map((s) => [...s.options].map((o) => o.value))")]


def with_plug_game(page: Page, server: LiveServer) -> dict[str, Any]:
    """/api/meta as the page sees it gains a game ``plug`` with no web view (its rules copied
    from dice, one bot); the meta the page gets."""
    meta = httpx.get(server.url + "/api/meta").json()
    first = next(iter(meta["games"].values()))
    meta["games"][PLUG] = {**copy.deepcopy(first), "title": "Plug", "label": "plug", "view": None, "bots": ["random"], "towers": []}
    page.route("**/api/meta", lambda route: route.fulfill(status=200, content_type="application/json", body=json.dumps(meta)))
    return dict(meta)


def test_the_pages_list_exactly_the_registered_games(server: LiveServer, browser: Any) -> None:
    """The lobby's game menu had dice and tower typed in (and common.js a list of its own): now
    the menu, the rules page's sections and the room list's names are /api/meta's games, which
    are the registry's."""
    meta = httpx.get(server.url + "/api/meta").json()
    assert list(meta["games"]) == [name for name, spec in GAMES.items() if spec.has_front_end("server")]
    assert set(meta["games"]) == set(GAMES)
    room = new_room(server, "tower", ["open", "random"])
    ctx = browser.new_context(**DESKTOP, locale="cs-CZ")
    page = ctx.new_page()
    errors = errors_of(page)
    page.goto(server.url + "/")
    page.wait_for_selector("#create")
    assert page.locator("#game option").evaluate_all("os => os.map((o) => o.value)") == list(meta["games"])
    # a room's game is named by its spec's label, translated (the engine catalog's "tower")
    page.wait_for_selector(f"li[data-room='{room}']")
    assert page.locator(f"li[data-room='{room}'] b").inner_text() == "věž"
    page.goto(server.url + "/rules")
    page.wait_for_selector("main section")
    assert page.locator("main section").evaluate_all("ss => ss.map((s) => s.id)") == list(meta["games"])
    assert page.locator("main > p a").evaluate_all("as => as.map((a) => a.hash)") == [f"#{g}" for g in meta["games"]]
    assert not errors
    ctx.close()


def test_the_create_form_offers_only_the_games_bots(server: LiveServer, browser: Any) -> None:
    """The lobby offered every bot for every game (oracle for dice, mcts for tower), and the
    server then refused the room. Each seat now lists the chosen game's bots, and a bot chosen
    for one game is not kept for a game that does not offer it."""
    meta = httpx.get(server.url + "/api/meta").json()
    ctx = browser.new_context(**DESKTOP)
    page = ctx.new_page()
    errors = errors_of(page)
    page.goto(server.url + "/")
    page.wait_for_selector("#create")
    page.fill("#count", "3")
    page.wait_for_selector("#seats select[data-seat='2']")
    for game, g in meta["games"].items():
        page.select_option("#game", game)
        assert seat_options(page) == [["open", *g["bots"]]] * 3, game
    dice, tower = meta["games"]["dice"]["bots"], meta["games"]["tower"]["bots"]
    assert "oracle" not in dice and "mcts" in dice and "mcts" not in tower and "oracle" in tower
    page.select_option("#game", "dice")
    page.select_option("#seats select[data-seat='2']", "mcts")
    page.select_option("#game", "tower")
    assert page.locator("#seats select[data-seat='2']").input_value() == "random"
    page.select_option("#seats select[data-seat='1']", "oracle")
    page.fill("#myname", "Ann")
    page.click("#create-btn")
    page.wait_for_url("**/room/**")
    room = page.url.rsplit("/", 1)[1]
    assert [s.get("bot") and s["name"].split()[0].lower() for s in state(server, room)["room"]["seats"]][1:] == ["oracle", "random"]
    assert not errors
    ctx.close()


def test_a_game_without_a_web_view(server: LiveServer, browser: Any) -> None:
    """A game the web client has no view of is listed like any other, with its spec's title and
    bots and no seat choice; its room says plainly that this page cannot show its table (where
    the old room.js ran the tower's code for any game that was not dice), and so does its replay."""
    ctx = browser.new_context(**DESKTOP)
    page = ctx.new_page()
    errors = errors_of(page)
    with_plug_game(page, server)
    page.goto(server.url + "/")
    page.wait_for_selector("#create")
    assert page.locator(f"#game option[value='{PLUG}']").inner_text() == "Plug"
    page.select_option("#game", PLUG)
    assert seat_options(page) == [["open", "random"]] * 2
    assert page.locator("#seat-choice").is_hidden()
    page.goto(server.url + "/rules")
    page.wait_for_selector(f"#{PLUG}")
    assert page.locator(f"#{PLUG} h2").inner_text() == "Plug"
    # a room of that game: the real server's state of a dice room, named a plug room
    room = new_room(server, "dice", ["random", "random"])
    message = state(server, room)
    message["room"]["game"] = message["game"]["game"] = PLUG
    FakeTable(page, message)
    page.goto(f"{server.url}/room/{room}")
    page.wait_for_selector("#no-view")
    assert "cannot show the plug game" in page.locator("#no-view").inner_text()
    assert page.locator("#title").inner_text().startswith("Plug · ")
    assert page.locator(".board").count() == 0
    assert page.locator(f"#rules-in-force a[href='/rules#{PLUG}']").count() == 1
    # its replay
    done = finished_room(server, "dice", {"width": 6, "height": 6})

    def as_plug(route: Any) -> None:
        body = route.fetch().json()
        body["game"] = PLUG
        route.fulfill(status=200, content_type="application/json", body=json.dumps(body))

    page.route("**/api/rooms/*/replay", as_plug)
    page.goto(f"{server.url}/replay/{done}")
    page.wait_for_selector("#replay-error")
    assert "cannot show the plug game" in page.locator("#replay-error").inner_text()
    assert page.locator("#viewer").is_hidden()
    assert not errors
    ctx.close()
