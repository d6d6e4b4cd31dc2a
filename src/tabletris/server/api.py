"""The HTTP API: the lobby's routes (games, rooms), a room's (state, join, moves, leave, rematch)
and the replays; and how every refusal is answered (``install_error_handlers``).

Every route is in the OpenAPI document at ``/openapi.json``; docs/api.md describes them.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterable, Iterator
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Body, Depends, FastAPI, Header, Query, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.routing import Match

from tabletris.bots.external import allowed_commands
from tabletris.bots.registry import bot_names, bots_for
from tabletris.engine.games import spec
from tabletris.engine.shapes import Shape
from tabletris.i18n import _
from tabletris.server import timesource
from tabletris.server.accounts.core import Account, optional_account
from tabletris.server.adapter import GameAdapter
from tabletris.server.bot_pool import replay_text
from tabletris.server.errors import STATUS, ActionError, describe, error_body, retry_after_header
from tabletris.server.games import ADAPTERS
from tabletris.server.guard import client_address
from tabletris.server.limits import Limits
from tabletris.server.listing import CURSOR_PATTERN, Filters, LobbyList, next_link
from tabletris.server.lobby import Lobby
from tabletris.server.models import (
    ERRORS,
    RATE_LIMITED,
    CreateRoomIn,
    ErrorOut,
    ExpelIn,
    ExpelOut,
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
    TimeOut,
)
from tabletris.server.rooms import ENDED, TIMER_BOT, Room

log = logging.getLogger("tabletris.server")

Caller = Annotated[Account | None, Depends(optional_account)]
"""The logged-in account, if any (a route parameter)."""


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
        tutorial=f"/tutorial/{name}" if view is not None and game.has_front_end("tutorial") else None,
        **adapter.rules_meta(),
    )


def error_response(e: ActionError) -> JSONResponse:
    headers = {"Retry-After": retry_after_header(e.retry_after)} if e.retry_after is not None else None
    return JSONResponse(error_body(e.code, e.message), status_code=STATUS.get(e.code, 422), headers=headers)


def bad_json(e: BaseException | None) -> JSONResponse:
    """``bad_json`` (422) for a body that is not JSON text: not UTF-8, nested too deeply, a
    number too long (``e``: what the parser raised)."""
    if isinstance(e, UnicodeDecodeError):
        message = f"the body is not UTF-8 text: byte 0x{e.object[e.start]:02x} at position {e.start}"
    elif isinstance(e, RecursionError):
        message = "the JSON is nested too deeply"
    elif isinstance(e, ValueError):
        message = f"not acceptable JSON: {str(e)[:120]}"
    else:
        message = "the body could not be read as JSON"
    return JSONResponse(error_body("bad_json", message), status_code=422)


def allowed_methods(request: Request) -> list[str]:
    """Every method some route answers at this request's path (the 405's ``Allow``): each of
    a path's routes has one method, and Starlette's answer names only the first one's."""
    scope = {**request.scope, "type": "http"}
    methods: set[str] = set()
    for route in _routes(request.app.router.routes):
        route_methods = getattr(route, "methods", None)
        if route_methods and route.matches(scope)[0] != Match.NONE:
            methods |= set(route_methods)
    return sorted(methods)


def _routes(routes: Iterable[Any]) -> Iterator[Any]:
    """Every route, the included routers' too (FastAPI keeps an included router as one entry
    that yields its routes from ``effective_route_contexts``)."""
    for route in routes:
        nested = getattr(route, "effective_route_contexts", None)
        if callable(nested):
            yield from nested()
        else:
            yield route


def install_error_handlers(app: FastAPI) -> None:
    """Every refusal, from every route and every limit, answered with the one error body."""

    @app.exception_handler(ActionError)
    async def _action_error(_request: Request, e: ActionError) -> JSONResponse:
        return error_response(e)

    @app.exception_handler(RequestValidationError)
    async def _validation_error(_request: Request, e: RequestValidationError) -> JSONResponse:
        errors = list(e.errors())
        invalid = next((err for err in errors if err.get("type") == "json_invalid"), None)
        if invalid is not None:
            where = invalid.get("loc", ("body", 0))[-1]
            why = (invalid.get("ctx") or {}).get("error", "JSON decode error")
            return JSONResponse(error_body("bad_json", f"the body is not JSON: {why} at position {where}"), status_code=422)
        return JSONResponse(error_body("bad_request", describe(errors)), status_code=422)

    @app.exception_handler(StarletteHTTPException)
    async def _http_error(request: Request, e: StarletteHTTPException) -> JSONResponse:
        if e.status_code == 400 and e.__cause__ is not None:
            # FastAPI's "There was an error parsing the body": the JSON parser raised
            # something other than a decode error (bytes that are not UTF-8, deep nesting).
            return bad_json(e.__cause__)
        headers = dict(e.headers or {})
        if e.status_code == 405:
            headers["Allow"] = ", ".join(allowed_methods(request))
        code = {404: "not_found", 405: "method_not_allowed"}.get(e.status_code, "bad_request")
        return JSONResponse(error_body(code, str(e.detail)), status_code=e.status_code, headers=headers or None)

    @app.exception_handler(RecursionError)
    async def _too_deep(_request: Request, _e: RecursionError) -> JSONResponse:
        return JSONResponse(error_body("bad_json", "the JSON is nested too deeply"), status_code=422)


def install_openapi(app: FastAPI, limits: Limits) -> None:
    """The OpenAPI document with this server's own bounds where ``limits`` decide them (the
    request models leave them to the checks that answer ``bad_timer`` and ``bad_name``), every
    422 in the one error body, and the 429 that the request guard may give any operation."""
    generate = app.openapi

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is not None:
            return app.openapi_schema
        schema = generate()
        models = schema["components"]["schemas"]
        timer = models["CreateRoomIn"]["properties"]["timer"]
        timer["anyOf"] = [
            {"type": "number", "minimum": limits.timer_min, "maximum": limits.timer_max},
            {"type": "number", "enum": [0]},
            {"type": "null"},
        ]
        speed = models["SpeedIn"]["properties"]
        speed["initial"]["anyOf"][0].update(minimum=limits.clock_min, maximum=limits.clock_max)
        speed["increment"]["anyOf"][0].update(minimum=0, maximum=limits.increment_max)
        speed["per_move"]["anyOf"][0].update(minimum=limits.timer_min, maximum=limits.turn_max)
        models["SeatIn"]["properties"]["name"]["anyOf"][0]["maxLength"] = limits.name_chars
        models["JoinIn"]["properties"]["name"]["maxLength"] = limits.name_chars
        error = {"$ref": "#/components/schemas/ErrorOut"}
        for operations in schema["paths"].values():
            for operation in operations.values():
                responses = operation.setdefault("responses", {})
                invalid = responses.get("422")
                if invalid is not None and "HTTPValidationError" in json.dumps(invalid):
                    responses["422"] = {"description": "Malformed request (bad_request, bad_json)", "content": {"application/json": {"schema": error}}}
                responses["429"] = RATE_LIMITED
        if "ErrorOut" not in models:
            models["ErrorOut"] = ErrorOut.model_json_schema()
        for unused in ("HTTPValidationError", "ValidationError"):
            if unused not in json.dumps(schema["paths"]):
                models.pop(unused, None)
        return schema

    app.openapi = openapi  # type: ignore[method-assign]


def api_router(lobby: Lobby, limits: Limits) -> APIRouter:
    """The API's routes around ``lobby``."""
    router = APIRouter()
    rooms_list = LobbyList(lobby)

    def seat_of(room: Room, token: str | None, account: Account | None = None) -> int:
        """The token's seat; without a token, the seat the logged-in account holds here."""
        if not token and account is not None:
            held = room.account_seat(account.id)
            if held is not None:
                return held
        return room.authenticate(token)

    @router.get("/api/meta", response_model=MetaOut, tags=["lobby"])
    async def meta() -> MetaOut:
        """Games, presets, every rule option with its help text, and the bots."""
        games = {name: game_meta(name, a) for name, a in ADAPTERS.items()}
        colours = {shape.value: shape.colour for shape in Shape}
        return MetaOut(games=games, bots=[*bot_names(), *allowed_commands()], timer_bot=TIMER_BOT, colours=colours)

    @router.get("/api/time", response_model=TimeOut, tags=["meta"])
    async def server_time() -> TimeOut:
        """The server's time (Unix seconds): deadlines and clocks are in it, and a page counts
        down to them by its own clock corrected by the difference."""
        return TimeOut(now=timesource.now())

    @router.get(
        "/api/rooms", response_model=list[RoomOut], tags=["lobby"],
        responses={200: {"headers": {"Link": {
            "description": 'The next page, when there is one: <.../api/rooms?limit=N&after=CURSOR>; rel="next"',
            "schema": {"type": "string"},
        }}}},
    )
    async def list_rooms(
        request: Request,
        status: Annotated[str | None, Query(max_length=16, description="waiting, playing, over, ...")] = None,
        limit: Annotated[int, Query(ge=1, le=500)] = 100,
        after: Annotated[str | None, Query(pattern=CURSOR_PATTERN, description="The next page's cursor, from the Link header")] = None,
        game: Annotated[str | None, Query(max_length=16, description="Only this game's rooms")] = None,
        preset: Annotated[str | None, Query(max_length=32, description="Only rooms of this preset")] = None,
        seats: Annotated[int | None, Query(ge=1, le=8, description="Only rooms with at least this many open seats")] = None,
        rated: Annotated[bool | None, Query(description="Only rated (true) or unrated (false) rooms")] = None,
        list_: Annotated[Literal["open", "recent"] | None, Query(alias="list", description="open: waiting rooms with an open seat; recent: ended games")] = None,
    ) -> Response:
        """Rooms, newest first: open ones to join, running ones to watch, ended ones to replay
        (the newest 500 ended ones; an ended room leaves memory, and is served by id from the
        database), ``limit`` at a time; a ``Link`` header names the next page. The filters
        narrow it (``list=open``: rooms to join; ``recent``: ended games), each combination
        cached as the whole list is."""
        filters = Filters(game, preset, seats, rated, list_)
        text, more = await rooms_list.page(status, limit, after, filters)
        headers = {"Link": next_link(request.url.path, request.query_params, more)} if more else None
        return Response(text, media_type="application/json", headers=headers)

    @router.post("/api/rooms", response_model=RoomOut, status_code=201, responses=ERRORS, tags=["lobby"])
    async def create_room(request: Request, body: CreateRoomIn, account: Caller) -> dict[str, Any]:
        """A new room: game, rules (preset and house rules), seats (open or bots), speed
        (untimed, real-time or turn-based; or the older turn timer: default for rooms with
        people, see docs/api.md). Logged in, the room is counted against the account too (its
        rooms a minute and waiting rooms, as an address's)."""
        room = await lobby.create(
            body.game, body.rules, [s.model_dump() for s in body.seats], body.timer, creator=client_address(request.scope),
            rated=body.rated, creator_account=None if account is None else account.id,
            speed=None if body.speed is None else body.speed.model_dump(),
        )
        log.info("room created: %s, %d seats", body.game, len(body.seats), extra={"room": room.id})
        return room.info()

    @router.get("/api/rooms/{room_id}", response_model=StateOut, responses=ERRORS, tags=["room"])
    async def room_state(
        room_id: str, account: Caller, x_seat_token: Annotated[str | None, Header(max_length=128)] = None
    ) -> Response:
        """The full state: a spectator's, or with X-Seat-Token (or the session of the account
        seated here) the seat's (its legal moves included)."""
        room = await lobby.find(room_id)
        seat = seat_of(room, x_seat_token) if x_seat_token else room.account_seat(None if account is None else account.id)
        return Response(room.state_text(seat), media_type="application/json")

    @router.post("/api/rooms/{room_id}/join", response_model=JoinOut, responses=ERRORS, tags=["room"])
    async def join(
        room_id: str, body: JoinIn, account: Caller, x_seat_token: Annotated[str | None, Header(max_length=128)] = None
    ) -> JoinOut:
        """Take an open seat with a name (and, in the tower game, a tower); the answer's token is
        the seat's only key: keep it. With the X-Seat-Token of a seat already held here, the
        same seat is answered again. Logged in: the seat is the account's, named by its
        username (``name`` is ignored), and joining again answers that seat with a new token."""
        room = await lobby.find(room_id)
        name = account.username if account is not None else body.name
        seat, token = await room.join(
            body.seat, name, body.tower, token=x_seat_token, account_id=None if account is None else account.id
        )
        return JoinOut(room=room.id, seat=seat, token=token)

    @router.post("/api/rooms/{room_id}/moves", response_model=MoveOut, responses=ERRORS, tags=["room"])
    async def move(
        room_id: str, body: MoveIn, account: Caller, x_seat_token: Annotated[str | None, Header(max_length=128)] = None
    ) -> MoveOut:
        """Play a move for the token's seat (naming its turn or round); answered once it is stored."""
        room = await lobby.find(room_id)
        seq = await room.act(seat_of(room, x_seat_token, account), body.engine_dict())
        return MoveOut(seq=seq)

    @router.post("/api/rooms/{room_id}/leave", response_model=LeaveOut, responses=ERRORS, tags=["room"])
    async def leave(
        room_id: str, account: Caller, x_seat_token: Annotated[str | None, Header(max_length=128)] = None
    ) -> LeaveOut:
        """Before the game: free the seat. During it: resign (the timer bot plays the seat on)."""
        room = await lobby.find(room_id)
        done = await room.leave(seat_of(room, x_seat_token, account))
        return LeaveOut(done="left" if done == "left" else "resigned")

    @router.post("/api/rooms/{room_id}/expel", response_model=ExpelOut, responses=ERRORS, tags=["room"])
    async def expel(
        room_id: str, body: ExpelIn, account: Caller, x_seat_token: Annotated[str | None, Header(max_length=128)] = None
    ) -> ExpelOut:
        """Untimed rooms: expel a person who has held the game up for ``untimed_expel`` seconds
        (the room's ``speed.expel_after``); the timer's bot plays the seat on. Before then
        ``too_early`` (with Retry-After)."""
        room = await lobby.find(room_id)
        await room.expel(seat_of(room, x_seat_token, account), body.seat)
        return ExpelOut(done="resigned")

    @router.post("/api/rooms/{room_id}/rematch", response_model=JoinOut, responses=ERRORS, tags=["room"])
    async def rematch(
        room_id: str, account: Caller, x_seat_token: Annotated[str | None, Header(max_length=128)] = None
    ) -> JoinOut:
        """After the game: the same table again; the caller takes the same seat in the new room
        (kept for them for a while; asking again answers the same seat and token). The
        session of the account seated here does as its token."""
        room = await lobby.find(room_id)
        seat = seat_of(room, x_seat_token, account)
        new, new_seat, token = await lobby.rematch(room, seat, x_seat_token or "")
        return JoinOut(room=new.id, seat=new_seat, token=token)

    @router.get("/api/rooms/{room_id}/record", responses=ERRORS, tags=["replay"])
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

    @router.get("/api/rooms/{room_id}/replay", response_model=ReplayOut, responses=ERRORS, tags=["replay"])
    async def room_replay(room_id: str) -> Response:
        """A finished game step by step: the position after each move (dice) or round (tower)."""
        room = await lobby.find(room_id)
        if room.status not in ENDED:
            raise ActionError("not_over", _("the game in room {room} is not over: watch it live instead").format(room=room.id))
        return await replay_of(room.record())

    @router.post("/api/replay", response_model=ReplayOut, responses=ERRORS, tags=["replay"])
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
        text = await lobby.bots.think_long(replay_text, record)
        return Response(text, media_type="application/json")

    return router


__all__ = ["allowed_methods", "api_router", "game_meta", "install_error_handlers", "install_openapi"]
