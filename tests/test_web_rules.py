"""The web client in real headless Chromium against a live server, on issue 11's rules.

`row_reward: choose` with `clear_rows`: the rewards are settled before the rows are cleared, so a
person removing a stone above a cleared row names it where it stands (the client sends those
cells). Before the engine fix this removal was refused whenever the stone fell.
"""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from server_helpers import LiveServer
from web_helpers import DESKTOP, browser, server

pytestmark = pytest.mark.browser
__all__ = ["browser", "server"]  # fixtures, used by name


def test_browser_removes_a_stone_above_a_cleared_row(server: LiveServer, browser: Any) -> None:
    rules = {"width": 4, "height": 6, "die": ["O"], "row_reward": "choose", "clear_rows": True}
    room = httpx.post(server.url + "/api/rooms", json={"game": "dice", "rules": rules,
                                                      "seats": [{"kind": "open"}, {"kind": "open"}]}).json()["id"]
    ctx = browser.new_context(**DESKTOP)
    page = ctx.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(f"{server.url}/room/{room}")
    page.fill("#join-name", "Ann")
    page.click("[data-join='0']")
    bob = httpx.post(f"{server.url}/api/rooms/{room}/join", json={"name": "Bob", "seat": 1}).json()

    def place_with_keys(arrow: str) -> None:
        page.wait_for_selector("#place:visible", timeout=10000)
        for _ in range(4):
            page.keyboard.press(arrow)
        page.keyboard.press("Enter")  # stages the piece
        page.wait_for_selector("#confirm:visible")
        page.keyboard.press("Enter")  # confirms it

    place_with_keys("ArrowLeft")  # Ann: the O at the left, rows 0-1
    _wait_for_turn(server, room, 1)
    bobs_o = [[0, 2], [1, 2], [0, 3], [1, 3]]  # Bob: on Ann's O
    r = httpx.post(f"{server.url}/api/rooms/{room}/moves", headers={"X-Seat-Token": bob["token"]}, json={"place": bobs_o, "turn": _game(server, room)["turn"]})
    assert r.status_code == 200, r.text
    _wait_for_turn(server, room, 2)
    place_with_keys("ArrowRight")  # Ann: the O at the right completes rows 0 and 1
    page.wait_for_selector("#rewards")
    bobs_number = next(s["number"] for s in _game(server, room)["stones"] if s["owner"] == 1)
    page.select_option("#rewards select[data-reward='0']", str(bobs_number))
    page.click("#rewards button.primary")  # (cleared cells leave the supply unlimited: no token picker)
    _wait_for_turn(server, room, 3)
    game = _game(server, room)
    assert game["scores"] == [1, 0]
    assert game["stones"] == []  # Bob's O removed where it stood, then the two rows cleared
    assert sorted(map(tuple, game["log"][-1]["rewards"][0]["remove"])) == sorted(map(tuple, bobs_o))
    assert not errors
    ctx.close()


def _game(server: LiveServer, room: str) -> dict:  # type: ignore[type-arg]
    return dict(httpx.get(f"{server.url}/api/rooms/{room}").json()["game"])


def _wait_for_turn(server: LiveServer, room: str, moves: int) -> None:
    import time

    for _ in range(200):
        if len(_game(server, room)["log"]) >= moves:
            return
        time.sleep(0.05)
    raise AssertionError(f"the room never reached {moves} moves: {_game(server, room)['log']}")
