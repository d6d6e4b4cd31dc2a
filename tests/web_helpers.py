"""Helpers for the browser tests: Debian's Chromium through Playwright, a live server, axe-core.

axe-core comes from npm (``npm pack axe-core``) into ``tests/.axe/`` the first time it is needed
(``.ci/run`` does the same up front); it is injected into the page under test, never loaded from a CDN.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import tarfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from server_helpers import LiveServer, live_server

CHROMIUM = os.environ.get("TABLETRIS_CHROMIUM", "/usr/bin/chromium")
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"]
AXE_DIR = Path(__file__).parent / ".axe"
AXE_JS = AXE_DIR / "package" / "axe.min.js"
# The tests inject axe-core and wait on string predicates, which the server's CSP (no inline
# script, no eval) forbids the pages themselves; test_pages_run_under_the_servers_csp checks the
# pages with the policy enforced.
DESKTOP: dict[str, Any] = {"viewport": {"width": 1280, "height": 860}, "bypass_csp": True}
PHONE: dict[str, Any] = {
    "viewport": {"width": 390, "height": 844}, "has_touch": True, "is_mobile": True, "device_scale_factor": 2,
    "bypass_csp": True,
}

# Records the text of every toast the page shows (they go away after a few seconds): an init script.
TOASTS = """
window.__toasts = [];
new MutationObserver(() => {
  for (const t of document.querySelectorAll('.toast')) if (t.dataset.seen !== t.textContent) { t.dataset.seen = t.textContent; window.__toasts.push(t.textContent); }
}).observe(document, { subtree: true, childList: true, characterData: true });
"""

if not shutil.which(CHROMIUM):
    # A missing browser is a broken test machine, not a reason to pass: `bash .ci/run` installs it.
    pytest.fail(f"browser tests need Debian's Chromium at {CHROMIUM} (apt-get install chromium)", pytrace=False)

from playwright import sync_api  # noqa: E402  (after the Chromium check, which explains a failure)

Page = Any
"""A Playwright page (its sync API is untyped enough that Any reads better in tests)."""


def axe_source() -> str:
    """axe-core's script, fetched with ``npm pack`` the first time (the only network use: npm)."""
    if not AXE_JS.exists():
        AXE_DIR.mkdir(exist_ok=True)
        out = subprocess.run(["npm", "pack", "axe-core@4", "--silent"], cwd=AXE_DIR, capture_output=True, text=True, timeout=120)
        if out.returncode != 0:
            pytest.fail(f"npm pack axe-core failed: {out.stderr.strip()}", pytrace=False)
        tgz = AXE_DIR / out.stdout.strip().splitlines()[-1]
        with tarfile.open(tgz) as tar:
            tar.extractall(AXE_DIR, filter="data")
    return AXE_JS.read_text()


def axe_violations(page: Page, impacts: tuple[str, ...] = ("serious", "critical")) -> list[str]:
    """Run axe-core (WCAG 2 A/AA rules) on the page; the violations of the given impacts, described."""
    if not page.evaluate("() => Boolean(window.axe)"):
        page.add_script_tag(content=axe_source())
    result = page.evaluate("""async () => {
        const r = await axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'] } });
        return r.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.slice(0, 3).map((n) => n.target.join(' ') + ' ' + (n.failureSummary || '')) }));
    }""")
    return [f"{v['id']} ({v['impact']}): {v['help']} {v['nodes']}" for v in result if v["impact"] in impacts]


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    with live_server(tmp_path_factory.mktemp("web") / "web.sqlite3", bot_delay=0.05) as s:
        yield s


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield b
        b.close()


def errors_of(page: Page) -> list[str]:
    """Script errors of the page (a test ends by asserting there were none)."""
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    return errors


def new_room(server: LiveServer, game: str, seats: list[str], rules: dict[str, Any] | None = None, timer: float | None = None) -> str:
    body = {"game": game, "rules": rules or {}, "seats": [{"kind": k} for k in seats], "timer": timer}
    r = httpx.post(server.url + "/api/rooms", json=body)
    assert r.status_code == 201, r.text
    return str(r.json()["id"])


def join(page: Page, server: LiveServer, room: str, name: str, seat: int = 0) -> None:
    """Open the invite link, type a name and sit down; returns once the server has given the
    page its seat (the page keeps the token). The room's "Waiting for players" shows to a
    spectator too, so it does not say the seat is taken: a join sent right after the click
    could take the seat first. Polled from here: Playwright's ``wait_for_function`` polls inside
    the page with ``eval``, which a page under the server's CSP refuses (a join answered late
    failed ``test_pages_run_under_the_servers_csp``)."""
    page.goto(f"{server.url}/room/{room}")
    page.fill("#join-name", name)
    page.click(f"[data-join='{seat}']")
    wait_until(lambda: bool(page.evaluate(f"localStorage.getItem('tabletris:seat:{room}') !== null")),
               what=f"the page's seat in room {room}")


def state(server: LiveServer, room: str, token: str | None = None) -> dict[str, Any]:
    headers = {"X-Seat-Token": token} if token else {}
    return dict(httpx.get(f"{server.url}/api/rooms/{room}", headers=headers).json())


def wait_until(check: Callable[[], bool], timeout: float = 20.0, what: str = "condition") -> None:
    deadline = time.time() + timeout
    while not check():
        if time.time() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.1)


def finished_room(server: LiveServer, game: str, rules: dict[str, Any], seats: int = 2) -> str:
    """A room where bots play a whole game; returns once it is over."""
    room = new_room(server, game, ["random"] * seats, rules)
    wait_until(lambda: state(server, room)["room"]["status"] == "over", 60, f"the {game} game to end")
    return room


class SocketSpy:
    """Every websocket of the page goes through Playwright's router to the real server; the
    messages the page sends are recorded, and the test can cut the connection."""

    def __init__(self, page: Page) -> None:
        self.sent: list[dict[str, Any]] = []
        self.routes: list[Any] = []
        page.route_web_socket(re.compile(r"/ws/"), self._route)

    def _route(self, ws: Any) -> None:
        server = ws.connect_to_server()
        self.routes.append(ws)

        def forward(message: str | bytes) -> None:
            if isinstance(message, str):
                self.sent.append(json.loads(message))
            server.send(message)

        ws.on_message(forward)

    def of_type(self, kind: str) -> list[dict[str, Any]]:
        return [m for m in self.sent if m.get("type") == kind]

    def wait_for(self, page: Page, kind: str, timeout: float = 10.0) -> dict[str, Any]:
        """The last message of ``kind`` the page sent (waiting with the page's clock: the sync
        API runs the route's handlers only inside its own calls)."""
        deadline = time.time() + timeout
        while time.time() < deadline:
            if self.of_type(kind):
                return self.of_type(kind)[-1]
            page.wait_for_timeout(50)
        raise AssertionError(f"the page sent no {kind} message: {self.sent}")


class FakeTable:
    """A websocket that answers the page with a given state message instead of the server's:
    for positions a random game rarely reaches (a ★ roll whose first shape fits nowhere, an empty
    supply with stones to take). The page, its scripts and /api/meta are the real server's."""

    def __init__(self, page: Page, message: dict[str, Any]) -> None:
        self.message = message
        self.sent: list[dict[str, Any]] = []
        page.route_web_socket(re.compile(r"/ws/"), self._route)

    def wait_for(self, page: Page, kind: str, timeout: float = 10.0) -> dict[str, Any]:
        """The first message of ``kind`` the page sent. Playwright's sync API runs the route's
        handlers only inside its own calls, so this waits with the page's clock, not time.sleep."""
        deadline = time.time() + timeout
        while time.time() < deadline:
            found = [m for m in self.sent if m.get("type") == kind]
            if found:
                return found[0]
            page.wait_for_timeout(50)
        raise AssertionError(f"the page sent no {kind} message: {self.sent}")

    def _route(self, ws: Any) -> None:
        def answer(message: str | bytes) -> None:
            data = json.loads(message)
            self.sent.append(data)
            if data.get("type") == "hello":
                ws.send(json.dumps(self.message))
            elif data.get("type") == "move":
                ws.send(json.dumps({"type": "ack", "id": data.get("id"), "seq": 1}))
            elif data.get("type") == "query":  # the point-token query: this placement takes none
                ws.send(json.dumps({"type": "answer", "id": data.get("id"), "tokens": [], "choices": []}))

        ws.on_message(answer)


def colour(page: Page, selector: str, pseudo: str | None = None, prop: str = "background-color") -> str:
    return str(page.evaluate("([s, p, prop]) => getComputedStyle(document.querySelector(s), p).getPropertyValue(prop)", [selector, pseudo, prop]))


def contrast(a: str, b: str) -> float:
    """WCAG contrast ratio of two CSS rgb()/rgba() colours (alpha ignored)."""

    def lum(css: str) -> float:
        r, g, b_ = (int(float(v)) / 255 for v in re.findall(r"[\d.]+", css)[:3])

        def f(c: float) -> float:
            return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4

        return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b_)

    hi, lo = sorted((lum(a), lum(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


__all__ = [
    "DESKTOP", "PHONE", "FakeTable", "LiveServer", "Page", "SocketSpy", "axe_violations", "browser",
    "colour", "contrast", "errors_of", "finished_room", "join", "new_room", "server", "state", "wait_until",
]
