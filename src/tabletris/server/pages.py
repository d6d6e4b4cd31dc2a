"""The web client's pages and catalogs: each page in the player's language from its first paint,
the catalogs the page translates with, the favicon (the scripts and styles are ``/static``).

A page comes with its style sheet inline (nothing blocks its first paint), a description in the
player's language, and on the lobby this server's turn-timer bounds (the create form's field takes
them). ``/static`` answers with ``Cache-Control`` beside Starlette's ``ETag`` (:class:`StaticFiles`)."""

from __future__ import annotations

import contextlib
import html as htmllib
import json
import os
from pathlib import Path
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import FileResponse, HTMLResponse, Response
from fastapi.staticfiles import StaticFiles as _StaticFiles

from tabletris.engine.texts import N_
from tabletris.i18n import LanguageError, catalog_json, negotiate, parse_language, translate
from tabletris.server.accounts.core import COOKIE as SESSION_COOKIE
from tabletris.server.errors import ActionError
from tabletris.server.models import ERRORS

STATIC = Path(__file__).parent / "static"


LANG_COOKIE = "tabletris_lang"
"""The language a player chose in the page's menu; read before ``Accept-Language``."""


def page_language(request: Request) -> str:
    """The page's language: the player's choice (cookie), else the browser's ``Accept-Language``."""
    chosen = request.cookies.get(LANG_COOKIE)
    if chosen:
        with contextlib.suppress(LanguageError):
            return parse_language(chosen)
    return negotiate(request.headers.get("accept-language"))


STATIC_CACHE = "public, max-age=3600"
"""How long a browser keeps a script or the style sheet before it asks again (with the ETag, so an
unchanged file costs a 304). An hour, not a year: the files keep their names from one release to
the next, and a page must not run last release's modules for long after an upgrade."""


class StaticFiles(_StaticFiles):
    """Starlette's static files with :data:`STATIC_CACHE` on every answer (a 304 too)."""

    def file_response(self, full_path: str | os.PathLike[str], stat_result: os.stat_result, scope: Any, status_code: int = 200) -> Response:
        response = super().file_response(full_path, stat_result, scope, status_code)
        response.headers["Cache-Control"] = STATIC_CACHE
        return response


DESCRIPTIONS: dict[str, str] = {
    "index.html": N_("Play tabletris in the browser: the dice game on a shared board and the tower game, with friends, bots and a turn timer."),
    "room.html": N_("A tabletris table: play your turn, or watch the game live, with the room's chat and rules."),
    "rules.html": N_("The rules of the tabletris games, with every house rule and each preset's value."),
    "replay.html": N_("Watch a tabletris game again move by move, from a finished room or a record file."),
    "auth.html": N_("Log in to tabletris, or register an account: a profile, ratings and Play now."),
    "account.html": N_("Your tabletris account: change your password, export your games, or delete the account."),
    "player.html": N_("A tabletris player's profile: games played and won, the rating and its history, recent games."),
    "ratings.html": N_("The ranking of tabletris players in a game, by rating."),
    "tutorial.html": N_("A guided first game of tabletris: a few short steps that teach the rules by playing."),
    "games.html": N_("Your tabletris games: those waiting for your move first, with the time you have left."),
}
"""Each page's ``<meta name="description">`` (in the player's language)."""

_PAGES: dict[tuple[str, str, str], str] = {}


def _style() -> str:
    """The style sheet, put inline in every page: the pages draw nothing before their scripts
    run, and a linked sheet would hold their first paint back for one more request."""
    return "<style>" + (STATIC / "style.css").read_text(encoding="utf-8").replace("</", "<\\/") + "</style>"


def page_html(name: str, lang: str, data: dict[str, str] | None = None) -> str:
    """A page with its language set on ``<html>`` by the server, so the client renders in it from
    the first paint (no English flash): ``lang`` (BCP 47) and ``data-lang`` (the catalog's code),
    with ``data`` as more ``data-*`` attributes there; its description in that language, and the
    style sheet inline."""
    extra = "".join(f' data-{k}="{htmllib.escape(v)}"' for k, v in sorted((data or {}).items()))
    html = _PAGES.get((name, lang, extra))
    if html is None:
        text = (STATIC / name).read_text(encoding="utf-8")
        text = text.replace('<html lang="en">', f'<html lang="{lang.replace("_", "-")}" data-lang="{lang}"{extra}>', 1)
        about = DESCRIPTIONS.get(name)
        if about:
            tag = f'<meta name="description" content="{htmllib.escape(translate(about, lang, "web"))}">'
            text = text.replace('<meta name="viewport"', tag + '\n<meta name="viewport"', 1)
        html = text.replace('<link rel="stylesheet" href="/static/style.css">', _style(), 1)
        _PAGES[(name, lang, extra)] = html
    return html


_CATALOGS: dict[str, bytes] = {}


def catalog_bytes(lang: str) -> bytes:
    """The web client's catalog as JSON, built once per language per process (the ``.po`` files
    ship with the package and do not change while it runs)."""
    data = _CATALOGS.get(lang)
    if data is None:
        data = json.dumps(catalog_json(lang), ensure_ascii=False, separators=(",", ":")).encode()
        _CATALOGS[lang] = data
    return data


def pages_router() -> APIRouter:
    """The catalog route (in the OpenAPI document) and the pages (not in it)."""
    router = APIRouter()

    @router.get("/api/i18n/{lang}", responses={404: ERRORS[404]}, tags=["meta"])
    async def i18n_catalog(lang: str) -> Response:
        """The web client's messages in ``lang`` (``cs``, ``zh_CN``, ``en``): the engine's and the
        web's gettext catalogs, with the plural rule for ``Intl.PluralRules`` and the language menu."""
        try:
            code = parse_language(lang)
        except LanguageError as e:
            raise ActionError("unknown_language", str(e)) from None
        return Response(catalog_bytes(code), media_type="application/json",
                        headers={"Cache-Control": "public, max-age=3600"})

    # ------------------------------------------------------------------ pages

    def page(name: str, request: Request, data: dict[str, str] | None = None) -> HTMLResponse:
        # A page asked with a session cookie says so (``data-session``), so a guest's page asks
        # nobody who is logged in; whether the session is still valid the page asks GET /api/me.
        if SESSION_COOKIE in request.cookies:
            data = {**(data or {}), "session": ""}
        return HTMLResponse(page_html(name, page_language(request), data), headers={"Vary": "Accept-Language, Cookie"})

    @router.get("/", include_in_schema=False)
    async def index(request: Request) -> HTMLResponse:
        # The create form's speeds: this server's bounds, and what a blank field gets.
        lobby = getattr(request.app.state, "lobby", None)
        limits = getattr(lobby, "limits", None)
        data = {} if limits is None else {
            "timer-min": f"{limits.timer_min:g}", "timer-max": f"{limits.timer_max:g}", "timer-default": f"{limits.default_timer:g}",
            "clock-min": f"{limits.clock_min:g}", "clock-max": f"{limits.clock_max:g}", "increment-max": f"{limits.increment_max:g}",
            "turn-min": f"{limits.turn_min:.0f}", "turn-max": f"{limits.turn_max:.0f}", "expel-after": f"{limits.untimed_expel:.0f}",
        }
        return page("index.html", request, data)

    @router.get("/room/{room_id}", include_in_schema=False)
    async def room_page(room_id: str, request: Request) -> HTMLResponse:
        return page("room.html", request)

    @router.get("/rules", include_in_schema=False)
    async def rules_page(request: Request) -> HTMLResponse:
        return page("rules.html", request)

    @router.get("/replay", include_in_schema=False)
    async def replay_upload_page(request: Request) -> HTMLResponse:
        return page("replay.html", request)

    @router.get("/replay/{room_id}", include_in_schema=False)
    async def replay_page(room_id: str, request: Request) -> HTMLResponse:
        return page("replay.html", request)

    @router.get("/login", include_in_schema=False)
    async def login_page(request: Request) -> HTMLResponse:
        return page("auth.html", request)

    @router.get("/register", include_in_schema=False)
    async def register_page(request: Request) -> HTMLResponse:
        return page("auth.html", request)

    @router.get("/account", include_in_schema=False)
    async def account_page(request: Request) -> HTMLResponse:
        return page("account.html", request)

    @router.get("/players/{username}", include_in_schema=False)
    async def player_page(username: str, request: Request) -> HTMLResponse:
        return page("player.html", request)

    @router.get("/ratings/{game}", include_in_schema=False)
    async def ratings_page(game: str, request: Request) -> HTMLResponse:
        return page("ratings.html", request)

    @router.get("/games", include_in_schema=False)
    async def games_page(request: Request) -> HTMLResponse:
        return page("games.html", request)

    @router.get("/favicon.ico", include_in_schema=False)
    async def favicon() -> FileResponse:
        return FileResponse(STATIC / "favicon.svg", media_type="image/svg+xml")

    return router


__all__ = [
    "DESCRIPTIONS", "LANG_COOKIE", "STATIC", "STATIC_CACHE", "StaticFiles", "catalog_bytes", "page_html", "page_language",
    "pages_router",
]
