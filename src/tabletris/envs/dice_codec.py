"""The dice game as fixed-size numbers: one discrete action space and one observation vector.

Every AI interface (PettingZoo, Gymnasium, OpenSpiel) speaks the same encoding, so an agent
trained through one of them reads and acts the same way through the others. The encoding only
translates: which moves are legal is always asked of ``DiceGame``.

Action ids (``Discrete(n_actions)``, 3399 for the standard rules), in five blocks::

    [0, n_place)                      PLACE   one id per in-bounds (shape, orientation, x, y)
    take_base + y * width + x         TAKE    take the stone whose anchor cell is (x, y)
    point_id                          POINT   take a scoring row's reward as the point
    remove_base + y * width + x       REMOVE  take it by removing the stone anchored at (x, y)
    token_base + i                    TOKEN   a point's token is a stone of rules.shapes[i]

- PLACE ids list, shape by shape in ``rules.shapes`` order (die order), each distinct
  orientation of ``shape.orientations(rules.orientation_mode)`` in order, then every lower-left
  corner ``(x, y)`` at which the form fits inside the board, ``y`` then ``x`` ascending
  (``DiceCodec.placements[id]`` is the ``Placement``). Only in-bounds forms get an id, so every
  PLACE id is legal in some position; on a plain face only that shape's ids are legal, on ``*``
  every shape's are (the ``*`` choice is the shape of the id).
- A stone is named by its *anchor*: its lowest cell, leftmost among the lowest.
- A turn is one to four kinds of decision, each an env step of the same seat: PLACE always;
  TAKE only when the supply has no stone of the shape and more than one of the stones the
  rules let the player take makes room for that placement; then, under ``row_reward: choose``,
  one POINT/REMOVE decision per scoring row while another player's stone can be removed; then,
  with ``tokens_from_supply``, one TOKEN decision per point that takes a token (the engine
  counts them, and says which lists it accepts). A decision with a single option is taken by
  the codec, never asked.

Observation (a flat ``float32`` vector, slices named by ``DiceCodec.layout``): four board planes
``(4, height, width)`` seen from the observing seat (own stones, other players' stones, garbage,
the piece placed in the decision being built), the face showing (one-hot over ``rules.shapes``
then ``*``), whose turn it is (one-hot, seats counted from the observer), the supply left per
die shape (fraction of the starting supply; 1 when unlimited), the scores (seats counted from the
observer, clipped to +-``SCORE_BOUND``), the decision phase (one-hot: place, take, reward,
token), the scoring rows still to reward (of 4) and the tokens still to name (of 4). ``DiceCodec.image`` gives the same facts as planes
``(channels, height, width)``: the four board planes, then one constant plane per other entry
(scores divided by ``SCORE_SCALE`` and clipped to +-1).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np

from tabletris.engine.board import Placement, Stone
from tabletris.engine.dice import CHOICE, DiceAction, DiceGame, DiceRules
from tabletris.engine.errors import IllegalMove
from tabletris.engine.shapes import Cell, Orientation, Shape

SCORE_BOUND = 1000.0
"""Scores in observations are clipped to +-this, so the observation space is bounded."""
SCORE_SCALE = 20.0
"""Scores in image planes are divided by this (a typical winning score) and clipped to +-1."""
BOARD_PLANES = 4
Phase = Literal["place", "take", "reward", "token"]
PHASES: tuple[Phase, ...] = ("place", "take", "reward", "token")


def anchor(stone: Stone) -> Cell:
    """The cell that names a stone in TAKE and REMOVE ids: its lowest, then leftmost, cell."""
    return min(stone.cells, key=lambda c: (c[1], c[0]))


@dataclass
class DiceTurn:
    """The decision being built for the pending roll, between sub-steps."""

    phase: Phase = "place"
    placement: Placement | None = None
    takes: tuple[Stone | None, ...] = ()
    take: Stone | None = None
    rows: int = 0
    """Scoring rows whose reward is still to choose."""
    rewards: list[Any] = field(default_factory=list)
    removed: set[int] = field(default_factory=set)
    """Numbers of the stones already chosen for removal this turn."""
    tokens: list[Shape] = field(default_factory=list)
    n_tokens: int = 0
    """Point tokens this decision takes (``tokens_from_supply``): the engine's count."""


_SUPPLY: tuple[Stone | None, ...] = (None,)
"""The takes of a placement the supply pays for: shared, as nearly every placement has it."""


class DiceCodec:
    """The action and observation encoding for one rules set and number of players."""

    def __init__(self, rules: DiceRules, players: int) -> None:
        self.rules = rules
        self.players = players
        self.shapes: tuple[Shape, ...] = rules.shapes
        mode = rules.orientation_mode
        self.orientations: dict[Shape, tuple[Orientation, ...]] = {
            s: s.orientations(mode) for s in self.shapes
        }
        self.width = w = rules.width
        self.height = h = rules.height
        self.placements: list[Placement] = []
        # Keyed by cells, not by the Orientation object: a deep-copied game (OpenSpiel clones
        # states that way) holds copies of the interned orientations.
        self._place_index: dict[tuple[Shape, tuple[Cell, ...], int, int], int] = {}
        self._form_base: dict[Orientation, tuple[int, int]] = {}
        """Per interned orientation (the engine's own objects, compared by identity): the PLACE
        id of anchor (0, 0) and the anchors per row, so an id is arithmetic, not a lookup by
        cells (``placement_options`` runs once per step). Copies fall back to ``_place_index``."""
        for shape in self.shapes:
            for form in self.orientations[shape]:
                self._form_base[form] = (len(self.placements), w - form.width + 1)
                for y in range(h - form.height + 1):
                    for x in range(w - form.width + 1):
                        self._place_index[(shape, form.cells, x, y)] = len(self.placements)
                        self.placements.append(Placement(shape, form, x, y))
        self.n_place = len(self.placements)
        self.take_base = self.n_place
        self.point_id = self.take_base + h * w
        self.remove_base = self.point_id + 1
        self.token_base = self.remove_base + h * w
        self.n_actions = self.token_base + len(self.shapes)
        self.faces: tuple[str, ...] = (*(s.value for s in self.shapes), CHOICE)
        sizes = [
            ("board", BOARD_PLANES * h * w),
            ("face", len(self.faces)),
            ("to_move", players),
            ("supply", len(self.shapes)),
            ("scores", players),
            ("phase", len(PHASES)),
            ("rows_left", 1),
            ("tokens_left", 1),
        ]
        self.layout: dict[str, slice] = {}
        start = 0
        for name, size in sizes:
            self.layout[name] = slice(start, start + size)
            start += size
        self.obs_size = start
        self.obs_low = np.zeros(self.obs_size, dtype=np.float32)
        self.obs_high = np.ones(self.obs_size, dtype=np.float32)
        self.obs_low[self.layout["scores"]] = -SCORE_BOUND
        self.obs_high[self.layout["scores"]] = SCORE_BOUND
        self.image_shape = (BOARD_PLANES + start - self.layout["face"].start, h, w)
        self.image_low = np.zeros(self.image_shape, dtype=np.float32)
        first_score = BOARD_PLANES + self.layout["scores"].start - self.layout["face"].start
        self.image_low[first_score : first_score + players] = -1.0
        self.image_high = np.ones(self.image_shape, dtype=np.float32)

    # A codec never changes after it is built, and OpenSpiel copies every state (with the codec
    # it holds) at each step of a search: copies share it, and pickles rebuild it from the cache.
    def __deepcopy__(self, memo: dict[int, Any]) -> DiceCodec:
        return self

    def __reduce__(self) -> tuple[Any, tuple[DiceRules, int]]:
        return (dice_codec, (self.rules, self.players))

    # ---------------------------------------------------------------- actions

    def encode(self, placement: Placement) -> int:
        """The PLACE id of ``placement`` (its shape must be on the die)."""
        return self._place_index[(placement.shape, placement.orientation.cells, placement.x, placement.y)]

    def cell_id(self, base: int, cell: Cell) -> int:
        return base + cell[1] * self.width + cell[0]

    def describe(self, action: int) -> str:
        """An action in words, for error messages and OpenSpiel's action strings."""
        a = int(action)
        if 0 <= a < self.n_place:
            return str(self.placements[a])
        if a == self.point_id:
            return "reward: point"
        if self.token_base <= a < self.n_actions:
            return f"token: {self.shapes[a - self.token_base].value}"
        for base, what in ((self.take_base, "take"), (self.remove_base, "reward: remove")):
            if base <= a < base + self.height * self.width:
                y, x = divmod(a - base, self.width)
                return f"{what} the stone at [{x},{y}]"
        return f"action {a} (out of range 0-{self.n_actions - 1})"

    def placement_options(self, game: DiceGame) -> dict[int, tuple[Stone | None, ...]]:
        """PLACE ids legal for the pending roll, each with the takes that make room for it."""
        result: dict[int, tuple[Stone | None, ...]] = {}
        if game.over or game.roll_face is None:
            return result
        index = self._place_index
        bases = self._form_base
        for shape in game.shapes_for_roll():
            for take in game.take_options(shape):
                for p in game.legal_placements(shape, take):
                    form = p.orientation
                    base = bases.get(form)
                    if base is None:
                        a = index[(shape, form.cells, p.x, p.y)]
                    else:
                        a = base[0] + p.y * base[1] + p.x
                    if take is None and a not in result:
                        result[a] = _SUPPLY
                    else:
                        result[a] = (*result.get(a, ()), take)
        return result

    def legal(self, game: DiceGame, turn: DiceTurn) -> dict[int, Any]:
        """The legal ids of the decision ``turn`` is at, each with what it stands for."""
        if turn.phase == "place":
            return dict(self.placement_options(game))
        if turn.phase == "take":
            return {self.cell_id(self.take_base, anchor(s)): s for s in turn.takes if s is not None}
        if turn.phase == "token":
            return {
                self.token_base + i: shape
                for i, shape in enumerate(self.shapes)
                if self._tokens_playable(game, turn, [*turn.tokens, shape])
            }
        options: dict[int, Any] = {self.point_id: "point"}
        for stone in self._removable(game, turn):
            options[self.cell_id(self.remove_base, anchor(stone))] = stone
        return options

    def _removable(self, game: DiceGame, turn: DiceTurn) -> list[Stone]:
        taken = None if turn.take is None else turn.take.number
        return [s for s in game.rewardable_stones() if s.number != taken and s.number not in turn.removed]

    def advance(self, game: DiceGame, turn: DiceTurn, action: int, legal: dict[int, Any]) -> DiceAction | None:
        """Take the legal id ``action`` into ``turn``; the whole decision once nothing is left to ask.

        Decisions with one option are taken here, so the caller only ever asks real choices.
        """
        value = legal[action]
        if turn.phase == "place":
            turn.placement = self.placements[action]
            turn.takes = value
            if len(value) > 1:
                turn.phase = "take"
                return None
            turn.take = value[0]
        elif turn.phase == "take":
            turn.take = value
        elif turn.phase == "token":
            turn.tokens.append(value)
            return self._tokens_or_done(game, turn)
        else:
            if value == "point":
                turn.rewards.append("point")
            else:
                turn.rewards.append(value.cells)
                turn.removed.add(value.number)
            turn.rows -= 1
            return self._rewards_or_done(game, turn)
        placement = turn.placement
        assert placement is not None
        if game.rules.row_reward == "choose":
            turn.rows = len(game.scoring_rows_after(placement, turn.take))
            turn.phase = "reward"
        return self._rewards_or_done(game, turn)

    def _rewards_or_done(self, game: DiceGame, turn: DiceTurn) -> DiceAction | None:
        if turn.phase == "reward" and turn.rows > 0:
            if self._removable(game, turn):
                return None
            turn.rewards.extend(["point"] * turn.rows)
            turn.rows = 0
        placement = turn.placement
        assert placement is not None
        if game.rules.takes_tokens:
            # How many tokens the points take: the engine's answer (it plays the decision on a view).
            done = game.complete(self._action(turn, None))
            turn.n_tokens = len(done.tokens or ())
            turn.phase = "token"
            return self._tokens_or_done(game, turn)
        return self._action(turn, None)

    def _action(self, turn: DiceTurn, tokens: tuple[Shape, ...] | None) -> DiceAction:
        placement = turn.placement
        assert placement is not None
        rewards = tuple(turn.rewards) if self.rules.row_reward == "choose" else None
        return DiceAction(placement.shape, placement, turn.take, rewards, tokens)

    def _tokens_or_done(self, game: DiceGame, turn: DiceTurn) -> DiceAction | None:
        """Ask for the next token while there is a real choice; a forced one is taken here."""
        while len(turn.tokens) < turn.n_tokens:
            options = self.legal(game, turn)
            if len(options) > 1:
                return None
            if not options:  # the engine counted a token it then accepts in no shape
                raise RuntimeError(f"no legal token for {self._action(turn, None)!r}")
            turn.tokens.extend(options.values())
        return self._action(turn, tuple(turn.tokens))

    def _tokens_playable(self, game: DiceGame, turn: DiceTurn, prefix: list[Shape]) -> bool:
        """Whether the engine accepts some token list starting with ``prefix`` (each point's
        token must be a shape with a stone left when it is scored; removals return stones)."""
        if len(prefix) == turn.n_tokens:
            try:
                game.view().play(*self._play_args(turn, tuple(prefix)))
            except IllegalMove:
                return False
            return True
        return any(self._tokens_playable(game, turn, [*prefix, s]) for s in self.shapes)

    def _play_args(self, turn: DiceTurn, tokens: tuple[Shape, ...]) -> tuple[Any, ...]:
        action = self._action(turn, tokens)
        return (action.placement, action.shape, action.take, action.rewards, action.tokens)

    def choices(self, game: DiceGame) -> dict[int, DiceAction]:
        """Every PLACE id legal now, with the first take that makes room for it (the engine's
        ``complete`` fills in the rewards): for bots and tests, not the action space."""
        result = {}
        for a, takes in self.placement_options(game).items():
            p = self.placements[a]
            result[a] = DiceAction(p.shape, p, takes[0])
        return result

    def mask(self, legal: dict[int, Any] | Sequence[int]) -> np.ndarray:
        """The action mask (``int8``, 1 = legal) for the ids in ``legal``."""
        m = np.zeros(self.n_actions, dtype=np.int8)
        if legal:
            m[np.fromiter(legal, dtype=np.int64)] = 1
        return m

    # ----------------------------------------------------------- observations

    def observe(self, game: DiceGame, seat: int, turn: DiceTurn | None = None) -> np.ndarray:
        """The observation vector of ``game`` for ``seat`` (see the module docstring)."""
        obs = np.zeros(self.obs_size, dtype=np.float32)
        h, w = self.height, self.width
        planes = obs[self.layout["board"]].reshape(BOARD_PLANES, h, w)
        # Flat indices gathered in Python and set in one NumPy call: one item assignment per cell
        # was the env step's largest single cost.
        hw = h * w
        cells: list[int] = []
        for stone in game.board.stones.values():
            base = 2 * hw if stone.owner is None else 0 if stone.owner == seat else hw
            for x, y in stone.cells:
                cells.append(base + y * w + x)
        if cells:
            obs[self.layout["board"].start + np.array(cells, dtype=np.intp)] = 1.0
        if game.roll_face is not None:
            obs[self.layout["face"].start + self.faces.index(game.roll_face)] = 1.0
        n = self.players
        if not game.over:
            obs[self.layout["to_move"].start + (game.to_move - seat) % n] = 1.0
        start = self.layout["supply"].start
        full = max(1, self.rules.supply * n)
        for i, shape in enumerate(self.shapes):
            left = game.supply.get(shape, 0) if game.rules.limited_supply else full
            obs[start + i] = min(1.0, left / full)
        start = self.layout["scores"].start
        for k in range(n):
            score = game.scores[(seat + k) % n]
            obs[start + k] = max(-SCORE_BOUND, min(SCORE_BOUND, score))
        phase = "place" if turn is None else turn.phase
        obs[self.layout["phase"].start + PHASES.index(phase)] = 1.0
        if turn is not None:
            if turn.placement is not None and turn.phase != "place":
                for x, y in turn.placement.cells:
                    planes[3, y, x] = 1.0
            obs[self.layout["rows_left"].start] = min(1.0, turn.rows / 4)
            obs[self.layout["tokens_left"].start] = min(1.0, (turn.n_tokens - len(turn.tokens)) / 4)
        return obs

    def image(self, vector: np.ndarray) -> np.ndarray:
        """The observation ``vector`` as planes ``(channels, height, width)`` (module docstring)."""
        h, w = self.height, self.width
        out = np.empty(self.image_shape, dtype=np.float32)
        out[:BOARD_PLANES] = vector[self.layout["board"]].reshape(BOARD_PLANES, h, w)
        rest = vector[self.layout["face"].start :].copy()
        scores = self.layout["scores"]
        offset = self.layout["face"].start
        rest[scores.start - offset : scores.stop - offset] = np.clip(
            rest[scores.start - offset : scores.stop - offset] / SCORE_SCALE, -1.0, 1.0
        )
        out[BOARD_PLANES:] = rest[:, None, None]
        return out


_CODECS: dict[tuple[str, int], DiceCodec] = {}


def dice_codec(rules: DiceRules, players: int) -> DiceCodec:
    """The codec for a rules set and table size, built once per process (rules may hold
    garbage lists, so they are keyed by their JSON)."""
    key = (json.dumps(rules.to_dict(), sort_keys=True, default=str), players)
    codec = _CODECS.get(key)
    if codec is None:
        codec = _CODECS[key] = DiceCodec(rules, players)
    return codec


class DiceDecider:
    """One game's decision in progress: the ids legal now, and applying one of them.

    The environments and the OpenSpiel state all drive a turn through this, so a sub-step means
    the same everywhere. Call ``refresh()`` whenever a new roll is pending.
    """

    def __init__(self, codec: DiceCodec, game: DiceGame) -> None:
        self.codec = codec
        self.game = game
        self.turn = DiceTurn()
        self._legal: dict[int, Any] | None = None
        self.refresh()

    @property
    def legal(self) -> dict[int, Any]:
        """The ids legal now, each with what it stands for. Worked out when first asked after a
        ``refresh``: an env refreshes after every opponent's move, and a bot opponent never asks."""
        legal = self._legal
        if legal is None:
            game = self.game
            legal = {} if game.over or game.roll_face is None else self.codec.legal(game, self.turn)
            self._legal = legal
        return legal

    @legal.setter
    def legal(self, value: dict[int, Any]) -> None:
        self._legal = value

    def refresh(self) -> None:
        """A fresh decision for the pending roll (nothing legal when no roll is pending)."""
        self.turn = DiceTurn()
        self._legal = None

    def apply(self, action: int) -> DiceAction | None:
        """Take the legal id ``action``; the decision played on the game once it is whole."""
        choice = self.codec.advance(self.game, self.turn, int(action), self.legal)
        if choice is None:
            self.legal = self.codec.legal(self.game, self.turn)
            return None
        self.game.act(choice)
        self.turn = DiceTurn()
        self.legal = {}
        return choice

    def observe(self, seat: int) -> np.ndarray:
        turn = self.turn if seat == self.game.to_move else None
        return self.codec.observe(self.game, seat, turn)
