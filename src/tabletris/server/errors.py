"""The server's one kind of refusal and how it is answered: a code for programs, a sentence for people.

Every module of the server raises ``ActionError``; the HTTP routes answer it with ``STATUS``'s
status and ``error_body``, the websocket with an ``error`` message of the same body. This module
imports no web framework: the bot and replay worker processes unpickle ``ActionError`` from here.
"""

from __future__ import annotations

import math
from typing import Any

from tabletris.engine.texts import Message


class ActionError(Exception):
    """A client's message that cannot be accepted: ``code`` for programs, ``message`` for people."""

    def __init__(self, code: str, message: str, retry_after: float | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.retry_after = retry_after
        """Seconds until the same request may succeed (a rate limit): the HTTP answer's
        ``Retry-After``."""

    def __reduce__(self) -> tuple[Any, tuple[str, str, float | None]]:
        """Pickled as (code, message, retry_after): it comes back from the replay and bot processes."""
        return (ActionError, (self.code, self.message, self.retry_after))


def engine_text(e: BaseException) -> str:
    """An engine error's text, keeping its :class:`Message` (template and parameters) when it has
    one: ``str(e)`` would flatten it to English, and the web client translates from the template."""
    first = e.args[0] if e.args else None
    return first if isinstance(first, Message) else str(e)


STATUS = {
    "unknown_room": 404,
    "unknown_language": 404,
    "not_found": 404,
    "not_queued": 404,
    "method_not_allowed": 405,
    "login_required": 401,
    "bad_login": 401,
    "bad_origin": 403,
    "bad_token": 403,
    "not_seated": 403,
    "wrong_seat": 403,
    "not_your_turn": 409,
    "stale_move": 409,
    "seat_taken": 409,
    "seat_reserved": 409,
    "room_full": 409,
    "name_taken": 409,
    "username_taken": 409,
    "not_started": 409,
    "game_over": 409,
    "not_over": 409,
    "already_matched": 409,
    "too_late": 409,
    "too_early": 409,
    "too_large": 413,
    "rate_limited": 429,
    "too_many_rooms": 429,
    "server_full": 503,
    "storage": 503,
}
"""HTTP status for each error code; every other code is 422 (the request itself is wrong)."""

def retry_after_header(seconds: float) -> str:
    """``Retry-After`` in whole seconds (RFC 9110 allows no fraction), at least 1."""
    return str(max(1, math.ceil(seconds)))


def error_body(code: str, message: str) -> dict[str, Any]:
    """The one error body (docs/api.md, "Errors"): a code for programs, a sentence for people.

    An engine text (a rule violation) also travels as its template and parameters (``text``), so
    the web client shows it in the player's language; ``message`` stays the English."""
    body: dict[str, Any] = {"error": code, "message": str(message)}
    if isinstance(message, Message):
        body["text"] = message.as_json()
    return body


def describe(errors: Any) -> str:
    """Pydantic's errors as one line: ``place.0: Input should be a valid integer; ...``."""
    parts = []
    for err in list(errors)[:5]:
        where = ".".join(str(p) for p in err.get("loc", ()) if p != "body") or "message"
        parts.append(f"{where}: {err.get('msg', 'invalid')}")
    return "; ".join(parts)


__all__ = ["STATUS", "ActionError", "describe", "engine_text", "error_body", "retry_after_header"]
