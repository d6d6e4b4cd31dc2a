"""The pile game's server adapter: its moves, states and events as JSON, and nothing else.

``SpecAdapter`` answers what the spec and the ``Game`` protocol decide (rules, limits, set-up,
new games, turn keys, bot views and moves, records); this module adds the encodings, as
``server/dice_adapter.py`` does for the dice game. No shared server file changes for it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import StrictInt

from pile_game import SPEC
from pile_game.engine import PileGame, Take, replay_record
from tabletris.engine.errors import IllegalMove, RecordError
from tabletris.server.adapter import LOG_LENGTH, SpecAdapter
from tabletris.server.errors import ActionError
from tabletris.server.models import Strict


class PileMoveIn(Strict):
    """A pile move: how many stones, and the turn it answers."""

    seat: StrictInt | None = None
    turn: StrictInt | None = None
    take: StrictInt

    def engine_dict(self) -> dict[str, Any]:
        return self.model_dump(exclude_none=True)


class PileAdapter(SpecAdapter):
    turn_field = "turn"
    move_model = PileMoveIn

    def start_record(self, game: PileGame) -> dict[str, Any]:
        record = self.record(game)
        record["moves"] = []
        return record

    def rebuild(self, start: Mapping[str, Any], events: Sequence[Mapping[str, Any]]) -> PileGame:
        return replay_record({**start, "moves": list(events)})

    def extend(self, game: PileGame, events: Sequence[Mapping[str, Any]], first: int) -> None:
        for number, event in enumerate(events, first + 1):
            try:
                game.roll(event["roll"])
                game.apply(game.to_move, Take(event["take"]))
            except (IllegalMove, KeyError) as e:
                raise RecordError(f"move {number}: {e}") from None

    def action(self, game: PileGame, seat: int, move: Mapping[str, Any]) -> Take:
        if game.over:
            raise ActionError("game_over", "the game is over")
        if seat != game.to_move:
            raise ActionError("not_your_turn", f"it is {game.players[game.to_move]}'s turn")
        count = move.get("take")
        if not isinstance(count, int) or isinstance(count, bool):
            raise ActionError("bad_message", "a pile move needs 'take': how many stones")
        action = Take(count)
        if action not in game.legal_actions(seat):
            raise ActionError("illegal", f"take {count}: the die shows {game.roll_face} and {game.left} stones are left")
        return action

    def action_json(self, action: Take) -> dict[str, Any]:
        return {"take": action.count}

    def timer_mark(self, key: Any, seat: int, event: int) -> int:
        return event

    def mark_timer(self, game: PileGame, state: dict[str, Any], marks: set[int]) -> None:
        for i, move in enumerate(state["log"]):
            if state["log_start"] + i in marks:
                move["by"] = "timer"

    def public(self, game: PileGame) -> dict[str, Any]:
        first = max(0, len(game.moves) - LOG_LENGTH)
        return {
            "game": self.name,
            "players": list(game.players),
            "over": game.over,
            "to_move": None if game.over else game.to_move,
            "roll": game.roll_face,
            "left": game.left,
            "scores": game.seat_scores(),
            "winners": game.winners(),
            "turn": game.turn_key(),
            "log_start": first,
            "log": [dict(m) for m in game.moves[first:]],
        }

    def private(self, game: PileGame, seat: int) -> dict[str, Any] | None:
        """The takes the seat to move may choose from."""
        legal = game.legal_actions(seat)
        return {"takes": [a.count for a in legal]} if legal else None

    def query(self, game: PileGame, seat: int, message: Mapping[str, Any]) -> dict[str, Any]:
        raise ActionError("bad_message", "the pile game has nothing to ask")

    def frames(self, record: Mapping[str, Any]) -> tuple[dict[str, Any], list[dict[str, Any]]]:
        game = replay_record(record)
        frames = []
        replayed = replay_record({**record, "moves": []})
        frames.append(self.public(replayed))
        for move in game.moves:
            replayed.roll(move["roll"])
            replayed.apply(replayed.to_move, Take(move["take"]))
            frames.append(self.public(replayed))
        return self.summary(game), frames


ADAPTER = PileAdapter(SPEC)
