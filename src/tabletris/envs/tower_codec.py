"""The tower game as fixed-size numbers: one discrete action space and one observation vector.

Shared by the PettingZoo, Gymnasium and OpenSpiel interfaces. It only translates; which actions
are legal is always asked of ``TowerGame``.

Action space (``Discrete(2 + 5 * width)``, 42 for the 8-wide tower)::

    0                        WAIT   nothing to decide: this seat's action for the round is in
                                    (or the engine forced a hold); legal only then
    1                        HOLD   use the hold (once per game, never after a mino this round)
    2 + o * width + x        DROP   the PLAY piece in rotation o (index in
                                    ``shape.orientations("rotate")``), bounding box's left column x
    2 + 4 * width + c        MINO   drop one mino in column c, then decide again

Minos are a sub-phase: a MINO action adds a column to the seat's minos for this round and the
seat decides again (another MINO, or the DROP); the minos and the piece are submitted to the
engine together with the DROP. A MINO is legal only if the seat has a mino left, the column has
room, and the PLAY piece still has a legal drop afterwards (a seat can never talk itself into
a corner). In the simultaneous interfaces a seat whose action is in answers WAIT while others
are still dropping minos.

Observation (a flat ``float32`` vector; ``TowerCodec.layout`` names the slices): the own tower
as planes ``(16, height, width)`` with this round's minos already in: 7 planes of tetromino
cells by shape, minos, diamond icons, 7 planes of bonus icons by shape; one occupancy plane per
other seat (seats counted from the observer); PLAY and NEXT cards (one-hot, NEXT with a "none"
slot); cards seen per shape (of 4); deck left (of 27); minos in the box (of ``minos_in_box``);
own minos and minos chosen this round (of ``minos_in_box``); own hold used; own action in;
per seat (from the observer) out and total score; per achievement id (rules.md order) in play,
met by the observer, and vacant spaces (of 3). ``TowerCodec.image`` gives the same facts as
planes ``(channels, height, width)``: the 16 own planes, one per other seat, then one constant
plane per other entry (scores divided by ``SCORE_SCALE`` and clipped to 1).
"""

from __future__ import annotations

import weakref
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from tabletris.engine import fasttower
from tabletris.engine.achievements import ACHIEVEMENTS, SPACES
from tabletris.engine.board import Placement
from tabletris.engine.errors import IllegalMove
from tabletris.engine.shapes import TETROMINOES, Shape
from tabletris.engine.tower import DECK_SIZE, TowerAction, TowerGame, TowerRules

WAIT = 0
HOLD = 1
SCORE_BOUND = 1000.0
SCORE_SCALE = 40.0
"""Scores in image planes are divided by this (a good tower score) and clipped to 1."""
N_ORIENT = 4
"""Rotations only in the tower game: at most 4 forms per shape."""


@dataclass
class SeatTurn:
    """A seat's decision so far this round: the mino columns chosen, and whether it is in."""

    minos: list[int] = field(default_factory=list)
    done: bool = False


class LegalActions(Mapping[int, TowerAction | int | None]):
    """``TowerCodec.legal``'s answer from the compiled tower core: the legal ids at once, each
    one's value (the engine action, or the mino column) made when it is asked for (a step plays
    one of them; making every drop's ``TowerAction`` cost more than finding them)."""

    __slots__ = ("_minos", "_mino_base", "_rows", "_shape")

    def __init__(self, rows: list[tuple[int, int, int, int]], shape: Shape, minos: tuple[int, ...], mino_base: int) -> None:
        self._rows = {a: (o, x, y) for a, o, x, y in rows}
        self._shape = shape
        self._minos = minos
        self._mino_base = mino_base

    def __getitem__(self, action: int) -> TowerAction | int | None:
        o, x, y = self._rows[action]
        if action == HOLD:
            return TowerAction.holding()
        if action >= self._mino_base:
            return action - self._mino_base
        return TowerAction(self._minos, self._shape.orientations("rotate")[o].at(x, y), False)

    def __contains__(self, action: object) -> bool:
        return action in self._rows

    def __iter__(self) -> Iterator[int]:
        return iter(self._rows)

    def __len__(self) -> int:
        return len(self._rows)


_CORE_RULES: weakref.WeakKeyDictionary[TowerCodec, Any] = weakref.WeakKeyDictionary()
"""Each codec's rules loaded in the tower core once (a capsule: kept off the codec, which pickles)."""


class TowerCodec:
    """The action and observation encoding for one rules set and number of players."""

    def __init__(self, rules: TowerRules, players: int) -> None:
        self.rules = rules
        self.players = players
        self.width = rules.width
        self.height = rules.height
        self.drop_base = 2
        self.mino_base = 2 + N_ORIENT * self.width
        self.n_actions = self.mino_base + self.width
        self.achievement_ids = list(ACHIEVEMENTS)
        planes = 16 * self.height * self.width
        sizes = [
            ("tower", planes),
            ("others", (players - 1) * self.height * self.width),
            ("play", len(TETROMINOES)),
            ("next", len(TETROMINOES) + 1),
            ("cards_seen", len(TETROMINOES)),
            ("deck_left", 1),
            ("supply", 1),
            ("minos", 2),
            ("hold_used", 1),
            ("submitted", 1),
            ("out", players),
            ("scores", players),
            ("achievements", 3 * len(self.achievement_ids)),
        ]
        self.layout: dict[str, slice] = {}
        start = 0
        for name, size in sizes:
            self.layout[name] = slice(start, start + size)
            start += size
        self.obs_size = start
        self.obs_low = np.zeros(self.obs_size, dtype=np.float32)
        self.obs_high = np.ones(self.obs_size, dtype=np.float32)
        self.obs_high[self.layout["scores"]] = SCORE_BOUND
        self._orient_index = {
            (s, o.cells): i for s in TETROMINOES for i, o in enumerate(s.orientations("rotate"))
        }
        self.board_planes = 16 + players - 1
        first = self.layout["play"].start
        self.image_shape = (self.board_planes + self.obs_size - first, self.height, self.width)
        self.image_low = np.zeros(self.image_shape, dtype=np.float32)
        self.image_high = np.ones(self.image_shape, dtype=np.float32)

    def __deepcopy__(self, memo: dict[int, Any]) -> TowerCodec:
        """Copies share the codec: it never changes after it is built (OpenSpiel copies states)."""
        return self

    # ---------------------------------------------------------------- actions

    def encode_drop(self, placement: Placement) -> int:
        o = self._orient_index[(placement.shape, placement.orientation.cells)]
        return self.drop_base + o * self.width + placement.x

    def describe(self, action: int) -> str:
        """An action in words (error messages, OpenSpiel's action strings)."""
        a = int(action)
        if a == WAIT:
            return "wait"
        if a == HOLD:
            return "hold"
        if self.drop_base <= a < self.mino_base:
            o, x = divmod(a - self.drop_base, self.width)
            return f"drop rotation {o} at column {x}"
        if self.mino_base <= a < self.n_actions:
            return f"mino in column {a - self.mino_base}"
        return f"action {a} (out of range 0-{self.n_actions - 1})"

    def _legal_in_core(self, game: TowerGame, tower: Any, turn: SeatTurn) -> LegalActions | None:
        """``legal`` by the compiled tower core (one call for every id), or None where it is
        not in use, does not play the rules, or the turn holds more minos than the seat (the
        engine then says why)."""
        nat = fasttower.core_module()
        shape = game.play_card
        if nat is None or shape is None or len(turn.minos) > tower.minos or not fasttower.supports(self.rules):
            return None
        rules = _CORE_RULES.get(self)
        if rules is None:
            rules = _CORE_RULES[self] = nat.rules_new(fasttower.kernel_rules(self.rules))
        try:
            chosen = bytes(turn.minos)
            rows = nat.legal_ids(
                rules, tower.board.occupied, fasttower.SHAPE_INDEX[shape], chosen, tower.minos, int(not tower.hold_used)
            )
        except ValueError:  # a full column or no column among the minos: the engine's words for it
            return None
        return LegalActions(rows, shape, tuple(turn.minos), self.mino_base)

    def legal(self, game: TowerGame, seat: int, turn: SeatTurn) -> Mapping[int, TowerAction | int | None]:
        """Legal actions for ``seat``: DROP/HOLD map to the engine action, MINO to the column.

        WAIT maps to None and is the only action of a seat whose action is in (or forced).
        An out seat, or any seat once the game is over, has none.
        """
        if game.over or game.towers[seat].out:
            return {}
        if turn.done or seat not in game.waiting_for():
            return {WAIT: None}
        tower = game.towers[seat]
        fast = self._legal_in_core(game, tower, turn)
        if fast is not None:
            return fast
        result: dict[int, TowerAction | int | None] = {}
        if not turn.minos and game.can_hold(seat):
            result[HOLD] = TowerAction.holding()
        for p in game.legal_drops(seat, turn.minos):
            result[self.encode_drop(p)] = TowerAction.drop(p, turn.minos)
        if len(turn.minos) < tower.minos:
            for c in range(self.width):
                try:
                    if game.legal_drops(seat, [*turn.minos, c]):
                        result[self.mino_base + c] = c
                except IllegalMove:
                    continue  # the column is full
        return dict(sorted(result.items()))

    def mask(self, legal: Mapping[int, TowerAction | int | None]) -> np.ndarray:
        m = np.zeros(self.n_actions, dtype=np.int8)
        if legal:
            m[np.fromiter(legal, dtype=np.int64)] = 1
        return m

    # ----------------------------------------------------------- observations

    def observe(self, game: TowerGame, seat: int, turn: SeatTurn | None = None) -> np.ndarray:
        """The observation vector of ``game`` for ``seat`` (see the module docstring)."""
        obs = np.zeros(self.obs_size, dtype=np.float32)
        h, w = self.height, self.width
        planes = obs[self.layout["tower"]].reshape(16, h, w)
        tower = game.towers[seat]
        chosen = list(turn.minos) if turn is not None else []
        for stone in tower.board.stones.values():
            plane = 7 if stone.shape is Shape.M else TETROMINOES.index(stone.shape)
            for x, y in stone.cells:
                planes[plane, y, x] = 1.0
        heights = [tower.column_height(x) for x in range(w)]
        for c in chosen:
            if heights[c] < h:
                planes[7, heights[c], c] = 1.0
                heights[c] += 1
        for x, y in tower.layout.diamonds:
            planes[8, y, x] = 1.0
        for (x, y), shape in tower.layout.bonus.items():
            planes[9 + TETROMINOES.index(shape), y, x] = 1.0
        n = self.players
        others = obs[self.layout["others"]].reshape(max(0, n - 1), h, w)
        for k in range(1, n):
            board = game.towers[(seat + k) % n].board
            for stone in board.stones.values():
                for x, y in stone.cells:
                    others[k - 1, y, x] = 1.0
        if game.play_card is not None:
            obs[self.layout["play"].start + TETROMINOES.index(game.play_card)] = 1.0
        nxt = game.next_card
        obs[self.layout["next"].start + (len(TETROMINOES) if nxt is None else TETROMINOES.index(nxt))] = 1.0
        start = self.layout["cards_seen"].start
        for i, shape in enumerate(TETROMINOES):
            obs[start + i] = min(1.0, game.cards_seen()[shape] / 4)
        obs[self.layout["deck_left"].start] = game.deck_left / DECK_SIZE
        box = max(1, self.rules.minos_in_box)
        obs[self.layout["supply"].start] = min(1.0, game.supply / box)
        obs[self.layout["minos"].start] = min(1.0, tower.minos / box)
        obs[self.layout["minos"].start + 1] = min(1.0, len(chosen) / box)
        obs[self.layout["hold_used"].start] = float(tower.hold_used)
        obs[self.layout["submitted"].start] = float(
            (turn is not None and turn.done) or (not game.over and seat not in game.waiting_for())
        )
        scores = game.scores()
        for k in range(n):
            other = (seat + k) % n
            obs[self.layout["out"].start + k] = float(game.towers[other].out)
            obs[self.layout["scores"].start + k] = min(SCORE_BOUND, scores[other])
        start = self.layout["achievements"].start
        for card in game.achievements:
            i = self.achievement_ids.index(card.id)
            obs[start + 3 * i] = 1.0
            obs[start + 3 * i + 1] = float(seat in card.met)
            obs[start + 3 * i + 2] = max(0, SPACES - card.next_space) / SPACES
        return obs

    def image(self, vector: np.ndarray) -> np.ndarray:
        """The observation ``vector`` as planes ``(channels, height, width)`` (module docstring)."""
        h, w = self.height, self.width
        out = np.empty(self.image_shape, dtype=np.float32)
        planes = vector[: self.layout["others"].stop]
        out[: self.board_planes] = planes.reshape(self.board_planes, h, w)
        first = self.layout["play"].start
        rest = vector[first:].copy()
        scores = self.layout["scores"]
        part = slice(scores.start - first, scores.stop - first)
        rest[part] = np.clip(rest[part] / SCORE_SCALE, 0.0, 1.0)
        out[self.board_planes :] = rest[:, None, None]
        return out
