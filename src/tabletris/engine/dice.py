"""The dice game (rules.md section 2): a shared board, a die that names the piece, rows that stay.

``DiceGame`` is a pure state machine driven by two calls per turn: ``roll()`` (chance, drawn from
the game's own seeded generator, or given by a record) and ``play()`` (the player's decision).
A roll that leaves no legal placement ends the game at once, so front ends never decide that
themselves. Every change is checked before anything moves: an illegal ``play`` raises
``IllegalMove`` and leaves the game exactly as it was.

Readings where the rule texts are silent, each marked **[interpretation]** in rules.md and each
an option (``DiceRules``): the supply counts stones by shape only; a take is one of the stones of
the shape whose lowest cell is lowest (``take``); a reopened row does not score again
(``rescore_reopened``); a point's token is a stone out of the supply whose shape the scorer
names (default: most stones left, ties in die order), and with an empty supply the point counts
without one (``tokens_from_supply``); with ``row_reward: choose`` "an opponent's stone" is a stone
another seat placed (never garbage), it goes back to the supply, and the rewards are settled right
after the placement, before any clearing; ``clear_rows`` reads ``cells`` (computer Tetris) or
``stones`` (at a table); ``must_close`` reads "If possible, he places the piece so that it closes
the entire row" as a duty, across every shape a ``*`` may name.
"""

from __future__ import annotations

import random
import secrets
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from tabletris.engine.board import (
    Board,
    Placement,
    Stone,
    complete_rows_of,
    format_cells,
    parse_cells,
)
from tabletris.engine.dice_rules import (
    CHOICE,
    DICE_PRESETS,
    MAX_PLAYERS,
    RECORD_DEFAULTS,
    DiceRules,
)
from tabletris.engine.errors import IllegalMove, IllegalPlacement, MalformedMove, RulesError
from tabletris.engine.errors import error_text as _text
from tabletris.engine.options import options_to_spec
from tabletris.engine.shapes import (
    Cell,
    Shape,
    find_orientation,
)
from tabletris.engine.texts import N_, Message

Reward = str | tuple[Cell, ...]
"""``"point"``, or the cells of an opponent's stone to remove."""


@dataclass(frozen=True)
class DiceMove:
    """One turn as the record writes it (record-format.md, ``moves``)."""

    player: int
    roll: str
    shape: Shape | None = None
    take: tuple[Cell, ...] | None = None
    place: tuple[Cell, ...] | None = None
    rewards: tuple[Reward, ...] | None = None
    tokens: tuple[Shape, ...] | None = None
    """The point tokens taken out of the supply, in the order the points were scored."""

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"player": self.player, "roll": self.roll}
        if self.shape is not None:
            d["shape"] = self.shape.value
        if self.take is not None:
            d["take"] = [list(c) for c in self.take]
        if self.place is not None:
            d["place"] = [list(c) for c in self.place]
        if self.rewards is not None:
            d["rewards"] = [
                r if isinstance(r, str) else {"remove": [list(c) for c in r]} for r in self.rewards
            ]
        if self.tokens:
            d["tokens"] = [s.value for s in self.tokens]
        return d

    KEYS = ("player", "roll", "shape", "take", "place", "rewards", "tokens")

    @staticmethod
    def check_dict(raw: Any, where: str = "move") -> None:
        """The shape of one turn's record data; ``MalformedMove`` naming the key at fault.

        Only the data is checked here; the rules are checked when the turn is replayed.
        """

        def fail(key: str, why: str) -> MalformedMove:
            return MalformedMove(Message(N_("key '{key}': {why}"), key=key, why=why), key, why)

        if not isinstance(raw, dict):
            raise fail(where, Message(N_("expected an object")))
        for key in raw:
            if key not in DiceMove.KEYS:
                raise fail(f"{where}.{key}", Message(N_("unknown key in a turn")))
        if "player" in raw and not _is_int(raw["player"]):
            raise fail(f"{where}.player", Message(N_("expected a seat number")))
        if not isinstance(raw.get("roll"), str):
            raise fail(f"{where}.roll", Message(N_("expected the die face as a string")))
        if "shape" in raw and not isinstance(raw["shape"], str):
            raise fail(f"{where}.shape", Message(N_("expected a shape letter")))
        try:
            for key in ("take", "place"):
                if key in raw:
                    parse_cells(raw[key], f"{where}.{key}")
            if "rewards" in raw:
                rewards = raw["rewards"]
                if not isinstance(rewards, list):
                    raise fail(f"{where}.rewards", Message(N_("expected a list")))
                for j, r in enumerate(rewards):
                    if r == "point":
                        continue
                    if not isinstance(r, dict) or set(r) != {"remove"}:
                        raise fail(f"{where}.rewards[{j}]", Message(N_('expected "point" or {remove}'), remove='{"remove": cells}'))
                    parse_cells(r["remove"], f"{where}.rewards[{j}].remove")
        except MalformedMove as e:
            raise fail(e.key or where, e.why) from None
        if "tokens" in raw:
            tokens = raw["tokens"]
            if not isinstance(tokens, list) or not all(isinstance(t, str) for t in tokens):
                raise fail(f"{where}.tokens", Message(N_("expected a list of shape letters")))


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


@dataclass
class _Snapshot:
    board: Board
    scores: list[int]
    rows_completed: list[int]
    supply: dict[Shape, int]
    scored_rows: int
    turn: int
    to_move: int
    roll: str | None
    over: bool
    stuck: int | None
    rng_state: Any
    moves: int
    tokens: list[list[Shape]]

    def copy(self) -> _Snapshot:
        """A snapshot that can be restored without sharing anything mutable with this one."""
        # The constructor, not ``dataclasses.replace``: this runs on every lookahead (``push``).
        return _Snapshot(
            self.board.copy(), list(self.scores), list(self.rows_completed), dict(self.supply),
            self.scored_rows, self.turn, self.to_move, self.roll, self.over, self.stuck,
            self.rng_state, self.moves, [list(t) for t in self.tokens],
        )


@dataclass(frozen=True)
class DiceAction:
    """A player's whole decision once the die shows: the one dice decision type.

    The engine enumerates them (``turn_options``), bots return them, the environments encode
    them, front ends build them from clicks and keys, and ``DiceGame.act`` plays them. Fields left
    ``None`` are completed by the rules' defaults (``DiceGame.complete``): with ``row_reward:
    choose``, every completed row is a point; with ``tokens_from_supply``, each point's token is
    the shape with the most stones left (ties in die order).
    """

    shape: Shape
    placement: Placement
    take: Stone | None = None
    rewards: tuple[Reward, ...] | None = None
    tokens: tuple[Shape, ...] | None = None

    def __repr__(self) -> str:
        parts = [f"{self.shape.value} at {format_cells(self.placement.cells)}"]
        if self.take is not None:
            parts.append(f"take {format_cells(self.take.cells)}")
        if self.rewards is not None:
            shown = ", ".join(r if isinstance(r, str) else f"remove {format_cells(r)}" for r in self.rewards)
            parts.append(f"rewards [{shown}]")
        if self.tokens:
            parts.append(f"tokens {' '.join(t.value for t in self.tokens)}")
        return f"<DiceAction {'; '.join(parts)}>"


def _cells(value: Any) -> tuple[Cell, ...]:
    if isinstance(value, Placement):
        return value.cells
    if isinstance(value, Stone):
        return value.cells
    return parse_cells(value)


class DiceGame:
    """One game of dice Tetris: board, scores, supply, whose turn, and the moves so far."""

    def __init__(
        self,
        players: Sequence[str],
        rules: DiceRules | Mapping[str, Any] | None = None,
        seed: int | None = None,
        *,
        recorded: bool = False,
    ) -> None:
        """``recorded``: ``rules`` come from a saved record, so an option it does not name takes
        its value from before the option existed (``RECORD_DEFAULTS``), and the record's rules are
        kept as they were written."""
        if not (1 <= len(players) <= MAX_PLAYERS):
            raise RulesError(Message(N_("players: the dice game takes 1 to {most} players, got {count}"), most=MAX_PLAYERS, count=len(players)))
        for name in players:
            if not isinstance(name, str) or not name.strip():
                raise RulesError(Message(N_("players: every player needs a name, got {name!r}"), name=name))
        self.players = list(players)
        if isinstance(rules, DiceRules):
            self.rules = rules
        elif recorded:
            self.rules = DiceRules.from_dict({**RECORD_DEFAULTS, **(rules or {})})
        else:
            self.rules = DiceRules.from_dict(rules)
        self.rules_spec: dict[str, Any] = (
            _json_plain(rules) if isinstance(rules, Mapping) else options_to_spec(self.rules, DICE_PRESETS)
        )
        if not recorded:
            for key in RECORD_DEFAULTS:  # a new game's record names them, whatever their value
                self.rules_spec.setdefault(key, getattr(self.rules, key))
        if self.rules.first_player >= len(players):
            raise RulesError(Message(
                N_("rules.first_player: seat {seat} does not exist with {count} players"),
                seat=self.rules.first_player, count=len(players),
            ))
        self.seed = seed if seed is not None else secrets.randbits(32)
        self._rng: random.Random | None = random.Random(self.seed)
        self._blind_start = False
        self.viewer: int | None = None
        """The seat a view was made for (``seat_view``); None in the game itself."""
        self._undo: list[tuple[_Snapshot, dict[Any, Any], dict[Any, Any]]] = []
        """What each ``push`` changed, for ``pop``: the saved state and the position's caches."""
        self.board = Board(self.rules.width, self.rules.height)
        n = len(players)
        self.scores = [0] * n
        self.rows_completed = [0] * n
        self.supply: dict[Shape, int] = {s: self.rules.supply * n for s in self.rules.shapes}
        self.tokens: list[list[Shape]] = [[] for _ in range(n)]
        """Each seat's point tokens (``tokens_from_supply``): stones out of the game."""
        self.scored_rows = 0
        self.turn = 0
        self.to_move = self.rules.first_player
        self.roll_face: str | None = None
        self.over = False
        self.stuck: int | None = None
        self.moves: list[DiceMove] = []
        self.garbage: list[Stone] = []
        self._cache: dict[tuple[Shape, int | None], list[Placement]] = {}
        self._duty: dict[tuple[str | None, tuple[Shape, ...]], bool] = {}
        self._legacy_rewards = recorded and isinstance(rules, Mapping | None) and "tokens_from_supply" not in (rules or {})
        """A record of the first release (it names no ``tokens_from_supply``): a removal may name
        the stone's cells after the fall, as that release wanted them (``_fallen_stone``)."""
        self._place_garbage()
        # The position before the first move: ``undo`` replays the moves from here, so a game
        # keeps no copy of the board per move (a long game, or a server with many, stays small).
        self._start = self._snapshot()

    # ------------------------------------------------------------------ setup

    def _place_garbage(self) -> None:
        spec = self.rules.garbage
        mode = self.rules.orientation_mode
        if isinstance(spec, int):
            for _ in range(spec):
                shapes = [s for s in self.rules.shapes if self._in_supply(s)]
                if not shapes:
                    break
                shape = self.rng.choice(shapes)
                o = self.rng.choice(shape.orientations(mode))
                spots = [
                    (x, y)
                    for y in range(self.board.height - o.height + 1)
                    for x in range(self.board.width - o.width + 1)
                    if not any(self.board.is_filled(c) for c in o.at(x, y))
                ]
                if not spots:
                    break
                x, y = self.rng.choice(spots)
                self._add_garbage(shape, o.at(x, y))
        else:
            for i, item in enumerate(spec):
                where = f"rules.garbage[{i}]"
                if not isinstance(item, dict) or set(item) != {"shape", "cells"}:
                    raise RulesError(Message(N_("{where}: expected {form}"), where=where, form='{"shape": S, "cells": [[x, y], ...]}'))
                try:
                    shape = Shape.parse(item["shape"])
                    cells = _cells(item["cells"])
                except (ValueError, TypeError, IndexError, AttributeError) as e:
                    raise RulesError(Message(N_("{where}: {error}"), where=where, error=_text(e))) from None
                if shape not in self.supply:
                    raise RulesError(Message(N_("{where}: {shape} is not a shape of this game's die"), where=where, shape=shape.value))
                if len(cells) != 4 or find_orientation(shape, cells, mode) is None:
                    raise RulesError(Message(N_("{where}: {cells} is not the shape of {shape}"), where=where, cells=format_cells(cells), shape=shape.with_article))
                for c in cells:
                    if not self.board.in_bounds(c):
                        raise RulesError(Message(N_("{where}: {cells} is out of bounds"), where=where, cells=format_cells(cells)))
                    if self.board.is_filled(c):
                        raise RulesError(Message(N_("{where}: {cells} overlaps another garbage stone"), where=where, cells=format_cells(cells)))
                if not self._in_supply(shape):
                    raise RulesError(Message(N_("{where}: the supply has no {shape} left"), where=where, shape=shape.value))
                self._add_garbage(shape, cells)
        # Rows the garbage completes belong to nobody and never score.
        self.scored_rows = self.board.complete_rows_mask()

    def _add_garbage(self, shape: Shape, cells: tuple[Cell, ...]) -> None:
        self.garbage.append(self.board.new_stone(shape, tuple(cells), None))
        if self.rules.limited_supply:
            self.supply[shape] -= 1

    # ---------------------------------------------------------------- queries

    @property
    def rng(self) -> random.Random:
        """The die's generator. A view's is made on first use, seeded by the OS: seeding one
        costs more than a bot's whole lookahead step, and most views never roll."""
        rng = self._rng
        if rng is None:
            rng = self._rng = random.Random()
        return rng

    @rng.setter
    def rng(self, value: random.Random) -> None:
        self._rng = value

    @property
    def player_count(self) -> int:
        return len(self.players)

    @property
    def player_name(self) -> str:
        return self.players[self.to_move]

    def _in_supply(self, shape: Shape) -> bool:
        return not self.rules.limited_supply or self.supply.get(shape, 0) > 0

    def shapes_for_roll(self, face: str | None = None) -> tuple[Shape, ...]:
        """The shapes a player may place for ``face`` (the pending roll by default)."""
        face = face if face is not None else self.roll_face
        if face is None:
            return ()
        known = self.rules.face_shapes.get(face)
        if known is not None:
            return known
        return self.rules.shapes if face == CHOICE else (Shape(face),)

    def take_candidates(self, shape: Shape) -> list[Stone]:
        """Stones the player may take off the board for ``shape``; empty when the supply has one."""
        if self._in_supply(shape):
            return []
        stones = [s for s in self.board.stones.values() if s.shape is shape]
        if self.rules.take == "lowest" and stones:
            low = min(s.lowest_row for s in stones)
            stones = [s for s in stones if s.lowest_row == low]
        return sorted(stones, key=lambda s: s.number)

    def take_options(self, shape: Shape) -> list[Stone | None]:
        """``[None]`` when the supply has the shape, else the stones that may be taken."""
        if self._in_supply(shape):
            return [None]
        return list(self.take_candidates(shape))

    def legal_placements(self, shape: Shape, take: Stone | None = None) -> list[Placement]:
        """Every legal placement of ``shape``, after ``take`` is lifted off the board if given.

        With ``must_close``, only the placements that complete a row, when the pending roll has
        any (``must_close_applies``): every front end and bot asks here, so none offers the others.
        """
        placements = self._placements(shape, take)
        if not (self.rules.must_close and self.must_close_applies(shape)):
            return placements
        return [p for p in placements if self._closes_row(p, take)]

    def must_close_applies(self, shape: Shape | None = None) -> bool:
        """Whether ``must_close`` binds now: some legal placement for the pending roll (any shape
        ``*`` may name, after any take the supply forces) completes a row. Without a pending roll,
        the placements of ``shape`` alone are asked (a bot's lookahead)."""
        if not self.rules.must_close:
            return False
        shapes = self.shapes_for_roll()
        if shape is not None and shape not in shapes:
            shapes = (shape,)
        if not shapes:
            return False
        key = (self.roll_face, shapes)
        known = self._duty.get(key)
        if known is None:
            known = any(
                self._closes_row(p, take)
                for s in shapes
                for take in self.take_options(s)
                for p in self._placements(s, take)
            )
            self._duty[key] = known
        return known

    def _closes_row(self, placement: Placement, take: Stone | None = None) -> bool:
        """Whether ``placement`` completes a row (after lifting ``take``): a row it touches is
        full, since its cells were empty before it came."""
        board = self.board
        occupied = board.occupied
        if take is not None:
            occupied &= ~board.geometry.mask(take.cells)
        after = occupied | board.placement_mask(placement)
        masks = board.geometry.row_masks
        return any(after & masks[y] == masks[y] for y in {y for _, y in placement.cells})

    def _placements(self, shape: Shape, take: Stone | None = None) -> list[Placement]:
        """Every placement the board allows (resting, access), duties aside; cached per turn."""
        if take is not None:
            self._check_on_board(take)
        key = (shape, None if take is None else take.number)
        cached = self._cache.get(key)
        if cached is not None:
            return cached
        board = self.board
        if take is not None:
            board.remove(take)
        try:
            result = board.placements(shape, self.rules.orientation_mode, self.rules.access_mode)
        finally:
            if take is not None:
                board.add(take)
        self._cache[key] = result
        return result

    def can_place(self, shape: Shape) -> bool:
        return any(self.legal_placements(shape, take) for take in self.take_options(shape))

    def turn_options(self) -> list[DiceAction]:
        """Every decision the pending roll allows, rewards left to ``complete``."""
        return [DiceAction(shape, p, take) for shape, take, placements in self._option_groups() for p in placements]

    def turn_option_count(self) -> int:
        """``len(turn_options())``, without building the options."""
        return sum(len(placements) for _, _, placements in self._option_groups())

    def turn_option(self, index: int) -> DiceAction:
        """``turn_options()[index]``, without building the others (a random player draws one of
        hundreds per turn); IndexError when there is no such option."""
        if index >= 0:
            for shape, take, placements in self._option_groups():
                if index < len(placements):
                    return DiceAction(shape, placements[index], take)
                index -= len(placements)
        raise IndexError("turn option index out of range")

    def _option_groups(self) -> list[tuple[Shape, Stone | None, list[Placement]]]:
        """The options in ``turn_options`` order, grouped by shape and take."""
        return [
            (shape, take, self.legal_placements(shape, take))
            for shape in self.shapes_for_roll()
            for take in self.take_options(shape)
        ]

    def complete(self, action: DiceAction) -> DiceAction:
        """``action`` with what it left open filled in by the rules: the one place that says
        "when no reward is chosen, every completed row is a point" and "a token not named is the
        shape with the most stones left". The tokens are found by playing the action (``push``,
        then ``pop``), so they are exactly the ones ``play`` would take; an illegal action is
        returned as it is (``play`` then says why)."""
        if self.rules.row_reward == "choose" and action.rewards is None:
            rows = self.scoring_rows_after(action.placement, action.take)
            action = DiceAction(action.shape, action.placement, action.take, ("point",) * len(rows), action.tokens)
        if action.tokens is None and self.rules.takes_tokens and self.roll_face is not None and not self.over:
            if self._scores_nothing(action):
                return DiceAction(action.shape, action.placement, action.take, action.rewards, ())
            try:
                move = self.push(action.placement, action.shape, action.take, action.rewards)
            except IllegalMove:
                return action
            self.pop()
            action = DiceAction(action.shape, action.placement, action.take, action.rewards, move.tokens or ())
        return action

    def _scores_nothing(self, action: DiceAction) -> bool:
        """Whether ``action`` is surely legal and scores no row, so that ``play`` takes no token:
        a placement this position's generator made (one of its cached list, no take, the supply
        has the shape, no duty to close), no rewards named, and no new scoring row. Most turns are this,
        and ``complete`` then needs no trial play; any doubt answers False (the trial decides)."""
        shape = action.shape
        if action.take is not None or action.rewards or self.rules.must_close:
            return False
        if shape not in self.shapes_for_roll() or not self._in_supply(shape):
            return False
        made = self._cache.get((shape, None))
        placement = action.placement
        if made is None or placement not in made:
            return False
        board = self.board
        before = board.complete_rows_mask()
        after = complete_rows_of(board.occupied | board.placement_mask(placement), board.width, board.height)
        return not self._scoring(after & ~before)

    def act(self, action: DiceAction) -> DiceMove:
        """Play a decision (completed first); ``IllegalMove`` leaves the game untouched."""
        action = self.complete(action)
        return self.play(action.placement, action.shape, action.take, action.rewards, action.tokens)

    def default_token(self) -> Shape | None:
        """The token a point takes when the scorer names none: the shape with the most stones
        left, ties in die order [interpretation]; None when the supply is empty (the point counts
        without a token) or points take no tokens."""
        if not self.rules.takes_tokens:
            return None
        best: Shape | None = None
        for shape in self.rules.shapes:
            left = self.supply.get(shape, 0)
            if left > 0 and (best is None or left > self.supply[best]):
                best = shape
        return best

    def token_choices(self) -> list[Shape]:
        """The shapes a point's token may be now: those with a stone left, in die order."""
        if not self.rules.takes_tokens:
            return []
        return [s for s in self.rules.shapes if self.supply.get(s, 0) > 0]

    def placement_error(
        self, shape: Shape, cells: Sequence[Sequence[int]], take: Stone | None = None
    ) -> str | None:
        """Why ``shape`` cannot go at ``cells`` (after lifting ``take``), in the engine's words;
        None when it can. Front ends ask this for a ghost or a typed move instead of wording a
        rule themselves."""
        board = self.board
        if take is not None:
            self._check_on_board(take)
            board.remove(take)
        try:
            placement = board.validate(shape, cells, self.rules.orientation_mode, self.rules.access_mode)
        except IllegalPlacement as e:
            return _text(e)
        finally:
            if take is not None:
                board.add(take)
        if self.rules.must_close and self.must_close_applies(shape) and not self._closes_row(placement, take):
            return _must_close_error(shape, placement.cells)
        return None

    def rewardable_stones(self) -> list[Stone]:
        """Stones the player to move may remove as a ``choose`` reward: another player's."""
        me = self.to_move
        return [s for s in self.board.stones.values() if s.owner is not None and s.owner != me]

    def scoring_rows_after(self, placement: Placement, take: Stone | None = None) -> list[int]:
        """The rows ``placement`` would score (rows once scored do not score again)."""
        board = self.board
        if take is not None:
            self._check_on_board(take)
            board.remove(take)
        try:
            before = board.complete_rows_mask()
            board.push(placement, self.to_move)  # an overlap raises before changing the board
            after = board.complete_rows_mask()
            board.pop()
        finally:
            if take is not None:
                board.add(take)
        return _rows_of(self._scoring(after & ~before))

    def _check_on_board(self, take: Stone) -> None:
        """A take must be a stone on this board now: lifting a stale or foreign stone (from an
        older view, say) would clear another stone's cells and corrupt the game."""
        if self.board.stones.get(take.number) != take:
            raise IllegalMove(Message(N_("cannot take {cells}: no such stone on the board"), cells=format_cells(take.cells)))

    def _scoring(self, new_rows: int) -> int:
        if self.rules.rescore_reopened or self.rules.clear_rows:
            return new_rows
        return new_rows & ~self.scored_rows

    def winners(self) -> list[int]:
        """Seats with the most points once the game is over (shared on a tie), else empty."""
        if not self.over:
            return []
        return winners_of(self.scores)

    def losers(self) -> list[int]:
        if not self.over:
            return []
        worst = min(self.scores)
        return [i for i, s in enumerate(self.scores) if s == worst]

    # ---------------------------------------------------------------- actions

    def roll(self, face: str | None = None) -> str:
        """Roll the die (or take ``face`` from a record). Ends the game if nothing can be placed."""
        if self.over:
            raise IllegalMove(Message(N_("the game is over")))
        if self.roll_face is not None:
            raise IllegalMove(Message(N_("the die already shows {face}: place a piece first"), face=self.roll_face))
        if face is not None and face not in self.rules.die:
            # Checked before drawing: a rejected roll must not move the generator either.
            raise IllegalMove(Message(N_("{face!r} is not a face of the die ({faces})"), face=face, faces=" ".join(self.rules.die)))
        drawn = self.rng.choice(self.rules.die)
        if face is None:
            face = drawn
        self.roll_face = face
        if not any(self.can_place(shape) for shape in self.shapes_for_roll()):
            self._end_stuck()
        return face

    def _end_stuck(self) -> None:
        player = self.to_move
        assert self.roll_face is not None
        self.moves.append(DiceMove(player, self.roll_face))
        if self.rules.stuck_penalty:
            self.scores[player] -= 1
        self.stuck = player
        self.over = True
        self.turn += 1

    def play(
        self,
        place: Sequence[Sequence[int]] | Placement,
        shape: Shape | str | None = None,
        take: Sequence[Sequence[int]] | Stone | None = None,
        rewards: Sequence[Any] | None = None,
        tokens: Sequence[Shape | str] | None = None,
    ) -> DiceMove:
        """Place the piece for the pending roll; ``IllegalMove`` leaves the game untouched.

        ``tokens`` names the shape of each point's token (``tokens_from_supply``), one per point
        that has a stone left to take; None lets the default rule pick them."""
        self._place(shape, place, take, rewards, tokens, keep=False)
        return self.moves[-1]

    def push(
        self,
        place: Sequence[Sequence[int]] | Placement,
        shape: Shape | str | None = None,
        take: Sequence[Sequence[int]] | Stone | None = None,
        rewards: Sequence[Any] | None = None,
        tokens: Sequence[Shape | str] | None = None,
    ) -> DiceMove:
        """``play``, to be taken back by ``pop``: a bot's lookahead on its own view, as
        python-chess's ``push``/``pop``. Nothing is copied beyond what the placement changes
        (the board, scores and supply: the originals are kept aside and put back by ``pop``) and
        no generator is made; the rules and checks are ``play``'s own."""
        self._undo.append(self._place(shape, place, take, rewards, tokens, keep=True))
        return self.moves[-1]

    def pop(self) -> DiceMove:
        """Take back the last ``push``: the game is exactly as before it, down to the objects
        (``board``, ``scores``) it held; ``IllegalMove`` when nothing was pushed."""
        if not self._undo:
            raise IllegalMove(Message(N_("there is no pushed move to pop")))
        saved, cache, duty = self._undo.pop()
        move = self.moves[-1]
        self._restore(saved)
        self._cache = cache
        self._duty = duty
        return move

    def _place(
        self,
        shape: Shape | str | None,
        place: Sequence[Sequence[int]] | Placement,
        take: Sequence[Sequence[int]] | Stone | None,
        rewards: Sequence[Any] | None,
        tokens: Sequence[Shape | str] | None,
        keep: bool,
    ) -> tuple[_Snapshot, dict[Any, Any], dict[Any, Any]]:
        """Apply a placement, with the state it changes saved: on an illegal move the save is
        restored (the game untouched), else it is returned (for ``pop``). ``keep``: the game's
        own objects (board, scores, supply) are kept aside and the placement changes copies, so
        ``pop`` gives back the very objects; else (``play``) the copies are the save and the game
        changes its own objects, as front ends that hold ``game.board`` expect. Placing never
        draws from the generator, so its state is not saved."""
        if self.over:
            raise IllegalMove(Message(N_("the game is over")))
        face = self.roll_face
        if face is None:
            raise IllegalMove(Message(N_("roll the die first")))
        chosen = self._chosen_shape(face, shape)
        saved = _Snapshot(
            self.board, self.scores, self.rows_completed, self.supply, self.scored_rows, self.turn,
            self.to_move, self.roll_face, self.over, self.stuck, None, len(self.moves), self.tokens,
        )
        if keep:
            self.board = self.board.copy()
            self.scores = list(self.scores)
            self.rows_completed = list(self.rows_completed)
            self.supply = dict(self.supply)
            self.tokens = [list(t) for t in self.tokens]
        else:
            saved = saved.copy()
        cache, duty = self._cache, self._duty
        try:
            move = self._apply(face, chosen, place, take, rewards, tokens)
        except IllegalMove:
            self._restore(saved)
            self._cache, self._duty = cache, duty
            raise
        except (TypeError, ValueError, IndexError) as e:
            self._restore(saved)
            self._cache, self._duty = cache, duty
            raise MalformedMove(Message(N_("malformed move: {error}"), error=_text(e))) from None
        self.moves.append(move)
        return saved, cache, duty

    def _chosen_shape(self, face: str, shape: Shape | str | None) -> Shape:
        if face == CHOICE:
            if shape is None:
                names = " ".join(s.value for s in self.rules.shapes)
                raise IllegalMove(Message(N_("the die shows *: name one of {shapes}"), shapes=names))
            try:
                chosen = Shape.parse(str(shape))
            except ValueError as e:
                raise IllegalMove(_text(e)) from None
            if chosen not in self.rules.shapes:
                names = " ".join(s.value for s in self.rules.shapes)
                raise IllegalMove(Message(N_("* names one of {shapes}, not {shape}"), shapes=names, shape=chosen.value))
            return chosen
        rolled = Shape(face)
        if shape is not None and str(shape).upper() != rolled.value:
            raise IllegalMove(Message(N_("the die shows {face}, not {shape}"), face=rolled.value, shape=str(shape)))
        return rolled

    def _apply(
        self,
        face: str,
        shape: Shape,
        place: Sequence[Sequence[int]] | Placement,
        take: Sequence[Sequence[int]] | Stone | None,
        rewards: Sequence[Any] | None,
        tokens: Sequence[Shape | str] | None,
    ) -> DiceMove:
        player = self.to_move
        board = self.board
        rules = self.rules
        duty = rules.must_close and self.must_close_applies(shape)  # asked before anything moves
        named = self._parse_tokens(tokens)
        taken: Stone | None = None
        candidates = self.take_candidates(shape)
        if self._in_supply(shape):
            if take is not None:
                raise IllegalMove(Message(N_("the supply still has {shape}: there is nothing to take"), shape=shape.value))
        else:
            if take is None:
                options = ", ".join(format_cells(s.cells) for s in candidates) or Message(N_("none on the board"))
                raise IllegalMove(Message(
                    N_("the supply has no {shape} left: take one from the lowest rows ({options})"),
                    shape=shape.value, options=options,
                ))
            wanted = set(_cells(take))
            taken = next((s for s in candidates if set(s.cells) == wanted), None)
            if taken is None:
                raise IllegalMove(Message(
                    N_("cannot take {cells}: not one of the lowest {shape} stones"),
                    cells=format_cells(_cells(take)), shape=shape.value,
                ))
            board.remove(taken)
        if isinstance(place, Placement):
            if place.shape is not shape:
                raise IllegalMove(Message(N_("the die shows {face}, not {shape}"), face=shape.value, shape=place.shape.value))
            # An engine-made placement skips the shape lookup by cells; validate words any error.
            placement = board.check_placement(
                place, rules.orientation_mode, rules.access_mode
            ) or board.validate(shape, place.cells, rules.orientation_mode, rules.access_mode)
        else:
            placement = board.validate(shape, place, rules.orientation_mode, rules.access_mode)
        if duty and not self._closes_row(placement):
            raise IllegalMove(_must_close_error(shape, placement.cells))
        before = board.complete_rows_mask()
        board.push(placement, player)
        if taken is None and rules.limited_supply:
            self.supply[shape] -= 1
        new_rows = board.complete_rows_mask() & ~before
        scoring = self._scoring(new_rows)
        self.scored_rows |= new_rows
        count = bin(scoring).count("1")
        # Rewards (points and their tokens, removals) are settled on the board as the placement
        # left it, before any row is cleared: a removal names the stone's cells before the fall.
        given, taken_tokens = self._settle(count, rewards, named, new_rows if rules.clear_rows else 0)
        points = count if given is None else sum(1 for r in given if r == "point")
        if rules.clear_rows:
            self._clear(new_rows)
        self.scores[player] += points
        self.rows_completed[player] += count
        self.tokens[player].extend(taken_tokens)
        # New dicts, not cleared ones: ``pop`` puts the position's own back.
        self._cache = {}
        self._duty = {}
        self.roll_face = None
        self.turn += 1
        self.to_move = (player + 1) % len(self.players)
        if rules.clear_rows and self.scores[player] >= rules.target:
            self.over = True
        return DiceMove(
            player,
            face,
            shape if face == CHOICE else None,
            None if taken is None else taken.cells,
            placement.cells if not isinstance(place, Placement) else place.cells,
            given,
            tuple(taken_tokens) or None,
        )

    def _parse_tokens(self, tokens: Sequence[Shape | str] | None) -> list[Shape] | None:
        if tokens is None:
            return None
        if isinstance(tokens, str | bytes) or not isinstance(tokens, Sequence):
            raise IllegalMove(Message(N_("tokens: expected a list of shape letters, got {tokens!r}"), tokens=tokens))
        if tokens and not self.rules.tokens_from_supply:
            raise IllegalMove(Message(N_("tokens are only taken with tokens_from_supply")))
        shapes = []
        for t in tokens:
            try:
                shape = Shape.parse(str(t.value if isinstance(t, Shape) else t))
            except ValueError as e:
                raise IllegalMove(Message(N_("tokens: {error}"), error=_text(e))) from None
            if shape not in self.rules.shapes:
                names = " ".join(s.value for s in self.rules.shapes)
                raise IllegalMove(Message(N_("tokens: {shape} is not a shape of the supply ({shapes})"), shape=shape.value, shapes=names))
            shapes.append(shape)
        return shapes

    def _settle(
        self, count: int, rewards: Sequence[Any] | None, named: list[Shape] | None, clearing: int = 0
    ) -> tuple[tuple[Reward, ...] | None, list[Shape]]:
        """The rewards of ``count`` scoring rows, bottom row first, and the tokens their points
        took: each point takes its token when it is scored, each removal returns its stone then."""
        taken: list[Shape] = []
        given = self._apply_rewards(count, rewards, named, taken, clearing)
        if given is None:  # row_reward: point, every row is a point
            for _ in range(count):
                token = self._take_token(named, len(taken))
                if token is not None:
                    taken.append(token)
        if named is not None and len(named) != len(taken):
            raise IllegalMove(Message(
                N_("tokens: {count} point token to take (one per point while the supply has stones), got {got}")
                if len(taken) == 1
                else N_("tokens: {count} point tokens to take (one per point while the supply has stones), got {got}"),
                count=len(taken), got=len(named),
            ))
        return given, taken

    def _take_token(self, named: list[Shape] | None, index: int) -> Shape | None:
        """Take one point's token out of the supply: the named shape, or by the default rule."""
        if not self.rules.takes_tokens or not any(self.supply.values()):
            return None  # no token: the point still counts [interpretation]
        if named is not None and index < len(named):
            shape = named[index]
            if self.supply.get(shape, 0) <= 0:
                left = " ".join(s.value for s in self.token_choices())
                raise IllegalMove(Message(N_("tokens: the supply has no {shape} left for a token (left: {left})"), shape=shape.value, left=left))
        else:
            default = self.default_token()
            assert default is not None
            shape = default
        self.supply[shape] -= 1
        return shape

    def _clear(self, rows_mask: int) -> None:
        """``clear_rows``: the rows this placement completed leave the board. ``cells``: their
        cells vanish and everything above falls; ``stones``: every stone with a cell in them goes
        back to the supply whole and nothing else moves [interpretation]."""
        board = self.board
        rows = _rows_of(rows_mask)
        if self.rules.clear_rows == "stones":
            hit: dict[int, Stone] = {}
            for y in rows:
                for x in range(board.width):
                    stone = board.stone_at((x, y))
                    if stone is not None:
                        hit[stone.number] = stone
            for stone in hit.values():
                board.remove(stone)
                if self.rules.limited_supply and stone.shape in self.supply:
                    self.supply[stone.shape] += 1
        else:
            board.clear_rows(rows)
        self.scored_rows = board.complete_rows_mask()

    def _apply_rewards(
        self,
        count: int,
        rewards: Sequence[Any] | None,
        named: list[Shape] | None,
        taken: list[Shape],
        clearing: int = 0,
    ) -> tuple[Reward, ...] | None:
        """The chosen rewards in row order; a point's token is appended to ``taken`` as it is
        scored, so a removal before it has already returned its stone to the supply. ``clearing``:
        the rows that will be cleared after (for the first release's records, below)."""
        if self.rules.row_reward == "point":
            if rewards is not None:
                raise IllegalMove(Message(N_("rewards are only chosen with row_reward: choose")))
            return None
        rewards = list(rewards or [])
        if len(rewards) != count:
            raise IllegalMove(Message(
                N_("{count} row scored: rewards needs {count} entry (point or remove), got {got}")
                if count == 1
                else N_("{count} rows scored: rewards needs {count} entries (point or remove), got {got}"),
                count=count, got=len(rewards),
            ))
        result: list[Reward] = []
        for reward in rewards:
            if reward == "point":
                result.append("point")
                token = self._take_token(named, len(taken))
                if token is not None:
                    taken.append(token)
                continue
            target = reward.get("remove") if isinstance(reward, dict) else reward
            if isinstance(target, Stone):
                target = target.cells
            try:
                cells = _cells(target)
            except (TypeError, ValueError, IndexError):
                raise IllegalMove(Message(N_("a reward is 'point' or {remove}, got {reward!r}"), remove="{'remove': cells}", reward=reward)) from None
            stone = self.board.stone_at(cells[0]) if cells and self.board.in_bounds(cells[0]) else None
            exact = stone is not None and set(stone.cells) == set(cells)
            others = stone is not None and stone.owner is not None and stone.owner != self.to_move
            fallen = None
            if self._legacy_rewards and clearing and not (exact and others):
                # The first release cleared the rows first and named a removal by its cells after
                # the fall; its records name removals that way, and replay as they were played.
                fallen = self._fallen_stone(cells, clearing)
            if fallen is not None:
                stone = fallen
            elif stone is None or not exact:
                raise IllegalMove(Message(N_("cannot remove {cells}: no stone has exactly those cells"), cells=format_cells(cells)))
            elif not others:
                raise IllegalMove(
                    Message(N_("cannot remove {cells}: only a stone another player placed"), cells=format_cells(cells))
                )
            self.board.remove(stone)
            if self.rules.limited_supply and stone.shape in self.supply:
                self.supply[stone.shape] += 1
            result.append(tuple(cells) if fallen is not None else stone.cells)
        return tuple(result)

    def _fallen_stone(self, cells: Sequence[Cell], clearing: int) -> Stone | None:
        """The stone another player placed whose cells, once the ``clearing`` rows are cleared
        and the rows above fall, are ``cells`` (how the first release named a removal)."""
        rows = _rows_of(clearing)
        wanted = set(cells)
        for stone in self.rewardable_stones():
            after = {(x, y - sum(1 for r in rows if r < y)) for x, y in stone.cells if y not in rows}
            if after == wanted:
                return stone
        return None

    # ------------------------------------------------------------------- undo

    def _snapshot(self, with_rng: bool = True) -> _Snapshot:
        """The game's state; ``with_rng=False`` leaves the generator out (``None``), for a
        rollback of a placement, which never draws from it."""
        return _Snapshot(
            self.board.copy(),
            list(self.scores),
            list(self.rows_completed),
            dict(self.supply),
            self.scored_rows,
            self.turn,
            self.to_move,
            self.roll_face,
            self.over,
            self.stuck,
            self.rng.getstate() if with_rng else None,
            len(self.moves),
            [list(t) for t in self.tokens],
        )

    def _restore(self, s: _Snapshot) -> None:
        self.board = s.board
        self.scores = s.scores
        self.rows_completed = s.rows_completed
        self.supply = s.supply
        self.scored_rows = s.scored_rows
        self.turn = s.turn
        self.to_move = s.to_move
        self.roll_face = s.roll
        self.over = s.over
        self.stuck = s.stuck
        if s.rng_state is not None:
            self.rng.setstate(s.rng_state)
        del self.moves[s.moves :]
        self.tokens = s.tokens
        self._cache = {}
        self._duty = {}

    def undo(self) -> DiceMove:
        """Take back the last placement: the game returns to that turn with the same roll showing.

        A game that ended because a roll could not be placed is reopened too, back to the last
        placement before it. The moves before it are replayed from the starting position (their
        rolls are in the moves, so the generator ends where it was), which costs a few
        milliseconds and saves keeping a copy of the board per move.
        """
        placed = [i for i, m in enumerate(self.moves) if m.place is not None]
        if not placed:
            raise IllegalMove(Message(N_("there is no move to undo")))
        move = self.moves[placed[-1]]
        keep = self.moves[: placed[-1]]
        start = self._start.copy()
        if self._blind_start:  # a view: a new blind generator, never the game's (see ``view``)
            start.rng_state = None
            self._rng = None
        self._restore(start)
        self._undo.clear()
        for m in keep:
            self.roll(m.roll)
            if m.place is not None:
                self.play(m.place, m.shape, m.take, m.rewards, m.tokens)
        self.roll(move.roll)
        return move

    def view(self) -> DiceGame:
        """A copy for a player or bot: the same position, with a generator that knows nothing.

        The copy can be played on (lookahead, rolls drawn for it) without touching this game, and
        it cannot reveal this game's future rolls.
        """
        other = DiceGame.__new__(DiceGame)
        other.__dict__.update(self.__dict__)
        other._rng = None  # made on first use (``rng``), from the OS: it knows nothing of this game
        other.board = self.board.copy()
        other.scores = list(self.scores)
        other.rows_completed = list(self.rows_completed)
        other.supply = dict(self.supply)
        other.moves = list(self.moves)
        other.garbage = list(self.garbage)
        other.tokens = [list(t) for t in self.tokens]
        # The placements listed for this position hold for the copy's same board: a bot's view
        # need not list them again (new dicts: the copy's moves replace its own, never these).
        other._duty = dict(self._duty)
        # The same start (``undo`` restores a copy of it), but never its generator's state: undo
        # in a view gets a new blind generator, so it cannot reveal the rolls.
        other._blind_start = True
        other._undo = []
        other._cache = dict(self._cache)
        other.seed = 0
        return other

    # ------------------------------------------------------------ the game protocol

    # What the table, the records, the server and the bots ask of every game (``games.Game``).

    def to_act(self) -> list[int]:
        """The player to move once the die is rolled; nobody while it is not (``advance``
        rolls it) or once the game is over."""
        return [] if self.over or self.roll_face is None else [self.to_move]

    def advance(self) -> list[dict[str, Any]]:
        """Roll for the turn that begins, if nobody has; the move a roll that fits nowhere makes
        (it ends the game), else nothing."""
        if self.over or self.roll_face is not None:
            return []
        before = len(self.moves)
        self.roll()
        return [m.to_dict() for m in self.moves[before:]]

    def check_can_act(self, seat: int) -> None:
        if self.over:
            raise IllegalMove(Message(N_("the game is over")))
        if seat != self.to_move:
            raise IllegalMove(not_your_turn(self, seat))

    def legal_actions(self, seat: int) -> list[DiceAction]:
        """The pending roll's options (``turn_options``) for the player to move; none for others."""
        return self.turn_options() if seat in self.to_act() else []

    def apply(self, seat: int, action: DiceAction) -> list[dict[str, Any]]:
        """``seat`` plays ``action`` on the rolled die (completed by the rules); the turn as its
        record move."""
        if not isinstance(action, DiceAction):
            raise TypeError(f"a dice action is a DiceAction, got {type(action).__name__}")
        self.check_can_act(seat)
        self.advance()
        before = len(self.moves)
        self.act(action)
        return [m.to_dict() for m in self.moves[before:]]

    def seat_view(self, seat: int | None, reveal: bool = False) -> DiceGame:
        """``view`` for ``seat``: the die's future is chance, so nothing is hidden but the
        generator (``reveal`` changes nothing: there is no order to reveal)."""
        other = self.view()
        other.viewer = seat
        return other

    def seat_scores(self) -> list[int]:
        return list(self.scores)

    def turn_key(self) -> int:
        return self.turn

    def turns_played(self) -> int:
        return len(self.moves)

    def starting_seat(self) -> int:
        return self.rules.first_player

    # ---------------------------------------------------------------- records

    def __repr__(self) -> str:
        state = "over" if self.over else f"turn {self.turn}, {self.player_name} to move"
        if self.roll_face is not None and not self.over:
            state += f", die shows {self.roll_face}"
        return f"<DiceGame {', '.join(self.players)}: {state}, scores {self.scores}>"

    def public_state(self, stones: bool = True) -> dict[str, Any]:
        """Everything every player may see, as JSON-ready data (the server, external bots).

        A stone is ``{"number", "shape", "owner", "cells"}`` wherever it appears. ``stones``:
        False leaves the board's stones out (the server joins their JSON texts, each rendered
        once: ``stone_dict``).
        """
        rules = self.rules
        state: dict[str, Any] = {
            "width": rules.width,
            "height": rules.height,
            "die": list(rules.die),
            "stones": [stone_dict(s) for s in self.board.stones.values()] if stones else None,
            "complete_rows": self.board.complete_rows(),
            "scores": list(self.scores),
            "rows_completed": list(self.rows_completed),
            "supply": {s.value: n for s, n in self.supply.items()} if rules.limited_supply else None,
            "tokens": [[t.value for t in mine] for mine in self.tokens],
            "to_move": self.to_move,
            "roll": self.roll_face,
            "turn": self.turn,
            "over": self.over,
            "stuck": self.stuck,
            "winners": self.winners(),
        }
        if not stones:
            del state["stones"]
        return state

    def summary(self) -> dict[str, Any]:
        """The replay summary of record-format.md."""
        return {
            "game": "dice",
            "over": self.over,
            "turn": self.turn,
            "players": [{"name": n, "score": s} for n, s in zip(self.players, self.scores, strict=True)],
            "winners": [self.players[i] for i in self.winners()],
            "rows": self.board.rows(),
        }


def stone_dict(stone: Stone) -> dict[str, Any]:
    """A stone as JSON-ready data, the same everywhere it is sent."""
    return {
        "number": stone.number,
        "shape": stone.shape.value,
        "owner": stone.owner,
        "cells": [[x, y] for x, y in stone.cells],
    }


def _json_plain(value: Any) -> Any:
    """A deep copy with tuples as lists: the record's ``rules`` must equal what JSON reads back
    (``{"die": ("I", "O")}`` came back as a list and broke the record round trip), and must not
    change when the caller later edits the mapping it passed in."""
    if isinstance(value, list | tuple):
        return [_json_plain(v) for v in value]
    if isinstance(value, Mapping):
        return {k: _json_plain(v) for k, v in value.items()}
    return value


def _must_close_error(shape: Shape, cells: Sequence[Cell]) -> str:
    return Message(
        N_("must_close: {shape} at {cells} completes no row, and a placement of the roll that completes one exists"),
        shape=shape.value, cells=format_cells(cells),
    )


def _rows_of(mask: int) -> list[int]:
    rows = []
    y = 0
    while mask:
        if mask & 1:
            rows.append(y)
        mask >>= 1
        y += 1
    return rows


def winners_of(scores: Sequence[int]) -> list[int]:
    """The winning seats of a finished game with these scores: the most points, shared on a tie
    (``DiceGame.winners``; the env's fast path, which holds scores and no game, asks it too)."""
    best = max(scores)
    return [i for i, s in enumerate(scores) if s == best]


def not_your_turn(game: DiceGame, seat: int) -> Message:
    """Why ``seat`` may not move now: one sentence for every front end that asks (the table,
    the server), with its template so each player reads it in their language."""
    return Message(
        # Seats count from 1, as every front end numbers them.
        N_("it is {player}'s turn (seat {seat}), not seat {other}'s"), player=game.players[game.to_move], seat=game.to_move + 1,
        other=seat + 1,
    )


def rematch_changes(last: DiceGame, loser_starts: bool = True) -> dict[str, Any]:
    """What the game after ``last`` changes: its loser starts (``next_starter``). The game's
    ``GameSpec.rematch_changes``, which every rematch asks, and a match's next game."""
    return {"first_player": next_starter(last, loser_starts)}


def next_starter(last: DiceGame, loser_starts: bool = True) -> int:
    """Who starts the game after ``last`` in a match: its loser (lowest score).

    Among tied losers, the first after the previous starter in seat order (rules.md
    [interpretation]); with ``loser_starts`` off, the seat after the last starter. Every rematch
    (terminal, browser) asks this, so the rule lives here only.
    """
    if not last.over:
        raise IllegalMove(Message(N_("the game is not over: nobody has lost yet")))
    n = len(last.players)
    previous = last.rules.first_player
    if not loser_starts:
        return (previous + 1) % n
    losers = set(last.losers())
    for step in range(1, n + 1):
        seat = (previous + step) % n
        if seat in losers:
            return seat
    return previous


class DiceMatch:
    """A series of games: game 1 starts with seat 0, each later one with the last game's loser."""

    def __init__(
        self,
        players: Sequence[str],
        rules: DiceRules | Mapping[str, Any] | None = None,
        seed: int | None = None,
        loser_starts: bool = True,
    ) -> None:
        self.players = list(players)
        self.rules = rules if isinstance(rules, DiceRules) else DiceRules.from_dict(rules)
        self.seed = seed if seed is not None else secrets.randbits(32)
        self.loser_starts = loser_starts
        self._seeds = random.Random(self.seed)
        self.games: list[DiceGame] = []

    def next_starter(self) -> int:
        """Seat 0 (or the rules' first player) first; then see ``next_starter``."""
        if not self.games:
            return self.rules.first_player
        return next_starter(self.games[-1], self.loser_starts)

    def new_game(self) -> DiceGame:
        rules = self.rules if not self.games else replace(self.rules, **rematch_changes(self.games[-1], self.loser_starts))
        game = DiceGame(self.players, rules, seed=self._seeds.getrandbits(32))
        self.games.append(game)
        return game

    def totals(self) -> list[int]:
        """Games won per seat (a shared win counts for each winner)."""
        wins = [0] * len(self.players)
        for game in self.games:
            for seat in game.winners():
                wins[seat] += 1
        return wins
