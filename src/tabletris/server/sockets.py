"""The websocket protocol (``/ws/{room}``, docs/api.md "Websocket").

The client's first message is ``{"type": "hello", "token": SEAT_TOKEN}`` (a spectator leaves the
token out), within ``hello_timeout`` seconds; the token never appears in a URL, so no access log
or proxy log holds it. Then the client sends JSON objects with a ``type`` (``move``, ``query``,
``chat``, ``rematch``, ``resign``, ``leave``, ``state``, ``ping``) and an optional ``id``; the
server answers ``ack`` / ``error`` / ``answer`` / ``pong`` carrying that id, sends a ``state``
message to everybody in the room after every change and a small ``presence`` message when
someone connects or leaves. Errors go to the client that caused them only; the room and the
connection stay up.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import Sequence
from typing import Any

from fastapi import APIRouter, WebSocket
from pydantic import ValidationError
from starlette.websockets import WebSocketDisconnect

from tabletris.i18n import _
from tabletris.server.accounts.core import Accounts
from tabletris.server.connection import Connection
from tabletris.server.errors import ActionError, describe, error_body
from tabletris.server.guard import allowed_origins, client_address, same_site
from tabletris.server.limits import Bucket, Limits
from tabletris.server.lobby import Lobby
from tabletris.server.logs import log_context
from tabletris.server.rooms import Room

log = logging.getLogger("tabletris.server")


def socket_router(lobby: Lobby, limits: Limits, origins: Sequence[str] = ()) -> APIRouter:
    """The websocket route around ``lobby``. ``origins``: page origins allowed besides the
    server's own."""
    router = APIRouter()
    allowed = allowed_origins(origins)

    def origin_ok(ws: WebSocket) -> bool:
        """A browser page from another site may not drive a seat: a websocket's Origin (browsers
        always send one) must be this server's own or one allowed with ``origins``. Programs
        that send none (bots, tests, the load benchmark) are let in."""
        return same_site(ws.headers, allowed)

    @router.websocket("/ws/{room_id}")
    async def socket(ws: WebSocket, room_id: str) -> None:
        if not origin_ok(ws):
            log.warning("websocket from origin %r refused", ws.headers.get("origin"))
            await ws.close(code=1008, reason="origin not allowed")
            return
        client = client_address(ws.scope)
        if not lobby.ledger.socket_opened(client):
            await ws.close(code=1013, reason=f"at most {limits.sockets_per_client} websockets per address")
            return
        try:
            await ws.accept()
            await welcome(ws, room_id)
        finally:
            lobby.ledger.socket_closed(client)

    async def session_seat(ws: WebSocket, room: Room) -> int | None:
        """A hello without a token from a browser whose session's account sits here: that
        seat (the session acts for it as its token would); else a spectator."""
        accounts: Accounts = ws.app.state.accounts
        account = await accounts.session_account(ws)
        return None if account is None else room.account_seat(account.id)

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
            seat = await authenticate(room, token) if token else await session_seat(ws, room)
        except ActionError as e:
            await refuse(ws, 4404 if e.code == "unknown_room" else 4403, e.code, e.message)
            return
        if seat is None and sum(1 for c in room.conns if c.seat is None) >= limits.spectators:
            await refuse(ws, 4409, "room_full", _("room {room} has {n} spectators already").format(room=room.id, n=limits.spectators))
            return
        conn = Connection(ws.send_text, seat, outbox=limits.outbox, send_timeout=limits.send_timeout,
                          frames=ws.scope.get("tabletris.frames"))
        conn.token = token
        log_context(room.id, seat)
        log.info("websocket joined as %s", "spectator" if seat is None else f"seat {seat}")
        room.attach(conn)
        at = [room]  # the room the connection is in: a rematch it follows moves it (serve_socket)
        reader = asyncio.create_task(serve_socket(ws, at, conn))
        dead = asyncio.create_task(conn.dead.wait())
        try:
            await asyncio.wait({reader, dead}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            reader.cancel()
            dead.cancel()
            at[0].detach(conn)
            log.info("websocket left (close code %s)", conn.close_code)
            if conn.close_code == 4408:
                _abort(ws)
            elif conn.close_code == 1008:
                await _close_flood(ws, conn)
            else:
                await conn.close()

    async def authenticate(room: Room, token: str) -> int:
        """The token's seat. With several instances a token this copy does not know may hold a
        seat taken on another instance a moment ago (a rematch's second player, seated there
        while this instance read the room for the first): the room is read back from the
        database once before the token is refused."""
        try:
            return room.authenticate(token)
        except ActionError as e:
            if e.code != "bad_token" or not lobby.leases.distributed:
                raise
        async with room.lock:
            await room.replica.reload()
        room.broadcast(publish=False)
        return room.authenticate(token)

    async def serve_socket(ws: WebSocket, at: list[Room], conn: Connection) -> None:
        """Read the connection's messages until it closes. ``at[0]``: the room it is in (a
        rematch it follows puts the new room there)."""
        room, seat = at[0], conn.seat
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
                    conn.kill(1008, f"flooding: {strikes} messages refused for the rate")
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
                moved = await handle(room, conn, seat, kind, msg_id, data)
                if moved is not None:
                    at[0], room, seat = moved, moved, conn.seat
            except ActionError as e:
                fail(msg_id, e.code, e.message)
            except Exception:
                log.exception("room %s: message %r failed", room.id, str(kind)[:32])
                fail(msg_id, "internal", _("the server could not handle this message; the game is unchanged"))

    async def handle(
        room: Room, conn: Connection, seat: int | None, kind: Any, msg_id: Any, data: dict[str, Any]
    ) -> Room | None:
        """Answer one message; the room the connection moved to (a followed rematch), else None."""
        if kind == "ping":
            conn.send_json({"type": "pong", "id": msg_id})
        elif kind == "state":
            text = room.state_text(seat)
            if msg_id is None:
                conn.send_latest("state", text)
            else:  # the reply carries the id, as every reply does (and is not merged into a later state)
                conn.send('{"id":' + json.dumps(msg_id) + "," + text[1:])
        elif kind == "hello":
            raise ActionError("bad_message", "hello comes once, as the first message")
        elif kind in ("move", "play", "submit"):
            if seat is None:
                raise ActionError("not_seated", _("spectators cannot move: join with a seat token"))
            try:
                move = room.adapter.move_model.model_validate(data)  # the game's own move message
            except ValidationError as e:
                raise ActionError("bad_message", describe(e.errors())) from None
            seq = await room.act(seat, move.engine_dict())
            conn.send_json({"type": "ack", "id": msg_id, "seq": seq})
        elif kind == "query":
            if seat is None:
                raise ActionError("not_seated", _("spectators cannot ask for moves: join with a seat token"))
            conn.send_json({"type": "answer", "id": msg_id, **room.query(seat, data)})
        elif kind == "chat":
            room.chat.say(conn, data.get("text"))
        elif kind in ("resign", "leave"):
            if seat is None:
                raise ActionError("not_seated", _("only a player can resign") if kind == "resign" else _("only a player can leave"))
            done = await (room.resign(seat) if kind == "resign" else room.leave(seat))
            conn.send_json({"type": "ack", "id": msg_id, "done": done})
        elif kind == "expel":
            if seat is None:
                raise ActionError("not_seated", _("only a player can expel another"))
            done = await room.expel(seat, data.get("seat"))
            conn.send_json({"type": "ack", "id": msg_id, "done": done})
        elif kind == "rematch":
            if seat is None:
                raise ActionError("not_seated", _("only a player can ask for a rematch"))
            follow = data.get("follow", False)
            if not isinstance(follow, bool):
                raise ActionError("bad_message", f"'follow' is true or false, not {str(follow)[:32]!r}")
            new, new_seat, new_token = await lobby.rematch(room, seat, conn.token or "")
            reply = {"type": "rematch", "id": msg_id, "room": new.id, "seat": new_seat, "token": new_token}
            if not follow:
                conn.send_json(reply)
                return None
            # The connection moves to the new room: no new websocket (its handshake, hello and
            # the old one's close were most of a rematch's cost on the server, issue 28).
            conn.send_json({**reply, "follow": True})
            conn.seal()
            room.detach(conn)
            conn.seat, conn.token = new_seat, new_token
            log_context(new.id, new_seat)
            new.attach(conn)
            return new
        else:
            raise ActionError(
                "unknown_type",
                f"unknown message type {str(kind)[:32]!r}: expected move, query, chat, rematch, resign, leave, expel, state or ping",
            )
        return None

    return router


async def _close_flood(ws: WebSocket, conn: Connection) -> None:
    """Close a flooding connection with the documented 1008 frame, after one ``rate_limited``
    error saying so. A flood need not read what it is sent: when the error and the close frame
    have not gone out within a second or two, the connection is dropped instead."""
    with contextlib.suppress(Exception):
        await asyncio.wait_for(conn.task, 1.0)  # the outbox's own send ends (or is cancelled) first
    text = json.dumps({"type": "error", "id": None, **error_body("rate_limited", conn.close_reason + ": the connection is closed (1008)")})
    try:
        await asyncio.wait_for(_send_and_close(ws, text, conn.close_reason), 2.0)
    except Exception:
        _abort(ws)


async def _send_and_close(ws: WebSocket, text: str, reason: str) -> None:
    await ws.send_text(text)
    await ws.close(code=1008, reason=reason[:120])


def _abort(ws: WebSocket) -> None:
    """Drop a connection that does not read at once: a polite close would wait behind the data
    it is not reading. Reaches uvicorn's transport; falls back to nothing (the ping timeout
    ends it)."""
    protocol = getattr(getattr(ws, "_send", None), "__self__", None)
    transport = getattr(protocol, "transport", None)
    if transport is not None:
        with contextlib.suppress(Exception):
            transport.abort()


__all__ = ["socket_router"]
