"""The web client's pages and catalogs: each page in the player's language from its first paint,
the catalogs the page translates with, the favicon (the scripts and styles are ``/static``)."""

from __future__ import annotations

import contextlib
import json
from pathlib import Path

from fastapi import APIRouter, Request
from fastapi.responses import FileResponse, HTMLResponse, Response

from tabletris.i18n import LanguageError, catalog_json, negotiate, parse_language
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


_PAGES: dict[tuple[str, str], str] = {}


def page_html(name: str, lang: str) -> str:
    """A page with its language set on ``<html>`` by the server, so the client renders in it from
    the first paint (no English flash): ``lang`` (BCP 47) and ``data-lang`` (the catalog's code)."""
    html = _PAGES.get((name, lang))
    if html is None:
        text = (STATIC / name).read_text(encoding="utf-8")
        html = text.replace('<html lang="en">', f'<html lang="{lang.replace("_", "-")}" data-lang="{lang}">', 1)
        _PAGES[(name, lang)] = html
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

    def page(name: str, request: Request) -> HTMLResponse:
        return HTMLResponse(page_html(name, page_language(request)), headers={"Vary": "Accept-Language, Cookie"})

    @router.get("/", include_in_schema=False)
    async def index(request: Request) -> HTMLResponse:
        return page("index.html", request)

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

    @router.get("/favicon.ico", include_in_schema=False)
    async def favicon() -> FileResponse:
        return FileResponse(STATIC / "favicon.svg", media_type="image/svg+xml")

    return router


__all__ = ["LANG_COOKIE", "STATIC", "catalog_bytes", "page_html", "page_language", "pages_router"]
