"""What every HTTP request passes before the application sees it, and the uvicorn settings that
belong to the server's limits: the per-client request rate, the body size, the security headers
on every answer, and a deadline for a connection's first request."""

from __future__ import annotations

import asyncio
import json
import struct
from collections.abc import Mapping, Sequence
from typing import Any

from fastapi.responses import JSONResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from tabletris.i18n import _
from tabletris.server.errors import error_body, retry_after_header
from tabletris.server.limits import ClientLedger, Limits


def client_address(scope: Scope) -> str:
    """The client's address (the per-client limits' key)."""
    client = scope.get("client")
    return str(client[0]) if client else "unknown"


def allowed_origins(origins: Sequence[str]) -> frozenset[str]:
    """The ``origins`` option as ``same_site`` compares them."""
    return frozenset(o.rstrip("/").lower() for o in origins)


def same_site(headers: Mapping[str, str], allowed: frozenset[str]) -> bool:
    """Whether a request that names an Origin comes from this server's own pages (or from one
    of the ``allowed`` origins, for a proxy that rewrites the Host header). A request without
    one (bots, tests, programs) passes here; each caller says what more it asks of those."""
    origin = headers.get("origin")
    if origin is None:
        return True
    origin = origin.rstrip("/").lower()
    host = (headers.get("host") or "").lower()
    return origin in allowed or origin in (f"http://{host}", f"https://{host}")


class Guard:
    """Before the application sees an HTTP request: the per-client request rate (429) and the
    body size (413, before the body is read); on every answer, the security headers."""

    def __init__(self, app: ASGIApp, limits: Limits, ledger: ClientLedger) -> None:
        self.app = app
        self.limits = limits
        self.ledger = ledger

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = [(k, v) for k, v in message.get("headers", []) if k.lower() not in _HEADER_NAMES]
                message = {**message, "headers": headers + SECURITY_HEADERS}
            await send(message)

        client = client_address(scope)
        if not self.ledger.http(client):
            await _refuse(scope, receive, with_headers, 429, "rate_limited",
                          _("more than {rate:g} requests a second from this address: slow down").format(rate=self.limits.http_rate),
                          {"Retry-After": retry_after_header(self.ledger.http_wait(client))})
            return
        # A record upload is the one large body; the rest are small, and a large one is refused
        # before it is read or parsed (a 0.5 MB rules object cost the loop its JSON parse).
        limit = self.limits.body_bytes if scope.get("path") == "/api/replay" else self.limits.request_bytes
        headers = dict(scope.get("headers") or [])
        length = headers.get(b"content-length")
        if length is not None and (not length.isdigit() or len(length) > 12 or int(length) > limit):
            await _refuse(scope, receive, with_headers, 413, "too_large", f"the request body is over {limit} bytes")
            return
        received = 0

        async def limited() -> Message:
            nonlocal received
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > limit:
                    raise _BodyTooLarge
            return message

        try:
            await self.app(scope, limited, with_headers)
        except _BodyTooLarge:
            await _refuse(scope, receive, with_headers, 413, "too_large", f"the request body is over {limit} bytes")


SECURITY_HEADERS = [
    (
        b"content-security-policy",
        b"default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; "
        b"connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
    ),
    (b"x-content-type-options", b"nosniff"),
    (b"x-frame-options", b"DENY"),
    (b"referrer-policy", b"no-referrer"),
    (b"cross-origin-opener-policy", b"same-origin"),
]
"""Sent with every HTTP answer. The pages load only their own scripts (no inline script, no
third-party code: the origin holds seat tokens in localStorage), cannot be framed
(click-jacking), and no answer is sniffed into another type. Inline styles stay allowed: the
client sets element styles from script, which is no way to run code."""
_HEADER_NAMES = {k for k, _ in SECURITY_HEADERS}


FAST_QUEUE = 4
"""Messages read by ``guarded_ws``'s own reader that may wait for the app before the connection
stops reading (uvicorn's reader stops it after each one)."""
_HEADER16 = struct.Struct("!BBH")
_HEADER64 = struct.Struct("!BBQ")
"""A websocket frame's first bytes with a 16-bit and a 64-bit payload length (RFC 6455 5.2)."""


class _BodyTooLarge(Exception):
    pass


async def _refuse(
    scope: Scope, receive: Receive, send: Send, status: int, code: str, message: str, headers: dict[str, str] | None = None
) -> None:
    await JSONResponse(error_body(code, message), status_code=status, headers=headers)(scope, receive, send)


def uvicorn_options(limits: Limits | None = None) -> dict[str, Any]:
    """uvicorn settings that belong to the server's limits (serve, tests and benchmarks)."""
    limits = limits or Limits()
    options: dict[str, Any] = {
        "http": guarded_http(limits.header_timeout),
        "timeout_keep_alive": limits.keep_alive,
        "ws_ping_interval": limits.ws_ping,
        "ws_ping_timeout": limits.ws_ping,
        "ws_max_size": ws_max_size(limits),
        "ws_max_queue": 8,
    }
    ws = guarded_ws(limits)
    if ws is not None:
        options["ws"] = ws
    return options


def ws_max_size(limits: Limits) -> int:
    """The largest websocket message the server reads at all; a larger one is answered
    ``too_large`` and the connection closed (1009), since it was not read."""
    return max(limits.message_bytes * 4, 64 * 1024)


def guarded_ws(limits: Limits) -> type[asyncio.Protocol] | None:
    """uvicorn's websocket protocol (websockets' sans-I/O one) that answers a message over
    ``ws_max_size`` with the documented ``too_large`` error before its close (1009): the
    protocol refuses such a message before the application could see it, and a bare 1009
    close told the client nothing in the API's own words. Messages between ``message_bytes``
    and ``ws_max_size`` reach the application, which answers ``too_large`` and stays open.
    None with a uvicorn before 0.35 (no sans-I/O protocol): its own, with the bare 1009."""
    try:
        from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
        from websockets.frames import CloseCode, Frame, Opcode, apply_mask
        from websockets.protocol import State
        from websockets.streams import StreamReader
    except ImportError:
        return None
    at_frame_start = StreamReader.at_eof.__code__
    """Where websockets' parser waits between two frames (the first step of each frame)."""

    most = ws_max_size(limits)

    class GuardedWS(WebSocketsSansIOProtocol):
        """Also the room outboxes' writer (``connection.Frames``), offered to the app in the
        scope as ``tabletris.frames``: several frames in one write, without the ASGI layers."""

        def handle_connect(self, event: Any) -> None:
            super().handle_connect(event)
            scope = getattr(self, "scope", None)
            if scope is not None:
                scope["tabletris.frames"] = self

        def data_received(self, data: bytes) -> None:
            if not self._read_text(data):
                super().data_received(data)

        def _read_text(self, data: bytes) -> bool:
            """Read ``data`` here when it is exactly one whole text message, a masked final text
            frame (RFC 6455 5.2), and websockets' parser waits for a new frame: its generators,
            its ``Frame`` and events and uvicorn's dispatch of them were a fifth of the part of a
            move's CPU that reads it (issue 28, tenth round). False for anything else, which websockets reads as before: a frame in
            pieces or several in one read, control and binary frames, fragmented or compressed
            messages, invalid UTF-8 (closed 1007), a message over the size limit (1009), a
            connection closing.

            The connection stops reading only once ``FAST_QUEUE`` messages wait for the app
            (uvicorn stops it after every message and starts it again when the app reads: two
            changes of the event loop's watch on the socket per message)."""
            size = len(data)
            if size < 6 or data[0] != 0x81 or self.close_sent:
                return False
            length = data[1] ^ 0x80  # 0-127 only with the mask bit set
            start = 6
            if length == 126 and size >= 8:
                length = int.from_bytes(data[2:4], "big")
                start = 8
            elif length >= 126:
                return False
            conn = self.conn
            max_size = conn.max_message_size
            if (
                size != start + length or (max_size is not None and length > max_size)
                or conn.state is not State.OPEN or conn.extensions or conn.current_size is not None or conn.reader.buffer
            ):
                return False
            waiting: Any = conn.parser  # the server's parser, in it the frames' one, in it the step it waits in
            for _level in range(3):
                waiting = getattr(waiting, "gi_yieldfrom", None)
                if getattr(waiting, "gi_code", None) is at_frame_start:
                    break
            else:
                return False  # in the middle of a frame (or no longer parsing frames)
            try:
                text = apply_mask(data[start:], data[start - 4:start]).decode()
            except UnicodeDecodeError:
                return False
            queue = self.queue
            queue.put_nowait({"type": "websocket.receive", "text": text})
            if not self.read_paused and queue.qsize() >= FAST_QUEUE:
                self.read_paused = True
                self.transport.pause_reading()
            return True

        def write_texts(self, texts: Sequence[str]) -> bool:
            if self.disconnected or self.close_sent or not self.handshake_complete or self.transport.is_closing():
                raise ConnectionError("the websocket is closed")
            if not self.writable.is_set():
                return False
            conn = self.conn
            if conn.extensions or conn.expect_continuation_frame or conn.state is not State.OPEN:
                for text in texts:  # compressed (or closing): websockets frames them
                    conn.send_text(text.encode())
                self.transport.write(b"".join(conn.data_to_send()))
                return True
            # A server's text frame is a 2-10 byte header and the text (RFC 6455 5.2: FIN and
            # opcode 1, unmasked): made here, where websockets' Frame and its serializer cost
            # more than the rest of the write. Whatever the protocol queued (a pong) goes first.
            parts = conn.data_to_send()
            for text in texts:
                data = text.encode()
                size = len(data)
                if size < 126:
                    parts.append(bytes((0x81, size)))
                elif size < 65536:
                    parts.append(_HEADER16.pack(0x81, 126, size))
                else:
                    parts.append(_HEADER64.pack(0x81, 127, size))
                parts.append(data)
            self.transport.write(b"".join(parts))
            return True

        async def drained(self) -> None:
            await self.writable.wait()

        def handle_parser_exception(self) -> None:
            close = self.conn.close_sent
            if close is not None and close.code == CloseCode.MESSAGE_TOO_BIG and not self.transport.is_closing():
                body = error_body(
                    "too_large",
                    f"a message has at most {limits.message_bytes} bytes, and one over {most} is not read: "
                    "the connection is closed (1009)",
                )
                text = json.dumps({"type": "error", "id": None, **body}, separators=(",", ":"))
                self.transport.write(Frame(Opcode.TEXT, text.encode()).serialize(mask=False))
            super().handle_parser_exception()

    return GuardedWS


def guarded_http(header_timeout: float) -> type[asyncio.Protocol]:
    """uvicorn's HTTP protocol with a deadline for a connection's first request: uvicorn times
    out idle keep-alive connections only after a first answer, so a connection that never sends
    a request (or sends its headers a byte a minute) would otherwise stay open forever."""
    from uvicorn.protocols.http.auto import AutoHTTPProtocol

    class GuardedHTTP(AutoHTTPProtocol):  # type: ignore[misc, valid-type]
        def connection_made(self, transport: Any) -> None:
            super().connection_made(transport)
            self._first_request_deadline = asyncio.get_running_loop().call_later(
                header_timeout, self._first_request_late, transport
            )

        def _first_request_late(self, transport: Any) -> None:
            if getattr(self, "cycle", None) is None and transport.get_protocol() is self and not transport.is_closing():
                transport.close()

        def connection_lost(self, exc: Exception | None) -> None:
            self._first_request_deadline.cancel()
            super().connection_lost(exc)

    return GuardedHTTP


__all__ = ["SECURITY_HEADERS", "Guard", "client_address", "guarded_http", "guarded_ws", "uvicorn_options", "ws_max_size"]
