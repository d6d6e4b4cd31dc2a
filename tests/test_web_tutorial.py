"""Issue 26 item 4 in the browser: both guided first games completed in Debian's Chromium, at a
desktop's 1366×768 by keys and a phone's 390×844 by taps, against a real server; the offer on the
lobby's first visit and on the rules page.

The page, its endpoint and the offers did not exist before: every test here fails on the old code.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from tabletris import i18n
from tabletris.table.tutorial import script_of
from test_server_tutorials import first_kept
from web_helpers import PHONE, Page, axe_violations, browser, errors_of, server

__all__ = ["browser", "server"]  # fixtures, used by name

pytestmark = pytest.mark.browser

DESKTOP: dict[str, Any] = {"viewport": {"width": 1366, "height": 768}, "bypass_csp": True}
BOARD = ".stage .board:not(.small)"


def cells(page: Page, kind: str) -> list[tuple[int, int]]:
    """The board's cells drawn as ``kind`` (the ghost, a stone to take), as [x, y]."""
    found = page.eval_on_selector_all(f"{BOARD} .cell.{kind}", "cs => cs.map((c) => [Number(c.dataset.x), Number(c.dataset.y)])")
    return sorted((x, y) for x, y in found)


def norm(shape: list[tuple[int, int]]) -> list[tuple[int, int]]:
    if not shape:
        return []
    x0, y0 = min(x for x, _ in shape), min(y for _, y in shape)
    return sorted((x - x0, y - y0) for x, y in shape)


def kept_moves(page: Page, game: str) -> list[dict[str, Any]]:
    """The moves the page keeps for this tab (what it sends with its next move)."""
    return list(json.loads(page.evaluate(f"sessionStorage.getItem('tabletris:tutorial:{game}')") or "[]"))


def size(page: Page) -> tuple[int, int]:
    w, h = page.evaluate(f"(() => {{ const b = document.querySelector('{BOARD}'); return [b.style.getPropertyValue('--w'), b.style.getPropertyValue('--h')]; }})()")
    return int(w), int(h)


def tap_at(page: Page, cx: float, cy: float) -> None:
    """A tap on the board at cell coordinates (cell centres are whole numbers, row 0 at the bottom)."""
    box = page.evaluate(
        """(sel) => { const b = document.querySelector(sel); const w = Number(b.style.getPropertyValue('--w')); const h = Number(b.style.getPropertyValue('--h'));
          const first = b.querySelector(`.cell[data-x="0"][data-y="${h - 1}"]`).getBoundingClientRect();
          const last = b.querySelector(`.cell[data-x="${w - 1}"][data-y="0"]`).getBoundingClientRect();
          return { left: first.left, top: first.top, right: last.right, bottom: last.bottom, w, h }; }""",
        BOARD,
    )
    x = box["left"] + (cx + 0.5) / box["w"] * (box["right"] - box["left"])
    y = box["bottom"] - (cy + 0.5) / box["h"] * (box["bottom"] - box["top"])
    page.touchscreen.tap(x, y)


def steer(page: Page, target: list[tuple[int, int]], touch: bool) -> None:
    """The ghost onto ``target``: by R and the arrows at a desk; by ⟳ Turn and taps on a phone."""
    for _ in range(40):
        ghost = cells(page, "ghost")
        if ghost == target:
            return
        if norm(ghost) != norm(target):
            if touch:
                page.tap("#rotate")
            else:
                page.keyboard.press("r")
            continue
        if touch:
            cx = (min(x for x, _ in target) + max(x for x, _ in target)) / 2
            cy = (min(y for _, y in target) + max(y for _, y in target)) / 2
            start = (int(cx + 0.5), int(cy + 0.5))  # the cell a tap there begins on (as Math.round)
            if start in ghost:
                # A tap that begins on the ghost places it: move the ghost away from there first.
                w, h = size(page)
                away = max(((x, y) for x in range(w) for y in range(h) if (x, y) not in ghost),
                           key=lambda c: (c[0] - start[0]) ** 2 + (c[1] - start[1]) ** 2)
                tap_at(page, *away)
                continue
            tap_at(page, cx, cy)
        else:
            dx = min(x for x, _ in target) - min(x for x, _ in ghost)
            dy = min(y for _, y in target) - min(y for _, y in ghost)
            page.keyboard.press("ArrowRight" if dx > 0 else "ArrowLeft" if dx < 0 else "ArrowUp" if dy > 0 else "ArrowDown")
    raise AssertionError(f"the ghost {cells(page, 'ghost')} never reached {target}")


def press(page: Page, selector: str, touch: bool) -> None:
    if touch:
        page.tap(selector)
    else:
        page.click(selector)


def play_move(page: Page, game: str, move: dict[str, Any], touch: bool) -> None:
    """One move as a player makes it: a mino's column, the stone to take, the ghost, then place."""
    if move.get("hold"):
        press(page, "#hold", touch)
        return
    for column in move.get("minos", []):
        press(page, f"[data-col='{column}']", touch)
        page.wait_for_selector("#clear-minos")
    if move.get("take"):
        take = sorted((x, y) for x, y in move["take"])
        for button in page.query_selector_all("[data-take]"):
            if cells(page, "take") == take:
                break
            press(page, f"[data-take='{button.get_attribute('data-take')}']", touch)
        assert cells(page, "take") == take
    if not touch:
        page.focus(BOARD)
    steer(page, sorted((x, y) for x, y in move["place"]), touch)
    if game == "dice":
        press(page, "#place", touch) if touch else page.keyboard.press("Enter")
        page.wait_for_selector("#confirm:not(.hidden)")
        press(page, "#confirm", touch) if touch else page.keyboard.press("Enter")
    else:
        press(page, "#place", touch) if touch else page.keyboard.press("Enter")


def complete(page: Page, game: str, touch: bool) -> list[str]:
    """Play the page's tutorial to its end, each move the first the step keeps; the steps seen."""
    seen: list[str] = []
    kept = f"JSON.parse(sessionStorage.getItem('tabletris:tutorial:{game}') || '[]').length"
    for _ in range(20):
        page.wait_for_selector("#tutorial-step[data-step]", state="attached")
        name = str(page.get_attribute("#tutorial-step", "data-step"))
        if name == "done":
            return seen
        seen.append(name)
        moves = kept_moves(page, game)
        move = first_kept(game, moves)
        play_move(page, game, move, touch)
        if game == "dice":
            # A completed row takes a token: the page suggests one; a player takes it.
            page.wait_for_function(f"document.querySelector('#tokens-ok') || {kept} > {len(moves)}")
            if page.query_selector("#tokens-ok"):
                press(page, "#tokens-ok", touch)
        page.wait_for_function(f"{kept} > {len(moves)}")  # the move is in (every move here is one the step keeps)
    raise AssertionError(f"the tutorial did not end: steps {seen}")


@pytest.mark.parametrize("game", ["dice", "tower"])
@pytest.mark.parametrize("where", ["desktop", "phone"])
def test_the_tutorial_is_completed_in_the_browser(server: Any, browser: Any, game: str, where: str) -> None:
    touch = where == "phone"
    ctx = browser.new_context(**(PHONE if touch else DESKTOP))
    page = ctx.new_page()
    errors = errors_of(page)
    page.goto(f"{server.url}/tutorial/{game}")
    page.wait_for_selector("#tutorial-step[data-step]")
    script = script_of(game)
    assert script is not None
    assert page.inner_text("#tutorial-step") == script.steps[0].text
    assert page.inner_text("#tutorial-title") == f"Tutorial: step 1 of {len(script.steps)}"
    assert page.inner_text("#tutorial-hint")  # the page's own controls for the step
    if where == "desktop":
        assert axe_violations(page) == []
    seen = complete(page, game, touch)
    names = [s.name for s in script.steps]
    assert seen[: len(names) - 1] == names[:-1] and set(seen) <= set(names), seen
    page.wait_for_selector("#tutorial-end:not(.hidden)")
    ending = page.inner_text("#tutorial-ending")
    assert ending.endswith("You have finished the tutorial.") and len(ending) > len("You have finished the tutorial.")
    assert page.inner_text("#tutorial-title") == "Tutorial: done"
    assert page.get_attribute("#tutorial-play", "href") == "/"
    assert page.query_selector("#final")  # the game's own score table
    if touch:  # the step and the board's controls fit the phone's width
        assert page.evaluate("document.documentElement.scrollWidth") <= 390
    # Start again: the first step, a fresh game.
    press(page, "#tutorial-again", touch)
    page.wait_for_function("document.querySelector('#tutorial-step').dataset.step !== 'done'")
    assert kept_moves(page, game) == [] and page.inner_text("#tutorial-step") == script.steps[0].text
    assert errors == []
    ctx.close()


def test_a_move_the_step_takes_back_says_why_and_a_reload_goes_on_where_it_was(server: Any, browser: Any) -> None:
    ctx = browser.new_context(**DESKTOP)
    page = ctx.new_page()
    errors = errors_of(page)
    page.goto(f"{server.url}/tutorial/tower")
    page.wait_for_selector("#tutorial-step[data-step='icons']")
    play_move(page, "tower", {"place": [[1, 0], [2, 0], [1, 1], [2, 1]]}, touch=False)  # beside the icon
    page.wait_for_selector("#tutorial-note.bad")
    assert "taken back" in page.inner_text("#tutorial-note") and kept_moves(page, "tower") == []
    assert page.get_attribute("#tutorial-step", "data-step") == "icons"
    play_move(page, "tower", {"place": [[0, 0], [1, 0], [0, 1], [1, 1]]}, touch=False)
    page.wait_for_selector("#tutorial-step[data-step='card']")
    assert page.inner_text("#tutorial-note") == "A bonus point, and the diamond earned you a mino."
    page.reload()
    page.wait_for_selector("#tutorial-step[data-step='card']")
    assert len(kept_moves(page, "tower")) == 1 and page.inner_text("#tutorial-title") == "Tutorial: step 2 of 5"
    # Moves this tutorial never kept (another version's) start it again rather than failing.
    page.evaluate("sessionStorage.setItem('tabletris:tutorial:tower', JSON.stringify([{hold: true}]))")
    page.reload()
    page.wait_for_selector("#tutorial-step[data-step='icons']")
    assert kept_moves(page, "tower") == []
    assert errors == []
    ctx.close()


def test_the_tutorial_speaks_the_pages_language(server: Any, browser: Any) -> None:
    ctx = browser.new_context(**DESKTOP, locale="cs-CZ")
    page = ctx.new_page()
    page.goto(f"{server.url}/tutorial/dice")
    page.wait_for_selector("#tutorial-step[data-step='place']")
    script = script_of("dice")
    assert script is not None
    assert page.inner_text("#tutorial-step") == i18n.translate(script.steps[0].text, "cs", "web") != script.steps[0].text
    assert page.inner_text("#tutorial-title") == "Výuka: krok 1 z 4"
    ctx.close()


def test_the_lobby_offers_the_tutorial_once_and_the_rules_page_always(server: Any, browser: Any) -> None:
    ctx = browser.new_context(**DESKTOP)
    page = ctx.new_page()
    errors = errors_of(page)
    page.goto(server.url + "/")
    page.wait_for_selector("#tutorial-offer")
    links = page.eval_on_selector_all("#tutorial-offer a", "as => as.map((a) => a.getAttribute('href'))")
    assert links == ["/tutorial/dice", "/tutorial/tower"]
    assert page.is_visible("#create") and page.is_enabled("#create-btn")  # the offer blocks nothing
    assert axe_violations(page) == []
    page.reload()
    page.wait_for_selector("#create")
    assert page.query_selector("#tutorial-offer") is None  # once: this browser has seen it
    # A new browser dismisses it; it stays dismissed.
    other = browser.new_context(**DESKTOP)
    fresh = other.new_page()
    fresh.goto(server.url + "/")
    fresh.click("#tutorial-offer-close")
    assert fresh.query_selector("#tutorial-offer") is None
    fresh.goto(server.url + "/rules")
    fresh.wait_for_selector("#dice a[href='/tutorial/dice']")
    assert fresh.query_selector("#tower a[href='/tutorial/tower']")
    fresh.click("#tower a[href='/tutorial/tower']")
    fresh.wait_for_selector("#tutorial-step[data-step='icons']")
    other.close()
    assert errors == []
    ctx.close()
