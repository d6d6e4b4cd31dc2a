"""Accounts beside guest play: a username and a password, and a database-backed cookie session.

Chosen: pwdlib's Argon2 hashes (argon2-cffi underneath) and a session table of our own, not
fastapi-users: fastapi-users models a user by email (its ``BaseUserManager`` and schemas), the
login here is a username checked for look-alikes like seat names, and its database strategy
would need an ORM session beside the server's Core engine. What is hand-written is small: a
random session id in an HttpOnly SameSite=Lax cookie, only its SHA-256 stored (a database leak
gives no live session), looked up on every request, so every instance sharing the database
knows every session (docs/api.md, "Accounts").
"""

from tabletris.server.accounts.core import (
    COOKIE,
    Account,
    Accounts,
    optional_account,
    required_account,
    sessions,
    users,
)

__all__ = [
    "COOKIE", "Account", "Accounts", "optional_account", "required_account", "sessions", "users",
]
