"""Refresh the web client's screenshots in docs/screenshots/ (desktop 1280x860 and phone 390x844).

Starts the server on 127.0.0.1 with a throw-away database, plays a few moves of each game in
Debian's Chromium (through Playwright, as the browser tests do) and photographs the tables, a
player's profile with its rating chart (after a few rated games between two accounts) and the lobby
as an account sees it:

    .venv/bin/python scripts/screenshots.py [--out docs/screenshots] [--lang cs]

With ``--lang`` (``cs``, ``zh_CN``) the pages are shown in that language (the browser's
Accept-Language) and every file name ends in ``_<lang>``.
"""

from __future__ import annotations

import argparse
import socket
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import httpx
import uvicorn
from playwright import sync_api

from tabletris.i18n import parse_language
from tabletris.server.app import create_app
from tabletris.server.limits import Limits

CHROMIUM = "/usr/bin/chromium"
# Playwright's waits on string predicates use eval, which the server's CSP forbids the pages.
DESKTOP: dict[str, Any] = {"viewport": {"width": 1280, "height": 860}, "bypass_csp": True}
PHONE: dict[str, Any] = {"viewport": {"width": 390, "height": 844}, "has_touch": True, "is_mobile": True, "device_scale_factor": 2, "bypass_csp": True}


def serve(db: Path) -> tuple[str, uvicorn.Server, threading.Thread]:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(create_app(f"sqlite+aiosqlite:///{db}", bot_delay=0.05, limits=Limits.unlimited_clients()), host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    while not server.started:
        time.sleep(0.05)
    return f"http://127.0.0.1:{port}", server, thread


def room(url: str, game: str, seats: list[str], rules: dict[str, Any] | None = None, timer: int | None = None) -> str:
    body = {"game": game, "rules": rules or {}, "seats": [{"kind": k} for k in seats], "timer": timer}
    return str(httpx.post(url + "/api/rooms", json=body).json()["id"])


def sit(page: Any, url: str, room_id: str, name: str) -> None:
    page.goto(f"{url}/room/{room_id}")
    page.fill("#join-name", name)
    page.click("[data-join='0']")


def play_dice(page: Any, moves: int) -> None:
    """Place ``moves`` pieces where the ghost starts, confirming each."""
    for _ in range(moves):
        page.wait_for_selector("#place:visible", timeout=20000)
        page.locator(".cell.ghost").last.wait_for()
        page.click("#place")
        page.click("#confirm")
        page.wait_for_selector("#confirm", state="hidden")
    page.wait_for_selector("#place:visible", timeout=20000)
    page.locator(".cell.ghost").last.wait_for()


def play_tower(page: Any, rounds: int) -> None:
    for k in range(rounds):
        page.wait_for_function(f"document.querySelectorAll('#log li').length >= {k}", timeout=20000)
        page.wait_for_selector("#place:visible", timeout=20000)
        page.locator(".cell.ghost").last.wait_for()
        page.click("#place")
    page.wait_for_function(f"document.querySelectorAll('#log li').length >= {rounds}", timeout=20000)
    page.wait_for_selector("#place:visible", timeout=20000)


PASSWORD = "screenshots only"


def account(url: str, name: str) -> httpx.Client:
    """A registered, logged-in client (its session cookie also goes into the browser)."""
    httpx.post(url + "/api/auth/register", json={"username": name, "password": PASSWORD}).raise_for_status()
    client = httpx.Client(base_url=url, timeout=10)
    client.post("/api/auth/login", data={"username": name, "password": PASSWORD}).raise_for_status()
    return client


def rated_game(winner: httpx.Client, loser: httpx.Client) -> None:
    """A rated dice game of two accounts: ``loser`` resigns, ``winner`` plays the first legal
    placement of each turn to the end (the resigned seat's bot plays the other)."""
    room_id = winner.post("/api/rooms", json={"game": "dice", "rated": True, "seats": [{"kind": "open"}, {"kind": "open"}]}).json()["id"]
    mine = winner.post(f"/api/rooms/{room_id}/join", json={"name": "x"}).json()
    theirs = loser.post(f"/api/rooms/{room_id}/join", json={"name": "x"}).json()
    loser.post(f"/api/rooms/{room_id}/leave", headers={"X-Seat-Token": theirs["token"]}).raise_for_status()
    token = {"X-Seat-Token": mine["token"]}
    while True:
        state = winner.get(f"/api/rooms/{room_id}", headers=token).json()
        game = state["game"]
        if game and game["over"]:
            return
        if game and game["to_move"] == mine["seat"] and state["private"] and state["private"].get("options"):
            opt, form = next((o, f) for o in state["private"]["options"] for f in o["orientations"] if f["places"])
            x, y = form["places"][0]
            move: dict[str, Any] = {"place": [[x + dx, y + dy] for dx, dy in form["cells"]], "shape": opt["shape"], "turn": game["turn"]}
            if opt["take"]:
                move["take"] = opt["take"]["cells"]
            if "rows" in form:
                move["rewards"] = ["point"] * form["rows"][0]
            winner.post(f"/api/rooms/{room_id}/moves", json=move, headers=token)
        else:
            time.sleep(0.05)


def profile_shots(url: str, browser: Any, out: Path, tag: str, locale: dict[str, str]) -> None:
    """Two accounts play rated games (each wins some): Ann's profile with its rating chart at
    both sizes, and the lobby as Ann sees it (Play now, the lists and their filters)."""
    ann, bob = account(url, "Ann"), account(url, "Bob")
    for ann_wins in (True, True, False, True, False, True):
        if ann_wins:
            rated_game(ann, bob)
        else:
            rated_game(bob, ann)
    while httpx.get(f"{url}/api/players/Ann").json()["games"].get("dice", {}).get("played", 0) < 6:
        time.sleep(0.2)
    cookie = [{"name": "tabletris_session", "value": ann.cookies["tabletris_session"], "url": url}]
    for kind, ctx_args in (("desktop", DESKTOP), ("phone", PHONE)):
        ctx = browser.new_context(**ctx_args, **locale)
        ctx.add_cookies(cookie)
        page = ctx.new_page()
        page.goto(f"{url}/players/Ann")
        page.wait_for_selector("#chart-dice")
        time.sleep(0.3)
        page.screenshot(path=str(out / f"web_profile_{kind}{tag}.png"))
        if kind == "desktop":
            page.goto(url + "/")
            page.wait_for_selector("#playnow-btn")
            time.sleep(0.3)
            page.screenshot(path=str(out / f"web_lobby_account{tag}.png"))
        ctx.close()
    ann.close()
    bob.close()


def shoot(page: Any, path: Path, phone: bool) -> None:
    """The table without passing messages; on a phone, scrolled so the status line is at the top."""
    page.evaluate("document.querySelectorAll('.toast').forEach((t) => t.remove())")
    top = page.evaluate("document.querySelector('#status').getBoundingClientRect().top + window.scrollY - 56") if phone else 0
    page.evaluate(f"window.scrollTo(0, {top})")
    time.sleep(0.6)  # the die's roll and the fresh stones' flash settle
    page.screenshot(path=str(path))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path(__file__).resolve().parent.parent / "docs" / "screenshots")
    parser.add_argument("--lang", default="en", help="the pages' language: en, cs or zh_CN (default en)")
    args = parser.parse_args()
    lang = parse_language(args.lang)
    tag = "" if lang == "en" else f"_{lang}"
    locale = {"locale": lang.replace("_", "-")}
    args.out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        url, server, thread = serve(Path(tmp) / "shots.sqlite3")
        try:
            with sync_api.sync_playwright() as p:
                browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"])
                for kind, ctx_args in (("desktop", DESKTOP), ("phone", PHONE)):
                    ctx = browser.new_context(**ctx_args, **locale)
                    page = ctx.new_page()
                    sit(page, url, room(url, "dice", ["open", "greedy", "random"], timer=90), "Ann")
                    play_dice(page, 4)
                    shoot(page, args.out / f"web_dice_{kind}{tag}.png", kind == "phone")
                    sit(page, url, room(url, "tower", ["open", "greedy", "random"]), "Ann")
                    play_tower(page, 5)
                    shoot(page, args.out / f"web_tower_{kind}{tag}.png", kind == "phone")
                    ctx.close()
                ctx = browser.new_context(**DESKTOP, **locale)
                page = ctx.new_page()
                done = room(url, "dice", ["greedy", "random"], {"width": 8, "height": 12})
                while httpx.get(f"{url}/api/rooms/{done}").json()["room"]["status"] != "over":
                    time.sleep(0.2)
                page.goto(f"{url}/replay/{done}")
                page.wait_for_selector("#viewer:not(.hidden)")
                page.screenshot(path=str(args.out / f"web_replay{tag}.png"))
                page.goto(f"{url}/rules")
                page.wait_for_selector("#tower")
                page.screenshot(path=str(args.out / f"web_rules{tag}.png"))
                profile_shots(url, browser, args.out, tag, locale)
                browser.close()
        finally:
            server.should_exit = True
            thread.join(10)
    for f in sorted(args.out.glob(f"web_*{tag}.png")):
        print(f)


if __name__ == "__main__":
    main()
