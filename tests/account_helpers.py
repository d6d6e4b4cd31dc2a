"""Accounts in tests: a registered, logged-in httpx client for a live server."""

from __future__ import annotations

import secrets

import httpx

PASSWORD = "correct horse battery"


def register(base: str, username: str, password: str = PASSWORD) -> dict[str, str]:
    """Register ``username``; the answer's ``{id, username}``."""
    r = httpx.post(base + "/api/auth/register", json={"username": username, "password": password}, timeout=10)
    assert r.status_code == 201, r.text
    body: dict[str, str] = r.json()
    return body


def logged_in(base: str, username: str | None = None, password: str = PASSWORD) -> httpx.Client:
    """A client with a session cookie for a new account (``username``: a random one if left
    out; ``client.account`` is its ``{id, username}``). Close it when done."""
    username = username or "p" + secrets.token_hex(4)
    account = register(base, username, password)
    client = httpx.Client(base_url=base, timeout=10)
    r = client.post("/api/auth/login", data={"username": username, "password": password})
    assert r.status_code == 204, r.text
    client.account = account  # type: ignore[attr-defined]
    return client
