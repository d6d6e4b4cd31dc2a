"""The account routes: register, log in and out, who am I."""

from __future__ import annotations

import json
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Request
from fastapi.responses import Response
from pydantic import BaseModel, Field

from tabletris.i18n import _
from tabletris.server.accounts.core import (
    COOKIE,
    SESSION_DAYS,
    Account,
    accounts_of,
    required_account,
)
from tabletris.server.errors import ActionError
from tabletris.server.guard import client_address
from tabletris.server.models import ERRORS, ErrorOut

AUTH_ERRORS: dict[int | str, dict[str, Any]] = {
    **ERRORS,
    401: {"model": ErrorOut, "description": "Not logged in (login_required), or a wrong username or password (bad_login)"},
    403: {"model": ErrorOut, "description": "A cookie-authenticated request from another site's page (bad_origin)"},
}


class CredentialsIn(BaseModel):
    username: str = Field(max_length=64)
    password: str = Field(max_length=256)


class PasswordChangeIn(BaseModel):
    current: str = Field(max_length=256)
    new: str = Field(max_length=256)


class PasswordIn(BaseModel):
    password: str = Field(max_length=256)


class AccountOut(BaseModel):
    id: str
    username: str


class MeOut(AccountOut):
    created: float


async def credentials(request: Request) -> tuple[Any, Any]:
    """Username and password as a form (the OAuth2 password convention) or as JSON."""
    if request.headers.get("content-type", "").startswith(("application/x-www-form-urlencoded", "multipart/form-data")):
        form = await request.form()
        return form.get("username"), form.get("password")
    try:
        body = json.loads(await request.body() or b"{}")
    except ValueError as e:
        raise ActionError("bad_json", _("the body is not JSON")) from e
    if not isinstance(body, dict):
        raise ActionError("bad_request", _("the body is an object with username and password"))
    return body.get("username"), body.get("password")


def accounts_router() -> APIRouter:
    router = APIRouter(tags=["accounts"])

    @router.post("/api/auth/register", response_model=AccountOut, status_code=201, responses=AUTH_ERRORS)
    async def register(request: Request, body: CredentialsIn) -> AccountOut:
        """A new account (a username checked for look-alikes like seat names; a password of 8
        to 256 characters, stored as an Argon2 hash). Does not log in."""
        accounts = accounts_of(request)
        accounts.check_origin(request)
        account = await accounts.register(body.username, body.password)
        return AccountOut(id=account.id, username=account.username)

    @router.post(
        "/api/auth/login", status_code=204, responses=AUTH_ERRORS,
        openapi_extra={"requestBody": {"content": {
            "application/x-www-form-urlencoded": {"schema": CredentialsIn.model_json_schema()},
            "application/json": {"schema": CredentialsIn.model_json_schema()},
        }}},
    )
    async def login(request: Request) -> Response:
        """Log in: sets the HttpOnly, SameSite=Lax ``tabletris_session`` cookie, always a new
        session id. Wrong password and unknown user get the same ``bad_login``."""
        accounts = accounts_of(request)
        accounts.check_origin(request)
        username, password = await credentials(request)
        account = await accounts.authenticate(username, password, client_address(request.scope))
        old = request.cookies.get(COOKIE)
        if old:
            await accounts.end_session(old)
        session_id = await accounts.start_session(account)
        response = Response(status_code=204)
        response.set_cookie(
            COOKIE, session_id, max_age=SESSION_DAYS * 86400, httponly=True, samesite="lax",
            secure=request.url.scheme == "https", path="/",
        )
        return response

    @router.post("/api/auth/logout", status_code=204, responses=AUTH_ERRORS)
    async def logout(request: Request) -> Response:
        """End this session (the cookie is cleared; the session is gone on every instance)."""
        accounts = accounts_of(request)
        accounts.check_origin(request)
        session_id = request.cookies.get(COOKIE)
        if session_id:
            await accounts.end_session(session_id)
        response = Response(status_code=204)
        response.delete_cookie(COOKIE, path="/", httponly=True, samesite="lax")
        return response

    @router.get("/api/me", response_model=MeOut, responses=AUTH_ERRORS)
    async def me(account: Annotated[Account, Depends(required_account)]) -> MeOut:
        """The logged-in account, or 401 ``login_required``."""
        return MeOut(id=account.id, username=account.username, created=account.created)

    @router.post("/api/me/password", status_code=204, responses=AUTH_ERRORS)
    async def change_password(
        request: Request, body: PasswordChangeIn, account: Annotated[Account, Depends(required_account)],
    ) -> Response:
        """A new password (the current one asked again); every other session of the account ends."""
        await accounts_of(request).change_password(account, body.current, body.new, request.cookies.get(COOKIE))
        return Response(status_code=204)

    @router.delete("/api/me", status_code=204, responses=AUTH_ERRORS)
    async def delete_me(
        request: Request, body: PasswordIn, account: Annotated[Account, Depends(required_account)],
    ) -> Response:
        """Delete the account (its password asked again): its sessions and ratings go, its games
        stay under a neutral name."""
        changed = await accounts_of(request).delete_account(account, body.password)
        await request.app.state.playnow.forget(account.id)
        await request.app.state.lobby.renamed(changed)  # every instance reads these rooms back
        response = Response(status_code=204)
        response.delete_cookie(COOKIE, path="/", httponly=True, samesite="lax")
        return response

    return router


__all__ = ["AccountOut", "CredentialsIn", "MeOut", "accounts_router"]
