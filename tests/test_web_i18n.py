"""The browser table in Czech and Chinese (issue 16), in Debian's Chromium against a live server.

A Czech and a Chinese player each play a whole dice game and a whole tower game against bots;
at several points (the lobby, the player's turn, the end of the game, the rules and replay pages)
every visible text node, aria-label, title and placeholder is checked against the English
catalog: any text that is an English msgid (or fills an English template) whose translation
differs is an English string left on screen. Screenshots go to tests/artifacts/ (a test run must not
rewrite the committed pictures); ``TABLETRIS_SCREENSHOTS=docs`` writes them to docs/screenshots/.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import time
from pathlib import Path
from typing import Any

import httpx
import pytest

from server_helpers import LiveServer
from tabletris.engine.errors import IllegalMove
from tabletris.engine.texts import Message
from tabletris.i18n import LANGUAGE_NAMES, catalog_json
from tabletris.server.app import error_body
from tabletris.server.games import engine_text
from web_helpers import DESKTOP, Page, browser, errors_of, new_room, server, state, wait_until

__all__ = ["browser", "server"]  # fixtures, used by name

pytestmark = pytest.mark.browser

SHOTS = Path(__file__).resolve().parent.parent / (
    "docs/screenshots" if os.environ.get("TABLETRIS_SCREENSHOTS") == "docs" else "tests/artifacts/screenshots"
)
# Playwright's locale sets the browser's Accept-Language (and Intl's default).
LOCALES = {"cs": "cs-CZ", "zh_CN": "zh-CN"}
# The players' names (not "Ann": that is the name field's placeholder, a msgid of its own).
PLAYER = {"cs": "Věra", "zh_CN": "李雷"}
FIELD = re.compile(r"\{(\w+)(?:![rs])?(?::[^{}]*)?\}")


class English:
    """The English msgids of the web and engine catalogs whose translation in ``lang`` differs:
    plain texts to compare whole, templates as patterns (with at least one English word outside
    their fields, so "{a}, {b}" does not match every comma)."""

    def __init__(self, lang: str) -> None:
        messages = catalog_json(lang)["messages"]
        self.plain: set[str] = set()
        self.patterns: list[tuple[re.Pattern[str], str]] = []
        for msgid, text in messages.items():
            ids = [msgid] if isinstance(text, str) else [msgid]
            if isinstance(text, str) and text.strip() == msgid.strip():
                continue
            for one in ids:
                if FIELD.search(one):
                    literal = FIELD.sub(" ", one)
                    if re.search(r"[A-Za-z]{3,}", literal):
                        parts = FIELD.split(one)
                        source = "".join(re.escape(p) if i % 2 == 0 else ".+?" for i, p in enumerate(parts))
                        self.patterns.append((re.compile(f"^{source.strip()}$", re.S), one))
                elif re.search(r"[A-Za-z]", one):
                    self.plain.add(one.strip())

    def left_in(self, texts: list[str]) -> list[str]:
        found = []
        for text in texts:
            t = " ".join(text.split())
            if not t:
                continue
            if t in self.plain:
                found.append(t)
                continue
            for pattern, msgid in self.patterns:
                if pattern.match(t):
                    found.append(f"{t!r} (English {msgid!r})")
                    break
        return found


SCREEN_TEXT = """() => {
    const out = [document.title];
    const visible = (e) => e && (e.checkVisibility ? e.checkVisibility() : e.offsetParent !== null);
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
        const p = n.parentElement;
        if (!p || p.closest('script, style, noscript, option, .chat-text, p.md')) continue;
        if (p.closest('select') ? visible(p.closest('select')) : visible(p)) out.push(n.textContent);
    }
    for (const e of document.querySelectorAll('[aria-label], [title], [placeholder]')) {
        if (e.closest('.sr-only') || visible(e) || e.closest('[role=grid]') || e.id === 'announce')
            for (const a of ['aria-label', 'title', 'placeholder']) if (e.getAttribute(a)) out.push(e.getAttribute(a));
    }
    // a paragraph of Markdown (a rules summary) is one sentence run, checked whole
    for (const p of document.querySelectorAll('p.md')) if (visible(p)) out.push(p.textContent);
    for (const s of document.querySelectorAll('select')) if (visible(s)) for (const o of s.options) out.push(o.textContent);
    for (const e of document.querySelectorAll('.sr-only, #announce')) out.push(e.textContent);
    return out;
}"""


def no_english(page: Page, lang: str, where: str) -> None:
    left = English(lang).left_in(page.evaluate(SCREEN_TEXT))
    assert not left, f"English left on the {where} in {lang}: {left}"


def lang_context(browser: Any, lang: str) -> Any:
    return browser.new_context(**DESKTOP, locale=LOCALES[lang])


def shoot(page: Page, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.evaluate("document.querySelectorAll('.toast').forEach((t) => t.remove())")
    page.wait_for_timeout(400)  # the die's roll and the fresh stones' flash settle
    page.screenshot(path=str(SHOTS / name))


def sit_down(page: Page, server: LiveServer, room: str, name: str) -> None:
    page.goto(f"{server.url}/room/{room}")
    page.fill("#join-name", name)
    page.click("[data-join='0']")


def test_fonts_for_chinese_are_installed() -> None:
    """Headless Chromium draws Chinese only with a CJK font on the machine (`.ci/run` installs
    Debian's fonts-noto-cjk); the pages never download fonts."""
    assert shutil.which("fc-list"), "fontconfig's fc-list is missing"
    out = subprocess.run(["fc-list", ":lang=zh"], capture_output=True, text=True, check=True).stdout
    assert out.strip(), "no font for Chinese: apt-get install fonts-noto-cjk (bash .ci/run does)"


def test_catalog_route_and_page_language(server: LiveServer) -> None:
    cs = httpx.get(f"{server.url}/api/i18n/cs")
    assert cs.status_code == 200 and "max-age" in cs.headers["cache-control"]
    body = cs.json()
    assert body["lang"] == "cs" and body["bcp47"] == "cs" and body["languages"] == LANGUAGE_NAMES
    assert body["messages"]["New room"] == "Nový stůl" and len(body["messages"]["{n} house rule"]) == 3
    assert body["plural"]["one"] == 0 and body["plural"]["few"] == 1 and body["plural"]["other"] == 2
    zh = httpx.get(f"{server.url}/api/i18n/zh-CN").json()
    assert zh["lang"] == "zh_CN" and zh["plural"] == {"other": 0}
    unknown = httpx.get(f"{server.url}/api/i18n/fr")
    assert unknown.status_code == 404
    assert unknown.json()["error"] == "unknown_language" and "cs" in unknown.json()["message"]
    # The server writes the language into the page (no English first paint); a cookie beats the header.
    page = httpx.get(f"{server.url}/", headers={"Accept-Language": "cs-CZ,cs;q=0.9,en;q=0.5"}).text
    assert '<html lang="cs" data-lang="cs" ' in page  # then the lobby's timer bounds (issue 27)
    page = httpx.get(f"{server.url}/rules", headers={"Accept-Language": "fr, zh;q=0.8"}).text
    assert '<html lang="zh-CN" data-lang="zh_CN">' in page
    page = httpx.get(f"{server.url}/replay", headers={"Accept-Language": "cs"}, cookies={"tabletris_lang": "en"}).text
    assert '<html lang="en" data-lang="en">' in page
    assert "content-security-policy" in httpx.get(f"{server.url}/").headers


def test_accept_language_chooses_and_the_menu_remembers(server: LiveServer, browser: Any) -> None:
    ctx = lang_context(browser, "cs")
    page = ctx.new_page()
    errors = errors_of(page)
    page.goto(server.url + "/")
    page.wait_for_selector("#create")
    assert page.evaluate("document.documentElement.lang") == "cs"
    assert page.locator("#create h2").inner_text() == "Nový stůl"
    options = page.locator("#language option").all_inner_texts()
    assert options == ["English", "Čeština", "简体中文"]
    no_english(page, "cs", "lobby")
    shoot(page, "web_lobby_cs.png")
    # The menu switches to Chinese; a reload and the other pages stay Chinese (cookie + localStorage).
    with page.expect_navigation():
        page.select_option("#language", "zh_CN")
    page.wait_for_selector("#create")
    assert page.locator("#create h2").inner_text() == "新房间"
    page.reload()
    page.wait_for_selector("#create")
    assert page.evaluate("document.documentElement.lang") == "zh-CN"
    no_english(page, "zh_CN", "lobby")
    shoot(page, "web_lobby_zh_CN.png")
    page.goto(server.url + "/rules")
    page.wait_for_selector("#tower")
    assert page.locator("main > h2").inner_text() == "规则"
    no_english(page, "zh_CN", "rules page")
    cookies = {c["name"]: c["value"] for c in ctx.cookies()}
    assert cookies.get("tabletris_lang") == "zh_CN"
    # Back to English from the menu.
    with page.expect_navigation():
        page.select_option("#language", "en")
    page.wait_for_selector("#tower")
    assert page.locator("main > h2").inner_text() == "Rules"
    assert not errors
    ctx.close()


def play_dice_game(page: Page, lang: str) -> None:
    """Ann places where the ghost starts and confirms, answering any reward or token dialog with
    its default, until the game ends; checked for English on her first turn."""
    checked = False
    for _ in range(200):
        page.wait_for_selector("#end [role=dialog], #place:visible", timeout=30000)
        if page.locator("#end").count():
            return
        ghost = page.locator(".cell.ghost").last
        if not ghost.count():
            # no place fits the preselected option: another piece in the tray
            page.locator("#tray button:not(.nofit)").first.click()
        if not checked:
            no_english(page, lang, "dice table")
            checked = True
        page.click("#place")
        page.wait_for_selector("#confirm:visible, #rewards-ok, #tokens-ok", timeout=10000)
        if page.locator("#confirm:visible").count():
            page.click("#confirm")
        # The reward and token dialogs open after a query to the server, so they may come after
        # the confirm: answer each as it opens, until the move is sent and the confirm goes
        # (waiting only for the confirm left a late token dialog open, and the game stuck).
        deadline = time.monotonic() + 30
        while page.locator("#confirm:visible").count():
            for ok in ("#rewards-ok", "#tokens-ok"):
                if page.locator(f"{ok}:visible").count():
                    page.click(ok)
            assert time.monotonic() < deadline, "the move was not sent within 30 s"
            page.wait_for_timeout(50)
    raise AssertionError("the dice game did not end")


@pytest.mark.parametrize("lang", ["cs", "zh_CN"])
def test_a_whole_dice_game(server: LiveServer, browser: Any, lang: str) -> None:
    room = new_room(server, "dice", ["open", "random"], {"width": 6, "height": 6})
    ctx = lang_context(browser, lang)
    page = ctx.new_page()
    errors = errors_of(page)
    sit_down(page, server, room, PLAYER[lang])
    page.wait_for_selector("#scores")
    page.wait_for_selector("#place:visible", timeout=20000)
    page.locator(".cell.ghost").last.wait_for()
    shoot(page, f"web_dice_{lang}.png")
    play_dice_game(page, lang)
    page.wait_for_selector("#end-reason")
    final = state(server, room)["game"]
    assert final["over"]
    no_english(page, lang, "dice game's end")
    shoot(page, f"web_dice_end_{lang}.png")
    # The replay of the same game.
    page.goto(f"{server.url}/replay/{room}")
    page.wait_for_selector("#viewer:not(.hidden)")
    no_english(page, lang, "replay page")
    assert not errors
    ctx.close()


@pytest.mark.parametrize("lang", ["cs", "zh_CN"])
def test_a_whole_tower_game(server: LiveServer, browser: Any, lang: str) -> None:
    room = new_room(server, "tower", ["open", "random"], {"height": 8})
    ctx = lang_context(browser, lang)
    page = ctx.new_page()
    errors = errors_of(page)
    sit_down(page, server, room, PLAYER[lang])
    page.wait_for_selector("#play-card")
    checked = False
    for _ in range(200):
        page.wait_for_selector("#end [role=dialog], #place:visible", timeout=30000)
        if page.locator("#end").count():
            break
        page.locator(".cell.ghost").last.wait_for()
        if not checked:
            no_english(page, lang, "tower table")
            shoot(page, f"web_tower_{lang}.png")
            checked = True
        rnd = state(server, room)["game"]["round"]
        page.click("#place")
        def revealed(before: int = rnd) -> bool:
            game = state(server, room)["game"]
            return bool(game["round"] != before or game["over"])

        wait_until(revealed, 30, "the round to be revealed")
    else:
        raise AssertionError("the tower game did not end")
    page.wait_for_selector("#end-reason")
    assert state(server, room)["game"]["over"]
    no_english(page, lang, "tower game's end")
    shoot(page, f"web_tower_end_{lang}.png")
    assert not errors
    ctx.close()


def test_engine_errors_carry_their_template() -> None:
    """A refused move keeps its English text in ``message`` (clients and tests read it) and, for an
    engine text, adds its template and parameters, from which the page builds the sentence."""
    reason = Message("{shape} does not rest on anything", shape="I")
    err = IllegalMove(Message("move {n}: {reason}", n=3, reason=reason))
    body = error_body("illegal", engine_text(err))
    assert body["message"] == "move 3: I does not rest on anything"
    assert body["text"] == {"template": "move {n}: {reason}",
                            "params": {"n": 3, "reason": {"template": "{shape} does not rest on anything", "params": {"shape": "I"}}}}
    assert error_body("bad_name", "a name is a string") == {"error": "bad_name", "message": "a name is a string"}


def test_a_refused_move_reads_in_the_pages_language(server: LiveServer, browser: Any) -> None:
    """A real rule violation from the server: English in ``message``, and in Czech on the page,
    rebuilt from the engine's template (the reason inside it translated too)."""
    room = new_room(server, "dice", ["open", "random"])
    token = httpx.post(f"{server.url}/api/rooms/{room}/join", json={"name": "Věra", "seat": 0}).json()["token"]

    def my_turn() -> bool:
        game = state(server, room)["game"]
        return bool(game and game["to_move"] == 0)

    wait_until(my_turn, 20, "Věra's turn")
    turn = state(server, room)["game"]["turn"]
    r = httpx.post(f"{server.url}/api/rooms/{room}/moves", headers={"X-Seat-Token": token},
                   json={"place": [[0, 19], [1, 19], [2, 19], [3, 19]], "shape": "I", "turn": turn})
    assert r.status_code == 422, r.text
    body = r.json()
    assert body["error"] == "illegal" and body["text"]["template"] and body["message"]
    ctx = lang_context(browser, "cs")
    page = ctx.new_page()
    page.goto(server.url + "/")
    page.wait_for_selector("#create")
    czech = page.evaluate("async (body) => (await import('/static/js/i18n.js')).errorText(body)", body)
    assert czech and czech != body["message"]
    assert not English("cs").left_in([czech]), czech
    ctx.close()


def test_the_page_translates_server_and_engine_texts(server: LiveServer, browser: Any) -> None:
    """The client's catalog module: a server's filled-in English sentence is found by its
    template, an engine Message is rebuilt from its template, plurals follow Intl's categories."""
    ctx = lang_context(browser, "cs")
    page = ctx.new_page()
    page.goto(server.url + "/")
    page.wait_for_selector("#create")
    got = page.evaluate("""async () => {
        const m = await import('/static/js/i18n.js');
        return [
            m.tr("there is no room 'abc'"),
            m.tr("seat 1 is taken by Bob"),
            m.errorText({ message: "x", text: { template: "the game in room {room} is over", params: { room: "R1" } } }),
            [1, 2, 5, 1.5].map((n) => m.ngettext("{n} card left", "{n} cards left", n)),
            m.num(12345.5),
            m.tr("an English sentence the catalogs do not have"),
        ];
    }""")
    assert got[0] == "stůl 'abc' neexistuje"
    assert got[1] == "místo 1 už obsadil(a) Bob"
    assert got[2] == "hra u stolu R1 skončila"
    assert got[3][:3] == ["zbývá 1 karta", "zbývají 2 karty", "zbývá 5 karet"]
    assert got[4].replace("\u00a0", " ") == "12 345,5"
    assert got[5] == "an English sentence the catalogs do not have"
    ctx.close()


def test_refusals_a_player_meets_read_in_the_pages_language(server: LiveServer, browser: Any) -> None:
    """A taken or look-alike name, a house rule over the server's limits: refusals a person meets
    from the pages, sent as English sentences, read in Czech and Chinese (they were built with
    f-strings, outside the catalogs, and stayed English)."""
    room = new_room(server, "dice", ["open", "open"])
    assert httpx.post(f"{server.url}/api/rooms/{room}/join", json={"name": "Věra", "seat": 0}).status_code == 200
    refusals = {
        "taken": httpx.post(f"{server.url}/api/rooms/{room}/join", json={"name": "Věra", "seat": 1}),
        "lookalike": httpx.post(f"{server.url}/api/rooms/{room}/join", json={"name": "VĚRA", "seat": 1}),
        "width": httpx.post(server.url + "/api/rooms", json={"game": "dice", "rules": {"width": 40}, "seats": [{"kind": "open"}]}),
        "garbage": httpx.post(server.url + "/api/rooms", json={"game": "dice", "rules": {"garbage": 20}, "seats": [{"kind": "open"}]}),
    }
    bob = httpx.post(f"{server.url}/api/rooms/{room}/join", json={"name": "Bob", "seat": 1}).json()["token"]
    wait_until(lambda: bool(state(server, room)["game"]), 20, "the game to start")
    game = state(server, room)["game"]
    assert game["to_move"] == 0
    refusals["turn"] = httpx.post(f"{server.url}/api/rooms/{room}/moves", headers={"X-Seat-Token": bob},
                                  json={"place": [[0, 19], [1, 19], [2, 19], [3, 19]], "turn": game["turn"]})
    bodies = {}
    for what, r in refusals.items():
        assert r.status_code in (409, 422), (what, r.text)
        bodies[what] = r.json()
    assert bodies["taken"]["message"] == f"someone in room {room} is already called 'Věra'"
    assert bodies["lookalike"]["message"] == f"someone in room {room} is called 'Věra', which looks the same as 'VĚRA'"
    # the table's own sentence, with its template (the server checked the turn with a copy of it)
    assert bodies["turn"]["error"] == "not_your_turn" and bodies["turn"]["message"] == "it is Věra's turn (seat 1), not seat 2's"
    assert bodies["turn"]["text"]["template"] == "it is {player}'s turn (seat {seat}), not seat {other}'s"
    expected = {
        "cs": {"taken": "už někdo má jméno 'Věra'", "lookalike": "'Věra', které vypadá stejně jako 'VĚRA'",
               "width": "je nad limitem tohoto serveru (20)", "garbage": "kamenů by zakrylo přes 25 % desky 10×20",
               "turn": "na tahu je Věra (místo 1)"},
        "zh_CN": {"taken": "里已经有人叫 'Věra'", "lookalike": "看起来与 'VĚRA' 相同",
                  "width": "超过本服务器的上限（20）", "garbage": "场地的 25% 以上", "turn": "现在轮到 Věra（座位 1）"},
    }
    for lang, words in expected.items():
        ctx = lang_context(browser, lang)
        page = ctx.new_page()
        page.goto(server.url + "/")
        page.wait_for_selector("#create")
        got = page.evaluate("async (bodies) => { const m = await import('/static/js/i18n.js');"
                            " return Object.fromEntries(Object.entries(bodies).map(([k, b]) => [k, m.errorText(b)])); }", bodies)
        for what, part in words.items():
            assert part in got[what] and got[what] != bodies[what]["message"], (lang, what, got[what])
            assert not English(lang).left_in([got[what]]), got[what]
        ctx.close()
