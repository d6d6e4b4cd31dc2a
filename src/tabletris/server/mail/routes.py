"""The mail routes: an account's own notification settings, and the one-click unsubscribe.

``GET/PUT /api/me/notifications`` read and set the account's address (checked before it is
stored, and shown to nobody but the account), its your-turn mail on/off and the mail's
language. ``/unsubscribe?token=...`` is the link in every mail: a GET shows a page with a
button (link scanners follow links: a GET changes nothing), a POST turns the mail off, from
that button or from a mail program's one-click unsubscribe (RFC 8058: no cookie, no Origin).
"""

from __future__ import annotations

import html as htmllib
from typing import Annotated

from fastapi import APIRouter, Depends, Query, Request
from fastapi.responses import HTMLResponse
from pydantic import BaseModel, Field, StrictBool

from tabletris.engine.texts import N_
from tabletris.i18n import LanguageError, _, parse_language, translate
from tabletris.server.accounts.core import Account, required_account
from tabletris.server.accounts.routes import AUTH_ERRORS
from tabletris.server.errors import ActionError
from tabletris.server.mail import store
from tabletris.server.mail.compose import verify
from tabletris.server.mail.config import check_address
from tabletris.server.mail.store import Settings
from tabletris.server.pages import _style, page_language
from tabletris.server.storage import Storage


class NotificationsOut(BaseModel):
    email: str | None = Field(description="The account's mail address (shown only to the account itself), or null")
    turn_mail: bool = Field(description="A mail when a turn-based game waits for your move and you are away")
    lang: str = Field(description="The mails' language: en, cs or zh_CN")
    available: bool = Field(description="Whether this server sends mail at all (tabletris serve --smtp)")


class NotificationsIn(BaseModel):
    email: str | None = Field(None, max_length=512, description="A mail address (checked: bad_email), or null to remove it")
    turn_mail: StrictBool = Field(False, description="Mail me when a turn-based game waits for my move and I am away (needs email)")
    lang: str | None = Field(None, max_length=16, description="en, cs or zh_CN (left out: the page's language)")


def _storage(request: Request) -> Storage:
    storage: Storage = request.app.state.lobby.storage
    return storage


def _available(request: Request) -> bool:
    return getattr(request.app.state, "mailer", None) is not None


def _language(value: str | None, request: Request) -> str:
    if value is None:
        return page_language(request)
    try:
        return parse_language(value)
    except LanguageError as e:
        raise ActionError("bad_request", f"lang: {e}") from None


def mail_router() -> APIRouter:
    router = APIRouter()

    @router.get("/api/me/notifications", response_model=NotificationsOut, responses=AUTH_ERRORS, tags=["accounts"])
    async def get_notifications(request: Request, account: Annotated[Account, Depends(required_account)]) -> NotificationsOut:
        """The account's mail settings (only its own: the address is never shown to others)."""
        found = await store.get_settings(_storage(request), account.id)
        if found is None:
            return NotificationsOut(email=None, turn_mail=False, lang=page_language(request), available=_available(request))
        return NotificationsOut(email=found.email, turn_mail=found.turn_mail, lang=found.lang, available=_available(request))

    @router.put("/api/me/notifications", response_model=NotificationsOut, responses=AUTH_ERRORS, tags=["accounts"])
    async def put_notifications(
        request: Request, body: NotificationsIn, account: Annotated[Account, Depends(required_account)],
    ) -> NotificationsOut:
        """Set the account's address, your-turn mail on or off, and the mails' language. The
        address is checked first (``bad_email``: not an address, or none while asking for mail);
        links in the mails lead to the address this request came to."""
        email = None if body.email is None or not body.email.strip() else check_address(body.email)
        if body.turn_mail and email is None:
            raise ActionError("bad_email", _("give a mail address to get your-turn mail"))
        lang = _language(body.lang, request)
        base_url = str(request.base_url).rstrip("/")
        await store.put_settings(_storage(request), account.id, Settings(email, body.turn_mail, lang, base_url))
        return NotificationsOut(email=email, turn_mail=body.turn_mail, lang=lang, available=_available(request))

    @router.get("/unsubscribe", include_in_schema=False)
    async def unsubscribe_page(request: Request, token: Annotated[str, Query(max_length=200)] = "") -> HTMLResponse:
        account_id, lang = await _token_account(request, token)
        if account_id is None:
            return _page(lang, gettext_in(lang, N_("This link is not valid")), [gettext_in(lang, N_("The link to stop the mails is damaged or was not made by this server."))], status=404)
        action = "/unsubscribe?token=" + htmllib.escape(token, quote=True)
        button = htmllib.escape(gettext_in(lang, N_("Stop the your-turn mails")))
        form = (
            f'<form method="post" action="{action}">'
            '<input type="hidden" name="List-Unsubscribe" value="One-Click">'
            f'<button type="submit" class="primary">{button}</button></form>'
        )
        return _page(lang, gettext_in(lang, N_("Your-turn mail")), [
            gettext_in(lang, N_("You get a mail when a turn-based game waits for your move and you are away.")),
        ], form)

    @router.post("/unsubscribe", include_in_schema=False)
    async def unsubscribe(request: Request, token: Annotated[str, Query(max_length=200)] = "") -> HTMLResponse:
        account_id, lang = await _token_account(request, token)
        if account_id is None:
            return _page(lang, gettext_in(lang, N_("This link is not valid")), [gettext_in(lang, N_("The link to stop the mails is damaged or was not made by this server."))], status=404)
        await store.unsubscribe(_storage(request), account_id)
        account = f'<p><a href="/account">{htmllib.escape(gettext_in(lang, N_("Your account")))}</a></p>'
        return _page(lang, gettext_in(lang, N_("No more your-turn mail")), [
            gettext_in(lang, N_("You will get no more your-turn mail. Turn it on again on your account page.")),
        ], account)

    return router


def gettext_in(lang: str, message: str) -> str:
    """A message (marked ``N_``) in ``lang``, from the web catalogs."""
    return translate(message, lang, "web")


async def _token_account(request: Request, token: str) -> tuple[str | None, str]:
    """The account a link's token names (None: not this server's) and the language to answer
    in: the one its mails are written in, else the page's."""
    storage = _storage(request)
    key = await store.signing_key(storage)
    account_id = verify(key, token) if token else None
    lang = page_language(request)
    if account_id is not None:
        found = await store.get_settings(storage, account_id)
        if found is None:
            return None, lang
        lang = found.lang
    return account_id, lang


def _page(lang: str, title: str, paragraphs: list[str], extra: str = "", status: int = 200) -> HTMLResponse:
    """A small page of its own, written by the server (it works in any mail program's browser,
    without the client's scripts)."""
    body = "".join(f"<p>{htmllib.escape(p)}</p>" for p in paragraphs)
    home = htmllib.escape(gettext_in(lang, N_("Back to the lobby")))
    text = (
        f'<!doctype html><html lang="{lang.replace("_", "-")}"><head><meta charset="utf-8">'
        f'<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{htmllib.escape(title)} · tabletris</title>{_style()}</head><body>"
        f'<header class="top"><h1><a href="/">tabletris</a></h1></header>'
        f'<main class="panel narrow"><h2>{htmllib.escape(title)}</h2>{body}{extra}<p><a href="/">{home}</a></p></main>'
        "</body></html>"
    )
    return HTMLResponse(text, status_code=status, headers={"Cache-Control": "no-store"})


__all__ = ["NotificationsIn", "NotificationsOut", "mail_router"]
