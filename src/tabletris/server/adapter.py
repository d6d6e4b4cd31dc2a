"""What the server asks of each game's adapter, and the part every adapter shares.

An adapter turns a client's move into an engine call, the engine's state into the JSON the web
client draws, and an event log back into a game. It never decides a rule itself: legality, the
legal placements sent to the client and every error reason come from the engine. Each game's
adapter is its own module (``GameSpec.front_ends["server"]``, ending in ``ADAPTER = ...``); the
room, the lobby and the routes ask only ``GameAdapter`` and never name a game.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Protocol, cast

from tabletris.bots.base import Bot
from tabletris.engine.games import GameSpec
from tabletris.engine.records import record_of
from tabletris.server.errors import ActionError
from tabletris.server.jsontext import dumps
from tabletris.server.limits import Limits
from tabletris.table.driver import Action, Table

LOG_LENGTH = 24
"""Moves of the log sent with each state (the record has them all)."""


class GameAdapter(Protocol):
    """What the room needs from a game; ``SpecAdapter`` answers the parts the game's spec and the
    ``Game`` protocol decide, and ``dice_adapter`` is the reference for the rest."""

    spec: GameSpec
    name: str
    max_seats: int
    turn_field: str
    """The move's field that names the turn it answers (``turn_key``): a late move is refused,
    not applied to the next turn."""
    move_model: type[Any]
    """The pydantic model of this game's move message (the websocket checks a move with it;
    its ``engine_dict()`` is the move the adapter's ``action`` reads)."""

    def rules_meta(self) -> dict[str, Any]: ...
    def check_limits(self, rules: Any, limits: Limits) -> None:
        """``bad_rules`` when parsed ``rules`` go beyond this server's ``limits`` for the game."""
    def setup_rules(self, rules: Mapping[str, Any], choices: Sequence[str | None]) -> dict[str, Any]:
        """The rules a game starts with when its seats made these set-up ``choices`` (the API's
        per-seat ``tower``; None: the seat chose nothing)."""
    def check_setup(self, rules: Mapping[str, Any], choices: Sequence[str | None]) -> None:
        """``bad_tower`` when the game refuses the seats' set-up ``choices``."""
    def new_game(self, players: Sequence[str], rules: Mapping[str, Any], seed: int | None) -> Any: ...
    def start_record(self, game: Any) -> dict[str, Any]: ...
    def rebuild(self, start: Mapping[str, Any], events: Sequence[Mapping[str, Any]]) -> Any: ...
    def extend(self, game: Any, events: Sequence[Mapping[str, Any]], first: int) -> None:
        """Apply the events that follow the ``first`` ones already in ``game`` (a live copy
        catching up); ``RecordError`` when they do not follow on (the caller rebuilds)."""
    def action(self, game: Any, seat: int, move: Mapping[str, Any]) -> Action: ...
    def action_json(self, action: Any) -> dict[str, Any]: ...
    def turn_key(self, game: Any) -> Any: ...
    def bot_view(self, game: Any, seat: int) -> Any: ...
    def bot_move(self, view: Any, seat: int, bot: Bot) -> dict[str, Any]: ...
    def timer_mark(self, key: Any, seat: int, event: int) -> int:
        """How the room remembers that the timer played ``seat``'s move in turn ``key``, the
        ``event``-th of the log (from 0): a number ``mark_timer`` finds again."""
    def mark_timer(self, game: Any, state: dict[str, Any], marks: set[int]) -> None:
        """Mark in the public ``state`` the moves the timer played (``timer_mark``'s numbers)."""
    def public(self, game: Any) -> dict[str, Any]: ...
    def public_text(self, game: Any, marks: set[int]) -> str:
        """``public`` with the timer's ``marks`` (``mark_timer``) as JSON text: what a room
        renders once per change for every socket."""
    def private(self, game: Any, seat: int) -> dict[str, Any] | None: ...
    def query(self, game: Any, seat: int, message: Mapping[str, Any]) -> dict[str, Any]: ...
    def record(self, game: Any) -> dict[str, Any]: ...
    def record_text(self, game: Any) -> str:
        """``record`` as JSON text: what a room keeps of its game once it has ended."""
    def summary(self, game: Any) -> dict[str, Any]: ...
    def frames(self, record: Mapping[str, Any]) -> tuple[dict[str, Any], list[dict[str, Any]]]: ...


def cells_json(cells: Sequence[Sequence[int]]) -> list[list[int]]:
    return [[int(c[0]), int(c[1])] for c in cells]


def rules_meta(game_spec: GameSpec) -> dict[str, Any]:
    """The game's options and presets (its ``GameSpec``), for the create form, the rules page and
    the rules-in-force panel of every room, with ``summary``: the rules in brief (the text the
    terminal app's help screen shows: ``GameSpec.rules_text``). Each option has its ``label``
    (the name a player reads; the web client translates it, as every engine text) and each
    preset its one-line ``preset_help``."""
    meta = game_spec.rules_meta()
    for option in meta["options"]:
        option["label"] = game_spec.option_labels.get(option["name"], option["name"])
    return {"summary": game_spec.rules_text(), **meta, "preset_help": dict(game_spec.preset_help)}


def chose(choices: Sequence[str | None]) -> bool:
    """Whether any seat made a set-up choice."""
    return any(c is not None for c in choices)


class SpecAdapter:
    """The adapter's answers that come from the game's spec and the ``Game`` protocol alone; a
    game's adapter adds its encodings (moves, states, queries, events) and overrides a hook
    where its game has more to say (``check_limits``, the seats' set-up)."""

    turn_field: str

    def __init__(self, game_spec: GameSpec) -> None:
        self.spec = game_spec
        self.name = game_spec.name
        self.max_seats = game_spec.max_players

    def rules_meta(self) -> dict[str, Any]:
        return rules_meta(self.spec)

    def check_limits(self, rules: Any, limits: Limits) -> None:
        """No limits of the server's own: the engine's checks are all."""

    def setup_rules(self, rules: Mapping[str, Any], choices: Sequence[str | None]) -> dict[str, Any]:
        return dict(rules)

    def check_setup(self, rules: Mapping[str, Any], choices: Sequence[str | None]) -> None:
        """A game without set-up choices refuses any."""
        if chose(choices):
            raise ActionError("bad_tower", f"the {self.name} game has no towers to choose")

    def new_game(self, players: Sequence[str], rules: Mapping[str, Any], seed: int | None) -> Any:
        return self.spec.new(players, dict(rules), seed=seed)

    def turn_key(self, game: Any) -> Any:
        return game.turn_key()

    def public_text(self, game: Any, marks: set[int]) -> str:
        """``public`` marked and encoded (a game's adapter may join cached texts instead)."""
        adapter = cast(GameAdapter, self)  # each game's adapter adds ``public`` and ``mark_timer``
        state = adapter.public(game)
        if marks:
            adapter.mark_timer(game, state, marks)
        return dumps(state)

    def bot_view(self, game: Any, seat: int) -> Any:
        """A copy for the bot to think on (what the seat may see), taken on the event loop: the
        bot runs in a worker while the room's game goes on changing."""
        return game.seat_view(seat)

    def action_json(self, action: Any) -> dict[str, Any]:
        raise NotImplementedError

    def bot_move(self, view: Any, seat: int, bot: Bot) -> dict[str, Any]:
        """The bot's decision (``Table.bot_action``: completed by the rules) as a client move."""
        return self.action_json(Table(view, {seat: bot}).bot_action(seat))

    def record(self, game: Any) -> dict[str, Any]:
        return record_of(game)

    def record_text(self, game: Any) -> str:
        """``record`` encoded (a game's adapter may join cached texts instead)."""
        return dumps(cast(GameAdapter, self).record(game))

    def summary(self, game: Any) -> dict[str, Any]:
        summary: dict[str, Any] = game.summary()
        return summary


__all__ = ["LOG_LENGTH", "GameAdapter", "SpecAdapter", "cells_json", "chose", "rules_meta"]
