"""The dice game on the server: events are the record's moves; the server rolls as each turn begins."""

from __future__ import annotations

import weakref
from collections.abc import Mapping, Sequence
from dataclasses import replace
from itertools import groupby
from operator import itemgetter
from typing import Any

from tabletris.engine.board import Stone, parse_cells
from tabletris.engine.dice import DiceAction, DiceGame, DiceMove, not_your_turn, stone_dict
from tabletris.engine.dice_records import dice_record_head, replay_dice, replay_dice_move
from tabletris.engine.dice_rules import DiceRules
from tabletris.engine.errors import IllegalMove
from tabletris.engine.games import DICE, GameSpec
from tabletris.engine.shapes import Shape
from tabletris.i18n import _
from tabletris.server.adapter import LOG_LENGTH, SpecAdapter, cells_json
from tabletris.server.errors import ActionError, engine_text
from tabletris.server.jsontext import dumps
from tabletris.server.limits import Limits, check_limit
from tabletris.server.models import MoveIn


class _GameTexts:
    """One game's rendered texts: each stone's and logged move's JSON by the object's identity
    (each entry keeps its object, so the identity is not reused while it is there), and the
    board's stones joined, as of the last state. Stones and moves are immutable, and a board
    keeps its stone objects from move to move, usually adding one at the end: the joined text
    then grows by that stone's text instead of being joined anew from every stone's. By
    identity, since hashing a frozen dataclass's fields on each lookup cost more than
    rendering it; per game, so that a thousand games' texts never crowd each other out, and
    go with their game."""

    __slots__ = ("stones", "stones_text", "texts")

    def __init__(self) -> None:
        self.texts: dict[int, tuple[Any, str]] = {}
        self.stones: list[Stone] = []
        self.stones_text = ""

    def text(self, value: Stone | DiceMove) -> str:
        cached = self.texts.get(id(value))
        if cached is not None and cached[0] is value:
            return cached[1]
        if len(self.texts) >= TEXTS_KEPT:
            self.texts.clear()
        text = dumps(stone_dict(value) if isinstance(value, Stone) else value.to_dict())
        self.texts[id(value)] = (value, text)
        return text

    def stones_of(self, stones: list[Stone]) -> str:
        """The stones' texts joined with commas (the ``"stones"`` array's inside)."""
        known = len(self.stones)
        if len(stones) >= known and stones[:known] == self.stones:
            added = ",".join([self.text(s) for s in stones[known:]])
            joined = self.stones_text + ("," if self.stones_text and added else "") + added
        else:  # stones were taken or cleared: joined anew
            joined = ",".join([self.text(s) for s in stones])
        self.stones = stones
        self.stones_text = joined
        return joined


_ORIENTATION = itemgetter(1)
_CORNER = itemgetter(2, 3)
"""A ``Placement``'s orientation, and its corner ``(x, y)`` (a tuple: the same JSON array)."""

_TEXTS: weakref.WeakKeyDictionary[DiceGame, _GameTexts] = weakref.WeakKeyDictionary()
TEXTS_KEPT = 1024
"""A game's cached texts at most (a board's stones and the log shown are a hundred or so)."""


def _texts(game: DiceGame) -> _GameTexts:
    texts = _TEXTS.get(game)
    if texts is None:
        texts = _TEXTS[game] = _GameTexts()
    return texts


_FORM_CELLS: dict[int, tuple[Any, list[list[int]]]] = {}
"""Each orientation's cells as the state lists them, by the orientation's identity (the entry
keeps its object): a shape's orientations are made once per mode and shared, and listing their
cells again for every orientation of every state was a fifth of a state's cost."""


def _form_cells(orientation: Any) -> list[list[int]]:
    """``cells_json(orientation.cells)``, made once per orientation; the list is shared by every
    state, which only ever encode it."""
    cached = _FORM_CELLS.get(id(orientation))
    if cached is not None and cached[0] is orientation:
        return cached[1]
    cells = cells_json(orientation.cells)
    if len(_FORM_CELLS) >= TEXTS_KEPT:
        _FORM_CELLS.clear()
    _FORM_CELLS[id(orientation)] = (orientation, cells)
    return cells


def _listed_option(game: DiceGame, shape: Any, cells: frozenset[tuple[int, int]], take: frozenset[Any] | None) -> DiceAction | None:
    """The first of ``game.turn_options()`` of this shape, with these cells and this stone taken
    (None: there is none), found without building the others: only the placements of that
    shape and take are looked at, by their corner and form (a placement's cells are its form
    moved to its corner), where building every option and its cells cost 0.6 ms a move."""
    if not cells:
        return None
    x0 = min(x for x, _ in cells)
    y0 = min(y for _, y in cells)
    form = frozenset((x - x0, y - y0) for x, y in cells)
    for s in game.shapes_for_roll():
        if s.value != shape:
            continue
        for t in game.take_options(s):
            if (None if t is None else frozenset(t.cells)) != take:
                continue
            for p in game.legal_placements(s, t):
                if p.x == x0 and p.y == y0 and frozenset(p.orientation.cells) == form:
                    return DiceAction(s, p, t)
    return None


class DiceAdapter(SpecAdapter):
    """The dice game: events are the record's moves; the server rolls as each turn begins."""

    turn_field = "turn"
    move_model = MoveIn
    """A move names the turn it answers (``game.turn``): a late one is refused, not applied to
    the next turn."""

    def __init__(self, game_spec: GameSpec = DICE) -> None:
        super().__init__(game_spec)

    def check_limits(self, rules: DiceRules, limits: Limits) -> None:
        """The board, supply, target and die within the server's ranges, and the garbage within
        its share of the board."""
        check_limit("width", rules.width, limits.dice_width)
        check_limit("height", rules.height, limits.dice_height)
        check_limit("supply", rules.supply, limits.supply)
        check_limit("target", rules.target, limits.target)
        check_limit("die", len(rules.die), limits.die_faces)
        cells = rules.width * rules.height
        stones = rules.garbage if isinstance(rules.garbage, int) else len(rules.garbage)
        most = int(cells * limits.garbage_share) // 4
        if stones > most:
            raise ActionError(
                "bad_rules",
                _("rules.garbage: {stones} stones would cover over {share}% of the {width}x{height} board (at most {most} here)").format(
                    stones=stones, share=round(limits.garbage_share * 100), width=rules.width, height=rules.height, most=most),
            )

    def start_record(self, game: DiceGame) -> dict[str, Any]:
        record = self.record(game)
        record["moves"] = []
        return record

    def rebuild(self, start: Mapping[str, Any], events: Sequence[Mapping[str, Any]]) -> DiceGame:
        return replay_dice({**start, "moves": list(events)})

    def extend(self, game: DiceGame, events: Sequence[Mapping[str, Any]], first: int) -> None:
        for number, event in enumerate(events, first + 1):
            replay_dice_move(game, event, number)

    def action(self, game: DiceGame, seat: int, move: Mapping[str, Any]) -> DiceAction:
        """The client's move as the engine's ``DiceAction``: the one of the turn's legal
        options (``turn_options``) with these cells, shape and stone taken, with the rewards
        the client chose. When none matches, the engine says why (``play`` on a view)."""
        if game.over:
            raise ActionError("game_over", _("the game is over"))
        if seat != game.to_move:
            raise ActionError("not_your_turn", not_your_turn(game, seat))
        if move.get("place") is None:
            raise ActionError("bad_message", "a dice move needs 'place': the four cells of the piece")
        try:
            cells = frozenset(parse_cells(move["place"], "place"))
            take = None if move.get("take") is None else frozenset(parse_cells(move["take"], "take"))
            rewards = None if move.get("rewards") is None else tuple(
                r if isinstance(r, str) else parse_cells(r["remove"], "rewards") for r in move["rewards"]
            )
        except (IllegalMove, ValueError, KeyError, TypeError) as e:
            raise ActionError("illegal", engine_text(e)) from None
        try:
            tokens = None if move.get("tokens") is None else tuple(Shape(t) for t in move["tokens"])
        except ValueError:
            tokens = ()  # not shapes: the engine words it below
        shape = move.get("shape") or game.roll_face
        if tokens != ():
            option = _listed_option(game, shape, cells, take)
            if option is not None:
                return replace(option, rewards=rewards, tokens=tokens)
        try:  # not a legal option: the engine's reason
            game.view().play(move["place"], move.get("shape"), move.get("take"), move.get("rewards"), move.get("tokens"))
        except IllegalMove as e:
            raise ActionError("illegal", engine_text(e)) from None
        raise ActionError("illegal", _("this is not one of the legal moves listed in the state"))

    def action_json(self, action: DiceAction) -> dict[str, Any]:
        move: dict[str, Any] = {"place": cells_json(action.placement.cells), "shape": action.shape.value}
        if action.take is not None:
            move["take"] = cells_json(action.take.cells)
        if action.rewards is not None:
            move["rewards"] = [
                r if isinstance(r, str) else {"remove": cells_json(r.cells if isinstance(r, Stone) else r)}
                for r in action.rewards
            ]
        if action.tokens:
            move["tokens"] = [t.value for t in action.tokens]
        return move

    def timer_mark(self, key: Any, seat: int, event: int) -> int:
        """The move's place in the log: one move per turn."""
        return event

    def mark_timer(self, game: DiceGame, state: dict[str, Any], marks: set[int]) -> None:
        """The log's moves the timer played carry ``"by": "timer"``."""
        for i, move in enumerate(state["log"]):
            if state["log_start"] + i in marks:
                move["by"] = "timer"

    def public(self, game: DiceGame) -> dict[str, Any]:
        rules = game.rules
        first = max(0, len(game.moves) - LOG_LENGTH)
        return {
            "game": self.name,
            **game.public_state(),
            "clear_rows": rules.clear_rows,
            "target": rules.target if rules.clear_rows else None,
            "row_reward": rules.row_reward,
            "log_start": first,
            "log": [m.to_dict() for m in game.moves[first:]],
        }

    def public_text(self, game: DiceGame, marks: set[int]) -> str:
        """``public`` as JSON text, joined from each stone's and each logged move's text, each
        rendered once (``_text``): rendering every stone and the last 24
        moves as dicts again after each move was most of a state's cost."""
        rules = game.rules
        first = max(0, len(game.moves) - LOG_LENGTH)
        head = dumps({
            "game": self.name,
            **game.public_state(stones=False),
            "clear_rows": rules.clear_rows,
            "target": rules.target if rules.clear_rows else None,
            "row_reward": rules.row_reward,
            "log_start": first,
        })
        texts = _texts(game)
        stones = texts.stones_of(list(game.board.stones.values()))
        if marks:
            log = ",".join([
                texts.text(m)[:-1] + ',"by":"timer"}' if first + i in marks else texts.text(m)
                for i, m in enumerate(game.moves[first:])
            ])
        else:
            log = ",".join([texts.text(m) for m in game.moves[first:]])
        return head[:-1] + ',"stones":[' + stones + '],"log":[' + log + "]}"

    def record_text(self, game: DiceGame) -> str:
        """``record`` as JSON text, its moves joined from each move's text as the states logged
        it (``_GameTexts``): rendering every move of the game again when it ended was a
        fortieth of a move's CPU at 500 rooms (issue 28)."""
        texts = _texts(game)
        moves = ",".join([texts.text(m) for m in game.moves])
        return dumps(dice_record_head(game))[:-1] + ',"moves":[' + moves + "]}"

    def private(self, game: DiceGame, seat: int) -> dict[str, Any] | None:
        """The legal decisions for the seat to move, grouped by shape, stone taken and orientation."""
        if game.over or seat != game.to_move or game.roll_face is None:
            return None
        choose = game.rules.row_reward == "choose"
        options = []
        for shape in game.shapes_for_roll():
            for take in game.take_options(shape):
                placements = game.legal_placements(shape, take)
                orientations = shape.orientations(game.rules.orientation_mode)
                # Each placement to its orientation in one pass over runs of the same
                # orientation (the board lists them so), each run's corners taken in C: a
                # pass per orientation cost a third of the state's rendering, a Python loop
                # over the placements a quarter.
                mine: dict[int, list[Any]] = {id(o): [] for o in orientations}
                for o, run in groupby(placements, _ORIENTATION):
                    group = mine.get(id(o))
                    if group is not None:
                        group.extend(run)
                forms = []
                for o in orientations:
                    group = mine[id(o)]
                    form: dict[str, Any] = {"cells": _form_cells(o), "places": list(map(_CORNER, group))}
                    if choose:
                        form["rows"] = [len(game.scoring_rows_after(p, take)) for p in group]
                    forms.append(form)
                options.append(
                    {
                        "shape": shape.value,
                        "take": None if take is None else stone_dict(take),
                        "orientations": forms,
                    }
                )
        return {
            "options": options,
            "rewardable": [s.number for s in game.rewardable_stones()] if choose else [],
            "tokens": game.rules.takes_tokens,
        }

    def query(self, game: DiceGame, seat: int, message: Mapping[str, Any]) -> dict[str, Any]:
        """``{"place", "shape"?, "take"?, "rewards"?}``: the point tokens that placement would take
        by default (the engine plays it on a view) and the shapes a token may be now, so the
        player can accept the default with one click or name others."""
        if game.over or seat != game.to_move:
            raise ActionError("not_your_turn", _("it is not seat {seat}'s turn").format(seat=seat + 1))
        if message.get("place") is None:
            raise ActionError("bad_message", "a dice query needs 'place': the four cells of the piece")
        try:
            move = game.view().play(message["place"], message.get("shape"), message.get("take"), message.get("rewards"))
        except IllegalMove as e:
            raise ActionError("illegal", engine_text(e)) from None
        return {
            "tokens": [t.value for t in move.tokens or ()],
            "choices": [s.value for s in game.token_choices()],
        }

    def summary(self, game: DiceGame) -> dict[str, Any]:
        summary = game.summary()
        for i, player in enumerate(summary["players"]):
            player["rows"] = game.rows_completed[i]
        summary["stuck"] = game.stuck
        return summary

    def frames(self, record: Mapping[str, Any]) -> tuple[dict[str, Any], list[dict[str, Any]]]:
        """The replay summary and the position before the first move and after each move."""
        frames: list[dict[str, Any]] = []
        game = replay_dice(record, step=lambda g: frames.append(self._frame(g)))
        return self.summary(game), frames

    def _frame(self, game: DiceGame) -> dict[str, Any]:
        state = self.public(game)
        state["last"] = game.moves[-1].to_dict() if game.moves else None
        del state["log"]
        state["roll"] = None
        return state


ADAPTER = DiceAdapter()
