"""The tower game on the server: events are the submissions in the order they were accepted."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from tabletris.engine.board import Placement
from tabletris.engine.dice import stone_dict
from tabletris.engine.errors import IllegalMove, RecordError, RulesError
from tabletris.engine.games import TOWER
from tabletris.engine.shapes import Shape
from tabletris.engine.tower import TowerAction, TowerGame, TowerRules
from tabletris.engine.tower_layouts import LAYOUT_NAMES
from tabletris.engine.tower_records import recorded_towers, replay_tower
from tabletris.i18n import _
from tabletris.server.adapter import LOG_LENGTH, SpecAdapter, cells_json, chose
from tabletris.server.errors import ActionError, engine_text
from tabletris.server.limits import Limits, check_limit
from tabletris.server.models import MoveIn


def _drop_forms(placements: Sequence[Placement], shape: Shape) -> list[dict[str, Any]]:
    """Legal drops grouped by orientation (rotations only), as the client's ghost uses them."""
    forms = []
    for o in shape.orientations("rotate"):
        mine = [p for p in placements if p.orientation is o]
        forms.append({"cells": cells_json(o.cells), "places": [[p.x, p.y] for p in mine]})
    return forms


class TowerAdapter(SpecAdapter):
    """The tower game: events are the submissions in the order they were accepted.

    A submission stays private: it is stored (so a restart keeps it) but only its own seat is
    told what it was; everybody sees the actions once the round resolves (``last_round``).
    """

    turn_field = "round"
    move_model = MoveIn

    def __init__(self) -> None:
        super().__init__(TOWER)

    def rules_meta(self) -> dict[str, Any]:
        return {**super().rules_meta(), "towers": list(LAYOUT_NAMES)}

    def check_limits(self, rules: TowerRules, limits: Limits) -> None:
        check_limit("minos_in_box", rules.minos_in_box, limits.minos_in_box)
        check_limit("start_minos", rules.start_minos, limits.start_minos)

    def setup_rules(self, rules: Mapping[str, Any], choices: Sequence[str | None]) -> dict[str, Any]:
        """The seats' tower choices as the ``towers`` option (the engine draws a free tower for
        a seat without one)."""
        if not chose(choices):
            return dict(rules)
        return {**rules, "towers": list(choices)}

    def check_setup(self, rules: Mapping[str, Any], choices: Sequence[str | None]) -> None:
        """The seats' tower choices, checked by building a game with them: the engine's words."""
        if not chose(choices):
            return
        try:
            self.new_game([f"P{i}" for i in range(len(choices))], self.setup_rules(rules, choices), 0)
        except (RulesError, ValueError, TypeError) as e:
            raise ActionError("bad_tower", engine_text(e)) from None

    def start_record(self, game: TowerGame) -> dict[str, Any]:
        record = self.record(game)
        record["rounds"] = []
        return record

    def rebuild(self, start: Mapping[str, Any], events: Sequence[Mapping[str, Any]]) -> TowerGame:
        try:
            game = TowerGame(
                start["players"], start.get("rules"), seed=start.get("seed"),
                towers=recorded_towers(start), deck=start.get("deck"),
            )
        except RulesError as e:
            raise RecordError(str(e)) from None
        self.extend(game, events, 0)
        return game

    def extend(self, game: TowerGame, events: Sequence[Mapping[str, Any]], first: int) -> None:
        for number, ev in enumerate(events, first + 1):
            try:
                game.submit(int(ev["seat"]), ev["action"])
            except (IllegalMove, KeyError, TypeError, ValueError) as e:
                raise RecordError(f"event {number}: {e}") from None

    def action(self, game: TowerGame, seat: int, move: Mapping[str, Any]) -> TowerAction:
        if game.over:
            raise ActionError("game_over", _("the game is over"))
        if seat not in game.active_seats():
            raise ActionError("not_your_turn", _("{name} is out: the tower is frozen").format(name=game.players[seat]))
        if game.forced(seat):
            raise ActionError("not_your_turn", _("{name} has no legal drop: the engine holds for them").format(name=game.players[seat]))
        action = {k: move[k] for k in ("minos", "place", "hold") if k in move}
        if action.get("hold") is False:
            del action["hold"]
        try:
            return TowerAction.from_dict(action)
        except (IllegalMove, ValueError) as e:
            raise ActionError("illegal", engine_text(e)) from None

    def action_json(self, action: TowerAction) -> dict[str, Any]:
        result: dict[str, Any] = action.to_dict()
        return result

    def timer_mark(self, key: Any, seat: int, event: int) -> int:
        """The round and the seat (``round * 8 + seat``): a round is several events."""
        return int(key) * 8 + seat

    def mark_timer(self, game: TowerGame, state: dict[str, Any], marks: set[int]) -> None:
        """The last round's ``last_round_by``: ``"timer"`` or None per seat."""
        played = state["rounds_played"]
        state["last_round_by"] = ["timer" if played * 8 + s in marks else None for s in range(game.player_count)]

    def public(self, game: TowerGame) -> dict[str, Any]:
        state = game.public_state()
        state["game"] = self.name
        state["width"] = game.rules.width
        state["height"] = game.rules.height
        state["players"] = list(game.players)
        state["submitted"] = [game.submitted(i) for i in range(game.player_count)]
        state["winners"] = game.winners()
        state["rounds_played"] = len(game.rounds)
        state["last_round"] = (
            [None if a is None else a.to_dict() for a in game.rounds[-1]] if game.rounds else None
        )
        for i, (tower, entry) in enumerate(zip(game.towers, state["towers"], strict=True)):
            entry["stones"] = [stone_dict(st) for st in tower.board.stones.values()]
            entry["icons"] = tower.layout.to_dict()
            entry["hold_used"] = tower.hold_used
            entry["seat"] = i
        state["end"] = self._end_reason(game)
        first = max(0, len(game.rounds) - LOG_LENGTH)
        state["log_start"] = first
        state["log"] = [self._round_log(game, k) for k in range(first + 1, len(game.rounds) + 1)]
        return state

    @staticmethod
    def _end_reason(game: TowerGame) -> str | None:
        """Why the game ended, for the players: the last card was played, or every tower is out."""
        if not game.over:
            return None
        return "deck" if game.deck_left == 0 and not all(t.out for t in game.towers) else "out"

    @staticmethod
    def _round_log(game: TowerGame, number: int) -> dict[str, Any]:
        """Round ``number`` (from 1) for the game log: its card, each seat's action and the
        achievement cards won in it. Round k played the k-th card drawn (a round whose players
        were all forced to hold still took its card)."""
        actions = game.rounds[number - 1]
        won = []
        for card in game.achievements:
            seats = sorted(s for s, r in card.met_round.items() if r == number)
            if seats:
                won.append({"id": card.id, "seats": seats, "points": [card.points_for(s) for s in seats]})
        return {
            "round": number,
            "card": game.deck[number - 1].value if number - 1 < len(game.deck) else None,
            "actions": [None if a is None else a.to_dict() for a in actions],
            "achievements": won,
        }

    def private(self, game: TowerGame, seat: int) -> dict[str, Any] | None:
        """The seat's own: what it has submitted this round, and the legal drops without minos."""
        if game.over or game.play_card is None or game.towers[seat].out:
            return None
        pending = game.pending(seat)
        return {
            "pending": None if pending is None else pending.to_dict(),
            "forced": game.forced(seat),
            "can_hold": game.can_hold(seat),
            "minos": game.towers[seat].minos,
            "drops": _drop_forms(game.legal_drops(seat), game.play_card),
        }

    def query(self, game: TowerGame, seat: int, message: Mapping[str, Any]) -> dict[str, Any]:
        """``{"minos": [columns]}``: where those minos land and the legal drops after them."""
        minos = message.get("minos", [])
        if not isinstance(minos, list) or len(minos) > 64 or not all(
            isinstance(m, int) and not isinstance(m, bool) for m in minos
        ):
            raise ActionError("bad_message", "'minos' is a list of column numbers")
        if game.over or game.play_card is None:
            raise ActionError("game_over", _("the game is over"))
        tower = game.towers[seat].copy()
        cells = []
        try:
            drops = game.legal_drops(seat, minos)
            for column in minos:
                placement = tower.mino_placement(column)
                tower.board.push(placement)
                cells.append(cells_json(placement.cells)[0])
        except IllegalMove as e:
            raise ActionError("illegal", engine_text(e)) from None
        return {"minos": minos, "mino_cells": cells, "drops": _drop_forms(drops, game.play_card)}

    def frames(self, record: Mapping[str, Any]) -> tuple[dict[str, Any], list[dict[str, Any]]]:
        """The replay summary and the position after each round (prefixes of the record)."""
        game = replay_tower(record)
        summary = self.summary(game)
        rounds = list(record.get("rounds") or [])
        frames = []
        for k in range(len(rounds)):
            frames.append(self.public(replay_tower({**record, "rounds": rounds[:k]})))
        frames.append(self.public(game))
        return summary, frames


ADAPTER = TowerAdapter()
