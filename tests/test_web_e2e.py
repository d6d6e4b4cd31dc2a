"""The web client in real headless Chromium (Playwright) against a live server on 127.0.0.1.

Two browser contexts are two people: one creates a room from the lobby form, the other opens the
invite link and joins; both play by clicking on the board, and the scoreboard and move log follow.
Screenshots go to tests/artifacts/ (desktop and phone sizes).
"""

from __future__ import annotations

import time
from pathlib import Path

import httpx
import pytest

from server_helpers import LiveServer
from web_helpers import browser, errors_of, server

pytestmark = pytest.mark.browser

__all__ = ["browser", "server"]  # fixtures, used by name

ARTIFACTS = Path(__file__).parent / "artifacts"
ARTIFACTS.mkdir(exist_ok=True)


def click_on_board(page: object) -> None:
    """Point at the bottom of the board, then click where the ghost is (a legal place)."""
    board = page.locator(".board").first  # type: ignore[attr-defined]
    box = board.bounding_box()
    page.mouse.move(box["x"] + box["width"] * 0.5, box["y"] + box["height"] * 0.95)  # type: ignore[attr-defined]
    ghost = page.locator(".cell.ghost").first  # type: ignore[attr-defined]
    ghost.wait_for(timeout=5000)
    g = ghost.bounding_box()
    page.mouse.click(g["x"] + g["width"] / 2, g["y"] + g["height"] / 2)  # type: ignore[attr-defined]


def test_two_browsers_create_join_and_play_dice(server: LiveServer, browser: object) -> None:
    # Playwright evaluates string predicates with eval, which the server's CSP forbids the pages.
    ann_ctx = browser.new_context(viewport={"width": 1280, "height": 860}, bypass_csp=True)  # type: ignore[attr-defined]
    bob_ctx = browser.new_context(viewport={"width": 390, "height": 844}, has_touch=True, is_mobile=True, bypass_csp=True)  # type: ignore[attr-defined]
    ann = ann_ctx.new_page()
    bob = bob_ctx.new_page()
    ann_errors, bob_errors = errors_of(ann), errors_of(bob)
    ann.goto(server.url + "/")
    ann.wait_for_selector("#create")
    ann.fill("#myname", "Ann")
    ann.click("#create-btn")
    ann.wait_for_url("**/room/**")
    room = ann.url.rsplit("/", 1)[1]
    ann.wait_for_selector("text=Waiting for players")
    bob.goto(f"{server.url}/room/{room}")  # the invite link
    bob.fill("#join-name", "Bob")
    bob.click("[data-join='1']")
    for page in (ann, bob):
        page.wait_for_selector("#scores")
    for turn in range(4):
        page = ann if turn % 2 == 0 else bob
        page.wait_for_selector("#place:visible", timeout=10000)
        if page is ann:
            click_on_board(ann)  # stages the piece: nothing is sent before Confirm
            ann.click("#confirm")
        else:
            # touch: tap the board to put the ghost there, then the Place button
            board = bob.locator(".board").first
            box = board.bounding_box()
            bob.touchscreen.tap(box["x"] + box["width"] * 0.3, box["y"] + box["height"] * 0.95)
            bob.locator(".cell.ghost").first.wait_for(timeout=5000)
            bob.click("#place")
            bob.click("#confirm")
        for p in (ann, bob):
            p.wait_for_function(f"document.querySelectorAll('#log li').length >= {turn + 1}", timeout=10000)
    assert ann.locator("#log li").count() == 4 and bob.locator("#log li").count() == 4
    assert ann.locator("#scores tr[data-seat='1']").inner_text().startswith("Bob")
    state = httpx.get(f"{server.url}/api/rooms/{room}").json()
    assert state["seq"] == 4 and [m["player"] for m in state["game"]["log"]] == [0, 1, 0, 1]
    scores = [int(ann.locator(f"#scores tr[data-seat='{i}'] td.score").inner_text()) for i in (0, 1)]
    assert scores == state["game"]["scores"]
    # a move that the engine refuses shows its reason (sent by hand: the page only offers legal ones)
    ann.wait_for_selector("#place:visible")
    reason = ann.evaluate("""() => new Promise((resolve) => {
        const room = location.pathname.split('/').pop();
        const ws = new WebSocket(`ws://${location.host}/ws/${room}`);
        const token = JSON.parse(localStorage.getItem(`tabletris:seat:${room}`)).token;
        let sent = false;
        ws.onmessage = (e) => {
            const m = JSON.parse(e.data);
            if (m.type === 'state' && !sent) { sent = true; ws.send(JSON.stringify({type: 'move', id: 1, place: [[0, 19], [1, 19], [2, 19], [3, 19]], shape: 'I', turn: m.game.turn})); }
            if (m.type === 'error') { resolve(m.message); ws.close(); }
        };
        ws.onopen = () => ws.send(JSON.stringify({type: 'hello', token}));
    })""")
    assert "does not rest" in reason or "the die shows" in reason, reason
    ann.screenshot(path=str(ARTIFACTS / "web_dice_desktop.png"))
    bob.screenshot(path=str(ARTIFACTS / "web_dice_phone.png"))
    # a closed tab comes back to its seat with the full state
    bob.close()
    bob = bob_ctx.new_page()
    bob.goto(f"{server.url}/room/{room}")
    bob.wait_for_selector("#scores tr.me")
    assert "Bob" in bob.locator("#scores tr.me").inner_text()
    assert bob.locator("#log li").count() == 4
    assert not ann_errors and not bob_errors
    ann_ctx.close()
    bob_ctx.close()


def test_tower_in_the_browser(server: LiveServer, browser: object) -> None:
    room = httpx.post(server.url + "/api/rooms", json={"game": "tower", "rules": {"start_minos": 2}, "seats": [{"kind": "open"}, {"kind": "random"}, {"kind": "random"}]}).json()["id"]
    ctx = browser.new_context(viewport={"width": 1280, "height": 860}, bypass_csp=True)  # type: ignore[attr-defined]
    page = ctx.new_page()
    errors = errors_of(page)
    page.goto(f"{server.url}/room/{room}")
    page.fill("#join-name", "Ann")
    page.click("[data-join='0']")
    page.wait_for_selector("#play-card")
    # a mino first: the server answers where it lands and the drops after it
    page.click("[data-col='0']")
    page.wait_for_selector("#clear-minos")
    click_on_board(page)
    page.wait_for_function("document.querySelector('#log li') !== null", timeout=10000)
    assert page.locator("#log li").count() == 1
    assert "mino" in page.locator("#log li").first.inner_text()
    state = httpx.get(f"{server.url}/api/rooms/{room}").json()
    assert state["game"]["rounds_played"] == 1
    assert sum(1 for s in state["game"]["towers"][0]["stones"] if s["shape"] == "M") == 1
    page.keyboard.press("ArrowLeft")
    page.keyboard.press("r")
    page.screenshot(path=str(ARTIFACTS / "web_tower_desktop.png"))
    page.keyboard.press("Enter")
    page.wait_for_function("document.querySelector('#play-card') && document.body.innerText.includes('Round 3')", timeout=10000)
    assert not errors
    ctx.close()


def test_replay_steps_and_upload_errors(server: LiveServer, browser: object) -> None:
    room = httpx.post(server.url + "/api/rooms", json={"game": "dice", "rules": {"width": 6, "height": 6}, "seats": [{"kind": "random"}, {"kind": "random"}]}).json()["id"]
    deadline = time.time() + 20
    while httpx.get(f"{server.url}/api/rooms/{room}").json()["room"]["status"] != "over":
        assert time.time() < deadline
        time.sleep(0.1)
    ctx = browser.new_context(viewport={"width": 1100, "height": 800})  # type: ignore[attr-defined]
    page = ctx.new_page()
    errors = errors_of(page)
    page.goto(f"{server.url}/replay/{room}")
    page.wait_for_selector("#viewer:not(.hidden)")
    total = len(httpx.get(f"{server.url}/api/rooms/{room}/record").json()["moves"])
    assert page.locator("#step").inner_text() == f"move {total} / {total}"
    filled_end = page.locator(".cell.filled").count()
    page.click("#first")
    assert page.locator("#step").inner_text() == f"move 0 / {total}"
    assert page.locator(".cell.filled").count() == 0
    page.click("#forward")
    assert page.locator(".cell.filled").count() == 4
    page.keyboard.press("ArrowRight")
    assert page.locator("#step").inner_text() == f"move 2 / {total}"
    page.click("#last")
    assert page.locator(".cell.filled").count() == filled_end
    page.screenshot(path=str(ARTIFACTS / "web_replay.png"))
    page.goto(f"{server.url}/replay")
    page.fill("#paste", '{"format": "tabletris/1", "game": "dice", "players": ["A"], "moves": [{"roll": "I", "place": [[0, 5], [1, 5], [2, 5], [3, 5]]}]}')
    page.click("#load-paste")
    page.wait_for_selector("#record-error:not(.hidden)")
    assert "move 1 (A): I does not rest" in page.locator("#record-error").inner_text()
    assert not errors
    ctx.close()
