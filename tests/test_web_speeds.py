"""Speeds and your games in the browser (issue 26 items 1 and 4), in Debian's Chromium.

The create form offers the speeds and a blank field means what the form says (the reported
defect: "Turn timer (s)" left at its placeholder "no timer" gave a 60 s timer, and nothing gave
an untimed room); the lobby and the room show the speed. Time moves through the server's own
time source (a ``tabletris serve --debug-time`` of the test's own, ``POST /debug/time``), never
by sleeping: an untimed room never times out however far it moves; a real-time game clock runs
out and the game says so. The your-games page lists a game waiting for you first."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from server_helpers import ServeProcess
from web_helpers import (
    DESKTOP,
    PHONE,
    TOASTS,
    axe_violations,
    browser,
    errors_of,
    join,
    server,
    state,
    wait_until,
)

pytestmark = pytest.mark.browser
__all__ = ["browser", "server"]  # fixtures, used by name

DAY = 86400.0
SMALL = {"width": 5, "height": 6}


@pytest.fixture(scope="module")
def timed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServeProcess]:
    """A server of this module's own whose clocks the tests move ahead."""
    proc = ServeProcess(tmp_path_factory.mktemp("speeds") / "speeds.sqlite3", extra=["--debug-time"]).start()
    try:
        yield proc
    finally:
        proc.stop()


def advance(base: str, seconds: float) -> None:
    r = httpx.post(base + "/debug/time", json={"advance": seconds}, timeout=10)
    assert r.status_code == 200, r.text


def create(base: str, speed: dict[str, Any], seats: list[str], rules: dict[str, Any] | None = None) -> str:
    body = {"game": "dice", "rules": SMALL if rules is None else rules, "seats": [{"kind": k} for k in seats], "speed": speed}
    r = httpx.post(base + "/api/rooms", json=body)
    assert r.status_code == 201, r.text
    return str(r.json()["id"])


def created_with(page: Any, server: Any, choose: Any) -> dict[str, Any]:
    """Fill the create form (``choose`` sets the speed fields), create, and the new room's speed."""
    page.goto(server.url + "/")
    page.wait_for_selector("#speed")
    page.fill("#myname", "Ann")
    choose(page)
    page.click("#create-btn")
    page.wait_for_url("**/room/**")
    room = page.url.rsplit("/", 1)[1]
    return dict(state(server, room)["room"]["speed"])


def test_the_form_offers_the_speeds_and_a_blank_field_means_what_it_says(server: Any, browser: Any) -> None:
    ctx = browser.new_context(**DESKTOP)
    page = ctx.new_page()
    errors = errors_of(page)
    limits = server.limits

    def untimed(p: Any) -> None:
        p.select_option("#speed", "untimed")
        assert p.locator("#timer").is_hidden() and "expel" in p.locator("#speed-help").inner_text()

    assert created_with(page, server, untimed) == {"mode": "untimed", "expel_after": limits.untimed_expel}

    def clock(p: Any) -> None:  # both fields left blank: their placeholders, 5 min and 5 s
        p.select_option("#speed", "clock")
        assert (p.get_attribute("#clock-minutes", "placeholder"), p.get_attribute("#clock-increment", "placeholder")) == ("5", "5")
        assert "blank: 5 min + 5 s" in p.locator("#speed-help").inner_text()

    assert created_with(page, server, clock) == {"mode": "realtime", "initial": 300, "increment": 5}

    def turn(p: Any) -> None:
        p.select_option("#speed", "turn")
        assert p.locator("#turn-time").input_value() == "86400"
        p.select_option("#turn-time", str(3 * 86400))

    assert created_with(page, server, turn) == {"mode": "turn", "per_move": 3 * DAY}

    def per_move(p: Any) -> None:  # the default choice, its field left at its placeholder
        assert p.locator("#speed").input_value() == "move" and p.get_attribute("#timer", "placeholder") == f"{limits.default_timer:g}"

    assert created_with(page, server, per_move) == {"mode": "realtime", "per_move": limits.default_timer}

    # The lobby lists each room with its speed; the room shows it beside its status.
    page.goto(server.url + "/")
    page.wait_for_selector("#rooms li[data-room]")
    speeds = page.locator("#rooms li[data-room] .speed").all_inner_texts()
    assert {"Untimed", "Real-time: 5 min + 5 s per move", "Turn-based: 3 days per move", "Real-time: 60 s per move"} <= set(speeds)
    assert axe_violations(page) == []
    assert not errors
    ctx.close()


def test_an_untimed_room_never_times_out(timed: ServeProcess, browser: Any) -> None:
    """Thirty days pass on the server's clock with Ann to move: nothing plays for her, nothing
    sweeps the room away, no clock shows, and the page still waits for her move."""
    room = create(timed.url, {"mode": "untimed"}, ["open", "random"])
    ctx = browser.new_context(**DESKTOP)
    page = ctx.new_page()
    errors = errors_of(page)
    join(page, timed, room, "Ann")
    page.wait_for_function("document.title.includes('▶')", timeout=20000)  # her turn (the bot may move first)
    before = state(timed, room)
    assert before["room"]["speed"]["mode"] == "untimed" and before["room"]["deadline"] is None
    page.wait_for_selector("#speed-badge:has-text('Untimed')")  # the badge is refreshed every 250 ms
    assert page.locator("#speed-badge").inner_text() == "Untimed"
    for _ in range(30):
        advance(timed.url, DAY)  # each also sweeps the rooms, as the housekeeping would
    after = state(timed, room)
    assert (after["room"]["status"], after["room"]["events"], after["game"]["turn"]) == (
        "playing", before["room"]["events"], before["game"]["turn"]), "nothing ran out"
    assert after["room"]["deadline"] is None
    assert page.locator("#clock").is_hidden()
    assert "▶" in page.title(), "still her turn on the page"
    assert not errors
    ctx.close()


def test_a_real_time_clock_runs_out_and_the_game_says_so(timed: ServeProcess, browser: Any) -> None:
    # Bob sits too, so the game goes on after her seat is resigned (a bot plays it then).
    room = create(timed.url, {"mode": "realtime", "initial": 30, "increment": 0}, ["open", "open", "random"], rules={})
    ctx = browser.new_context(**PHONE)
    page = ctx.new_page()
    errors = errors_of(page)
    page.add_init_script(TOASTS)
    join(page, timed, room, "Ann", seat=0)
    page.wait_for_selector("#join", state="hidden")
    bob = httpx.post(f"{timed.url}/api/rooms/{room}/join", json={"name": "Bob", "seat": 1}).json()["token"]
    page.wait_for_function("document.title.includes('▶')", timeout=20000)  # Ann's turn: the first
    page.wait_for_selector("#clocks .seat-clock.me.running")
    assert bob and state(timed, room)["game"]["to_move"] == 0
    assert page.locator("#clocks .seat-clock.me").inner_text().startswith("▶ Ann 0:")
    advance(timed.url, 31)  # her 30 s are gone on the server's clock
    page.wait_for_selector("#clocks .seat-clock.me.out", timeout=20000)
    assert page.locator("#clocks .seat-clock.me").inner_text() == "Ann: out of time"
    page.wait_for_function("window.__toasts.some((t) => t.startsWith('Your time ran out'))", timeout=10000)
    seat = state(timed, room)["room"]["seats"][0]
    assert seat["kind"] == "resigned", "a clock that ran out resigns its seat: the bot plays on"
    assert page.locator("#resign").is_hidden()
    assert not errors
    ctx.close()


def test_your_games_lists_the_game_waiting_for_you_first(timed: ServeProcess, browser: Any) -> None:
    """Ann sits in three rooms: one still waiting for players, one where Bob is to move, one
    turn-based where she is to move. The page lists that one first, with a day's time left; the
    lobby's header says one game waits for her."""
    ctx = browser.new_context(**DESKTOP)
    page = ctx.new_page()
    errors = errors_of(page)
    waiting = create(timed.url, {"mode": "untimed"}, ["open", "open", "open"])
    join(page, timed, waiting, "Ann")
    page.wait_for_selector("#join", state="hidden")
    others = create(timed.url, {"mode": "untimed"}, ["open", "open"])
    join(page, timed, others, "Ann", seat=0)
    page.wait_for_selector("#join", state="hidden")
    bob = httpx.post(f"{timed.url}/api/rooms/{others}/join", json={"name": "Bob", "seat": 1}).json()["token"]
    s = state(timed, others)
    if s["game"]["to_move"] == 0:  # Ann is to move: she moves, so that Bob is
        page.wait_for_function("document.title.includes('▶')", timeout=20000)
        mine = page.evaluate(f"JSON.parse(localStorage.getItem('tabletris:seat:{others}')).token")
        from server_helpers import dice_moves
        move = dice_moves(state(timed, others, mine))[0]
        assert httpx.post(f"{timed.url}/api/rooms/{others}/moves", json=move, headers={"X-Seat-Token": mine}).status_code == 200
    assert bob and state(timed, others)["game"]["to_move"] == 1
    turn = create(timed.url, {"mode": "turn", "per_move": DAY}, ["open", "random"])
    join(page, timed, turn, "Ann")
    page.wait_for_function("document.title.includes('▶')", timeout=20000)

    page.goto(timed.url + "/games")
    page.wait_for_selector("#your-games-list li[data-room]")
    rows = page.locator("#your-games-list li[data-room]")
    assert [rows.nth(i).get_attribute("data-room") for i in range(3)] == [turn, others, waiting]
    first = rows.first
    assert first.locator(".badge.your-turn").inner_text() == "Your turn"
    assert "Turn-based: 24 h per move" in first.inner_text()
    assert first.locator(".left").inner_text().startswith("23 h 59 min left") or first.locator(".left").inner_text().startswith("1 d 0 h")
    assert "Waiting for Bob" in rows.nth(1).inner_text()
    assert "Waiting for players" in rows.nth(2).inner_text()
    assert page.locator("#your-games-summary").inner_text() == "1 game waits for your move."
    assert axe_violations(page) == []

    page.goto(timed.url + "/")
    page.wait_for_selector("#your-games[data-your-turn='1']")
    assert page.locator("#your-games").inner_text() == "Your games: 1 waits for you"
    phone = ctx.browser.new_context(**PHONE)
    small = phone.new_page()
    small.goto(timed.url + "/")  # another browser: none of Ann's seats, nothing waits
    small.wait_for_selector("#your-games[data-your-turn='0']", state="attached")
    assert small.locator("#your-games").is_hidden()
    phone.close()
    assert not errors
    ctx.close()


def test_a_guests_games_come_from_the_tokens_it_sends(timed: ServeProcess) -> None:
    """The API under the page: a token that holds no seat, or a room that does not exist, is left
    out; an account's GET needs a login."""
    room = create(timed.url, {"mode": "turn", "per_move": DAY}, ["open", "random"])
    token = httpx.post(f"{timed.url}/api/rooms/{room}/join", json={"name": "Cy"}).json()["token"]
    body = {"seats": [{"room": room, "token": token}, {"room": room, "token": "not-a-token"}, {"room": "nosuchroom", "token": token}]}
    found = httpx.post(timed.url + "/api/me/games", json=body, timeout=10).json()
    assert [g["room"] for g in found["games"]] == [room]
    game = found["games"][0]
    assert game["seat"] == 0 and game["speed"] == {"mode": "turn", "per_move": DAY}
    wait_until(lambda: httpx.post(timed.url + "/api/me/games", json=body, timeout=10).json()["your_turn"] == 1, what="Cy's turn")
    mine = httpx.post(timed.url + "/api/me/games", json=body, timeout=10).json()["games"][0]
    assert mine["your_turn"] and 0 < mine["left"] <= DAY and mine["deadline"] == mine["turn_started"] + DAY
    assert httpx.get(timed.url + "/api/me/games", timeout=10).status_code == 401


def test_the_form_is_usable_on_a_phone(server: Any, browser: Any) -> None:
    ctx = browser.new_context(**PHONE)
    page = ctx.new_page()
    page.goto(server.url + "/")
    page.wait_for_selector("#speed")
    for mode in ("move", "clock", "turn", "untimed"):
        page.select_option("#speed", mode)
        outside = page.evaluate("""[...document.querySelectorAll('#speed-row, #speed-row *')]
            .filter((e) => e.offsetParent !== null).map((e) => e.getBoundingClientRect())
            .filter((r) => r.left < 0 || r.right > 390.5).length""")
        assert outside == 0, f"{mode}: the speed fields stay on a 390 px screen"
    assert page.locator("#your-games").is_hidden(), "no game waits: the phone's header holds no count"
    page.click("#nav-menu summary")
    assert page.locator("#nav-menu a[href='/games']").is_visible(), "the menu holds the link"
    ctx.close()



def test_an_untimed_rooms_absent_player_is_expelled_only_after_the_stated_wait(timed: ServeProcess, browser: Any) -> None:
    """Bob is to move and does not: Ann sees no Expel button until a week has passed on the
    server's clock; then she expels him and a bot plays his seat."""
    room = create(timed.url, {"mode": "untimed"}, ["open", "open"])
    ctx = browser.new_context(**DESKTOP)
    page = ctx.new_page()
    errors = errors_of(page)
    join(page, timed, room, "Ann", seat=0)
    page.wait_for_selector("#join", state="hidden")
    bob = httpx.post(f"{timed.url}/api/rooms/{room}/join", json={"name": "Bob", "seat": 1}).json()["token"]
    if state(timed, room)["game"]["to_move"] == 0:  # Ann moves first, so that Bob is to move
        page.wait_for_function("document.title.includes('▶')", timeout=20000)
        mine = page.evaluate(f"JSON.parse(localStorage.getItem('tabletris:seat:{room}')).token")
        from server_helpers import dice_moves
        move = dice_moves(state(timed, room, mine))[0]
        assert httpx.post(f"{timed.url}/api/rooms/{room}/moves", json=move, headers={"X-Seat-Token": mine}).status_code == 200
    wait_until(lambda: state(timed, room)["room"]["to_act"] == [1], what="Bob to move")
    early = httpx.post(f"{timed.url}/api/rooms/{room}/expel", json={"seat": 1},
                       headers={"X-Seat-Token": page.evaluate(f"JSON.parse(localStorage.getItem('tabletris:seat:{room}')).token")})
    assert early.status_code == 409 and early.json()["error"] == "too_early" and int(early.headers["Retry-After"]) > 6 * DAY
    page.wait_for_selector("#speed-badge:has-text('Untimed')")
    assert page.locator("#expel").is_hidden()
    advance(timed.url, 7 * DAY + 60)
    page.reload()
    page.wait_for_selector("#expel:visible", timeout=20000)
    assert page.locator("#expel").inner_text() == "Expel Bob"
    page.click("#expel")
    page.click("#confirm-yes")
    wait_until(lambda: state(timed, room)["room"]["seats"][1]["kind"] == "resigned", what="Bob expelled")
    page.wait_for_selector("#expel", state="hidden")
    assert bob and not errors
    ctx.close()
