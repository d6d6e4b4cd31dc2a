"""Issue 27 (items 1-6 and 10): the browser table as a newcomer found it, in Debian's Chromium.

Each test names the item it covers and what the page did before (each fails on the client of
e090223): the board and its controls below the fold on a phone and a laptop, the side panel that
moved between turns, "[object HTMLSpanElement]" in the replay, a chat box that kept its text, the
resign that said "Time ran out", towers offered twice, a "Drop submitted" notice after the reveal,
ids for English achievement names, a room made for a name of spaces, a timer field that took what
the server refuses, "Connection lost" beside "No such room", "rolled *", keyboard hints on a touch
screen, "API docs" in every header; and for Lighthouse, pages without a description, a blocking
style sheet and static files without Cache-Control.
"""

from __future__ import annotations

import copy
import re
from typing import Any

import httpx
import pytest

from web_helpers import (
    DESKTOP,
    PHONE,
    TOASTS,
    FakeTable,
    LiveServer,
    Page,
    SocketSpy,
    browser,
    errors_of,
    finished_room,
    join,
    new_room,
    server,
    state,
    wait_until,
)

pytestmark = pytest.mark.browser
__all__ = ["browser", "server"]  # fixtures, used by name

LAPTOP: dict[str, Any] = {"viewport": {"width": 1366, "height": 768}, "bypass_csp": True}
SMALL_PHONE: dict[str, Any] = {**PHONE, "viewport": {"width": 360, "height": 740}}
SCREENS = {"390x844": PHONE, "360x740": SMALL_PHONE, "1366x768": LAPTOP}



def token_of(page: Page, room: str) -> str:
    return str(page.evaluate(f"JSON.parse(localStorage.getItem('tabletris:seat:{room}')).token"))


SHOWN_BOX = """selector => {
    const found = document.querySelector(selector);
    const r = found && found.getBoundingClientRect();
    return r && (r.width || r.height) ? {x: r.x, y: r.y, width: r.width, height: r.height} : null;
}"""


def box(page: Page, selector: str) -> dict[str, float]:
    """The box of what ``selector`` finds, once it is shown (5 s at most), found and measured in
    one step in the page: the tower's controls are built anew with every state (the bot's drop
    sends one), and a handle to the button found a moment before may be gone when measured."""
    from playwright.sync_api import TimeoutError as Timeout

    try:
        return dict(page.wait_for_function(SHOWN_BOX, arg=selector, timeout=5000).json_value())
    except Timeout:
        raise AssertionError(f"{selector} is not shown") from None


def on_screen(page: Page, selector: str, size: dict[str, Any]) -> None:
    """``selector`` lies inside the viewport as the page stands (nothing scrolled)."""
    b = box(page, selector)
    height, width = size["viewport"]["height"], size["viewport"]["width"]
    assert b["y"] >= 0 and b["y"] + b["height"] <= height + 0.5, f"{selector} spans y {b['y']:.0f}-{b['y'] + b['height']:.0f} on a screen {height} px high"
    assert b["x"] >= 0 and b["x"] + b["width"] <= width + 0.5, f"{selector} spans x {b['x']:.0f}-{b['x'] + b['width']:.0f} on a screen {width} px wide"


# ------------------------------------------------------------------ item 1: the table fits


@pytest.mark.parametrize("screen", list(SCREENS))
@pytest.mark.parametrize("game", ["dice", "tower"])
def test_board_and_controls_fit_the_screen_during_a_turn(server: LiveServer, browser: Any, game: str, screen: str) -> None:
    """Item 1: at 390x844 the header, title, buttons and rules box took ~410 px, so the board's
    bottom rows and its controls were below the fold (at 1366x768 the Place/Turn buttons started at
    y=770), for dice and tower. Now the board's lowest row and the controls of the turn (Turn,
    Place, then Confirm and Undo; Turn, Drop and the ▼ row) are on the screen, nothing scrolled."""
    size = SCREENS[screen]
    room = new_room(server, game, ["open", "random"])
    ctx = browser.new_context(**size)
    page = ctx.new_page()
    errors = errors_of(page)
    join(page, server, room, "Ann")
    page.wait_for_selector("#place:visible", timeout=15000)
    page.wait_for_selector(".cell.ghost", timeout=5000)
    assert page.evaluate("window.scrollY") == 0
    board = ".tower-board .board" if game == "tower" else ".stage .board"
    lowest = f"{board} .cell[data-x='0'][data-y='0']"
    for selector in (board, lowest, "#place", "#rotate"):
        on_screen(page, selector, size)
    if game == "tower":
        on_screen(page, "#cols", size)
        assert box(page, "#cols [data-col='0']")["width"] >= 24  # WCAG 2.5.8: at least 24 px
    else:
        page.click("#place")  # stage the placement: Confirm and Undo take the buttons' place
        page.wait_for_selector("#confirm:visible")
        for selector in ("#confirm", "#undo", lowest):
            on_screen(page, selector, size)
    assert page.evaluate("window.scrollY") == 0
    assert not errors
    ctx.close()


def test_dice_side_panel_stays_put_between_turns(server: LiveServer, browser: Any) -> None:
    """Item 1: the dice side panel moved (x≈923 → 676 at 1366 px) between the player's turn and
    the others' (the stage's width followed its controls and hints). Ann, to move, and Bob, who
    waits, see the scores panel at the same place."""
    room = new_room(server, "dice", ["open", "open"])
    pages = []
    for seat, name in enumerate(["Ann", "Bob"]):
        ctx = browser.new_context(**LAPTOP)
        page = ctx.new_page()
        join(page, server, room, name, seat)
        pages.append((ctx, page))
    for _ctx, page in pages:
        page.wait_for_selector("#scores tr[data-seat='1']")
    to_move = state(server, room)["game"]["to_move"]
    mine, theirs = pages[to_move][1], pages[1 - to_move][1]
    mine.wait_for_selector("#place:visible")
    theirs.wait_for_selector("#status:has-text('is playing')")
    assert theirs.locator("#place").is_hidden()
    a, b = box(mine, "#scores"), box(theirs, "#scores")
    assert abs(a["x"] - b["x"]) < 1 and abs(a["width"] - b["width"]) < 1, (a, b)
    for ctx, _page in pages:
        ctx.close()


# ------------------------------------------------------------------ item 2: replay


def test_replay_says_each_dice_move_in_words(server: LiveServer, browser: Any) -> None:
    """Item 2: stepping to a move that was not a ★ showed "Bob: [object HTMLSpanElement], ,at
    columns 5–8, row 3" (a nested list given to el()). Every step now reads as words."""
    room = finished_room(server, "dice", {"width": 6, "height": 6})
    frames = len(httpx.get(f"{server.url}/api/rooms/{room}/replay").json()["frames"])
    ctx = browser.new_context(**DESKTOP)
    page = ctx.new_page()
    errors = errors_of(page)
    page.goto(f"{server.url}/replay/{room}?step=1")
    page.wait_for_selector("#info p.muted")
    seen = []
    for step in range(1, frames):
        page.wait_for_function(f"document.querySelector('#slider').value === '{step}'")
        text = page.locator("#info p.muted").inner_text()
        assert "[object" not in text and ", ," not in text, (step, text)
        assert re.search(r"columns? \d", text) or "no place" in text, (step, text)
        seen.append(text)
        page.click("#forward")
    assert len(seen) == frames - 1
    assert not errors
    ctx.close()


def test_tower_replay_round_numbers_agree_and_say_the_round(server: LiveServer, browser: Any) -> None:
    """Item 2: the tower replay said "round 4 / 27" while its panel said "Round 5", and said
    nothing of what happened in the round. Step k is after round k in both, with its actions."""
    room = finished_room(server, "tower", {})
    players = state(server, room)["game"]["players"]
    ctx = browser.new_context(**DESKTOP)
    page = ctx.new_page()
    errors = errors_of(page)
    page.goto(f"{server.url}/replay/{room}?step=4")
    page.wait_for_selector("#info h2")
    total = page.locator("#slider").get_attribute("max")
    assert page.locator("#step").inner_text() == f"round 4 / {total}"
    assert page.locator("#info h2").inner_text() == "After round 4"
    said = page.locator("#replay-move").inner_text()
    assert all(name in said for name in players), said
    assert "dropped" in said or "held" in said, said
    page.click("#first")
    assert page.locator("#info h2").inner_text() == "Start of the game"
    assert page.locator("#replay-move").inner_text() == ""
    assert not errors
    ctx.close()


# ------------------------------------------------------------------ item 3: chat


def test_chat_enter_clears_the_box_and_posts_once(server: LiveServer, browser: Any) -> None:
    """Item 3: Enter left the text in the box (the page waited for an answer the server never
    sends), so a second Enter posted it again. The box empties at once; a second Enter on the
    empty box sends nothing."""
    room = new_room(server, "dice", ["open", "random"])
    ctx = browser.new_context(**DESKTOP)
    page = ctx.new_page()
    errors = errors_of(page)
    spy = SocketSpy(page)
    join(page, server, room, "Ann")
    page.wait_for_selector("#scores tr.me")  # the seat's own socket is open (joining reconnects)
    page.fill("#chat-input", "hello table")
    page.press("#chat-input", "Enter")
    page.wait_for_selector("#chat-log li")
    assert page.input_value("#chat-input") == ""
    page.press("#chat-input", "Enter")
    page.fill("#chat-input", "second line")
    page.press("#chat-input", "Enter")
    page.wait_for_function("document.querySelectorAll('#chat-log li').length >= 2")
    assert page.locator("#chat-log .chat-text").all_inner_texts() == ["hello table", "second line"]
    assert [m["text"] for m in spy.of_type("chat")] == ["hello table", "second line"]
    assert not errors
    ctx.close()


def test_a_refused_chat_line_comes_back_into_the_box(server: LiveServer, browser: Any) -> None:
    """Item 3, nothing is lost: a line the server refuses (over its length limit, pasted past the
    field's own limit) returns to the box with the server's reason."""
    room = new_room(server, "dice", ["open", "random"])
    ctx = browser.new_context(**DESKTOP)
    ctx.add_init_script(TOASTS)
    page = ctx.new_page()
    join(page, server, room, "Ann")
    page.wait_for_selector("#scores tr.me")  # the seat's own socket is open (joining reconnects)
    long = "x" * (server.limits.chat_chars + 5)
    page.evaluate("(t) => { const i = document.querySelector('#chat-input'); i.removeAttribute('maxlength'); i.value = t; }", long)
    page.press("#chat-input", "Enter")
    page.wait_for_function("window.__toasts.some((t) => t.includes('at most'))")
    assert page.input_value("#chat-input") == long
    ctx.close()


# ------------------------------------------------------------------ item 4: resign


def test_resign_says_so_and_the_button_goes(server: LiveServer, browser: Any) -> None:
    """Item 4: confirming Resign said "Time ran out: the timer's bot played your turn", Resign
    stayed (and answered the same again). Now the page says the player resigned, never that time
    ran out while the timer's bot plays the seat on, and Resign is gone."""
    room = new_room(server, "dice", ["open", "random"])
    ctx = browser.new_context(**DESKTOP)
    ctx.add_init_script(TOASTS)
    page = ctx.new_page()
    errors = errors_of(page)
    join(page, server, room, "Ann")
    page.wait_for_selector("#place:visible", timeout=15000)
    page.click("#resign")
    page.click("#confirm-yes")
    page.wait_for_function("window.__toasts.some((t) => t.startsWith('You resigned'))")
    page.wait_for_selector("#resign", state="hidden")
    # the timer's bot plays Ann's seat on: wait until the page has drawn two of its moves
    wait_until(lambda: sum(1 for m in state(server, room)["game"]["log"] if m["player"] == 0) >= 2, what="the bot playing Ann's seat")
    drawn = len(state(server, room)["game"]["log"])
    page.wait_for_function(f"document.querySelectorAll('#log li').length >= {drawn}")
    toasts = page.evaluate("window.__toasts")
    assert not [t for t in toasts if "Time ran out" in t], toasts
    assert state(server, room)["room"]["seats"][0]["kind"] == "resigned"
    assert not errors
    ctx.close()


def resigned_state(server: LiveServer, browser: Any, you: int) -> dict[str, Any]:
    """A real dice state in which seat 0 (Ann) has resigned and is to move, as seat ``you`` sees it."""
    room = new_room(server, "dice", ["open", "open"])
    for seat, name in enumerate(["Ann", "Bob"]):
        assert httpx.post(f"{server.url}/api/rooms/{room}/join", json={"name": name, "seat": seat}).status_code == 200
    message = dict(state(server, room))
    message = copy.deepcopy(message)
    message.update(type="state", you=you, private=None)
    seat = message["room"]["seats"][0]
    seat.update(kind="resigned", bot=True)
    message["game"]["to_move"] = 0
    return message


@pytest.mark.parametrize("you", [0, 1])
def test_status_does_not_say_a_resigned_player_is_playing(server: LiveServer, browser: Any, you: int) -> None:
    """Item 4: the status said "Ann is playing…" about Ann, who had resigned (to her and to the
    others). It says that she resigned and the timer's bot plays for her."""
    message = resigned_state(server, browser, you)
    ctx = browser.new_context(**DESKTOP)
    page = ctx.new_page()
    errors = errors_of(page)
    FakeTable(page, message)
    page.goto(f"{server.url}/room/{message['room']['id']}")
    page.wait_for_selector("#status:not(:empty)")
    status = page.locator("#status").inner_text()
    assert "is playing" not in status, status
    assert status.startswith("You resigned") if you == 0 else status.startswith("Ann resigned"), status
    assert page.locator("#resign").is_hidden() == (you == 0)  # Bob may still resign
    assert not errors
    ctx.close()


# ------------------------------------------------------------------ item 5: the tower game


def test_tower_join_offers_only_free_towers_and_counts_seats_from_one(server: LiveServer, browser: Any) -> None:
    """Item 5: the join picker offered "Tower 1, end a (Ann)" and its end b, and choosing one
    answered "towers: seats 0 and 1 both chose tower 1" (seats counted from 0; the page counts
    from 1). A tower someone chose is not offered at all, and the clash counts seats from 1."""
    room = new_room(server, "tower", ["open", "open", "open"])
    assert httpx.post(f"{server.url}/api/rooms/{room}/join", json={"name": "Ann", "seat": 0, "tower": "1a"}).status_code == 200
    clash = httpx.post(f"{server.url}/api/rooms/{room}/join", json={"name": "Cy", "seat": 2, "tower": "1b"})
    assert clash.status_code == 422 and "seats 1 and 3 both chose tower 1" in clash.json()["message"], clash.text
    ctx = browser.new_context(**PHONE)
    page = ctx.new_page()
    errors = errors_of(page)
    page.goto(f"{server.url}/room/{room}")
    page.wait_for_selector("#join-tower option[value='2a']", state="attached")
    options = page.locator("#join-tower option").evaluate_all("os => os.map((o) => o.value)")
    assert "1a" not in options and "1b" not in options and "" in options and "4b" in options, options
    assert "(Ann)" not in page.locator("#join-tower").inner_text()
    assert not errors
    ctx.close()


def test_no_drop_notice_after_the_round_was_revealed(server: LiveServer, browser: Any) -> None:
    """Item 5: "Drop submitted: waiting for the others" showed after the next round had begun
    (the last drop reveals the round before the server answers; on a phone it covered the tower).
    The status line says a drop is in; no notice comes once the round is over."""
    room = new_room(server, "tower", ["open", "random"])
    ctx = browser.new_context(**PHONE)
    ctx.add_init_script(TOASTS)
    page = ctx.new_page()
    errors = errors_of(page)
    join(page, server, room, "Ann")
    page.wait_for_selector("#place:visible", timeout=15000)
    wait_until(lambda: state(server, room)["game"]["submitted"][1], what="the bot's drop")
    page.locator("#place").tap()
    page.wait_for_function("document.querySelector('#cards .deckinfo').textContent.startsWith('Round 2')")
    wait_until(lambda: len(state(server, room)["game"]["log"]) >= 1, what="round 1 revealed")
    # the server answers a connection's messages in order: once a chat line sent now is back, the
    # answer to the drop has been handled too
    page.fill("#chat-input", "next")
    page.press("#chat-input", "Enter")
    page.wait_for_selector("#chat-log li")
    toasts = page.evaluate("window.__toasts")
    assert not [t for t in toasts if "Drop submitted" in t], toasts
    assert not errors
    ctx.close()


def test_tower_end_shows_no_empty_cards_and_english_card_names(server: LiveServer, browser: Any) -> None:
    """Item 5: at the end the cards read "–PLAY" / "–NEXT" (cards with nothing on them), and in
    English the achievement cards showed their ids ("five-bonus") where Czech and Chinese show
    names. No card is drawn that is not there, and the cards are named."""
    room = finished_room(server, "tower", {})
    g = state(server, room)["game"]
    ctx = browser.new_context(**DESKTOP)
    page = ctx.new_page()
    errors = errors_of(page)
    page.goto(f"{server.url}/room/{room}")
    page.wait_for_selector("#end")
    cards = page.locator("#cards").inner_text()
    assert "–" not in cards, cards
    assert page.locator("#play-card").count() == (1 if g["play"] else 0)
    assert page.locator("#next-card").count() == (1 if g["next"] else 0)
    names = page.locator("#achievements [data-card] > b").all_inner_texts()
    assert names == [c["name"] for c in g["achievements"]], names
    assert not set(names) & {c["id"] for c in g["achievements"]}
    header = page.locator("#end #final tr").first.locator("th").all_inner_texts()
    assert all(c["name"] in header for c in g["achievements"]), header
    assert not errors
    ctx.close()


# ------------------------------------------------------------------ item 6: forms and words


def rooms_now(server: LiveServer) -> set[str]:
    return {r["id"] for r in httpx.get(f"{server.url}/api/rooms?limit=100").json()}


def test_a_name_of_spaces_is_refused_before_a_room_is_made(server: LiveServer, browser: Any) -> None:
    """Item 6: a name of only spaces created the room, then asked for a name (one room too many)."""
    ctx = browser.new_context(**DESKTOP)
    ctx.add_init_script(TOASTS)
    page = ctx.new_page()
    errors = errors_of(page)
    page.goto(server.url + "/")
    page.wait_for_selector("#create-btn")
    before = rooms_now(server)
    page.fill("#myname", "   ")
    page.click("#create-btn")
    page.wait_for_function("window.__toasts.some((t) => t.startsWith('Type your name'))")
    assert page.evaluate("document.activeElement.id") == "myname"
    assert rooms_now(server) == before
    assert "/room/" not in page.url
    assert not errors
    ctx.close()


def test_timer_field_takes_the_servers_bounds(server: LiveServer, browser: Any) -> None:
    """Item 6: the timer field took 5 to 3600 and said "no timer" when blank, while the server takes
    10-600 s and gives a room with people 60 s when none is given. The field's bounds and its
    blank value are the server's; a value out of them is stopped by the form, no room is made."""
    limits = server.limits
    ctx = browser.new_context(**DESKTOP)
    page = ctx.new_page()
    errors = errors_of(page)
    page.goto(server.url + "/")
    page.wait_for_selector("#timer")
    timer = page.locator("#timer")
    assert float(timer.get_attribute("min") or "nan") == limits.timer_min
    assert float(timer.get_attribute("max") or "nan") == limits.timer_max
    assert timer.get_attribute("placeholder") == f"{limits.default_timer:g}"
    assert f"blank: {limits.default_timer:g} s" in page.locator("#speed-help").inner_text()
    before = rooms_now(server)
    page.fill("#myname", "Ann")
    page.fill("#timer", f"{limits.timer_max + 1:g}")
    page.click("#create-btn")
    assert timer.evaluate("t => t.validity.rangeOverflow")
    assert rooms_now(server) == before
    # blank: the server's default, as the form says
    page.fill("#timer", "")
    page.click("#create-btn")
    page.wait_for_url("**/room/**")
    room = page.url.rsplit("/", 1)[1]
    assert state(server, room)["room"]["timer"] == limits.default_timer
    assert not errors
    ctx.close()


def test_a_room_that_does_not_exist_says_only_that(server: LiveServer, browser: Any) -> None:
    """Item 6: /room/doesnotexist showed "Connection lost — reconnecting… Your seat is kept" beside
    "No such room", under the room's title and buttons."""
    ctx = browser.new_context(**DESKTOP)
    page = ctx.new_page()
    errors = errors_of(page)
    with page.expect_websocket() as opened:
        page.goto(f"{server.url}/room/doesnotexist")
    opened.value.wait_for_event("close")  # the server said so and closed: the page has heard it all
    page.wait_for_selector("text=No such room")
    text = page.locator("main").inner_text()
    assert "No such room" in text and "Back to the lobby" in text
    assert "Connection lost" not in page.locator("body").inner_text()
    assert page.locator("#offline:visible, #invite, #leave, #rules-in-force").count() == 0
    assert not errors
    ctx.close()


def test_dice_end_text_shows_the_star(server: LiveServer, browser: Any) -> None:
    """Item 6: the dice end text said "Ann rolled *, which fits nowhere" where everything else
    shows ★. A game that ended on a ★ that fit nowhere (a real state, changed to that end)."""
    room = new_room(server, "dice", ["open", "open"])
    for seat, name in enumerate(["Ann", "Bob"]):
        assert httpx.post(f"{server.url}/api/rooms/{room}/join", json={"name": name, "seat": seat}).status_code == 200
    message = copy.deepcopy(state(server, room))
    message.update(type="state", you=None, private=None)
    g = message["game"]
    g.update(over=True, stuck=0, winners=[1])
    g["log"] = [{"player": 0, "roll": "*", "place": None}]
    message["room"]["status"] = "over"
    ctx = browser.new_context(**DESKTOP)
    page = ctx.new_page()
    errors = errors_of(page)
    FakeTable(page, message)
    page.goto(f"{server.url}/room/{room}")
    page.wait_for_selector("#end-reason")
    reason = page.locator("#end-reason").inner_text()
    assert "★" in reason and "*" not in reason, reason
    assert "★" in page.locator("#log").inner_text() and "*" not in page.locator("#log").inner_text()
    assert not errors
    ctx.close()


def test_no_keyboard_or_wheel_hints_on_a_touch_screen(server: LiveServer, browser: Any) -> None:
    """Item 6: a touch screen was told of Enter, Esc, arrows and the wheel. On a phone the page
    says what to tap; on a desktop the keys are still shown."""
    room = new_room(server, "dice", ["open", "random"])
    ctx = browser.new_context(**PHONE)
    page = ctx.new_page()
    errors = errors_of(page)
    join(page, server, room, "Ann")
    page.wait_for_selector("#place:visible", timeout=15000)
    page.locator("#place").tap()
    page.wait_for_selector("#confirm:visible")
    shown = page.locator("main").inner_text()
    for word in ("Enter", "Esc", "wheel", "← →"):
        assert word not in shown, (word, shown)
    assert "tap it again" in page.locator("#status").inner_text()
    ctx.close()
    desk = browser.new_context(**DESKTOP)
    page = desk.new_page()
    join(page, server, new_room(server, "dice", ["open", "random"]), "Ann")
    page.wait_for_selector("#place:visible", timeout=15000)
    assert "Enter" in page.locator(".keys").inner_text()
    assert not errors
    desk.close()


def test_api_docs_only_in_the_lobby_footer(server: LiveServer, browser: Any) -> None:
    """Item 6: "API docs" sat in every player's header (and led to /docs, which this server does
    not serve). It is in the lobby's footer, to the OpenAPI document."""
    room = new_room(server, "dice", ["open", "random"])
    ctx = browser.new_context(**DESKTOP)
    page = ctx.new_page()
    errors = errors_of(page)
    for path in (f"/room/{room}", "/rules", "/replay", "/"):
        page.goto(server.url + path)
        page.wait_for_selector("header.top")
        assert "API docs" not in page.locator("header.top").inner_text(), path
    page.wait_for_selector("footer.foot")
    link = page.locator("footer.foot a", has_text="API docs")
    href = link.get_attribute("href")
    assert href and httpx.get(server.url + href).status_code == 200
    assert not errors
    ctx.close()


# ------------------------------------------------------------------ item 10: what Lighthouse asked


PAGES = ["/", "/room/abc", "/rules", "/replay", "/replay/abc"]


@pytest.mark.parametrize("path", PAGES)
def test_pages_have_a_description_and_no_blocking_style_sheet(server: LiveServer, path: str) -> None:
    """Item 10: no page had a meta description (SEO 90), and each waited for /static/style.css
    before its first paint. Each page has a description in the player's language, and its style
    inline."""
    english = httpx.get(server.url + path).text
    czech = httpx.get(server.url + path, headers={"Accept-Language": "cs"}).text
    described = [re.search(r'<meta name="description" content="([^"]+)">', t) for t in (english, czech)]
    assert described[0] and described[1], path
    assert "tabletris" in described[0].group(1) and described[0].group(1) != described[1].group(1)
    assert 'rel="stylesheet"' not in english and "<style>" in english and ".board" in english


def test_static_files_have_cache_control_and_etag(server: LiveServer) -> None:
    """Item 10: /static/* came with an ETag only. It has Cache-Control too, kept on the 304."""
    for path in ("/static/js/room.js", "/static/style.css", "/static/js/views/dice.js"):
        first = httpx.get(server.url + path)
        assert first.status_code == 200 and first.headers.get("etag"), path
        assert "max-age=" in first.headers.get("cache-control", ""), path
        again = httpx.get(server.url + path, headers={"If-None-Match": first.headers["etag"]})
        assert again.status_code == 304 and "max-age=" in again.headers.get("cache-control", ""), path
