"""The account pages of issue 25 in Debian's Chromium against a live server: the header's account
links, the register and login pages (the server's refusals in the player's language, a guest's
seats handed to the new account), the account page (password, export, delete), a player's profile
with the rating history drawn as a chart, a game's ranking, page by page, the lobby's lists and
filters, a rated room from the create form, and seat names that link to profiles.

Each test has a server of its own: logging in is rate-limited per address, and every test here
logs in from 127.0.0.1.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from account_helpers import PASSWORD, logged_in
from server_helpers import LiveServer, create_room, live_server
from web_helpers import (
    DESKTOP,
    PHONE,
    Page,
    axe_violations,
    browser,
    errors_of,
    new_room,
    state,
    wait_until,
)

__all__ = ["browser"]  # fixtures, used by name

pytestmark = pytest.mark.browser


@pytest.fixture
def site(tmp_path: Path) -> Iterator[LiveServer]:
    with live_server(tmp_path / "accounts.sqlite3", bot_delay=0.0) as s:
        yield s


def register_in(page: Page, server: LiveServer, name: str, password: str = PASSWORD, start: str = "/") -> None:
    """Register through the header's link on ``start``, and come back there logged in."""
    page.goto(server.url + start)
    page.wait_for_selector("header #account-nav a, header #account-nav summary", state="attached")
    page.goto(server.url + str(page.locator("#nav-register").get_attribute("href")))
    page.wait_for_selector("#register")
    page.fill("#username", name)
    page.fill("#password", password)
    page.fill("#password2", password)
    page.click("#auth-submit")
    page.wait_for_url(server.url + start)
    page.wait_for_selector("#nav-profile", state="attached")


def log_in(page: Page, server: LiveServer, name: str, password: str = PASSWORD) -> None:
    page.goto(server.url + "/login")
    page.fill("#username", name)
    page.fill("#password", password)
    page.click("#auth-submit")
    page.wait_for_url(server.url + "/")
    page.wait_for_selector("#nav-profile", state="attached")


def rated_game_lost(server: LiveServer, client: httpx.Client, bot: str = "random") -> str:
    """A rated dice game of the client's account against a bot, resigned at once (a resigned
    rated game is lost): the bots play it out, and it is on the account's profile when this returns."""
    name = client.account["username"]  # type: ignore[attr-defined]
    before = httpx.get(f"{server.url}/api/players/{name}").json()["games"].get("dice", {}).get("played", 0)
    created = client.post("/api/rooms", json={"game": "dice", "rated": True, "seats": [{"kind": "open"}, {"kind": bot}]})
    assert created.status_code == 201, created.text
    room = str(created.json()["id"])
    joined = client.post(f"/api/rooms/{room}/join", json={"name": "x"})
    assert joined.status_code == 200, joined.text
    assert client.post(f"/api/rooms/{room}/leave", headers={"X-Seat-Token": joined.json()["token"]}).json()["done"] == "resigned"
    wait_until(lambda: httpx.get(f"{server.url}/api/players/{name}").json()["games"].get("dice", {}).get("played", 0) > before,
               60, "the rated game on the profile")
    return room


# ------------------------------------------------------------------ the header, register, log in and out


def test_register_log_out_and_log_in_from_the_header(site: LiveServer, browser: Any) -> None:
    ctx = browser.new_context(**DESKTOP)
    page = ctx.new_page()
    errors = errors_of(page)
    page.goto(site.url + "/rules")
    page.wait_for_selector("#nav-login")
    assert page.locator("#nav-register").is_visible() and page.locator("#nav-profile").count() == 0
    # the login link brings the player back to the page they were on
    assert page.locator("#nav-login").get_attribute("href") == "/login?next=%2Frules"
    register_in(page, site, "Ann", start="/rules")
    profile = page.locator("#nav-profile")
    assert profile.inner_text() == "Ann" and profile.get_attribute("href") == "/players/Ann"
    assert page.locator("#nav-account").get_attribute("href") == "/account"
    assert page.locator("#nav-login").count() == 0
    me = page.evaluate("fetch('/api/me').then((r) => r.json())")
    assert me["username"] == "Ann"
    page.click("#nav-logout")
    page.wait_for_url(site.url + "/")
    page.wait_for_selector("#nav-login")
    assert page.evaluate("fetch('/api/me').then((r) => r.status)") == 401
    log_in(page, site, "Ann")
    assert page.locator("#nav-profile").inner_text() == "Ann"
    # the lobby's create form seats the account by its name, and offers a rated game
    page.wait_for_selector("#create-as")
    assert "Ann" in page.locator("#create-as").inner_text() and page.locator("#myname").count() == 0
    assert page.locator("#rated").count() == 1
    assert not errors
    ctx.close()


def test_a_guests_page_asks_nobody_who_is_logged_in(site: LiveServer, browser: Any) -> None:
    """A page without a session cookie does not ask GET /api/me (a 401 in every guest's console);
    one with a cookie that has expired asks, and shows the guest's links."""
    ctx = browser.new_context(**DESKTOP)
    page = ctx.new_page()
    asked: list[str] = []
    page.on("request", lambda r: asked.append(r.url) if r.url.endswith("/api/me") else None)
    page.goto(site.url + "/")
    page.wait_for_selector("#nav-login")
    assert asked == []
    ctx.add_cookies([{"name": "tabletris_session", "value": "not-a-session", "url": site.url}])
    page.reload()
    page.wait_for_selector("#nav-login")
    assert len(asked) == 1
    ctx.close()


def test_the_phone_header_holds_the_account_in_one_menu(site: LiveServer, browser: Any) -> None:
    ctx = browser.new_context(**PHONE)
    page = ctx.new_page()
    errors = errors_of(page)
    page.goto(site.url + "/")
    page.wait_for_selector("#nav-menu")
    header = page.locator("header.top").bounding_box()

    def one_line() -> None:
        assert page.locator("header.top").bounding_box()["height"] == header["height"]
        assert page.evaluate("document.documentElement.scrollWidth") <= 390

    one_line()
    assert not page.locator("#nav-login").is_visible() and page.locator("#nav-menu summary").inner_text().startswith("Log in")
    page.click("#nav-menu summary")
    assert page.locator("#nav-menu a[href^='/register']").is_visible()
    register_in(page, site, "Bea")
    one_line()
    assert page.locator("#nav-menu summary").inner_text().startswith("Bea")
    page.click("#nav-menu summary")
    items = page.locator("#nav-menu .nav-items > *")
    assert items.all_inner_texts() == ["Your profile", "Your account", "Your games", "Watch a record", "Log out"]
    for i in range(items.count()):
        assert items.nth(i).bounding_box()["height"] >= 44  # a finger's target
    page.click("#nav-menu a[href='/account']")
    page.wait_for_selector("#password-section")
    assert not errors
    ctx.close()


def test_refusals_are_shown_in_the_players_language(site: LiveServer, browser: Any) -> None:
    """A taken name, a wrong login and the login rate limit with its wait, as the server words
    them, in Czech (the server sends English; the page finds the catalog's sentence)."""
    httpx.post(site.url + "/api/auth/register", json={"username": "Věra", "password": PASSWORD}).raise_for_status()
    ctx = browser.new_context(**DESKTOP, locale="cs-CZ")
    page = ctx.new_page()
    errors = errors_of(page)
    page.goto(site.url + "/register")
    page.fill("#username", "VĚRA")  # the same name but for case: a look-alike
    page.fill("#password", PASSWORD)
    page.fill("#password2", PASSWORD)
    page.click("#auth-submit")
    page.wait_for_selector("#auth-error:not(:empty)")
    assert page.locator("#auth-error").inner_text() == "uživatelské jméno 'VĚRA' je obsazené nebo vypadá stejně jako obsazené"
    page.fill("#password2", "something else")
    page.click("#auth-submit")
    page.wait_for_function("document.querySelector('#auth-error').textContent === 'Hesla se neshodují.'")
    page.click("#to-login")
    page.wait_for_selector("#login")
    page.fill("#username", "Věra")
    page.fill("#password", "wrong password")
    page.click("#auth-submit")
    page.wait_for_function("document.querySelector('#auth-error').textContent === 'špatné uživatelské jméno nebo heslo'")
    for _ in range(12):
        page.click("#auth-submit")
        page.wait_for_function("!document.querySelector('#auth-submit').disabled")
        if "příliš mnoho" in page.locator("#auth-error").inner_text():
            break
    text = page.locator("#auth-error").inner_text()
    assert text.startswith("příliš mnoho pokusů o přihlášení: zkuste to později Zkuste to znovu za "), text
    assert text.endswith(("sekundu.", "sekundy.", "sekund.")), text
    assert not errors
    ctx.close()


def test_a_guests_seats_go_to_the_account_registered_in_that_browser(site: LiveServer, browser: Any) -> None:
    """Right after registering, every seat token the browser keeps is sent to POST /api/me/seats
    ({"seats": [{"room", "token"}]}), and the seats become the account's."""
    rooms = [new_room(site, "dice", ["open", "random"]), new_room(site, "dice", ["open", "open"])]
    ctx = browser.new_context(**DESKTOP)
    page = ctx.new_page()
    errors = errors_of(page)
    tokens = {}
    for room in rooms:
        page.goto(f"{site.url}/room/{room}")
        page.fill("#join-name", "Guest")
        page.click("[data-join='0']")
        page.wait_for_function(f"localStorage.getItem('tabletris:seat:{room}') !== null")
        tokens[room] = json.loads(page.evaluate(f"localStorage.getItem('tabletris:seat:{room}')"))["token"]
    claims: list[dict[str, Any]] = []
    page.on("request", lambda r: claims.append(json.loads(r.post_data or "{}")) if r.url.endswith("/api/me/seats") else None)
    register_in(page, site, "Gus")
    assert len(claims) == 1
    assert sorted((c["room"], c["token"]) for c in claims[0]["seats"]) == sorted(tokens.items())
    # the seats are the account's now, named by it
    for room in rooms:
        wait_until(lambda room=room: state(site, room)["room"]["seats"][0].get("account") is True, 10, "the claimed seat")
        assert state(site, room)["room"]["seats"][0]["name"] == "Gus"
    assert not errors
    ctx.close()


# ------------------------------------------------------------------ the account page


def test_the_account_page_changes_the_password_and_deletes_the_account(site: LiveServer, browser: Any) -> None:
    ctx = browser.new_context(**DESKTOP)
    page = ctx.new_page()
    errors = errors_of(page)
    page.goto(site.url + "/account")
    page.wait_for_selector("#need-login")
    register_in(page, site, "Cid")
    page.click("#nav-account")
    page.wait_for_selector("#password-section")
    # the sections, in order, each its own module's panel
    assert page.locator("#account > form, #account > section").evaluate_all("ss => ss.map((s) => s.id)") == [
        "password-section", "mail-section", "records-section", "delete-section"]
    assert page.locator("#records-download").get_attribute("href") == "/api/me/records?download=true"
    page.fill("#current-password", "not my password")
    page.fill("#new-password", "a new password")
    page.fill("#new-password2", "a new password")
    page.click("#password-submit")
    page.wait_for_function("document.querySelector('#password-error').textContent === 'wrong password'")
    page.fill("#current-password", PASSWORD)
    page.click("#password-submit")
    page.wait_for_selector(".toast.info")
    assert page.locator(".toast.info").inner_text() == "Password changed."
    assert httpx.post(site.url + "/api/auth/login", json={"username": "Cid", "password": "a new password"}).status_code == 204
    # delete: the password again, then a dialog whose safe choice has the focus
    page.click("#delete-submit")
    page.wait_for_function("document.querySelector('#delete-error').textContent.startsWith('Type your password')")
    page.fill("#delete-password", "a new password")
    page.click("#delete-submit")
    page.wait_for_selector("#confirm-delete [role=dialog]")
    assert page.evaluate("document.activeElement.id") == "confirm-delete-no"
    assert "Cid" in page.locator("#confirm-delete h2").inner_text()
    page.keyboard.press("Enter")  # Enter alone keeps the account
    assert page.locator("#confirm-delete").count() == 0
    assert httpx.get(site.url + "/api/players/Cid").status_code == 200
    page.click("#delete-submit")
    page.click("#confirm-delete-yes")
    page.wait_for_url(site.url + "/?deleted=1")
    page.wait_for_selector(".toast.info")
    assert page.locator(".toast.info").inner_text() == "Your account is deleted."
    page.wait_for_selector("#nav-login")
    assert httpx.get(site.url + "/api/players/Cid").status_code == 404
    page.goto(site.url + "/players/Cid")
    page.wait_for_selector("#missing")
    assert "no player is called Cid" in page.locator("#missing").inner_text()
    assert not errors
    ctx.close()


# ------------------------------------------------------------------ profile and ranking


def test_the_profile_draws_the_rating_history_and_lists_the_games(site: LiveServer, browser: Any) -> None:
    ann = logged_in(site.url, "Ann")
    try:
        rooms = [rated_game_lost(site, ann, bot) for bot in ("random", "greedy", "random")]
    finally:
        ann.close()
    profile = httpx.get(site.url + "/api/players/Ann").json()
    history = profile["games"]["dice"]["history"]
    ctx = browser.new_context(**DESKTOP)
    page = ctx.new_page()
    errors = errors_of(page)
    page.goto(site.url + "/players/Ann")
    page.wait_for_selector("#game-dice")
    stats = {s: page.locator(f"#game-dice [data-stat={s}]").inner_text() for s in ("played", "won", "rating")}
    assert stats == {"played": "3", "won": "0", "rating": str(profile["games"]["dice"]["rating"])}
    chart = page.locator("#chart-dice")
    assert chart.get_attribute("role") == "img" and chart.get_attribute("data-points") == "3"
    assert page.locator("#chart-dice circle").count() == 3
    # the line goes down as the ratings do: each point lower on the screen than the one before
    ys = page.locator("#chart-dice circle").evaluate_all("cs => cs.map((c) => Number(c.getAttribute('cy')))")
    ratings = [h["rating"] for h in history]
    assert ratings == sorted(ratings, reverse=True) and ys == sorted(ys)
    title = page.locator("#chart-dice title").text_content() or ""
    assert f"from {ratings[0]} to {ratings[-1]} over 3 rated games" in title
    assert chart.get_attribute("aria-labelledby") == "chart-dice-title"
    # the text alternative: every number in a table, each game's replay linked
    page.click("#game-dice .history-table summary")
    rows = page.locator("#game-dice .history tr").all_inner_texts()[1:]
    assert [r.split("\t")[-1].strip() for r in rows] == [str(r) for r in reversed(ratings)]
    assert page.locator("#game-dice .history a").evaluate_all("as => as.map((a) => a.getAttribute('href'))") == [f"/replay/{r}" for r in reversed(rooms)]
    recent = page.locator("#recent tr[data-room]")
    assert recent.evaluate_all("rs => rs.map((r) => r.dataset.room)") == list(reversed(rooms))
    assert all("Resigned" in t and "rated" in t for t in recent.all_inner_texts())
    page.click(f"#recent tr[data-room='{rooms[0]}'] a")
    page.wait_for_url(f"**/replay/{rooms[0]}")
    page.go_back()
    page.click("#game-dice [data-ranking=dice]")
    page.wait_for_url("**/ratings/dice")
    page.wait_for_selector("#ranking")
    assert page.locator("#ranking tr[data-player='Ann']").inner_text().split("\t")[:3] == ["1", "Ann", str(profile["games"]["dice"]["rating"])]
    assert not errors
    ctx.close()


def test_the_ranking_goes_page_by_page(site: LiveServer, browser: Any) -> None:
    clients = [logged_in(site.url, name) for name in ("Ann", "Bob", "Cyd")]
    try:
        for client in clients:
            rated_game_lost(site, client)
    finally:
        for client in clients:
            client.close()
    ranking = httpx.get(site.url + "/api/ratings/dice").json()["players"]
    ctx = browser.new_context(**DESKTOP)
    page = ctx.new_page()
    errors = errors_of(page)
    page.goto(site.url + "/ratings/dice?limit=2")
    page.wait_for_selector("#ranking")
    assert page.locator("#ranking tr[data-player]").evaluate_all("rs => rs.map((r) => r.dataset.player)") == [p["username"] for p in ranking[:2]]
    assert page.locator("#range").inner_text() == "1–2 of 3"
    assert page.locator("#prev").count() == 0
    page.click("#next")
    page.wait_for_url("**/ratings/dice?offset=2&limit=2")
    page.wait_for_selector("#ranking")
    assert page.locator("#ranking tr[data-player]").evaluate_all("rs => rs.map((r) => r.dataset.player)") == [ranking[2]["username"]]
    assert page.locator("#range").inner_text() == "3–3 of 3" and page.locator("#next").count() == 0
    page.click("#prev")
    page.wait_for_url("**/ratings/dice?limit=2")
    page.click(f"#ranking a:text-is('{ranking[0]['username']}')")
    page.wait_for_url(f"**/players/{ranking[0]['username']}")
    page.wait_for_selector("#chart-dice")
    page.goto(site.url + "/ratings/tower")
    page.wait_for_selector("#nobody")
    assert page.locator("#ranking-games [aria-current=page]").inner_text() == "Tower"
    page.goto(site.url + "/ratings/chess")
    page.wait_for_selector("#missing")
    assert "chess" in page.locator("#missing").inner_text()
    assert not errors
    ctx.close()


# ------------------------------------------------------------------ the lobby and the room


def test_the_lobby_lists_open_tables_by_filter_and_recent_games_apart(site: LiveServer, browser: Any) -> None:
    dice = new_room(site, "dice", ["open", "random"])
    tower = new_room(site, "tower", ["open", "open", "random"])
    done = create_room(site.url, {"game": "dice", "rules": {"width": 6, "height": 6}, "seats": [{"kind": "random"}, {"kind": "random"}]})["id"]
    wait_until(lambda: state(site, done)["room"]["status"] == "over", 30, "the bots' game to end")
    ann = logged_in(site.url, "Ann")
    try:
        created = ann.post("/api/rooms", json={"game": "dice", "rated": True, "seats": [{"kind": "open"}, {"kind": "open"}]})
        assert created.status_code == 201, created.text
        rated = created.json()["id"]
    finally:
        ann.close()
    ctx = browser.new_context(**DESKTOP)
    page = ctx.new_page()
    errors = errors_of(page)
    page.goto(site.url + "/")
    page.wait_for_selector("#rooms li[data-room]")

    def listed(selector: str) -> set[str]:
        return set(page.locator(f"{selector} li[data-room]").evaluate_all("ls => ls.map((l) => l.dataset.room)"))

    def shows(selector: str, rooms: set[str]) -> None:
        wait_until(lambda: listed(selector) == rooms, 10, f"{selector} to list {rooms}, not {listed(selector)}")

    shows("#rooms", {dice, tower, rated})
    shows("#recent-rooms", {done})
    assert "rated" in page.locator(f"#rooms li[data-room='{rated}']").inner_text()
    page.select_option("#filter-game", "tower")
    shows("#rooms", {tower})
    page.select_option("#filter-game", "")
    page.select_option("#filter-seats", "2")
    shows("#rooms", {tower, rated})
    page.select_option("#filter-rated", "true")
    shows("#rooms", {rated})
    page.select_option("#filter-seats", "")
    page.select_option("#filter-rated", "false")
    page.select_option("#filter-preset", "advanced")
    shows("#rooms", set())
    assert page.locator("#rooms li").inner_text() == "No open table matches these filters."
    # the lobby links each game's ranking
    assert page.locator("#rankings a").evaluate_all("as => as.map((a) => a.getAttribute('href'))") == ["/ratings/dice", "/ratings/tower"]
    assert not errors
    ctx.close()


def test_a_rated_room_from_the_create_form(site: LiveServer, browser: Any) -> None:
    """A logged-in player ticks Rated: with a house rule the server's refusal says which condition
    fails (in the page's language); by the standard rules the room is rated and the seat the account's."""
    ctx = browser.new_context(**DESKTOP, locale="zh-CN")
    page = ctx.new_page()
    errors = errors_of(page)
    register_in(page, site, "Dan")
    page.wait_for_selector("#create")
    page.check("#rated")
    page.click("#create details summary")
    page.select_option("#rule-clear_rows", "true")
    page.click("#create-btn")
    page.wait_for_selector(".toast")
    assert page.locator(".toast").inner_text() == "计分房间使用标准预设，不加房规"
    page.select_option("#rule-clear_rows", "null")
    page.click("#create-btn")
    page.wait_for_url("**/room/**")
    room = page.url.rsplit("/", 1)[1]
    info = state(site, room)["room"]
    assert info["rated"] is True and info["seats"][0]["name"] == "Dan" and info["seats"][0]["account"] is True
    assert not errors
    ctx.close()


def test_seats_of_accounts_link_to_their_profiles(site: LiveServer, browser: Any) -> None:
    room = new_room(site, "dice", ["open", "open", "random"])
    ctx = browser.new_context(**DESKTOP)
    page = ctx.new_page()
    errors = errors_of(page)
    register_in(page, site, "Eve")
    page.goto(f"{site.url}/room/{room}")
    page.wait_for_selector("#join-as")
    assert "Eve" in page.locator("#join-as").inner_text() and page.locator("#join-name").count() == 0
    page.click("[data-join='0']")
    page.wait_for_selector("text=Waiting for players")
    httpx.post(f"{site.url}/api/rooms/{room}/join", json={"name": "Guest", "seat": 1}).raise_for_status()
    page.wait_for_selector("#scores tr[data-seat='1']")
    link = page.locator("#scores tr[data-seat='0'] a.player-link")
    assert link.inner_text() == "Eve" and link.get_attribute("href") == "/players/Eve"
    assert page.locator("#scores tr[data-seat='1'] a.player-link").count() == 0  # a guest's name links nowhere
    assert "Guest" in page.locator("#scores tr[data-seat='1']").inner_text()
    assert not errors
    ctx.close()


# ------------------------------------------------------------------ every new page: phone, languages, axe


@pytest.mark.parametrize("lang", ["en", "cs", "zh_CN"])
def test_the_new_pages_in_each_language_at_desktop_and_phone_pass_axe(site: LiveServer, browser: Any, lang: str) -> None:
    from test_web_i18n import LOCALES, no_english

    ola = logged_in(site.url, "Ola")  # not "Ann": the name field's placeholder is a msgid of its own
    try:
        rated_game_lost(site, ola)
    finally:
        ola.close()
    found: dict[str, list[str]] = {}
    for kind, size in (("desktop", DESKTOP), ("phone", PHONE)):
        ctx = browser.new_context(**size, **({"locale": LOCALES[lang]} if lang in LOCALES else {}))
        page = ctx.new_page()
        errors = errors_of(page)
        elsewhere: list[str] = []
        page.on("request", lambda r, out=elsewhere: None if r.url.startswith((site.url, site.ws, "data:")) else out.append(r.url))
        name = f"{kind[0]}{lang.replace('_', '')}"
        for path in ("/login", "/register"):
            page.goto(site.url + path)
            page.wait_for_selector("#auth-submit")
            found[f"{kind} {path}"] = axe_violations(page)
            if lang != "en":
                no_english(page, lang, f"{kind} {path}")
        register_in(page, site, name)
        page.wait_for_selector("#playnow")
        found[f"{kind} lobby"] = axe_violations(page)
        if lang != "en":
            no_english(page, lang, f"{kind} lobby")
        for path, ready in (("/account", "#delete-section"), ("/players/Ola", "#chart-dice"), ("/ratings/dice", "#ranking")):
            page.goto(site.url + path)
            page.wait_for_selector(ready)
            if kind == "phone":
                assert page.evaluate("document.documentElement.scrollWidth") <= 390, path
            found[f"{kind} {path}"] = axe_violations(page)
            if lang != "en":
                no_english(page, lang, f"{kind} {path}")
        assert not errors and not elsewhere
        ctx.close()
    bad = {k: v for k, v in found.items() if v}
    assert not bad, "\n".join(f"{k}: {x}" for k, v in bad.items() for x in v)


@pytest.mark.parametrize("path", ["/login", "/register", "/account", "/players/Ann", "/ratings/dice"])
def test_the_new_pages_have_a_description_in_the_players_language(site: LiveServer, path: str) -> None:
    english = httpx.get(site.url + path).text
    czech = httpx.get(site.url + path, headers={"Accept-Language": "cs"}).text
    described = [re.search(r'<meta name="description" content="([^"]+)">', t) for t in (english, czech)]
    assert described[0] and described[1], path
    assert "tabletris" in described[0].group(1) and described[0].group(1) != described[1].group(1)
    assert "data-session" not in english
    assert "data-session" in httpx.get(site.url + path, cookies={"tabletris_session": "x"}).text


# ------------------------------------------------------------------ Play now (the queue's contract, answered here)


class FakeQueue:
    """Answers the page's /api/queue requests by the contract of docs/api.md (POST → 201 ticket,
    GET → the ticket or 404 not_queued, DELETE → 204): the page's side of Play now, whatever the
    server's queue does. ``match`` makes the next GET answer a matched ticket for that room."""

    def __init__(self, page: Page) -> None:
        self.sent: list[tuple[str, Any]] = []
        self.ticket: dict[str, Any] | None = None
        self.match: str | None = None
        self.polls = 0
        page.route("**/api/queue", self._answer)

    def _answer(self, route: Any) -> None:
        request = route.request
        body = json.loads(request.post_data) if request.post_data else None
        self.sent.append((request.method, body))
        if request.method == "POST":
            self.ticket = {"ticket": "t1", **body, "status": "waiting", "created": 0, "waited": 0, "window": [950, 1050],
                           "rating": 1000, "room": None, "seat": None}
            route.fulfill(status=201, json=self.ticket)
        elif request.method == "DELETE":
            self.ticket = None
            route.fulfill(status=204, body="")
        elif self.ticket is None:
            route.fulfill(status=404, json={"error": "not_queued", "message": "you are not in the queue"})
        else:
            self.polls += 1
            self.ticket = {**self.ticket, "waited": self.polls, "window": [950 - 10 * self.polls, 1050 + 10 * self.polls]}
            if self.match:
                self.ticket = {**self.ticket, "status": "matched", "room": self.match, "seat": 0}
            route.fulfill(status=200, json=self.ticket)


def test_play_now_waits_widens_cancels_and_goes_to_the_matched_room(site: LiveServer, browser: Any) -> None:
    ctx = browser.new_context(**DESKTOP)
    page = ctx.new_page()
    errors = errors_of(page)
    queue = FakeQueue(page)
    page.goto(site.url + "/")
    page.wait_for_selector("#playnow")
    # logged out, Play now leads to the login page, and back
    assert page.locator("#playnow-btn").count() == 0
    assert page.locator("#playnow-login").get_attribute("href") == "/login?next=%2F"
    assert queue.sent == []
    register_in(page, site, "Fay")
    page.wait_for_selector("#playnow-btn")
    assert queue.sent == [("GET", None)]  # a ticket from before the page, if any, comes back
    # a Play now table seats 2 to 4 (the dice game's rooms take up to 8)
    assert page.locator("#pn-players option").evaluate_all("os => os.map((o) => o.value)") == ["2", "3", "4"]
    page.select_option("#pn-game", "dice")
    page.select_option("#pn-preset", "standard")
    page.select_option("#pn-players", "2")
    page.select_option("#pn-bot", "30")
    page.click("#playnow-btn")
    page.wait_for_selector("#playnow-waiting")
    assert queue.sent[-1] == ("POST", {"game": "dice", "preset": "standard", "players": 2, "bot_after": 30})
    assert "30 seconds" in page.locator("#playnow-waiting").inner_text()
    # the time waited runs, and the window widens as the server says
    page.wait_for_function("document.querySelector('#pn-waited').textContent >= '0:02'")
    page.wait_for_function("/Opponents rated 9[0-3]0 to 1,?0[7-9]0/.test(document.querySelector('#pn-window').textContent)")
    page.click("#playnow-cancel")
    page.wait_for_selector("#playnow-btn")
    assert ("DELETE", None) in queue.sent
    polls = queue.polls
    page.wait_for_timeout(1500)  # (the page polls every second: none after Cancel)
    assert queue.polls == polls
    # never a bot; then a match takes the page to the room
    room = new_room(site, "dice", ["open", "open"])
    page.select_option("#pn-bot", "")
    page.click("#playnow-btn")
    page.wait_for_selector("#playnow-waiting")
    assert queue.sent[-1][1]["bot_after"] is None
    assert "No bot" in page.locator("#playnow-waiting").inner_text()
    # a reload while waiting comes back to the waiting view
    page.reload()
    page.wait_for_selector("#playnow-waiting")
    queue.match = room
    page.wait_for_url(f"**/room/{room}")
    # back in the lobby, the matched ticket's table is a link (the page does not go there again)
    page.goto(site.url + "/")
    page.wait_for_selector("#playnow-table")
    assert page.locator("#playnow-table a").get_attribute("href") == f"/room/{room}"
    assert page.url == site.url + "/"
    assert not errors
    ctx.close()


def test_play_now_shows_the_servers_refusal(site: LiveServer, browser: Any) -> None:
    ctx = browser.new_context(**DESKTOP, locale="cs-CZ")
    page = ctx.new_page()
    errors = errors_of(page)
    register_in(page, site, "Gil")
    page.route("**/api/queue", lambda route: route.fulfill(status=429, headers={"Retry-After": "7"}, json={
        "error": "rate_limited", "message": "too many login attempts: try again later"}) if route.request.method == "POST"
        else route.fulfill(status=404, json={"error": "not_queued", "message": "not queued"}))
    page.goto(site.url + "/")
    page.click("#playnow-btn")
    page.wait_for_selector("#playnow-error:not(:empty)")
    assert page.locator("#playnow-error").inner_text() == "příliš mnoho pokusů o přihlášení: zkuste to později Zkuste to znovu za 7 sekund."
    assert not errors
    ctx.close()


def test_a_guest_at_a_rated_table_is_asked_to_log_in_and_comes_back_to_sit(site: LiveServer, browser: Any) -> None:
    """A rated room seats accounts only (a guest's join is refused with login_required): the
    page says so instead of offering a name field, and its login link comes back to the table."""
    host = logged_in(site.url, "Hal")
    try:
        room = host.post("/api/rooms", json={"game": "dice", "rated": True, "seats": [{"kind": "open"}, {"kind": "open"}]}).json()["id"]
    finally:
        host.close()
    httpx.post(site.url + "/api/auth/register", json={"username": "Ida", "password": PASSWORD}).raise_for_status()
    ctx = browser.new_context(**DESKTOP)
    page = ctx.new_page()
    errors = errors_of(page)
    page.goto(f"{site.url}/room/{room}")
    page.wait_for_selector("#join-rated")
    assert page.locator("#join-name").count() == 0 and page.locator("[data-join]").count() == 0
    page.click("#join-rated a[href^='/login']")
    page.fill("#username", "Ida")
    page.fill("#password", PASSWORD)
    page.click("#auth-submit")
    page.wait_for_url(f"{site.url}/room/{room}")
    page.wait_for_selector("#join-as")
    page.click("[data-join='1']")
    wait_until(lambda: state(site, room)["room"]["seats"][1]["name"] == "Ida", 10, "Ida's seat")
    assert state(site, room)["room"]["seats"][1]["account"] is True
    assert not errors
    ctx.close()


def test_the_account_page_downloads_the_accounts_games(site: LiveServer, browser: Any) -> None:
    ctx = browser.new_context(**DESKTOP, accept_downloads=True)
    page = ctx.new_page()
    errors = errors_of(page)
    register_in(page, site, "Jo")
    client = httpx.Client(base_url=site.url, timeout=10, cookies={"tabletris_session": next(c["value"] for c in ctx.cookies() if c["name"] == "tabletris_session")})
    client.account = {"username": "Jo"}  # type: ignore[attr-defined]
    try:
        room = rated_game_lost(site, client)
    finally:
        client.close()
    page.goto(site.url + "/account")
    with page.expect_download() as download:
        page.click("#records-download")
    assert download.value.suggested_filename == "tabletris-games.json"
    games = json.loads(Path(download.value.path()).read_text())
    assert [(g["room"], g["game"], g["record"]["format"]) for g in games] == [(room, "dice", "tabletris/1")]
    assert not errors
    ctx.close()
