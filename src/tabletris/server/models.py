"""The HTTP API's request and response bodies (they make the OpenAPI document at /openapi.json).

Requests are strict (unknown keys and wrong types are rejected with 422 before any game sees
them); the game-specific parts of responses are free-form objects, described in docs/api.md.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    StrictBool,
    StrictFloat,
    StrictInt,
)
from pydantic_core import PydanticCustomError

from tabletris.engine.games import GAME_NAMES
from tabletris.server.games import ADAPTERS

CellIn = Annotated[list[StrictInt], Field(min_length=2, max_length=2, description="[x, y]")]
CellsIn = Annotated[list[CellIn], Field(max_length=16)]


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


def _served_game(value: Any) -> Any:
    """A game the server serves, asked at request time (a game registered later is one); refused
    in the words of pydantic's own choice error, as when the games were a fixed list."""
    if isinstance(value, str) and value in ADAPTERS:
        return value
    names = [repr(name) for name in ADAPTERS]
    expected = names[0] if len(names) == 1 else f"{', '.join(names[:-1])} or {names[-1]}"
    raise PydanticCustomError("literal_error", "Input should be {expected}", {"expected": expected})


GameName = Annotated[str, BeforeValidator(_served_game), Field(json_schema_extra={"enum": list(GAME_NAMES)})]
"""A game's name in a request; the OpenAPI document lists the built-in games."""


class SeatIn(Strict):
    kind: str = Field("open", max_length=300, description="'open' for a person, or a bot name from /api/meta (ext: bots only when the operator allows them)")
    name: str | None = Field(None, description="A bot's name (people name themselves on joining); at most name_chars characters (bad_name)")
    strength: StrictFloat | None = Field(None, ge=0, le=1, allow_inf_nan=False, description="The bot's strength, 0 to 1 (left out: full strength)")
    tower: str | None = Field(None, max_length=16, description="Tower game: this seat's tower and bottom end, e.g. '2b' (left out: a free one at random)")


Seconds = Annotated[StrictFloat, Field(allow_inf_nan=False)]


class SpeedIn(Strict):
    """A room's speed (docs/api.md, "Speeds"); each time within the server's limits (bad_timer)."""

    mode: Literal["untimed", "realtime", "turn"] = Field(
        description="untimed: nothing expires (the others may expel a player who holds the game up for untimed_expel s); "
        "realtime: a per-move timer (per_move) or a game clock per person (initial + increment); "
        "turn: turn-based, per_move seconds (hours or days) per move"
    )
    per_move: Seconds | None = Field(None, description="realtime: seconds per turn or round (the older timer); turn: seconds per move")
    initial: Seconds | None = Field(None, description="realtime game clock: each person's starting time, seconds")
    increment: Seconds | None = Field(None, description="realtime game clock: seconds added for each move made in time (default 0)")


class CreateRoomIn(Strict):
    game: GameName = GAME_NAMES[0]
    rules: dict[str, Any] = Field(default_factory=dict, description="{'preset': NAME} and/or options")
    seats: list[SeatIn] = Field(min_length=1, max_length=8)
    timer: StrictFloat | None = Field(
        None, allow_inf_nan=False,
        description="Seconds per turn (dice) or round (tower); then a bot plays for the seat. "
        "Omitted or 0: the server's default for rooms with people, none for bot-only rooms; "
        "out of the server's range: bad_timer (range and default: docs/security.md)",
    )
    speed: SpeedIn | None = Field(
        None, description="The room's speed (untimed, realtime, turn); left out: timer as before. Not with timer (bad_timer)",
    )
    rated: StrictBool = Field(
        False, description="A rated game: the standard preset without house rules, a timed speed, bots only those with a "
        "fixed rating at full strength (bad_rated says which failed); rated when every person's seat is an account",
    )


class SeatOut(BaseModel):
    seat: int
    kind: str
    name: str | None
    strength: float | None
    tower: str | None = None
    open: bool
    bot: bool
    connected: bool
    account: bool = Field(False, description="The seat is an account's (its name is the username: /players/{name} is its profile)")


class RoomOut(BaseModel):
    id: str
    game: str
    status: Literal["waiting", "playing", "over", "abandoned", "stopped", "expired", "broken"]
    created: float
    rules: dict[str, Any]
    preset: Any
    timer: float | None = Field(description="Seconds per turn or round (a per-move timer or turn-based); null: a game clock or untimed")
    speed: dict[str, Any] = Field(
        description="{mode: untimed|realtime|turn, per_move?, initial?, increment?, expel_after? (untimed: seconds)}"
    )
    clocks: list[dict[str, Any] | None] | None = Field(
        None, description="A game clock per seat (realtime with initial): {left: seconds, until: wall time it reaches 0 while it runs, else null}; null for a seat without one"
    )
    turn_started: float | None = Field(None, description="When the turn or round in play began (Unix time)")
    to_act: list[int] = Field(default_factory=list, description="The seats the game waits for now (a dice player, the tower seats still to submit)")
    rated: bool = False
    seats: list[SeatOut]
    rematch: str | None
    rematch_of: str | None
    deadline: float | None
    events: int
    spectators: int
    error: str | None


class JoinIn(Strict):
    name: str = Field(min_length=1, description="At most name_chars characters (bad_name)")
    seat: StrictInt | None = Field(None, ge=0, le=7, description="The seat to take; the first open one if omitted")
    tower: str | None = Field(None, max_length=16, description="Tower game: this seat's tower and bottom end, e.g. '2b' (left out: a free one at random)")


class JoinOut(BaseModel):
    room: str
    seat: int
    token: str = Field(description="The seat's secret: send it as X-Seat-Token, or in the websocket's hello message")


class TimeOut(BaseModel):
    now: float = Field(description="The server's time, Unix seconds (deadlines and clocks are in it)")


class ExpelIn(Strict):
    seat: StrictInt = Field(ge=0, le=7, description="The seat to expel: a person who has not acted for untimed_expel seconds (untimed rooms)")


class ExpelOut(BaseModel):
    done: Literal["resigned"] = Field(description="The seat is resigned: the timer's bot plays it on")


class LeaveOut(BaseModel):
    done: Literal["left", "resigned"] = Field(description="left: the seat is open again; resigned: a bot plays it on")


class RemoveIn(Strict):
    remove: CellsIn


class MoveIn(Strict):
    """A move. Dice: ``place`` (+ ``shape`` on '*', ``take``, ``rewards``, ``tokens``). Tower:
    ``minos``, ``place`` or ``hold``."""

    seat: StrictInt | None = Field(None, description="Optional: checked against the token's seat")
    turn: StrictInt | None = Field(None, description="Dice: the state's game.turn this move answers (required)")
    round: StrictInt | None = Field(None, description="Tower: the state's game.round this move answers (required)")
    place: CellsIn | None = None
    shape: str | None = Field(None, max_length=8)
    take: CellsIn | None = None
    rewards: Annotated[list[Literal["point"] | RemoveIn], Field(max_length=40)] | None = None
    tokens: Annotated[list[Annotated[str, Field(max_length=8)]], Field(max_length=40)] | None = Field(
        None, description="Dice, tokens_from_supply: each point token's shape (left out: the most stones left)"
    )
    minos: Annotated[list[StrictInt], Field(max_length=64)] | None = None
    hold: StrictBool = False

    def engine_dict(self) -> dict[str, Any]:
        d = self.model_dump(exclude_none=True)
        if not d.get("hold"):
            d.pop("hold", None)
        return d


class MoveOut(BaseModel):
    seq: int = Field(description="This move's number (from 1) in the room's stored event log")


class StateOut(BaseModel):
    type: Literal["state"]
    you: int | None
    seq: int
    private: dict[str, Any] | None
    room: RoomOut
    game: dict[str, Any] | None


class ErrorOut(BaseModel):
    error: str = Field(description="A code: unknown_room, bad_token, not_your_turn, illegal, ...")
    message: str = Field(description="What is wrong, for people")


ERRORS: dict[int | str, dict[str, Any]] = {
    403: {"model": ErrorOut, "description": "Wrong or missing seat token"},
    404: {"model": ErrorOut, "description": "Unknown room"},
    409: {"model": ErrorOut, "description": "Not now: not your turn, a stale move, seat taken, game over ..."},
    413: {"model": ErrorOut, "description": "Body too large"},
    422: {"model": ErrorOut, "description": "Malformed request, bad rules or an illegal move"},
    429: {"model": ErrorOut, "description": "Too many requests or rooms from this address (see RATE_LIMITED)"},
    503: {"model": ErrorOut, "description": "The move could not be stored, or the server is full; nothing changed"},
}
"""The error answers of the OpenAPI document, by status."""

RATE_LIMITED: dict[str, Any] = {
    "description": "Too many requests from this address (rate_limited, with Retry-After), or too many rooms "
    "(rate_limited with Retry-After: rooms a minute; too_many_rooms: waiting rooms open, without it)",
    "headers": {
        "Retry-After": {
            "description": "Seconds until the same request may succeed (rate_limited answers)",
            "schema": {"type": "integer", "minimum": 1},
        }
    },
    "content": {"application/json": {"schema": {"$ref": "#/components/schemas/ErrorOut"}}},
}
"""The 429 answer, which every operation may give (the request rate is checked before any route)."""


class GameMeta(BaseModel):
    title: str = Field(description="The game's full name (English; the catalogs translate it)")
    label: str = Field(description="The game's name in a sentence or a list (English; the catalogs translate it)")
    simultaneous: bool = Field(description="True when every seat acts at once (tower rounds), False for turns in seat order")
    min_seats: int
    max_seats: int
    bots: list[str] = Field(description="The bots this game offers: built-in names, and the operator's allowed ext: commands when it takes outside programs")
    view: str | None = Field(description="The URL of the game's web view module, or null when the web client has none")
    tutorial: str | None = Field(None, description="The page of the game's guided first game (/tutorial/GAME), or null when it has none")
    summary: str = Field(description="The game's rules in brief (Markdown)")
    presets: dict[str, dict[str, Any]]
    options: list[dict[str, Any]]
    towers: list[str] = Field(default_factory=list, description="Tower game: the towers and ends a seat may choose on joining")
    preset_help: dict[str, str] = Field(default_factory=dict, description="Each preset in one line (English; the catalogs translate it)")


class MetaOut(BaseModel):
    games: dict[str, GameMeta]
    bots: list[str]
    timer_bot: str
    colours: dict[str, str] = Field(description="Each shape's colour (Shape.colour)")


class ReplayOut(BaseModel):
    game: str
    players: list[str]
    record: dict[str, Any]
    summary: dict[str, Any]
    frames: list[dict[str, Any]] = Field(description="The position after 0, 1, 2 ... steps")
