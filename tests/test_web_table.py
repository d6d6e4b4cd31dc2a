"""Issue 14: the web table as players of online board games expect it, in real Chromium.

Each test names the issue item it covers; each fails on the client before issue 14 (what it
checked then is said in the docstring). Desktop tests use the mouse and the keyboard, phone tests
(390x844) use touch.
"""

from __future__ import annotations

import copy
import re
import time
from typing import Any

import httpx
import pytest

from web_helpers import (
    DESKTOP,
    PHONE,
    FakeTable,
    LiveServer,
    Page,
    SocketSpy,
    axe_violations,
    browser,
    contrast,
    errors_of,
    finished_room,
    join,
    new_room,
    server,
    state,
    wait_until,
)

pytestmark = pytest.mark.browser
__all__ = ["browser", "server"]  # fixtures


def seated(browser: Any, server: LiveServer, room: str, name: str = "Ann", ctx: dict[str, Any] = DESKTOP, seat: int = 0) -> tuple[Any, Page, list[str]]:
    context = browser.new_context(**ctx)
    page = context.new_page()
    errors = errors_of(page)
    join(page, server, room, name, seat)
    return context, page, errors


def my_turn_dice(page: Page) -> None:
    page.wait_for_selector("#place:visible", timeout=15000)
    page.wait_for_selector(".cell.ghost", timeout=5000)


def ghost_center(page: Page) -> tuple[float, float]:
    page.locator(".cell.ghost").last.scroll_into_view_if_needed()
    g = page.locator(".cell.ghost").first.bounding_box()
    return g["x"] + g["width"] / 2, g["y"] + g["height"] / 2


def token_of(page: Page, room: str) -> str:
    return str(page.evaluate(f"JSON.parse(localStorage.getItem('tabletris:seat:{room}')).token"))


def dice_state_with(server: LiveServer, browser: Any, change: Any) -> tuple[Any, Page, dict[str, Any]]:
    """A real dice state message for a seated player, changed by ``change`` (see FakeTable)."""
    room = new_room(server, "dice", ["open", "random"])
    ctx, page, _ = seated(browser, server, room)
    page.wait_for_selector("#scores")
    wait_until(lambda: state(server, room, token_of(page, room))["private"] is not None, what="Ann's turn")
    message = state(server, room, token_of(page, room))
    ctx.close()
    change(message)
    return ctx, page, message


# ------------------------------------------------------------------ item 1 and 3: the tray


def test_star_roll_preselects_a_shape_that_fits(server: LiveServer, browser: Any) -> None:
    """Item 1: on a ★ roll whose first shape fits nowhere, the page selected that shape and showed
    no ghost, Place did nothing and no message said why. Now the first shape that fits is selected,
    the one that fits nowhere is marked, and choosing it says why there is no ghost."""

    def star(m: dict[str, Any]) -> None:
        m["game"]["roll"] = "*"
        opts = m["private"]["options"]
        i_opt = copy.deepcopy(opts[0])
        i_opt["shape"] = "I"
        for f in i_opt["orientations"]:
            f["places"] = []
        o_opt = copy.deepcopy(opts[0])
        o_opt["shape"] = "O"
        o_opt["orientations"] = [{"cells": [[0, 0], [1, 0], [0, 1], [1, 1]], "places": [[0, 0], [2, 0], [4, 0]]}]
        m["private"]["options"] = [i_opt, o_opt]

    _, _, message = dice_state_with(server, browser, star)
    ctx = browser.new_context(**PHONE)
    page = ctx.new_page()
    errors = errors_of(page)
    fake = FakeTable(page, message)
    page.goto(f"{server.url}/room/{message['room']['id']}")
    page.wait_for_selector(".cell.ghost")
    assert page.locator(".piece.sel").get_attribute("data-shape") == "O"
    assert page.locator(".piece[data-shape='I']").get_attribute("aria-label") == "I: fits nowhere"
    page.locator(".piece[data-shape='I']").tap()
    assert page.locator(".cell.ghost").count() == 0
    assert "no place fits the I" in page.locator("#status").inner_text()
    page.locator(".piece[data-shape='O']").tap()
    page.wait_for_selector(".cell.ghost")
    page.tap("#place")
    page.tap("#confirm")
    move = fake.wait_for(page, "move")
    assert move["shape"] == "O" and move["turn"] == message["game"]["turn"]
    assert not errors
    ctx.close()


def test_tray_highlight_and_take_buttons_follow_the_chosen_shape(server: LiveServer, browser: Any) -> None:
    """Item 3: clicking a shape left the highlight on the old one, and with an empty supply the
    "take stone #n" buttons stayed those of the old shape."""

    def empty_supply(m: dict[str, Any]) -> None:
        m["game"]["roll"] = "*"
        base = m["private"]["options"][0]
        m["game"]["stones"] = [
            {"number": 1, "shape": "T", "owner": 1, "cells": [[0, 0], [1, 0], [2, 0], [1, 1]]},
            {"number": 2, "shape": "T", "owner": 1, "cells": [[3, 0], [4, 0], [5, 0], [4, 1]]},
            {"number": 3, "shape": "O", "owner": 0, "cells": [[6, 0], [7, 0], [6, 1], [7, 1]]},
        ]
        opts = []
        for shape, n in (("T", 1), ("T", 2), ("O", 3)):
            o = copy.deepcopy(base)
            o["shape"] = shape
            o["take"] = next(s for s in m["game"]["stones"] if s["number"] == n)
            o["orientations"] = [{"cells": [[0, 0], [1, 0], [0, 1], [1, 1]] if shape == "O" else [[0, 0], [1, 0], [2, 0], [1, 1]], "places": [[0, 2], [3, 2]]}]
            opts.append(o)
        m["private"]["options"] = opts

    _, _, message = dice_state_with(server, browser, empty_supply)
    ctx = browser.new_context(**DESKTOP)
    page = ctx.new_page()
    errors = errors_of(page)
    FakeTable(page, message)
    page.goto(f"{server.url}/room/{message['room']['id']}")
    page.wait_for_selector(".cell.ghost")
    assert page.locator(".piece.sel").get_attribute("data-shape") == "T"
    assert sorted(page.locator("[data-take]").evaluate_all("bs => bs.map((b) => b.dataset.take)")) == ["1", "2"]
    page.click(".piece[data-shape='O']")
    assert page.locator(".piece.sel").get_attribute("data-shape") == "O"
    assert page.locator(".piece[data-shape='T']").get_attribute("aria-pressed") == "false"
    assert page.locator("[data-take]").evaluate_all("bs => bs.map((b) => b.dataset.take)") == ["3"]
    outlined = page.locator(".cell.take").evaluate_all("cs => cs.map((c) => c.dataset.x + ',' + c.dataset.y)")
    assert sorted(outlined) == ["6,0", "6,1", "7,0", "7,1"]
    assert not errors
    ctx.close()


# ------------------------------------------------------------------ item 4: confirm / undo


def test_dice_placement_waits_for_confirm_with_mouse_keyboard_and_touch(server: LiveServer, browser: Any) -> None:
    """Item 4: a click placed at once, and on touch the first tap could land on the ghost and place
    it. Now a click, Enter or a tap stages the piece; nothing is sent until Confirm, and Undo (or
    Escape) takes it back."""
    room = new_room(server, "dice", ["open", "open"])
    ann_ctx, ann, ann_errors = seated(browser, server, room, "Ann")
    bob_ctx, bob, bob_errors = seated(browser, server, room, "Bob", PHONE, seat=1)
    bob.wait_for_selector("#scores")
    my_turn_dice(ann)
    # mouse: the click stages, Undo takes it back, nothing reached the server
    x, y = ghost_center(ann)
    ann.mouse.click(x, y)
    ann.wait_for_selector("#confirm:visible")
    assert ann.locator(".cell.staged").count() == 4
    assert state(server, room)["game"]["log"] == []
    ann.click("#undo")
    assert ann.locator(".cell.staged").count() == 0 and ann.locator(".cell.ghost").count() == 4
    # keyboard: Enter stages, Escape undoes, Enter twice places
    ann.locator(".board").focus()
    ann.keyboard.press("ArrowLeft")
    ann.keyboard.press("Enter")
    ann.wait_for_selector("#confirm:visible")
    ann.keyboard.press("Escape")
    assert ann.locator("#confirm:visible").count() == 0
    ann.keyboard.press("Enter")
    ann.keyboard.press("Enter")
    wait_until(lambda: len(state(server, room)["game"]["log"]) == 1, what="Ann's move")
    # touch: a tap on the ghost only stages it; a tap on the staged piece confirms it
    my_turn_dice(bob)
    bob.locator(".cell.ghost").last.tap()
    bob.wait_for_selector("#confirm:visible")
    time.sleep(0.3)
    assert len(state(server, room)["game"]["log"]) == 1
    bob.locator(".cell.staged").last.tap()
    wait_until(lambda: len(state(server, room)["game"]["log"]) == 2, what="Bob's move")
    assert not ann_errors and not bob_errors
    ann_ctx.close()
    bob_ctx.close()


# ------------------------------------------------------------------ item 5: the turn clock


def test_turn_clock_shows_seconds_and_the_timer_move_is_marked(server: LiveServer, browser: Any) -> None:
    """Item 5: the seconds left were only in a tooltip, and a move played by the timer looked like
    the player's own. Now a clock shows them, and the log and a message say the timer played."""
    room = new_room(server, "dice", ["open", "random"], timer=5)
    ctx, page, errors = seated(browser, server, room)
    page.wait_for_selector("#clock:visible", timeout=15000)
    # Joining reconnects the page's spectator socket with the seat token: the clock names Ann
    # until the seat's own state arrives, then says "you".
    wait_until(lambda: "left for you" in page.locator("#clock").inner_text(), timeout=5, what="the clock says you")
    assert page.locator("#clock").inner_text().startswith("⏱ 0:0")
    page.wait_for_selector("#log .timer-tag", timeout=15000)
    assert page.locator("#log li").first.locator(".timer-tag").count() == 1
    assert "timer" in page.locator(".toast").inner_text()
    assert not errors
    ctx.close()


# ------------------------------------------------------------------ items 6 and 10: stones and names


def test_stones_show_owner_colours_letters_and_have_names(server: LiveServer, browser: Any) -> None:
    """Items 6 and 10: stones had no owner colour, no number anywhere, board cells had no
    accessible name, and shapes were told apart by colour only."""
    room = new_room(server, "dice", ["open", "random"])
    ctx, page, errors = seated(browser, server, room)
    my_turn_dice(page)
    x, y = ghost_center(page)
    page.mouse.click(x, y)
    page.click("#confirm")
    page.wait_for_function("document.querySelectorAll('#log li').length >= 2", timeout=15000)
    my_turn_dice(page)
    mine = page.locator(".cell.filled.o-0").first
    theirs = page.locator(".cell.filled.o-1").first
    label = mine.get_attribute("aria-label")
    assert re.match(r"column \d+, row \d+: [IOTSZJL] stone #\d+, Ann's", label), label
    assert "Random 2's" in theirs.get_attribute("aria-label")
    labels = page.locator(".board .cell").evaluate_all("cs => cs.map((c) => [c.className, c.getAttribute('aria-label')])")
    assert all(label.endswith(": empty") for cls, label in labels if cls == "cell")
    assert any(label.endswith("you can place here") for cls, label in labels if cls == "cell legal")
    # the legend: each player's colour beside the name, the same colour outlines their stones
    swatch = page.evaluate("getComputedStyle(document.querySelector('#scores tr[data-seat=\"1\"] .swatch')).backgroundColor")
    outline = theirs.evaluate("c => getComputedStyle(c).boxShadow")
    assert swatch in outline
    # player-colour mode fills the stones with the owner's colour; letter mode writes the shape
    page.select_option("#pref-colour", "player")
    assert theirs.evaluate("c => getComputedStyle(c).backgroundColor") == swatch
    page.check("#pref-letters")
    shape = mine.get_attribute("data-letter")
    assert mine.evaluate("c => getComputedStyle(c, '::after').content") == f'"{shape}"'
    page.reload()
    page.wait_for_selector(".cell.filled")
    assert page.locator("body.letters.by-player").count() == 1  # remembered
    # the "you can place here" mark has WCAG non-text contrast against an empty cell
    page.wait_for_selector(".cell.legal:not(.ghost):not(.filled)")
    dot = page.evaluate("getComputedStyle(document.querySelector('.cell.legal:not(.ghost):not(.filled)'), '::before').backgroundColor")
    empty = page.evaluate("getComputedStyle([...document.querySelectorAll('.board .cell')].find((c) => c.className === 'cell')).backgroundColor")
    assert contrast(dot, empty) >= 3, (dot, empty)
    assert not errors
    ctx.close()


def test_reward_dialog_numbers_the_stones_on_the_board(server: LiveServer, browser: Any) -> None:
    """Item 6: the "choose" reward dialog offered "Remove Bob's L (#4)", but the board never showed
    a stone's number. Now the stones that may be removed show their numbers on the board while the
    dialog is open (it leaves the board in sight), and the chosen one is outlined."""

    def choose(m: dict[str, Any]) -> None:
        g = m["game"]
        g["row_reward"] = "choose"
        g["stones"] = [
            {"number": 4, "shape": "L", "owner": 1, "cells": [[0, 0], [1, 0], [2, 0], [2, 1]]},
            {"number": 5, "shape": "O", "owner": 0, "cells": [[3, 0], [4, 0], [3, 1], [4, 1]]},
        ]
        opt = m["private"]["options"][0]
        opt["orientations"] = [{"cells": [[0, 0], [1, 0], [2, 0], [3, 0]], "places": [[5, 0]], "rows": [1]}]
        opt["shape"] = "I"
        m["private"]["options"] = [opt]
        m["private"]["rewardable"] = [4]

    _, _, message = dice_state_with(server, browser, choose)
    ctx = browser.new_context(**DESKTOP)
    page = ctx.new_page()
    errors = errors_of(page)
    fake = FakeTable(page, message)
    page.goto(f"{server.url}/room/{message['room']['id']}")
    page.wait_for_selector(".cell.ghost")
    page.click("#place")
    page.click("#confirm")
    page.wait_for_selector("#rewards [role=dialog]")
    numbered = page.locator(".cell.num")
    assert numbered.count() == 1 and numbered.get_attribute("data-letter") == "L4"
    assert numbered.evaluate("c => getComputedStyle(c, '::after').content") == '"L4"'
    assert page.locator("#reward-0 option").all_inner_texts()[1].startswith("Remove Random 2's L (#4, columns 1–3")
    page.select_option("#reward-0", "4")
    assert page.locator(".cell.pick").count() == 4
    page.click("#rewards-ok")
    move = fake.wait_for(page, "move")
    assert move["rewards"] == [{"remove": [[0, 0], [1, 0], [2, 0], [2, 1]]}]
    assert page.locator(".cell.num").count() == 0
    assert not errors
    ctx.close()


# ------------------------------------------------------------------ item 7: replay of a live game


def test_replay_page_of_a_running_game_points_to_the_live_table(server: LiveServer, browser: Any) -> None:
    """Item 7: the page was blank (a script error swallowed the server's "watch it live")."""
    room = new_room(server, "dice", ["open", "random"])
    ctx = browser.new_context(**DESKTOP)
    page = ctx.new_page()
    errors = errors_of(page)
    page.goto(f"{server.url}/replay/{room}")
    page.wait_for_selector("#replay-error")
    assert "not over: watch it live" in page.locator("#replay-error").inner_text()
    page.click("#watch-live")
    page.wait_for_url(f"**/room/{room}")
    assert not errors
    ctx.close()


# ------------------------------------------------------------------ item 8: the rules in force


def test_rules_in_force_in_the_room_and_the_rules_page(server: LiveServer, browser: Any) -> None:
    """Item 8: a customised room was titled "standard", no screen showed the rules in force, and
    the header's only help link opened Swagger."""
    room = new_room(server, "dice", ["open", "random"], rules={"width": 8, "clear_rows": True})
    ctx, page, errors = seated(browser, server, room)
    page.wait_for_selector("#scores")
    assert "standard + 2 house rules" in page.locator("#title").inner_text()
    page.click("#rules-in-force summary")
    changed = page.locator("#rules-in-force tr.changed")
    assert sorted(changed.evaluate_all("rs => rs.map((r) => r.dataset.rule)")) == ["clear_rows", "width"]
    width_row = page.locator("#rules-in-force tr[data-rule='width']").inner_text()
    meta = httpx.get(server.url + "/api/meta").json()
    help_text = next(o["help"] for o in meta["games"]["dice"]["options"] if o["name"] == "width")
    assert "8" in width_row and help_text in width_row
    page.click("header >> text=Rules")
    page.wait_for_url("**/rules")
    page.wait_for_selector("#tower")
    assert page.locator("#dice tr[data-rule]").count() == len(meta["games"]["dice"]["options"])
    assert page.locator("#tower tr[data-rule]").count() == len(meta["games"]["tower"]["options"])
    assert "achievement" in page.locator("#tower").inner_text()
    assert not errors
    ctx.close()


# ------------------------------------------------------------------ item 9


def test_waiting_room_names_bots_plainly(server: LiveServer, browser: Any) -> None:
    """Item 9: the waiting room showed "Expert 3[object HTMLSpanElement]"."""
    room = new_room(server, "dice", ["open", "open", "expert"])
    ctx, page, errors = seated(browser, server, room)
    page.wait_for_selector("text=Waiting for players")
    text = page.locator(".table").inner_text()
    assert "Expert 3" in text and "object" not in text
    assert not errors
    ctx.close()


def test_finished_dice_game_log_and_end_dialog(server: LiveServer, browser: Any) -> None:
    """Item 9: move numbers of 10 and more were cut off, the log never said where a piece went,
    the end dialog took no focus and Escape did not close it."""
    room = finished_room(server, "dice", {"width": 8, "height": 14})
    moves = state(server, room)["game"]["log"]
    assert len(moves) >= 10
    ctx = browser.new_context(**DESKTOP)
    page = ctx.new_page()
    errors = errors_of(page)
    page.goto(f"{server.url}/room/{room}")
    page.wait_for_selector("#end [role=dialog]")
    assert page.evaluate("document.activeElement.closest('#end') !== null")
    assert page.locator("#end-reason").inner_text().endswith("fits nowhere: the game ends.")
    page.wait_for_function("document.querySelector('#announce[aria-live=polite]').textContent.startsWith('Game over.')")
    page.keyboard.press("Escape")
    page.wait_for_selector("#end", state="detached")
    first = moves[0]
    assert "placed it at column" in page.locator("#log li").first.inner_text()
    assert first.get("shape", first["roll"]) in page.locator("#log li").first.inner_text()
    # the list's left padding holds a marker of three characters and more ("10.", "100.")
    assert page.evaluate("parseFloat(getComputedStyle(document.querySelector('#log')).paddingLeft)") >= 30
    start = state(server, room)["game"]["log_start"]
    assert page.locator("#log li").nth(9).get_attribute("value") == str(start + 10)
    # a log line leads to the replay at that move
    page.locator("#log li a").nth(2).click()
    page.wait_for_url(lambda url: url.endswith(f"/replay/{room}?step=3"))
    page.wait_for_selector("#step")
    assert page.locator("#step").inner_text().startswith("move 3 /")
    assert not errors
    ctx.close()


def test_join_returns_once_the_seat_is_taken(server: LiveServer, browser: Any) -> None:
    """CI failure (test_tower_log_hold_and_end_breakdown): ``join`` returned on the click, and
    the "Waiting for players" a test then waited for shows to a spectator as well, so a second
    player's join sent next could take seat 0 before the page's own request arrived. Here the
    page sends its join a second late, so on the old helper it has not reached the server when
    ``join`` returns."""
    room = new_room(server, "tower", ["open", "open"])
    context = browser.new_context(**DESKTOP)
    page = context.new_page()
    page.add_init_script("""
        const send = window.fetch;
        window.fetch = (url, init) => String(url).endsWith("/join")
            ? new Promise((done) => setTimeout(done, 1000)).then(() => send(url, init)) : send(url, init);
    """)
    join(page, server, room, "Ann")
    seats = state(server, room)["room"]["seats"]
    assert (seats[0]["open"], seats[0]["name"]) == (False, "Ann")
    context.close()


def test_tower_log_hold_and_end_breakdown(server: LiveServer, browser: Any) -> None:
    """Item 9: the tower had no log beyond "Last round", Hold looked like a drop, and a finished
    tower game said only "Game over"."""
    room = new_room(server, "tower", ["open", "open"])
    ctx, page, errors = seated(browser, server, room)
    page.wait_for_selector("text=Waiting for players")
    bob = httpx.post(f"{server.url}/api/rooms/{room}/join", json={"name": "Bob"}).json()["token"]
    page.wait_for_selector("#hold")
    card = state(server, room)["game"]["play"]
    page.keyboard.press("h")
    page.wait_for_function("document.querySelector('#status').innerText.startsWith('You hold the')")
    assert page.locator("#status").inner_text().startswith(f"You hold the {card} — waiting for Bob")
    assert "HELD" in page.locator("#play-card").inner_text()
    assert page.locator("#play-card").get_attribute("aria-label") == f"PLAY card: {card}, held by you"
    r = httpx.post(f"{server.url}/api/rooms/{room}/moves", json={"hold": True, "round": 1}, headers={"X-Seat-Token": bob})
    assert r.status_code == 200, r.text
    page.wait_for_function("document.querySelectorAll('#log li').length >= 1", timeout=15000)
    line = page.locator("#log li").first.inner_text()
    assert "Round 1" in line and f"Ann held the {card}; Bob held the {card}" in line
    ctx.close()
    done = finished_room(server, "tower", {"height": 6})
    ctx = browser.new_context(**DESKTOP)
    page = ctx.new_page()
    page.goto(f"{server.url}/room/{done}")
    page.wait_for_selector("#end [role=dialog]")
    final = state(server, done)["game"]
    reason = page.locator("#end-reason").inner_text()
    assert reason == ("Every tower is out: nobody can place a piece." if final["end"] == "out" else "The last card of the deck was played.")
    headers = page.locator("#final th").all_inner_texts()
    assert headers[:3] == ["Player", "Rows (points)", "Bonus"] and headers[-1] == "Total"
    assert [c["name"] for c in final["achievements"]] == headers[3:-1]  # named, not by id (issue 27)
    assert "Game over" in page.locator("#status").inner_text() and reason in page.locator("#status").inner_text()
    assert not errors
    ctx.close()


def test_resign_leave_hello_and_lost_connection(server: LiveServer, browser: Any) -> None:
    """Item 9: no resign or leave, and a lost connection was only a tiny grey dot. The page also
    introduces itself with the hello message of the new protocol and sends the turn with a move."""
    room = new_room(server, "dice", ["open", "random"])
    ctx = browser.new_context(**DESKTOP)
    page = ctx.new_page()
    errors = errors_of(page)
    spy = SocketSpy(page)
    join(page, server, room, "Ann")
    my_turn_dice(page)
    assert spy.wait_for(page, "hello")["token"] == token_of(page, room)
    page.click("#resign")
    page.wait_for_selector("#confirm [role=dialog]")
    page.keyboard.press("Escape")
    assert spy.of_type("resign") == []
    page.click("#resign")
    page.click("#confirm-yes")
    spy.wait_for(page, "resign")
    page.click("#leave")
    page.click("#confirm-no")
    assert spy.of_type("leave") == []
    # the connection drops: a banner says so, and goes once the page is back
    spy.routes[-1].close()
    page.wait_for_selector("#offline:visible")
    assert "Connection lost" in page.locator("#offline").inner_text()
    page.wait_for_selector("#offline", state="hidden", timeout=15000)
    assert not errors
    ctx.close()


# ------------------------------------------------------------------ your turn, chat


def test_your_turn_title_sound_and_notification(server: LiveServer, browser: Any) -> None:
    """BGA-style turn notification: the tab title, a sound if asked for, a Web Notification when
    the tab is hidden, and the live region."""
    room = new_room(server, "dice", ["open", "random"])
    ctx = browser.new_context(**DESKTOP)
    ctx.add_init_script("""
        window.__notes = [];
        window.Notification = class { constructor(title, opts) { window.__notes.push(title); } static requestPermission() { return Promise.resolve('granted'); } };
        window.Notification.permission = 'granted';
        Object.defineProperty(document, 'hidden', { get: () => true });
        window.__beeps = 0;
        const Osc = OscillatorNode.prototype.start;
        OscillatorNode.prototype.start = function (...a) { window.__beeps += 1; return Osc.apply(this, a); };
        localStorage.setItem('tabletris:pref:sound', 'true');
        localStorage.setItem('tabletris:pref:notify', 'true');
    """)
    page = ctx.new_page()
    errors = errors_of(page)
    join(page, server, room, "Ann")
    my_turn_dice(page)
    page.wait_for_function("document.title.startsWith('▶ Your turn')")
    assert page.evaluate("window.__notes") == ["tabletris: your turn"]
    assert page.evaluate("window.__beeps") == 1
    page.wait_for_function("document.querySelector('#announce').textContent.startsWith('Your turn')")
    assert not errors
    ctx.close()


def test_chat_between_two_browsers_is_text_only(server: LiveServer, browser: Any) -> None:
    room = new_room(server, "dice", ["open", "open"])
    ann_ctx, ann, ann_errors = seated(browser, server, room, "Ann")
    bob_ctx, bob, bob_errors = seated(browser, server, room, "Bob", PHONE, seat=1)
    bob.wait_for_selector("#scores")
    evil = '<img src=x onerror="window.__pwned=1"> hello & <b>bye</b>'
    ann.fill("#chat-input", evil)
    ann.press("#chat-input", "Enter")
    bob.wait_for_selector("#chat-log li")
    assert bob.locator("#chat-log .chat-text").inner_text() == evil
    assert bob.locator("#chat-log img, #chat-log .chat-text b").count() == 0
    assert "Ann" in bob.locator("#chat-log li").inner_text()
    bob.fill("#chat-input", "hi Ann")
    bob.locator("#chat-send").tap()
    ann.wait_for_function("document.querySelectorAll('#chat-log li').length === 2")
    # a late visitor sees the recent chat
    ctx = browser.new_context(**DESKTOP)
    watcher = ctx.new_page()
    watcher.goto(f"{server.url}/room/{room}")
    watcher.wait_for_function("document.querySelectorAll('#chat-log li').length === 2")
    assert not watcher.evaluate("window.__pwned === 1") and not ann_errors and not bob_errors
    for c in (ann_ctx, bob_ctx, ctx):
        c.close()


# ------------------------------------------------------------------ phone, keyboard, axe


def test_the_tower_button_a_keyboard_player_reached_keeps_the_focus(server: LiveServer, browser: Any) -> None:
    """The tower's buttons are built anew with every state: Ann had tabbed to Drop, Bob dropped,
    and her focus fell to the page (Enter then did nothing). It stays on Drop now."""
    room = new_room(server, "tower", ["open", "open"])
    ann_ctx, ann, errors = seated(browser, server, room, "Ann")
    bob_ctx, bob, _ = seated(browser, server, room, "Bob", seat=1)
    for page in (ann, bob):
        page.wait_for_selector("#place:visible", timeout=15000)
        page.wait_for_selector(".cell.ghost", timeout=5000)
    ann.focus("#place")
    bob.click("#place")
    ann.wait_for_selector("figure[data-tower='1'] .tag.done", timeout=10000)  # Ann's page heard Bob's drop
    assert ann.evaluate("document.activeElement && document.activeElement.id") == "place"
    ann.keyboard.press("Enter")  # and her Enter drops: the round is revealed
    wait_until(lambda: state(server, room)["game"]["rounds_played"] == 1, what="the round revealed")
    assert not errors
    ann_ctx.close()
    bob_ctx.close()


def test_phone_tower_fits_scrolls_and_targets_are_large(server: LiveServer, browser: Any) -> None:
    """Item 2: on a phone the tower's lowest rows started below the screen, swiping on the board did
    not scroll, and the ▼ mino buttons were 33x20 px. Touch targets are now at least 44 px, but for
    the ▼ row: 44 px high and as wide as a column (at least 24 px, WCAG 2.5.8), so the tower fits
    the screen beside its cards (issue 27 item 1; tests/test_web_newcomer.py)."""
    room = new_room(server, "tower", ["open", "random"])
    ctx, page, errors = seated(browser, server, room, "Ann", PHONE)
    page.wait_for_selector("[data-col='0']")
    board = page.locator(".tower-board .board")
    assert board.bounding_box()["height"] <= 844 - 44 - 10  # the board and its ▼ row fit on the screen
    assert board.evaluate("b => getComputedStyle(b).touchAction").startswith("pan-y")
    before = page.evaluate("window.scrollY")
    box = board.bounding_box()
    cdp = ctx.new_cdp_session(page)
    x, y = int(box["x"] + box["width"] / 2), int(min(box["y"] + box["height"] / 2, 800))
    assert page.evaluate(f"document.elementFromPoint({x}, {y}).closest('.board') !== null")
    cdp.send("Input.dispatchTouchEvent", {"type": "touchStart", "touchPoints": [{"x": x, "y": y}]})
    for k in range(1, 11):  # a swipe up on the board
        cdp.send("Input.dispatchTouchEvent", {"type": "touchMove", "touchPoints": [{"x": x, "y": y - 30 * k}]})
    cdp.send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})
    page.wait_for_function(f"window.scrollY > {before} + 100", timeout=5000)
    page.locator(".tower-board .board").scroll_into_view_if_needed()
    small = page.evaluate("""() => [...document.querySelectorAll('button:not([data-col]), .button, select, input:not([type=checkbox]), summary')]
        .filter((e) => e.offsetParent !== null)
        .map((e) => { const r = e.getBoundingClientRect(); return [e.id || e.textContent.trim().slice(0, 20), Math.round(r.width), Math.round(r.height)]; })
        .filter(([, w, h]) => w < 43.5 || h < 43.5)""")
    assert small == [], small
    col = page.locator("[data-col='0']").bounding_box()
    assert col["width"] >= 24 and col["height"] >= 43.5
    page.locator("[data-col='0']").tap()
    page.wait_for_selector("#clear-minos")
    join(page, server, new_room(server, "dice", ["open", "random"]), "Ann")
    my_turn_dice(page)
    small = page.evaluate("""() => [...document.querySelectorAll('button, .button, select, input:not([type=checkbox]), summary')]
        .filter((e) => e.offsetParent !== null)
        .map((e) => { const r = e.getBoundingClientRect(); return [e.id || e.textContent.trim().slice(0, 20), Math.round(r.width), Math.round(r.height)]; })
        .filter(([, w, h]) => w < 43.5 || h < 43.5)""")
    assert small == [], small
    assert not errors
    ctx.close()


def test_keyboard_only_dice_turn_with_visible_focus(server: LiveServer, browser: Any) -> None:
    """Everything by keyboard: Tab reaches the board (with a visible focus ring) and the tray; the
    arrow keys, R and Enter play; a focused button's Enter does not place the piece."""
    room = new_room(server, "dice", ["open", "random"])
    ctx, page, errors = seated(browser, server, room)
    my_turn_dice(page)
    seen = []
    for _ in range(40):
        page.keyboard.press("Tab")
        seen.append(page.evaluate("document.activeElement.className || document.activeElement.tagName"))
        if "board" in seen[-1]:
            break
    assert "board" in seen[-1], seen
    assert page.evaluate("getComputedStyle(document.activeElement).outlineStyle") != "none"
    page.keyboard.press("r")
    page.keyboard.press("ArrowRight")
    page.keyboard.press("Enter")
    page.wait_for_selector("#confirm:visible")
    page.focus("#undo")
    page.keyboard.press("Enter")  # the Undo button, not the board
    assert page.locator("#confirm:visible").count() == 0
    assert state(server, room)["game"]["log"] == []
    assert not errors
    ctx.close()


@pytest.mark.parametrize("ctx_args", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_axe_finds_no_serious_violations(server: LiveServer, browser: Any, ctx_args: dict[str, Any]) -> None:
    """axe-core on the lobby, a dice room, a tower room, the replay page and the rules page; and no
    page loads anything from anywhere but this server (no CDN)."""
    ctx = browser.new_context(**ctx_args)
    page = ctx.new_page()
    elsewhere: list[str] = []
    page.on("request", lambda r: None if r.url.startswith((server.url, server.ws, "data:", "blob:")) else elsewhere.append(r.url))
    found: dict[str, list[str]] = {}
    page.goto(server.url + "/")
    page.wait_for_selector("#create")
    found["lobby"] = axe_violations(page)
    dice = new_room(server, "dice", ["open", "random"])
    join(page, server, dice, "Ann")
    my_turn_dice(page)
    found["dice room"] = axe_violations(page)
    tower = new_room(server, "tower", ["open", "random"])
    join(page, server, tower, "Ann")
    page.wait_for_selector("#hold")
    found["tower room"] = axe_violations(page)
    done = finished_room(server, "dice", {"width": 6, "height": 6})
    page.goto(f"{server.url}/replay/{done}")
    page.wait_for_selector("#viewer:not(.hidden)")
    found["replay"] = axe_violations(page)
    page.goto(f"{server.url}/room/{done}")
    page.wait_for_selector("#end [role=dialog]")
    found["finished room"] = axe_violations(page)
    page.goto(f"{server.url}/rules")
    page.wait_for_selector("#tower")
    found["rules"] = axe_violations(page)
    bad = {k: v for k, v in found.items() if v}
    assert not bad, "\n".join(f"{k}: {x}" for k, v in bad.items() for x in v)
    assert elsewhere == []
    ctx.close()


# ------------------------------------------------------------------ issue 11's choices


def stage_a_full_row(page: Page) -> None:
    """On a 4-wide board a lying I fills a row: turn the ghost until it lies, then stage it."""
    page.locator(".board").focus()
    for _ in range(4):
        rows = set(page.locator(".cell.ghost").evaluate_all("cs => cs.map((c) => c.dataset.y)"))
        if len(rows) == 1:
            break
        page.keyboard.press("r")
    page.keyboard.press("Enter")
    page.wait_for_selector("#confirm:visible")


def test_point_token_picker_preselects_the_default(server: LiveServer, browser: Any) -> None:
    """Issue 11 (tokens_from_supply): a point takes a stone of the supply as its token. The
    picker shows the engine's default pre-selected, so Enter (one click) accepts it; Back returns
    to the staged piece; another shape can be named."""
    rules = {"width": 4, "die": ["I"]}
    room = new_room(server, "dice", ["open", "random"], rules)
    ctx, page, errors = seated(browser, server, room)
    my_turn_dice(page)
    stage_a_full_row(page)
    page.keyboard.press("Enter")
    page.wait_for_selector("#tokens [role=dialog]")
    default = page.locator("#token-0").input_value()
    assert "(default)" in page.locator("#token-0 option:checked").inner_text()
    assert page.evaluate("document.activeElement.id") == "tokens-ok"
    page.keyboard.press("Enter")
    wait_until(lambda: len(state(server, room)["game"]["log"]) >= 1, what="Ann's move")
    assert state(server, room)["game"]["tokens"][0] == [default]
    assert "tokens" not in state(server, room)["game"]["log"][0] or state(server, room)["game"]["log"][0]["tokens"] == [default]
    ctx.close()
    # naming another shape, after going back once: a die of I and O, and a room whose first roll is I
    for _ in range(20):
        room = new_room(server, "dice", ["open", "random"], {"width": 4, "die": ["I", "O"]})
        token = httpx.post(f"{server.url}/api/rooms/{room}/join", json={"name": "Ann"}).json()["token"]
        if state(server, room)["game"]["roll"] == "I":
            break
    ctx = browser.new_context(**DESKTOP)
    ctx.add_init_script(f"localStorage.setItem('tabletris:seat:{room}', JSON.stringify({{seat: 0, token: '{token}', name: 'Ann'}}))")
    page = ctx.new_page()
    errors2 = errors_of(page)
    page.goto(f"{server.url}/room/{room}")
    my_turn_dice(page)
    stage_a_full_row(page)
    page.click("#confirm")
    page.wait_for_selector("#tokens [role=dialog]")
    page.click("#tokens-cancel")
    assert page.locator("#tokens").count() == 0 and page.locator(".cell.staged").count() == 4
    assert state(server, room)["game"]["log"] == []
    page.click("#confirm")
    page.wait_for_selector("#tokens [role=dialog]")
    default = page.locator("#token-0").input_value()
    other = next(v for v in page.locator("#token-0 option").evaluate_all("os => os.map((o) => o.value)") if v != default)
    page.select_option("#token-0", other)
    page.click("#tokens-ok")
    wait_until(lambda: len(state(server, room)["game"]["log"]) >= 1, what="Ann's move")
    assert state(server, room)["game"]["log"][0]["tokens"] == [other]
    assert state(server, room)["game"]["tokens"][0] == [other]
    page.wait_for_function("document.querySelector('#log li') && document.querySelector('#log li').innerText.includes('point token')")
    assert f"point token {other}" in page.locator("#log li").first.inner_text()
    assert not errors and not errors2
    ctx.close()


def test_tower_and_end_picker_on_join(server: LiveServer, browser: Any) -> None:
    """Issue 11 (chosen towers): a person picks a tower and its bottom end when sitting down."""
    room = new_room(server, "tower", ["open", "random"])
    ctx = browser.new_context(**PHONE)
    page = ctx.new_page()
    errors = errors_of(page)
    page.goto(f"{server.url}/room/{room}")
    meta = httpx.get(server.url + "/api/meta").json()
    # The picker is drawn when the room's first state arrives over the websocket, after goto returns.
    page.wait_for_selector(f"#join-tower option[value='{meta['games']['tower']['towers'][-1]}']", state="attached")
    options = page.locator("#join-tower option").evaluate_all("os => os.map((o) => o.value)")
    assert options == ["", *meta["games"]["tower"]["towers"]]
    page.select_option("#join-tower", "2b")
    page.fill("#join-name", "Ann")
    page.locator("[data-join='0']").tap()
    page.wait_for_selector("#play-card")
    s = state(server, room)
    assert s["room"]["seats"][0]["tower"] == "2b" and s["game"]["towers"][0]["layout"] == "2b"
    assert not errors
    ctx.close()


def test_presence_updates_the_seat_dots_without_a_new_state(server: LiveServer, browser: Any) -> None:
    """Issue 12 sends a small ``presence`` message when someone connects or leaves (not the full
    state to everybody); the page's online dots follow it."""
    import json

    from websockets.sync.client import connect

    room = new_room(server, "dice", ["open", "open"])
    ctx, page, errors = seated(browser, server, room)
    r = httpx.post(f"{server.url}/api/rooms/{room}/join", json={"name": "Bob", "seat": 1}, timeout=10)
    bob = r.json()["token"]
    page.wait_for_selector("#scores")
    dots = page.locator("#scores .dot.on")
    wait_until(lambda: dots.count() == 1, what="only Ann online")
    with connect(f"{server.ws}/ws/{room}") as ws:
        ws.send(json.dumps({"type": "hello", "token": bob}))
        wait_until(lambda: dots.count() == 2, what="Bob's dot on")
    wait_until(lambda: dots.count() == 1, what="Bob's dot off again")
    assert not errors
    ctx.close()


def test_pages_run_under_the_servers_csp(server: LiveServer, browser: Any) -> None:
    """With the server's Content-Security-Policy enforced (no bypass), every page loads, a seat plays
    a dice move, and the browser reports no policy violation."""
    room = new_room(server, "dice", ["open", "random"])
    ctx = browser.new_context(viewport={"width": 1280, "height": 860})
    page = ctx.new_page()
    console: list[str] = []
    page.on("console", lambda m: console.append(m.text) if m.type == "error" else None)
    errors = errors_of(page)
    for path in ("/", "/rules", "/replay"):
        page.goto(server.url + path)
        page.wait_for_load_state("networkidle")

    def late(route: Any) -> None:  # the join answered late, as on a loaded machine
        time.sleep(0.5)
        route.continue_()

    page.route("**/join", late)
    join(page, server, room, "Ann")
    page.wait_for_selector("#scores")
    my_turn_dice(page)
    page.keyboard.press("Enter")  # stage the ghost where it is
    page.keyboard.press("Enter")  # confirm
    wait_until(lambda: len(state(server, room)["game"]["log"]) >= 1, what="Ann's move stored")
    assert not errors
    assert not [m for m in console if "Content Security Policy" in m or "Refused" in m], console
    ctx.close()
