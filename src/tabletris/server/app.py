"""The FastAPI application: HTTP API, websocket protocol and the static web client.

``create_app(db_url)`` builds an app around one ``Lobby``; the lobby is opened in the app's
lifespan, which replays every stored room, so a server restarted after a crash resumes every
game where its last acknowledged move left it.

Websocket protocol (``/ws/{room}?token=...``; without a token the client spectates): the client
sends JSON objects with a ``type`` (``move``, ``query``, ``chat``, ``rematch``, ``state``, ``ping``) and an
optional ``id``; the server answers ``ack`` / ``error`` / ``answer`` / ``pong`` carrying that id,
and sends a ``state`` message to everybody in the room after every change. Errors go to the
client that caused them only; the room and the connection stay up.
"""

from __future__ import annotations

import gc
import json
import logging
import os
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path
from typing import Annotated, Any

from fastapi import Body, FastAPI, Header, Query, Request, WebSocket
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from pydantic import ValidationError
from starlette.types import ASGIApp, Message, Receive, Scope, Send
from starlette.websockets import WebSocketDisconnect

from tabletris.bots.external import allowed_commands
from tabletris.bots.registry import bot_names
from tabletris.engine.errors import IllegalMove, RecordError
from tabletris.engine.options import RulesError
from tabletris.engine.records import check_common, load
from tabletris.engine.shapes import Shape
from tabletris.server.games import ADAPTERS, ActionError, adapter_for
from tabletris.server.models import (
    CreateRoomIn,
    ErrorOut,
    GameMeta,
    JoinIn,
    JoinOut,
    MetaOut,
    MoveIn,
    MoveOut,
    ReplayOut,
    RoomOut,
    StateOut,
)
from tabletris.server.rooms import TIMER_BOT, Connection, Lobby, Room
from tabletris.server.storage import Storage

log = logging.getLogger("tabletris.server")

STATIC = Path(__file__).parent / "static"
MAX_MESSAGE = 16 * 1024
"""Largest websocket message the server reads (a move is a few hundred bytes)."""
MAX_BODY = 1024 * 1024
"""Largest HTTP body (a record upload is the biggest legitimate one)."""
RATE = 20.0
BURST = 40.0
"""Per-connection message rate: ``RATE`` per second on average, bursts of ``BURST``."""
STRIKES = 200
"""Messages refused for the rate limit before the connection is closed."""

STATUS = {
    "unknown_room": 404,
    "bad_token": 403,
    "not_seated": 403,
    "wrong_seat": 403,
    "not_your_turn": 409,
    "seat_taken": 409,
    "room_full": 409,
    "name_taken": 409,
    "not_started": 409,
    "game_over": 409,
    "not_over": 409,
    "storage": 503,
}
"""HTTP status for each error code; every other code is 422 (the request itself is wrong)."""

ERRORS: dict[int | str, dict[str, Any]] = {
    403: {"model": ErrorOut, "description": "Wrong or missing seat token"},
    404: {"model": ErrorOut, "description": "Unknown room"},
    409: {"model": ErrorOut, "description": "Not now: not your turn, seat taken, game over ..."},
    413: {"model": ErrorOut, "description": "Body too large"},
    422: {"model": ErrorOut, "description": "Malformed request, bad rules or an illegal move"},
    503: {"model": ErrorOut, "description": "The move could not be stored; nothing changed"},
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


class BodyLimit:
    """Refuses HTTP bodies over ``limit`` bytes with 413 before the application reads them."""

    def __init__(self, app: ASGIApp, limit: int = MAX_BODY) -> None:
        self.app = app
        self.limit = limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = dict(scope.get("headers") or [])
        length = headers.get(b"content-length")
        if length is not None and (not length.isdigit() or int(length) > self.limit):
            await _too_large(scope, receive, send, self.limit)
            return
        received = 0

        async def limited() -> Message:
            nonlocal received
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > self.limit:
                    raise _BodyTooLarge
            return message

        try:
            await self.app(scope, limited, send)
        except _BodyTooLarge:
            await _too_large(scope, receive, send, self.limit)


class _BodyTooLarge(Exception):
    pass


async def _too_large(scope: Scope, receive: Receive, send: Send, limit: int) -> None:
    response = JSONResponse(
        {"error": "too_large", "message": f"the request body is over {limit} bytes"}, status_code=413
    )
    await response(scope, receive, send)


class Bucket:
    """A token bucket: the per-connection rate limit."""

    def __init__(self, rate: float = RATE, burst: float = BURST) -> None:
        self.rate = rate
        self.burst = burst
        self.tokens = burst
        self.stamp = time.monotonic()

    def take(self) -> bool:
        now = time.monotonic()
        self.tokens = min(self.burst, self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now
        if self.tokens >= 1:
            self.tokens -= 1
            return True
        return False


def error_response(e: ActionError) -> JSONResponse:
    return JSONResponse({"error": e.code, "message": e.message}, status_code=STATUS.get(e.code, 422))


def create_app(db_url: str | None = None, bot_delay: float = 0.4) -> FastAPI:
    """The server application, storing its rooms at ``db_url`` (see ``default_db_url``)."""
    storage = Storage(db_url or default_db_url())
    lobby = Lobby(storage, bot_delay=bot_delay)

    @asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        await lobby.open()
        try:
            with paced_gc():
                yield
        finally:
            await lobby.close()

    app = FastAPI(
        title="tabletris",
        version="1",
        summary="The online table for the dice and tower Tetris games.",
        description="Rooms, seats with secret tokens, moves checked by the game engine, records and replays. "
        "Live play uses the websocket at /ws/{room_id}; see docs/api.md.",
        lifespan=lifespan,
    )
    app.state.lobby = lobby
    app.add_middleware(BodyLimit)

    @app.exception_handler(ActionError)
    async def _action_error(_request: Request, e: ActionError) -> JSONResponse:
        return error_response(e)

    @app.exception_handler(RequestValidationError)
    async def _validation_error(_request: Request, e: RequestValidationError) -> JSONResponse:
        return JSONResponse({"error": "bad_request", "message": _describe(e.errors())}, status_code=422)

    # ------------------------------------------------------------------ API

    def seat_of(room: Room, token: str | None) -> int:
        return room.authenticate(token)

    @app.get("/api/meta", response_model=MetaOut, tags=["lobby"])
    async def meta() -> MetaOut:
        """Games, presets, every rule option with its help text, and the bots."""
        games = {
            name: GameMeta(max_seats=a.max_seats, **a.rules_meta()) for name, a in ADAPTERS.items()
        }
        colours = {shape.value: shape.colour for shape in Shape}
        return MetaOut(games=games, bots=[*bot_names(), *allowed_commands()], timer_bot=TIMER_BOT, colours=colours)

    @app.get("/api/rooms", response_model=list[RoomOut], tags=["lobby"])
    async def list_rooms(
        status: Annotated[str | None, Query(max_length=16, description="waiting, playing, over")] = None,
        limit: Annotated[int, Query(ge=1, le=500)] = 100,
    ) -> list[dict[str, Any]]:
        """Rooms, newest first: open ones to join, running ones to watch, finished ones to replay."""
        rooms = sorted(lobby.rooms.values(), key=lambda r: r.created, reverse=True)
        return [r.info() for r in rooms if status is None or r.status == status][:limit]

    @app.post("/api/rooms", response_model=RoomOut, status_code=201, responses=ERRORS, tags=["lobby"])
    async def create_room(body: CreateRoomIn) -> dict[str, Any]:
        """A new room: game, rules (preset and house rules), seats (open or bots), turn timer."""
        room = await lobby.create(
            body.game, body.rules, [s.model_dump() for s in body.seats], body.timer
        )
        return room.info()

    @app.get("/api/rooms/{room_id}", response_model=StateOut, responses=ERRORS, tags=["room"])
    async def room_state(
        room_id: str, x_seat_token: Annotated[str | None, Header(max_length=128)] = None
    ) -> Response:
        """The full state: a spectator's, or with X-Seat-Token the seat's (its legal moves included)."""
        room = lobby.get(room_id)
        seat = seat_of(room, x_seat_token) if x_seat_token else None
        return Response(room.state_text(seat), media_type="application/json")

    @app.post("/api/rooms/{room_id}/join", response_model=JoinOut, responses=ERRORS, tags=["room"])
    async def join(room_id: str, body: JoinIn) -> JoinOut:
        """Take an open seat with a name; the answer's token is the seat's only key: keep it."""
        room = lobby.get(room_id)
        seat, token = await room.join(body.seat, body.name, body.tower)
        return JoinOut(room=room.id, seat=seat, token=token)

    @app.post("/api/rooms/{room_id}/moves", response_model=MoveOut, responses=ERRORS, tags=["room"])
    async def move(
        room_id: str, body: MoveIn, x_seat_token: Annotated[str | None, Header(max_length=128)] = None
    ) -> MoveOut:
        """Play a move for the token's seat; answered once the move is stored."""
        room = lobby.get(room_id)
        seq = await room.act(seat_of(room, x_seat_token), body.engine_dict())
        return MoveOut(seq=seq)

    @app.post("/api/rooms/{room_id}/rematch", response_model=JoinOut, responses=ERRORS, tags=["room"])
    async def rematch(
        room_id: str, x_seat_token: Annotated[str | None, Header(max_length=128)] = None
    ) -> JoinOut:
        """After the game: the same table again; the caller takes the same seat in the new room."""
        room = lobby.get(room_id)
        new, seat, token = await lobby.rematch(room, seat_of(room, x_seat_token))
        return JoinOut(room=new.id, seat=seat, token=token)

    @app.get("/api/rooms/{room_id}/record", responses=ERRORS, tags=["replay"])
    async def record(
        room_id: str, download: Annotated[bool, Query()] = False
    ) -> JSONResponse:
        """The finished game's record (format tabletris/1). A live game's record is refused: its
        seed and deck would tell the players the dice and cards to come."""
        room = lobby.get(room_id)
        if room.status != "over":
            raise ActionError("not_over", f"the game in room {room.id} is not over: its record would reveal the future")
        headers = {"Content-Disposition": f'attachment; filename="tabletris-{room.id}.json"'} if download else None
        return JSONResponse(room.record(), headers=headers)

    @app.get("/api/rooms/{room_id}/replay", response_model=ReplayOut, responses=ERRORS, tags=["replay"])
    async def room_replay(room_id: str) -> ReplayOut:
        """A finished game step by step: the position after each move (dice) or round (tower)."""
        room = lobby.get(room_id)
        if room.status != "over":
            raise ActionError("not_over", f"the game in room {room.id} is not over: watch it live instead")
        return replay_of(room.record())

    @app.post("/api/replay", response_model=ReplayOut, responses=ERRORS, tags=["replay"])
    async def upload_replay(record: Annotated[dict[str, Any], Body()]) -> ReplayOut:
        """Check an uploaded record by replaying it through the engine, and return its steps."""
        return replay_of(record)

    def replay_of(record: dict[str, Any]) -> ReplayOut:
        try:
            doc = load(record)
            game = check_common(doc)
            adapter = adapter_for(game)
            summary, frames = adapter.frames(doc)
        except (RecordError, RulesError, IllegalMove) as e:
            raise ActionError("bad_record", str(e)) from None
        return ReplayOut(game=game, players=list(doc["players"]), record=doc, summary=summary, frames=frames)

    # ------------------------------------------------------------------ pages

    @app.get("/", include_in_schema=False)
    async def index() -> FileResponse:
        return FileResponse(STATIC / "index.html")

    @app.get("/room/{room_id}", include_in_schema=False)
    async def room_page(room_id: str) -> FileResponse:
        return FileResponse(STATIC / "room.html")

    @app.get("/rules", include_in_schema=False)
    async def rules_page() -> FileResponse:
        return FileResponse(STATIC / "rules.html")

    @app.get("/replay", include_in_schema=False)
    async def replay_upload_page() -> FileResponse:
        return FileResponse(STATIC / "replay.html")

    @app.get("/replay/{room_id}", include_in_schema=False)
    async def replay_page(room_id: str) -> FileResponse:
        return FileResponse(STATIC / "replay.html")

    app.mount("/static", StaticFiles(directory=STATIC), name="static")

    # ------------------------------------------------------------------ websocket

    @app.websocket("/ws/{room_id}")
    async def socket(ws: WebSocket, room_id: str, token: str | None = None) -> None:
        await ws.accept()
        try:
            room = lobby.get(room_id)
            seat = room.authenticate(token) if token else None
        except ActionError as e:
            await ws.send_text(json.dumps({"type": "error", "id": None, "error": e.code, "message": e.message}))
            await ws.close(code=4404 if e.code == "unknown_room" else 4403)
            return
        conn = Connection(ws.send_text, seat)
        for line in room.chat_log:
            conn.send(line)
        room.conns.add(conn)
        if seat is not None:
            room.seats[seat].connected += 1
        room.broadcast()
        try:
            await serve_socket(ws, room, conn, seat)
        finally:
            room.conns.discard(conn)
            if seat is not None:
                room.seats[seat].connected -= 1
            room.broadcast()
            await conn.close()

    async def serve_socket(ws: WebSocket, room: Room, conn: Connection, seat: int | None) -> None:
        bucket = Bucket()
        strikes = 0

        def fail(msg_id: Any, code: str, message: str) -> None:
            conn.send_json({"type": "error", "id": msg_id, "error": code, "message": message})

        while conn.alive:
            try:
                message = await ws.receive()
            except WebSocketDisconnect:
                return
            if message["type"] == "websocket.disconnect":
                return
            text = message.get("text")
            if text is None:
                data_bytes = message.get("bytes") or b""
                fail(None, "bad_message", f"send JSON text, not {len(data_bytes)} bytes of binary")
                continue
            if len(text) > MAX_MESSAGE:
                fail(None, "too_large", f"a message has at most {MAX_MESSAGE} characters, got {len(text)}")
                continue
            if not bucket.take():
                strikes += 1
                fail(None, "rate_limited", f"more than {RATE:g} messages a second: slow down")
                if strikes >= STRIKES:
                    await ws.close(code=1008)
                    return
                continue
            try:
                data = json.loads(text)
            except json.JSONDecodeError as e:
                fail(None, "bad_json", f"not JSON: {e.msg} at column {e.colno}")
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
                log.exception("room %s: message %r failed", room.id, kind)
                fail(msg_id, "internal", "the server could not handle this message; the game is unchanged")

    async def handle(
        room: Room, conn: Connection, seat: int | None, kind: Any, msg_id: Any, data: dict[str, Any]
    ) -> None:
        if kind == "ping":
            conn.send_json({"type": "pong", "id": msg_id})
        elif kind == "state":
            conn.send(room.state_text(seat))
        elif kind in ("move", "play", "submit"):
            if seat is None:
                raise ActionError("not_seated", "spectators cannot move: join with a seat token")
            try:
                move = MoveIn.model_validate(data)
            except ValidationError as e:
                raise ActionError("bad_message", _describe(e.errors())) from None
            seq = await room.act(seat, move.engine_dict())
            conn.send_json({"type": "ack", "id": msg_id, "seq": seq})
        elif kind == "query":
            if seat is None:
                raise ActionError("not_seated", "spectators cannot ask for moves: join with a seat token")
            conn.send_json({"type": "answer", "id": msg_id, **room.query(seat, data)})
        elif kind == "chat":
            room.chat(conn, data.get("text"))
        elif kind == "rematch":
            if seat is None:
                raise ActionError("not_seated", "only a player can ask for a rematch")
            new, new_seat, token = await lobby.rematch(room, seat)
            conn.send_json({"type": "rematch", "id": msg_id, "room": new.id, "seat": new_seat, "token": token})
        else:
            raise ActionError(
                "unknown_type",
                f"unknown message type {kind!r}: expected move, query, chat, rematch, state or ping",
            )

    return app


def _describe(errors: Any) -> str:
    """Pydantic's errors as one line: ``place.0: Input should be a valid integer; ...``."""
    parts = []
    for err in list(errors)[:5]:
        where = ".".join(str(p) for p in err.get("loc", ()) if p != "body") or "message"
        parts.append(f"{where}: {err.get('msg', 'invalid')}")
    return "; ".join(parts)


__all__ = ["create_app", "default_db_url"]
