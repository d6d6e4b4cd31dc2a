"""The server's logs: plain text for a terminal, or JSON lines for a log collector.

``--log-format json`` (or ``TABLETRIS_LOG_FORMAT=json``) writes one JSON object per event to
stderr: ``time`` (ISO 8601, UTC), ``level``, ``logger``, ``event`` (the message), and, where the
event belongs to a room, ``room`` and ``seat``; uvicorn's access lines add ``client``,
``method``, ``path`` and ``status``. The formatter is python-json-logger's: it is a formatter for
the stdlib ``logging`` that uvicorn and the server already log through (structlog would mean a
second logging pipeline, and wrapping uvicorn's), it is maintained, and it handles the escaping,
exceptions and extra fields a hand-made formatter would get subtly wrong.

The room and seat come from context variables set where a task starts working for a room (a
websocket's hello, ``Room.act``, a bot's turn): every line logged by that task then carries
them without each call naming them.

Seat tokens never reach a log line: ``RedactTokens`` runs on the handler (so on every record,
whichever logger it came from) in both formats, and no log call is given a token.
"""

from __future__ import annotations

import contextvars
import logging
import os
import re
from typing import Any

from pythonjsonlogger.core import RESERVED_ATTRS
from pythonjsonlogger.json import JsonFormatter

FORMATS = ("text", "json")

ROOM: contextvars.ContextVar[str | None] = contextvars.ContextVar("tabletris_room", default=None)
SEAT: contextvars.ContextVar[int | None] = contextvars.ContextVar("tabletris_seat", default=None)


def log_context(room: str | None, seat: int | None = None) -> None:
    """Name the room (and seat) the current task works for, in every line it logs from now on."""
    ROOM.set(room)
    SEAT.set(seat)


class RedactTokens(logging.Filter):
    """Masks anything shaped like a token in a query string (``token=...``) in log records: an
    old client may still put its seat token in the websocket URL, and the access log must never
    show it."""

    PATTERN = re.compile(r"(token=)[^&\s\"']+", re.IGNORECASE)

    def filter(self, record: logging.LogRecord) -> bool:
        if record.args:
            record.args = tuple(
                self.PATTERN.sub(r"\1***", a) if isinstance(a, str) else a
                for a in (record.args if isinstance(record.args, tuple) else (record.args,))
            )
        if isinstance(record.msg, str) and "token=" in record.msg.lower():
            record.msg = self.PATTERN.sub(r"\1***", record.msg)
        return True


class RoomContext(logging.Filter):
    """Adds ``room`` and ``seat`` from the context variables to records that do not name them."""

    def filter(self, record: logging.LogRecord) -> bool:
        if not hasattr(record, "room"):
            room = ROOM.get()
            if room is not None:
                record.room = room
                seat = SEAT.get()
                if seat is not None:
                    record.seat = seat
        return True


class JsonLines(JsonFormatter):
    """python-json-logger's formatter with the field names above, and uvicorn's access-log
    arguments as fields of their own."""

    def __init__(self) -> None:
        super().__init__(
            "%(levelname)s %(name)s %(message)s",
            rename_fields={"levelname": "level", "name": "logger", "message": "event"},
            timestamp="time",
            reserved_attrs=[*RESERVED_ATTRS, "color_message"],
        )

    def add_fields(self, log_data: dict[str, Any], record: logging.LogRecord, message_dict: dict[str, Any]) -> None:
        super().add_fields(log_data, record, message_dict)
        if record.name == "uvicorn.access" and isinstance(record.args, tuple) and len(record.args) == 5:
            client, method, path, _version, status = record.args
            log_data.update(client=client, method=method, path=path, status=status)


def default_format() -> str:
    """``$TABLETRIS_LOG_FORMAT`` (text or json), else text."""
    return os.environ.get("TABLETRIS_LOG_FORMAT", "text").strip().lower() or "text"


def log_config(fmt: str = "text", level: str = "info") -> dict[str, Any]:
    """A ``logging.config.dictConfig`` for uvicorn's ``log_config``: uvicorn's loggers and the
    server's (``tabletris``) to stderr, in ``fmt`` ("text" or "json")."""
    if fmt not in FORMATS:
        raise ValueError(f"log format {fmt!r}: expected one of {', '.join(FORMATS)}")
    level = level.upper()
    formatters: dict[str, Any] = {
        "json": {"()": JsonLines},
        "text": {"format": "%(asctime)s %(levelname)-7s %(name)s: %(message)s"},
        "access": {
            "()": "uvicorn.logging.AccessFormatter",
            "fmt": '%(asctime)s %(levelname)-7s %(client_addr)s - "%(request_line)s" %(status_code)s',
        },
    }
    filters = {"redact": {"()": RedactTokens}, "room": {"()": RoomContext}}
    handlers = {
        "default": {
            "class": "logging.StreamHandler", "stream": "ext://sys.stderr",
            "formatter": fmt, "filters": ["redact", "room"],
        },
        "access": {
            "class": "logging.StreamHandler", "stream": "ext://sys.stderr",
            "formatter": "json" if fmt == "json" else "access", "filters": ["redact", "room"],
        },
    }
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "formatters": formatters,
        "filters": filters,
        "handlers": handlers,
        "loggers": {
            "uvicorn": {"handlers": ["default"], "level": level, "propagate": False},
            "uvicorn.error": {"level": level},
            "uvicorn.access": {"handlers": ["access"], "level": level, "propagate": False},
            "tabletris": {"handlers": ["default"], "level": level, "propagate": False},
        },
    }


def install_log_redaction() -> None:
    """uvicorn's own loggers (access and errors) pass through ``RedactTokens`` too."""
    for name in ("uvicorn.access", "uvicorn.error"):
        logger = logging.getLogger(name)
        if not any(isinstance(f, RedactTokens) for f in logger.filters):
            logger.addFilter(RedactTokens())


__all__ = [
    "FORMATS", "JsonLines", "RedactTokens", "RoomContext", "default_format", "install_log_redaction", "log_config", "log_context",
]
