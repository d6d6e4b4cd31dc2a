"""The FastAPI application: HTTP API, websocket protocol and the static web client.

``create_app(db_url)`` builds an app around one ``Lobby``; the lobby is opened in the app's
lifespan, which replays every live stored room, so a server restarted after a crash resumes
every game where its last acknowledged move left it.

Websocket protocol (``/ws/{room}``): the client's first message is ``{"type": "hello", "token":
SEAT_TOKEN}`` (a spectator leaves the token out), within ``hello_timeout`` seconds; the token
never appears in a URL, so no access log or proxy log holds it. Then the client sends JSON
objects with a ``type`` (``move``, ``query``, ``chat``, ``rematch``, ``resign``, ``leave``,
``state``, ``ping``) and an optional ``id``; the server answers ``ack`` / ``error`` / ``answer`` /
``pong`` carrying that id, sends a ``state`` message to everybody in the room after every
change and a small ``presence`` message when someone connects or leaves. Errors go to the
client that caused them only; the room and the connection stay up.

Every limit is in ``server/limits.py`` and answered with ``{"error": CODE, "message": TEXT}``.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import hmac
import json
import logging
import os
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator, Sequence
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path
from typing import Annotated, Any

from fastapi import Body, FastAPI, Header, Query, Request, WebSocket
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, HTMLResponse, JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from pydantic import ValidationError
from sqlalchemy import text as sql_text
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send
from starlette.websockets import WebSocketDisconnect

from tabletris.bots.external import allowed_commands
from tabletris.bots.registry import bot_names, bots_for
from tabletris.engine.errors import IllegalMove, RecordError
from tabletris.engine.games import spec
from tabletris.engine.options import RulesError
from tabletris.engine.records import check_common, load
from tabletris.engine.shapes import Shape
from tabletris.engine.texts import Message as EngineText
from tabletris.i18n import LanguageError, _, catalog_json, negotiate, parse_language
from tabletris.server.adapter import GameAdapter
from tabletris.server.bus import Bus, LocalBus, RedisBus
from tabletris.server.errors import ActionError
from tabletris.server.games import ADAPTERS, adapter_for
from tabletris.server.leases import Leases, LocalLeases, RedisLeases
from tabletris.server.limits import Bucket, ClientLedger, Limits
from tabletris.server.logs import RedactTokens, log_context
from tabletris.server.metrics import CONTENT_TYPE
from tabletris.server.models import (
    CreateRoomIn,
    ErrorOut,
    GameMeta,
    JoinIn,
    JoinOut,
    LeaveOut,
    MetaOut,
    MoveIn,
    MoveOut,
    ReplayOut,
    RoomOut,
    StateOut,
)
from tabletris.server.rooms import ENDED, TIMER_BOT, Connection, Lobby, Room
from tabletris.server.storage import Storage

log = logging.getLogger("tabletris.server")

STATIC = Path(__file__).parent / "static"

STATUS = {
    "unknown_room": 404,
    "unknown_language": 404,
    "not_found": 404,
    "method_not_allowed": 405,
    "bad_token": 403,
    "not_seated": 403,
    "wrong_seat": 403,
    "not_your_turn": 409,
    "stale_move": 409,
    "seat_taken": 409,
    "seat_reserved": 409,
    "room_full": 409,
    "name_taken": 409,
    "not_started": 409,
    "game_over": 409,
    "not_over": 409,
    "too_large": 413,
    "rate_limited": 429,
    "too_many_rooms": 429,
    "server_full": 503,
    "storage": 503,
}
"""HTTP status for each error code; every other code is 422 (the request itself is wrong)."""

ERRORS: dict[int | str, dict[str, Any]] = {
    403: {"model": ErrorOut, "description": "Wrong or missing seat token"},
    404: {"model": ErrorOut, "description": "Unknown room"},
    409: {"model": ErrorOut, "description": "Not now: not your turn, a stale move, seat taken, game over ..."},
    413: {"model": ErrorOut, "description": "Body too large"},
    422: {"model": ErrorOut, "description": "Malformed request, bad rules or an illegal move"},
    429: {"model": ErrorOut, "description": "Too many requests or rooms from this address"},
    503: {"model": ErrorOut, "description": "The move could not be stored, or the server is full; nothing changed"},
}


GC_THRESHOLDS = (700, 10, 1000)
"""The collector's thresholds while serving: CPython's defaults (700, 10, 10) except the last.

A full collection walks every live object and stops the event loop meanwhile: with 500 rooms
(1000 connections and their games) that took 150-300 ms on the 2-core test machine, and with
the default thresholds it came every 2-3 s (whenever the heap had grown by a quarter, which it
does fast while games fill up), so every move in flight waited for it: that was the load
benchmark's 0.5 s p99. A full collection is now considered after 1000 middle-generation ones
instead of 10 (about 7 million allocations, several minutes at that load). The young
generations keep their default sizes: young and middle collections stay a few milliseconds
(larger young generations made them 10-120 ms), and cycles among young objects are still
collected within milliseconds."""


@contextmanager
def paced_gc() -> Iterator[None]:
    """Serve with ``GC_THRESHOLDS``, and move everything alive at start-up (modules, the rooms
    restored from the database) out of the collector's sight: it lives as long as the server, so
    walking it again on every full collection is pure pause. Restored on exit (tests run many
    servers in one process)."""
    old = gc.get_threshold()
    gc.collect()
    gc.freeze()
    gc.set_threshold(*GC_THRESHOLDS)
    try:
        yield
    finally:
        gc.set_threshold(*old)
        gc.unfreeze()


def default_db_url() -> str:
    """``TABLETRIS_DB`` if set, else ``tabletris.sqlite3`` in the current directory."""
    return os.environ.get("TABLETRIS_DB") or "sqlite+aiosqlite:///" + str(Path("tabletris.sqlite3").resolve())


def error_body(code: str, message: str) -> dict[str, Any]:
    """The one error body (docs/api.md, "Errors"): a code for programs, a sentence for people.

    An engine text (a rule violation) also travels as its template and parameters (``text``), so
    the web client shows it in the player's language; ``message`` stays the English."""
    body: dict[str, Any] = {"error": code, "message": str(message)}
    if isinstance(message, EngineText):
        body["text"] = message.as_json()
    return body


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


def _client(scope: Scope) -> str:
    client = scope.get("client")
    return str(client[0]) if client else "unknown"


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

        if not self.ledger.http(_client(scope)):
            await _refuse(scope, receive, with_headers, 429, "rate_limited",
                          _("more than {rate:g} requests a second from this address: slow down").format(rate=self.limits.http_rate))
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


class _BodyTooLarge(Exception):
    pass


async def _refuse(scope: Scope, receive: Receive, send: Send, status: int, code: str, message: str) -> None:
    await JSONResponse(error_body(code, message), status_code=status)(scope, receive, send)


def install_log_redaction() -> None:
    for name in ("uvicorn.access", "uvicorn.error"):
        logger = logging.getLogger(name)
        if not any(isinstance(f, RedactTokens) for f in logger.filters):
            logger.addFilter(RedactTokens())


def uvicorn_options(limits: Limits | None = None) -> dict[str, Any]:
    """uvicorn settings that belong to the server's limits (serve, tests and benchmarks)."""
    limits = limits or Limits()
    return {
        "http": guarded_http(limits.header_timeout),
        "timeout_keep_alive": limits.keep_alive,
        "ws_ping_interval": limits.ws_ping,
        "ws_ping_timeout": limits.ws_ping,
        "ws_max_size": max(limits.message_bytes * 4, 64 * 1024),
        "ws_max_queue": 8,
    }


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


def game_meta(name: str, adapter: GameAdapter) -> GameMeta:
    """A game's entry in ``/api/meta``: what its spec says a front end needs (names, seats, the
    bots it offers, its web view's script) and the adapter's rules and options."""
    game = spec(name)
    view = game.front_ends.get("web")
    return GameMeta(
        title=game.title,
        label=game.label,
        simultaneous=game.simultaneous,
        min_seats=game.min_players,
        max_seats=adapter.max_seats,
        bots=[*bots_for(name), *(c for c in allowed_commands() if game.offers(c))],
        view=None if view is None else "/static/" + view,
        **adapter.rules_meta(),
    )


def error_response(e: ActionError) -> JSONResponse:
    return JSONResponse(error_body(e.code, e.message), status_code=STATUS.get(e.code, 422))


def create_app(
    db_url: str | None = None,
    bot_delay: float = 0.4,
    limits: Limits | None = None,
    origins: Sequence[str] = (),
    redis_url: str | None = None,
    lease_ttl: float = 5.0,
    metrics_token: str | None = None,
) -> FastAPI:
    """The server application, storing its rooms at ``db_url`` (see ``default_db_url``).

    ``limits``: see ``server/limits.py``. ``origins``: websocket origins allowed besides the
    server's own (``https://table.example`` behind a proxy that rewrites the Host header).
    ``redis_url``: one of several instances sharing the database: room changes fan out through
    Redis pub/sub, and bots and timers run under Redis leases of ``lease_ttl`` seconds
    (docs/api.md, "Several instances").
    ``metrics_token``: a bearer token that opens ``/metrics`` to other machines (default
    ``$TABLETRIS_METRICS_TOKEN``; without one, only this machine may read it: see ``observer``)."""
    limits = limits or Limits()
    storage = Storage(db_url or default_db_url())
    bus: Bus = LocalBus()
    leases: Leases = LocalLeases(lease_ttl)
    if redis_url:
        bus = RedisBus(redis_url)
        leases = RedisLeases(redis_url, bus.instance, lease_ttl)
    lobby = Lobby(storage, bot_delay=bot_delay, limits=limits, bus=bus, leases=leases)
    install_log_redaction()
    allowed_origins = {o.rstrip("/").lower() for o in origins}

    database_check = DatabaseCheck(storage)

    @asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        await lobby.open()
        database_check.remember()
        try:
            with paced_gc():
                yield
        finally:
            await lobby.close()
            if redis_check is not None:
                await redis_check.close()

    app = FastAPI(
        title="tabletris",
        version="1",
        summary="The online table for the dice and tower Tetris games.",
        description="Rooms, seats with secret tokens, moves checked by the game engine, records and replays. "
        "Live play uses the websocket at /ws/{room_id}; see docs/api.md.",
        lifespan=lifespan,
        # No /docs or /redoc: FastAPI's pages load Swagger UI and ReDoc from a CDN, third-party
        # script on the origin that keeps seat tokens. The OpenAPI document stays.
        docs_url=None,
        redoc_url=None,
    )
    app.state.lobby = lobby
    app.add_middleware(Guard, limits=limits, ledger=lobby.ledger)

    @app.exception_handler(ActionError)
    async def _action_error(_request: Request, e: ActionError) -> JSONResponse:
        return error_response(e)

    @app.exception_handler(RequestValidationError)
    async def _validation_error(_request: Request, e: RequestValidationError) -> JSONResponse:
        return JSONResponse(error_body("bad_request", _describe(e.errors())), status_code=422)

    @app.exception_handler(StarletteHTTPException)
    async def _http_error(_request: Request, e: StarletteHTTPException) -> JSONResponse:
        code = {404: "not_found", 405: "method_not_allowed"}.get(e.status_code, "bad_request")
        return JSONResponse(error_body(code, str(e.detail)), status_code=e.status_code, headers=e.headers)

    @app.exception_handler(RecursionError)
    async def _too_deep(_request: Request, _e: RecursionError) -> JSONResponse:
        return JSONResponse(error_body("bad_json", "the JSON is nested too deeply"), status_code=422)

    # ------------------------------------------------------------------ API

    def seat_of(room: Room, token: str | None) -> int:
        return room.authenticate(token)

    def client_of(request: Request) -> str:
        return request.client.host if request.client else "unknown"

    # ------------------------------------------------------------------ operations

    metrics_token = metrics_token or os.environ.get("TABLETRIS_METRICS_TOKEN") or None
    ready_checks: dict[str, Callable[[], Awaitable[None]]] = {"database": database_check}
    redis_check = RedisCheck(redis_url) if redis_url else None
    if redis_check is not None:
        ready_checks["redis"] = redis_check
    app.state.ready_checks = ready_checks
    """What ``/readyz`` asks, by name; a component added later (a Redis bus) registers its own."""

    def observer(request: Request) -> bool:
        """Who may read ``/metrics`` and ask for ``/debug/gc``: a client on this machine that
        did not come through a proxy (a proxy on the same machine connects from loopback too,
        but adds a forwarding header), or anyone with ``metrics_token``. Metrics tell how busy
        the server is and when it restarted: not secret, but no business of the players'."""
        if metrics_token is not None:
            given = request.headers.get("authorization", "")
            if hmac.compare_digest(given.encode(), f"Bearer {metrics_token}".encode()):
                return True
        if any(h in request.headers for h in ("x-forwarded-for", "forwarded", "x-real-ip")):
            return False
        return client_of(request) in ("127.0.0.1", "::1")

    @app.get("/healthz", include_in_schema=False)
    async def healthz() -> dict[str, str]:
        """The process is up and its event loop answers (a liveness probe: it checks nothing
        else, so a database outage does not get every instance restarted)."""
        return {"status": "ok"}

    @app.get("/readyz", include_in_schema=False)
    async def readyz() -> JSONResponse:
        """Ready to serve: every dependency answers (the database a ``SELECT 1``; Redis a PING
        where one is configured) within ``READY_TIMEOUT`` seconds. 503 names what failed; the
        reason goes to the log, not to the caller."""
        names = list(ready_checks)
        results = await asyncio.gather(
            *(asyncio.wait_for(ready_checks[n](), READY_TIMEOUT) for n in names), return_exceptions=True
        )
        failed = {}
        for name, result in zip(names, results, strict=True):
            if isinstance(result, BaseException):
                failed[name] = "timeout" if isinstance(result, TimeoutError) else type(result).__name__
                log.warning("readyz: %s failed: %s", name, str(result).splitlines()[0][:200] if str(result) else failed[name])
        if failed:
            return JSONResponse({"status": "unavailable", "failed": failed}, status_code=503)
        return JSONResponse({"status": "ready", "checked": names})

    @app.get("/metrics", include_in_schema=False)
    async def metrics(request: Request) -> Response:
        """Prometheus text format (see server/metrics.py); for ``observer``s only, 404 otherwise."""
        if not observer(request):
            raise StarletteHTTPException(404, "Not Found")
        return Response(lobby.metrics.text(), media_type=CONTENT_TYPE)

    @app.post("/debug/gc", include_in_schema=False)
    async def debug_gc(request: Request) -> dict[str, int]:
        """A full garbage collection now, then the process's resident memory and the number of
        container objects the collector tracks, those made since start-up (``paced_gc`` froze
        the rest): the load benchmark's memory check (objects flat while the RSS grows points
        at the allocator or a C library, not at Python objects kept alive). For ``observer``s
        only."""
        if not observer(request):
            raise StarletteHTTPException(404, "Not Found")
        collected = gc.collect()
        return {"collected": collected, "rss_bytes": rss_bytes(), "objects": len(gc.get_objects())}

    @app.get("/api/meta", response_model=MetaOut, tags=["lobby"])
    async def meta() -> MetaOut:
        """Games, presets, every rule option with its help text, and the bots."""
        games = {name: game_meta(name, a) for name, a in ADAPTERS.items()}
        colours = {shape.value: shape.colour for shape in Shape}
        return MetaOut(games=games, bots=[*bot_names(), *allowed_commands()], timer_bot=TIMER_BOT, colours=colours)

    @app.get("/api/rooms", response_model=list[RoomOut], tags=["lobby"])
    async def list_rooms(
        status: Annotated[str | None, Query(max_length=16, description="waiting, playing, over, ...")] = None,
        limit: Annotated[int, Query(ge=1, le=500)] = 100,
    ) -> list[dict[str, Any]]:
        """Rooms, newest first: open ones to join, running ones to watch, ended ones to replay
        (the newest 500 ended ones; an ended room leaves memory, and is served by id from the
        database)."""
        return await lobby.listing(status, limit)

    @app.post("/api/rooms", response_model=RoomOut, status_code=201, responses=ERRORS, tags=["lobby"])
    async def create_room(request: Request, body: CreateRoomIn) -> dict[str, Any]:
        """A new room: game, rules (preset and house rules), seats (open or bots), turn timer
        (default for rooms with people: see docs/api.md)."""
        room = await lobby.create(
            body.game, body.rules, [s.model_dump() for s in body.seats], body.timer, creator=client_of(request)
        )
        log.info("room created: %s, %d seats", body.game, len(body.seats), extra={"room": room.id})
        return room.info()

    @app.get("/api/rooms/{room_id}", response_model=StateOut, responses=ERRORS, tags=["room"])
    async def room_state(
        room_id: str, x_seat_token: Annotated[str | None, Header(max_length=128)] = None
    ) -> Response:
        """The full state: a spectator's, or with X-Seat-Token the seat's (its legal moves included)."""
        room = await lobby.find(room_id)
        seat = seat_of(room, x_seat_token) if x_seat_token else None
        return Response(room.state_text(seat), media_type="application/json")

    @app.post("/api/rooms/{room_id}/join", response_model=JoinOut, responses=ERRORS, tags=["room"])
    async def join(
        room_id: str, body: JoinIn, x_seat_token: Annotated[str | None, Header(max_length=128)] = None
    ) -> JoinOut:
        """Take an open seat with a name (and, in the tower game, a tower); the answer's token is
        the seat's only key: keep it. With the X-Seat-Token of a seat already held here, the
        same seat is answered again."""
        room = await lobby.find(room_id)
        seat, token = await room.join(body.seat, body.name, body.tower, token=x_seat_token)
        return JoinOut(room=room.id, seat=seat, token=token)

    @app.post("/api/rooms/{room_id}/moves", response_model=MoveOut, responses=ERRORS, tags=["room"])
    async def move(
        room_id: str, body: MoveIn, x_seat_token: Annotated[str | None, Header(max_length=128)] = None
    ) -> MoveOut:
        """Play a move for the token's seat (naming its turn or round); answered once it is stored."""
        room = await lobby.find(room_id)
        seq = await room.act(seat_of(room, x_seat_token), body.engine_dict())
        return MoveOut(seq=seq)

    @app.post("/api/rooms/{room_id}/leave", response_model=LeaveOut, responses=ERRORS, tags=["room"])
    async def leave(
        room_id: str, x_seat_token: Annotated[str | None, Header(max_length=128)] = None
    ) -> LeaveOut:
        """Before the game: free the seat. During it: resign (the timer bot plays the seat on)."""
        room = await lobby.find(room_id)
        done = await room.leave(seat_of(room, x_seat_token))
        return LeaveOut(done="left" if done == "left" else "resigned")

    @app.post("/api/rooms/{room_id}/rematch", response_model=JoinOut, responses=ERRORS, tags=["room"])
    async def rematch(
        room_id: str, x_seat_token: Annotated[str | None, Header(max_length=128)] = None
    ) -> JoinOut:
        """After the game: the same table again; the caller takes the same seat in the new room
        (kept for them for a while; asking again answers the same seat and token)."""
        room = await lobby.find(room_id)
        seat = seat_of(room, x_seat_token)
        assert x_seat_token is not None
        new, new_seat, token = await lobby.rematch(room, seat, x_seat_token)
        return JoinOut(room=new.id, seat=new_seat, token=token)

    @app.get("/api/rooms/{room_id}/record", responses=ERRORS, tags=["replay"])
    async def record(
        room_id: str, download: Annotated[bool, Query()] = False
    ) -> JSONResponse:
        """The ended game's record (format tabletris/1). A live game's record is refused: its
        seed and deck would tell the players the dice and cards to come."""
        room = await lobby.find(room_id)
        if room.status not in ENDED:
            raise ActionError("not_over", _("the game in room {room} is not over: its record would reveal the future").format(room=room.id))
        headers = {"Content-Disposition": f'attachment; filename="tabletris-{room.id}.json"'} if download else None
        return JSONResponse(room.record(), headers=headers)

    @app.get("/api/rooms/{room_id}/replay", response_model=ReplayOut, responses=ERRORS, tags=["replay"])
    async def room_replay(room_id: str) -> Response:
        """A finished game step by step: the position after each move (dice) or round (tower)."""
        room = await lobby.find(room_id)
        if room.status not in ENDED:
            raise ActionError("not_over", _("the game in room {room} is not over: watch it live instead").format(room=room.id))
        return await replay_of(room.record())

    @app.post("/api/replay", response_model=ReplayOut, responses=ERRORS, tags=["replay"])
    async def upload_replay(record: Annotated[dict[str, Any], Body()]) -> Response:
        """Check an uploaded record by replaying it through the engine, and return its steps."""
        return await replay_of(record)

    async def replay_of(record: dict[str, Any]) -> Response:
        """The replay, worked out in a thread (a long record takes a while to replay and
        encode); a record over ``record_moves`` is refused before any of that."""
        steps = record.get("moves", record.get("rounds"))
        if isinstance(steps, list) and len(steps) > limits.record_moves:
            raise ActionError(
                "bad_record", _("the record has {n} moves: this server replays at most {most}").format(n=len(steps), most=limits.record_moves)
            )
        text = await lobby.think_long(_replay_text, record)
        return Response(text, media_type="application/json")

    @app.get("/api/i18n/{lang}", responses={404: ERRORS[404]}, tags=["meta"])
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

    @app.get("/", include_in_schema=False)
    async def index(request: Request) -> HTMLResponse:
        return page("index.html", request)

    @app.get("/room/{room_id}", include_in_schema=False)
    async def room_page(room_id: str, request: Request) -> HTMLResponse:
        return page("room.html", request)

    @app.get("/rules", include_in_schema=False)
    async def rules_page(request: Request) -> HTMLResponse:
        return page("rules.html", request)

    @app.get("/replay", include_in_schema=False)
    async def replay_upload_page(request: Request) -> HTMLResponse:
        return page("replay.html", request)

    @app.get("/replay/{room_id}", include_in_schema=False)
    async def replay_page(room_id: str, request: Request) -> HTMLResponse:
        return page("replay.html", request)

    @app.get("/favicon.ico", include_in_schema=False)
    async def favicon() -> FileResponse:
        return FileResponse(STATIC / "favicon.svg", media_type="image/svg+xml")

    app.mount("/static", StaticFiles(directory=STATIC), name="static")

    # ------------------------------------------------------------------ websocket

    def origin_ok(ws: WebSocket) -> bool:
        """A browser page from another site may not drive a seat: a websocket's Origin (browsers
        always send one) must be this server's own or one allowed with ``origins``. Programs
        that send none (bots, tests, the load benchmark) are let in."""
        origin = ws.headers.get("origin")
        if origin is None:
            return True
        origin = origin.rstrip("/").lower()
        if origin in allowed_origins:
            return True
        host = (ws.headers.get("host") or "").lower()
        return origin in (f"http://{host}", f"https://{host}")

    @app.websocket("/ws/{room_id}")
    async def socket(ws: WebSocket, room_id: str) -> None:
        if not origin_ok(ws):
            log.warning("websocket from origin %r refused", ws.headers.get("origin"))
            await ws.close(code=1008, reason="origin not allowed")
            return
        client = _client(ws.scope)
        if not lobby.ledger.socket_opened(client):
            await ws.close(code=1013, reason=f"at most {limits.sockets_per_client} websockets per address")
            return
        try:
            await ws.accept()
            await welcome(ws, room_id)
        finally:
            lobby.ledger.socket_closed(client)

    async def refuse(ws: WebSocket, close: int, code: str, message: str) -> None:
        with contextlib.suppress(Exception):
            await ws.send_text(json.dumps({"type": "error", "id": None, **error_body(code, message)}))
            await ws.close(code=close, reason=message[:120])

    async def welcome(ws: WebSocket, room_id: str) -> None:
        """The hello: the seat token (or none, to watch) as the first message, never in the URL."""
        if "token" in ws.query_params:
            await refuse(ws, 4400, "bad_message", 'send the seat token in the first message {"type": "hello", "token": ...}, not in the URL')
            return
        try:
            message = await asyncio.wait_for(ws.receive(), limits.hello_timeout)
        except TimeoutError:
            await refuse(ws, 4401, "no_hello", f'no hello within {limits.hello_timeout:g} s: send {{"type": "hello", "token": ...}} first')
            return
        if message["type"] == "websocket.disconnect":
            return
        text = message.get("text") or ""
        try:
            hello = json.loads(text) if len(text) <= 1024 else None
        except (ValueError, RecursionError):
            hello = None
        token = hello.get("token") if isinstance(hello, dict) else None
        if not isinstance(hello, dict) or hello.get("type") != "hello" or not (token is None or isinstance(token, str)):
            await refuse(ws, 4401, "no_hello", 'the first message must be {"type": "hello", "token": SEAT_TOKEN} (no token to watch)')
            return
        try:
            room = await lobby.find(room_id)
            seat = room.authenticate(token) if token else None
        except ActionError as e:
            await refuse(ws, 4404 if e.code == "unknown_room" else 4403, e.code, e.message)
            return
        if seat is None and sum(1 for c in room.conns if c.seat is None) >= limits.spectators:
            await refuse(ws, 4409, "room_full", _("room {room} has {n} spectators already").format(room=room.id, n=limits.spectators))
            return
        conn = Connection(ws.send_text, seat, outbox=limits.outbox, send_timeout=limits.send_timeout)
        conn.token = token
        log_context(room.id, seat)
        log.info("websocket joined as %s", "spectator" if seat is None else f"seat {seat}")
        for line in room.chat_log:
            conn.send(line)
        room.conns.add(conn)
        if seat is not None:
            room.seats[seat].connected += 1
        room.presence(newcomer=conn)
        reader = asyncio.create_task(serve_socket(ws, room, conn, seat))
        dead = asyncio.create_task(conn.dead.wait())
        try:
            await asyncio.wait({reader, dead}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            reader.cancel()
            dead.cancel()
            room.conns.discard(conn)
            if seat is not None:
                room.seats[seat].connected -= 1
            room.presence()
            log.info("websocket left (close code %s)", conn.close_code)
            if conn.close_code in (4408, 1008):
                _abort(ws)
            else:
                await conn.close()

    async def serve_socket(ws: WebSocket, room: Room, conn: Connection, seat: int | None) -> None:
        bucket = Bucket(limits.message_rate, limits.message_burst)
        strikes = 0

        def fail(msg_id: Any, code: str, message: str) -> None:
            conn.send_json({"type": "error", "id": msg_id, **error_body(code, message)})

        while conn.alive:
            try:
                message = await ws.receive()
            except (WebSocketDisconnect, RuntimeError):
                return
            if message["type"] == "websocket.disconnect":
                return
            text = message.get("text")
            if text is None:
                data_bytes = message.get("bytes") or b""
                fail(None, "bad_message", f"send JSON text, not {len(data_bytes)} bytes of binary")
                continue
            if len(text) > limits.message_bytes:
                fail(None, "too_large", f"a message has at most {limits.message_bytes} characters, got {len(text)}")
                continue
            if not bucket.take():
                strikes += 1
                fail(None, "rate_limited", _("more than {rate:g} messages a second: slow down").format(rate=limits.message_rate))
                if strikes >= limits.message_strikes:
                    conn.kill(1008, "flooding")
                    return
                continue
            try:
                data = json.loads(text)
            except json.JSONDecodeError as e:
                fail(None, "bad_json", f"not JSON: {e.msg} at column {e.colno}")
                continue
            except RecursionError:
                fail(None, "bad_json", "the JSON is nested too deeply")
                continue
            except ValueError as e:  # e.g. an integer of thousands of digits
                fail(None, "bad_json", f"not acceptable JSON: {str(e)[:120]}")
                continue
            if not isinstance(data, dict):
                fail(None, "bad_message", "a message is a JSON object with a 'type'")
                continue
            msg_id = data.pop("id", None)
            if msg_id is not None and not (isinstance(msg_id, int | str) and len(str(msg_id)) <= 64):
                fail(None, "bad_message", "'id' is a number or a short string")
                continue
            kind = data.pop("type", None)
            try:
                await handle(room, conn, seat, kind, msg_id, data)
            except ActionError as e:
                fail(msg_id, e.code, e.message)
            except Exception:
                log.exception("room %s: message %r failed", room.id, str(kind)[:32])
                fail(msg_id, "internal", _("the server could not handle this message; the game is unchanged"))

    async def handle(
        room: Room, conn: Connection, seat: int | None, kind: Any, msg_id: Any, data: dict[str, Any]
    ) -> None:
        if kind == "ping":
            conn.send_json({"type": "pong", "id": msg_id})
        elif kind == "state":
            conn.send_latest("state", room.state_text(seat))
        elif kind == "hello":
            raise ActionError("bad_message", "hello comes once, as the first message")
        elif kind in ("move", "play", "submit"):
            if seat is None:
                raise ActionError("not_seated", _("spectators cannot move: join with a seat token"))
            try:
                move = MoveIn.model_validate(data)
            except ValidationError as e:
                raise ActionError("bad_message", _describe(e.errors())) from None
            seq = await room.act(seat, move.engine_dict())
            conn.send_json({"type": "ack", "id": msg_id, "seq": seq})
        elif kind == "query":
            if seat is None:
                raise ActionError("not_seated", _("spectators cannot ask for moves: join with a seat token"))
            conn.send_json({"type": "answer", "id": msg_id, **room.query(seat, data)})
        elif kind == "chat":
            room.chat(conn, data.get("text"))
        elif kind in ("resign", "leave"):
            if seat is None:
                raise ActionError("not_seated", _("only a player can resign") if kind == "resign" else _("only a player can leave"))
            done = await (room.resign(seat) if kind == "resign" else room.leave(seat))
            conn.send_json({"type": "ack", "id": msg_id, "done": done})
        elif kind == "rematch":
            if seat is None:
                raise ActionError("not_seated", _("only a player can ask for a rematch"))
            token = conn.token
            new, new_seat, new_token = await lobby.rematch(room, seat, token or "")
            conn.send_json({"type": "rematch", "id": msg_id, "room": new.id, "seat": new_seat, "token": new_token})
        else:
            raise ActionError(
                "unknown_type",
                f"unknown message type {str(kind)[:32]!r}: expected move, query, chat, rematch, resign, leave, state or ping",
            )

    return app


READY_TIMEOUT = 2.0
"""Seconds a readiness check may take: a database slower than that is as good as down to a
player waiting for a move's acknowledgement."""


class DatabaseCheck:
    """The database answers ``SELECT 1``. For SQLite, also: the file the server opened is still
    the one at its path (a connection keeps working on a deleted or replaced file, and every
    move stored after that would be lost at the next restart)."""

    def __init__(self, storage: Storage) -> None:
        self.storage = storage
        url = storage.engine.url
        database = url.database or ""
        self.path = (
            Path(database) if url.get_backend_name() == "sqlite" and database and ":memory:" not in database
            and "mode=memory" not in str(url.query) else None
        )
        self.inode: int | None = None

    def remember(self) -> None:
        """Note which file is the database (when the server has opened it)."""
        if self.path is not None:
            self.inode = self.path.stat().st_ino

    async def __call__(self) -> None:
        async with self.storage.engine.connect() as conn:
            await conn.execute(sql_text("SELECT 1"))
        # stat(): FileNotFoundError when the file is gone
        if self.path is not None and self.inode is not None and self.path.stat().st_ino != self.inode:
            raise FileNotFoundError(f"{self.path} was replaced by another file")


class RedisCheck:
    """Redis answers ``PING``, on a connection of its own: a readiness probe must not queue
    behind the bus's traffic, nor share its failure handling."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.client: Any = None

    async def __call__(self) -> None:
        if self.client is None:
            import redis.asyncio

            self.client = redis.asyncio.Redis.from_url(self.url, socket_connect_timeout=READY_TIMEOUT)
        await self.client.ping()

    async def close(self) -> None:
        if self.client is not None:
            await self.client.aclose()
            self.client = None


def rss_bytes() -> int:
    """This process's resident memory (Linux ``/proc``; 0 elsewhere)."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


def _abort(ws: WebSocket) -> None:
    """Drop a connection that does not read at once: a polite close would wait behind the data
    it is not reading. Reaches uvicorn's transport; falls back to nothing (the ping timeout
    ends it)."""
    protocol = getattr(getattr(ws, "_send", None), "__self__", None)
    transport = getattr(protocol, "transport", None)
    if transport is not None:
        with contextlib.suppress(Exception):
            transport.abort()


def _replay_text(record: dict[str, Any]) -> str:
    """The replay answer as JSON text (runs in a thread)."""
    try:
        doc = load(record)
        game = check_common(doc)
        adapter = adapter_for(game)
        summary, frames = adapter.frames(doc)
    except (RecordError, RulesError, IllegalMove) as e:
        raise ActionError("bad_record", str(e)) from None
    except (RecursionError, ValueError, TypeError, KeyError) as e:
        raise ActionError("bad_record", _("the record is malformed: {kind}: {detail}").format(kind=type(e).__name__, detail=str(e)[:200])) from None
    out = {"game": game, "players": list(doc["players"]), "record": doc, "summary": summary, "frames": frames}
    return json.dumps(out, separators=(",", ":"))


def _describe(errors: Any) -> str:
    """Pydantic's errors as one line: ``place.0: Input should be a valid integer; ...``."""
    parts = []
    for err in list(errors)[:5]:
        where = ".".join(str(p) for p in err.get("loc", ()) if p != "body") or "message"
        parts.append(f"{where}: {err.get('msg', 'invalid')}")
    return "; ".join(parts)


__all__ = ["create_app", "default_db_url"]
