"""The tower game (rules.md section 3): private 8x15 towers, one card for everybody, simultaneous rounds.

``TowerGame`` is a state machine driven by ``submit(seat, action)``. Each seat's action is checked
against that seat's tower when it is submitted (``IllegalMove`` with the rule, nothing changes) and
kept private; the round resolves when every active seat has submitted, always in seat order, so
the outcome never depends on who submitted first.

Decisions the engine takes itself, so front ends never have to:

- **Forced hold / out** [interpretation]. When a card comes to PLAY, a seat with no legal drop
  for it holds automatically if its hold is unused, and is otherwise out (its tower freezes, it keeps its
  score, its record entry is ``null``). Minos never help (they only raise columns), so "no legal
  drop" is judged without them. A round in which nobody is left to choose resolves by itself.
- **Layouts.** Each seat chooses a tower and which end is the bottom (``towers=["2b", None,
  ...]``); a seat that does not choose (``None``, or no ``towers`` at all) gets a free physical
  tower drawn by the game's generator, with the end (``a``/``b``) drawn too, so no two seats share
  a tower. End ``b`` is end ``a`` turned 180 degrees (the same printed tower upside down). The
  record's ``towers`` stores each layout's icons with its name, so a record replays without the
  layout files; a name alone in a record means the first release's layouts (``2b@v1``).
- **Deck.** Without ``deck``, the 28 cards are shuffled by the game's generator and the last one
  is removed unseen; the record's ``deck`` lists the other 27 in draw order.
- **Advanced achievements.** With ``achievements: null`` (the ``advanced`` preset), the cards are
  drawn from the game's generator and written into the record's ``rules``.

Order of draws from ``random.Random(seed)``: layouts (if not given), deck (if not given),
achievements (if drawn).
"""

from __future__ import annotations

import json
import random
import secrets
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from functools import cache
from typing import Any

from tabletris.engine.achievements import ACHIEVEMENTS, AchievementCard, RoundFacts
from tabletris.engine.board import (
    Board,
    Placement,
    format_cells,
    geometry,
    parse_cells,
)
from tabletris.engine.errors import IllegalMove, MalformedMove, RulesError
from tabletris.engine.errors import error_text as _text
from tabletris.engine.options import build_options, options_to_dict, options_to_spec
from tabletris.engine.shapes import TETROMINOES, Cell, Orientation, Shape
from tabletris.engine.texts import N_, Message
from tabletris.engine.tower_layouts import (
    LEGACY_LAYOUT_NAMES,
    Layout,
    library_layout,
    parse_layout,
)

MAX_PLAYERS = 4
CARDS_PER_SHAPE = 4
DECK_SIZE = CARDS_PER_SHAPE * len(TETROMINOES) - 1  # one card is removed unseen
MINO = Shape.M
_BLANK_RNG = random.Random(0)
"""A view's generator: it knows nothing about the real game's deck or seed."""
_MINO_FORM = Shape.M.orientations("rotate")[0]

TOWER_PRESETS: dict[str, dict[str, Any]] = {
    "standard": {},
    "advanced": {"achievements": None},
}
"""Named rule sets: ``standard`` plays only ``six-lines``; ``advanced`` draws two cards."""

RULE_HELP: dict[str, str] = {
    "width": N_("Tower width in cells (the product: 8)."),
    "height": N_("Tower height in cells; the top edge is the skyline (the product: 15)."),
    "minos_in_box": N_("Minos in the box; each player takes start_minos of them at setup."),
    "start_minos": N_("Minos each player starts with."),
    "achievements": N_("Achievement card ids in play; null draws draw_achievements cards from the seed."),
    "draw_achievements": N_("How many achievement cards are drawn when achievements is null."),
    "seven_on_a_side": N_("'one-wall': all seven shapes touch the same wall; 'both-walls': each shape touches either wall."),
    "four_pairs": N_("'matching': 4 disjoint touching same-shape pairs; 'pairs': any 4 touching same-shape pairs."),
    "towers": N_(
        "A layout per seat: a name (tower 1-4, end a or b at the bottom: 1a ... 4b), null for a free "
        "tower drawn at random, or {bonus: [{cell, shape}], diamonds: [cells]}."
    ),
}


TOWER_PRESET_HELP: dict[str, str] = {
    "standard": N_("The standard game: only the 6 complete lines card."),
    "advanced": N_("The advanced game: two achievement cards drawn at random."),
}

TOWER_OPTION_LABELS: dict[str, str] = {
    "preset": N_("Preset"),
    "width": N_("Width"),
    "height": N_("Height"),
    "minos_in_box": N_("Minos in the box"),
    "start_minos": N_("Starting minos"),
    "achievements": N_("Achievement cards"),
    "draw_achievements": N_("Cards drawn"),
    "seven_on_a_side": N_("Seven on a side"),
    "four_pairs": N_("Four pairs"),
    "towers": N_("Towers"),
}

TOWER_PARAGRAPHS: tuple[str, ...] = (
    N_("## The tower game"),
    N_(
        "Everyone has a private 8×15 tower. Each round the PLAY card names the piece everybody drops at the\n"
        "same time (rotations only, straight down; nothing may stick out above the skyline). Before it you\n"
        "may drop any of your minos, one at a time, in columns of your choice; or you may **hold** once per\n"
        "game and skip the piece. A tetromino covering a ◇ diamond earns a mino. A player with no legal\n"
        "drop must hold (if the hold is unused) or is **out**. Scoring: 2 points per complete row, 1 per\n"
        "bonus icon covered by a tetromino of the icon's shape, plus achievement cards (first to meet a\n"
        "card's condition takes its highest free space). The game ends after 27 cards or when all are out;\n"
        "ties are broken by more complete rows."
    ),
)


@dataclass(frozen=True)
class TowerRules:
    """Every option of the tower game; the defaults are rules.md's standard game."""

    preset: str = "standard"
    width: int = 8
    height: int = 15
    minos_in_box: int = 24
    start_minos: int = 1
    achievements: tuple[str, ...] | None = ("six-lines",)
    draw_achievements: int = 2
    seven_on_a_side: str = "one-wall"
    four_pairs: str = "matching"
    towers: tuple[Any, ...] | None = None

    def __post_init__(self) -> None:
        if not (4 <= self.width <= 20):
            raise RulesError(Message(N_("rules.width: {value} is out of range ({low}-{high})"), value=self.width, low=4, high=20))
        if not (4 <= self.height <= 40):
            raise RulesError(Message(N_("rules.height: {value} is out of range ({low}-{high})"), value=self.height, low=4, high=40))
        if self.minos_in_box < 0:
            raise RulesError(Message(N_("rules.{option}: {value} is negative"), option="minos_in_box", value=self.minos_in_box))
        if self.start_minos < 0:
            raise RulesError(Message(N_("rules.{option}: {value} is negative"), option="start_minos", value=self.start_minos))
        if self.achievements is not None:
            for card in self.achievements:
                if card not in ACHIEVEMENTS:
                    raise RulesError(Message(
                        N_("rules.achievements: unknown card {card!r}: expected one of {cards}"),
                        card=card, cards=", ".join(ACHIEVEMENTS),
                    ))
            if len(set(self.achievements)) != len(self.achievements):
                raise RulesError(Message(N_("rules.achievements: a card is named twice")))
        if not (0 <= self.draw_achievements <= len(ACHIEVEMENTS)):
            raise RulesError(Message(
                N_("rules.draw_achievements: {value} is out of range ({low}-{high})"),
                value=self.draw_achievements, low=0, high=len(ACHIEVEMENTS),
            ))
        if self.seven_on_a_side not in ("one-wall", "both-walls"):
            raise RulesError(
                Message(N_("rules.seven_on_a_side: {value!r}: expected 'one-wall' or 'both-walls'"), value=self.seven_on_a_side)
            )
        if self.four_pairs not in ("matching", "pairs"):
            raise RulesError(Message(N_("rules.four_pairs: {value!r}: expected 'matching' or 'pairs'"), value=self.four_pairs))

    @classmethod
    def from_dict(cls, raw: Mapping[str, Any] | None = None) -> TowerRules:
        return build_options(cls, TOWER_PRESETS, raw)

    @classmethod
    def preset_named(cls, name: str) -> TowerRules:
        return cls.from_dict({"preset": name})

    def to_dict(self) -> dict[str, Any]:
        return options_to_dict(self)


# ------------------------------------------------------------------- actions


@dataclass(frozen=True)
class TowerAction:
    """One seat's decision for a round: minos (columns, in order) then the piece, or hold.

    ``place`` lists the four cells where the PLAY piece lands. ``hold`` skips the piece (once per
    game, no minos that round).
    """

    minos: tuple[int, ...] = ()
    place: tuple[Cell, ...] | None = None
    hold: bool = False

    @classmethod
    def drop(cls, placement: Placement | Sequence[Sequence[int]], minos: Sequence[int] = ()) -> TowerAction:
        """A drop of the PLAY piece at ``placement`` (or its cells), after ``minos``."""
        cells = placement.cells if isinstance(placement, Placement) else parse_cells(placement)
        return cls(tuple(minos), cells, False)

    @classmethod
    def holding(cls) -> TowerAction:
        return cls(hold=True)

    def to_dict(self) -> dict[str, Any]:
        """The record's form: ``{"minos": [...], "place": [...]}`` or ``{"hold": true}``."""
        if self.hold:
            return {"hold": True}
        d: dict[str, Any] = {}
        if self.minos:
            d["minos"] = list(self.minos)
        if self.place is not None:
            d["place"] = [list(c) for c in self.place]
        return d

    @classmethod
    def from_dict(cls, raw: Any, where: str = "action") -> TowerAction:
        """An action from its record form; ``MalformedMove`` naming the key at fault."""

        def fail(key: str, why: str) -> MalformedMove:
            return MalformedMove(Message(N_("{where}: {error}"), where=key, error=why), key, why)

        if not isinstance(raw, Mapping):
            raise fail(f"{where}", Message(N_("expected an object like {place} or {hold}"), place='{"place": [[x, y], ...]}', hold='{"hold": true}'))
        for key in raw:
            if key not in ("minos", "place", "hold"):
                raise fail(f"{where}.{key}", Message(N_("unknown key in an action (known: minos, place, hold)")))
        hold = raw.get("hold", False)
        if not isinstance(hold, bool):
            raise fail(f"{where}.hold", Message(N_("expected true or false")))
        minos = raw.get("minos", [])
        if not isinstance(minos, list) or not all(isinstance(m, int) and not isinstance(m, bool) for m in minos):
            raise fail(f"{where}.minos", Message(N_("expected a list of column numbers")))
        place = raw.get("place")
        cells: tuple[Cell, ...] | None = None
        if place is not None:
            cells = parse_cells(place, f"{where}.place")
        if hold and (minos or cells is not None):
            raise fail(f"{where}", Message(N_("a hold has no minos and no place")))
        if not hold and cells is None:
            raise fail(f"{where}", Message(N_("expected 'place' (the piece's cells) or {hold}"), hold='"hold": true'))
        return cls(tuple(minos), cells, hold)


@dataclass(frozen=True)
class _Prepared:
    """A validated action with the placements it makes, ready to apply at resolution."""

    action: TowerAction
    minos: tuple[Placement, ...]
    piece: Placement | None
    forced: bool = False


# --------------------------------------------------------------------- tower


class Tower:
    """One player's tower: board (minos are stones of shape M), layout, minos, hold, out, bonus."""

    __slots__ = (
        "_bonus_masks",
        "_diamond_mask",
        "_touch_cache",
        "board",
        "bonus",
        "column_masks",
        "held",
        "layout",
        "left",
        "minos",
        "out",
        "right",
    )

    def __init__(self, width: int, height: int, layout: Layout, minos: int = 1) -> None:
        self.board = Board(width, height)
        self.layout = layout
        self.minos = minos
        self.held: Shape | None = None
        self.out = False
        self.bonus = 0
        self.left: set[Shape] = set()
        self.right: set[Shape] = set()
        g = self.board.geometry
        masks: dict[Shape, int] = {}
        for cell, shape in layout.bonus.items():
            masks[shape] = masks.get(shape, 0) | g.mask([cell])
        self._bonus_masks = masks
        self._diamond_mask = g.mask(layout.diamonds)
        self.column_masks = _column_masks(width, height)
        self._touch_cache: tuple[int, list[tuple[int, int]]] | None = None

    def copy(self) -> Tower:
        other = Tower.__new__(Tower)
        other.board = self.board.copy()
        other.layout = self.layout
        other.minos = self.minos
        other.held = self.held
        other.out = self.out
        other.bonus = self.bonus
        other.left = set(self.left)
        other.right = set(self.right)
        other._bonus_masks = self._bonus_masks
        other._diamond_mask = self._diamond_mask
        other.column_masks = self.column_masks
        other._touch_cache = self._touch_cache
        return other

    # ------------------------------------------------------------ queries

    @property
    def hold_used(self) -> bool:
        return self.held is not None

    @property
    def lines(self) -> int:
        """Complete rows (rows stay in the tower game: they are never cleared)."""
        occ = self.board.occupied
        return sum(1 for m in self.board.geometry.row_masks if occ & m == m)

    def column_height(self, x: int) -> int:
        """Where a mino dropped in column ``x`` lands: one above the column's highest filled cell."""
        col = self.board.occupied & self.column_masks[x]
        if not col:
            return 0
        return (col.bit_length() - 1) // self.board.geometry.stride + 1

    def diamonds_covered(self) -> int:
        """Diamond icons covered by any piece, minos included (for ``four-diamonds``)."""
        return (self.board.occupied & self._diamond_mask).bit_count()

    def wall_shapes(self) -> tuple[set[Shape], set[Shape]]:
        """The tetromino shapes with a cell on the left wall, and on the right wall."""
        return self.left, self.right

    def touching(self) -> list[tuple[int, int]]:
        """Pairs of tetromino stones (by number) that touch edge to edge; minos are left out.

        Computed when an achievement asks, and then only for the stones added since the last call.
        """
        board = self.board
        last, known = self._touch_cache if self._touch_cache is not None else (0, [])
        newest = max(board.stones, default=0)
        if newest == last:
            return known
        pairs = set(known)
        w, h = board.width, board.height
        for number, stone in board.stones.items():
            if number <= last or stone.shape is MINO:
                continue
            for x, y in stone.cells:
                for nx, ny in ((x + 1, y), (x - 1, y), (x, y + 1), (x, y - 1)):
                    if 0 <= nx < w and 0 <= ny < h:
                        other = board.stone_at((nx, ny))
                        if other is not None and other.number != number and other.shape is not MINO:
                            pairs.add((min(number, other.number), max(number, other.number)))
        result = sorted(pairs)
        self._touch_cache = (newest, result)
        return result

    def covered_bonus_cells(self) -> list[Cell]:
        """Bonus icons covered by a tetromino of the icon's shape."""
        result = []
        for cell, shape in self.layout.bonus.items():
            stone = self.board.stone_at(cell)
            if stone is not None and stone.shape is shape:
                result.append(cell)
        return result

    def legal_drops(self, shape: Shape) -> list[Placement]:
        """Every straight drop of ``shape`` (rotations only) that ends below the skyline."""
        return self.board.placements(shape, "rotate", "drop")

    def has_drop(self, shape: Shape) -> bool:
        return self.board.has_placement(shape, "rotate", "drop")

    def rows(self) -> list[str]:
        return self.board.rows()

    # ------------------------------------------------------------ changes

    def mino_placement(self, column: int) -> Placement:
        """Where a mino dropped in ``column`` lands; IllegalMove if it cannot be dropped there."""
        if not 0 <= column < self.board.width:
            # Texts count columns from 1, as people do (record-format.md: indices stay from 0).
            raise IllegalMove(Message(N_("column {column} is outside the tower (1-{last})"), column=column + 1, last=self.board.width))
        y = self.column_height(column)
        if y >= self.board.height:
            raise IllegalMove(Message(N_("column {column} is full: a mino there would end above the skyline"), column=column + 1))
        return Placement(MINO, _MINO_FORM, column, y)

    def prepare(self, shape: Shape, action: TowerAction) -> _Prepared:
        """``action`` checked against this tower for PLAY piece ``shape``; the tower is unchanged."""
        if self.out:
            raise IllegalMove(Message(N_("is out: the tower is frozen")))
        if action.hold:
            if action.minos or action.place is not None:
                raise IllegalMove(Message(N_("a hold has no minos and no piece (no minos in a round you hold)")))
            if self.hold_used:
                raise IllegalMove(Message(
                    N_("has used the hold already ({shape}): once per game"), shape=self.held.value if self.held else ""
                ))
            return _Prepared(action, (), None)
        if action.place is None:
            raise IllegalMove(Message(N_("an action drops the piece ('place') or holds")))
        if len(action.minos) > self.minos:
            raise IllegalMove(Message(
                N_("drops {count} mino but has {minos}") if len(action.minos) == 1 else N_("drops {count} minos but has {minos}"),
                count=len(action.minos), minos=self.minos,
            ))
        board = self.board
        pushed = 0
        minos: list[Placement] = []
        try:
            for i, column in enumerate(action.minos):
                try:
                    p = self.mino_placement(column)
                except IllegalMove as e:
                    raise IllegalMove(Message(N_("mino {number}: {error}"), number=i + 1, error=_text(e))) from None
                board.push(p)
                pushed += 1
                minos.append(p)
            cells = action.place
            try:
                above = any(int(c[1]) >= board.height for c in cells)
            except (TypeError, ValueError, IndexError):
                above = False
            if above:
                raise IllegalMove(Message(N_("{shape} would end above the skyline at {cells}"), shape=shape.value, cells=format_cells(cells)))
            piece = board.validate(shape, cells, "rotate", "drop")
        finally:
            for _ in range(pushed):
                board.pop()
        return _Prepared(action, tuple(minos), piece)

    def apply(self, prepared: _Prepared, owner: int | None = None) -> tuple[int, RoundFacts]:
        """Make a prepared action; returns (diamonds the tetromino covers, facts for achievements)."""
        if prepared.action.hold:
            return 0, RoundFacts(None, 0)
        piece = prepared.piece
        assert piece is not None
        board = self.board
        before = board.complete_rows_mask()
        for p in prepared.minos:
            board.push(p, owner)
        self.minos -= len(prepared.minos)
        board.push(piece, owner)
        mask = board.placement_mask(piece)
        shape = piece.shape
        self.bonus += (mask & self._bonus_masks.get(shape, 0)).bit_count()
        diamonds = (mask & self._diamond_mask).bit_count()
        xs = [x for x, _ in piece.cells]
        if min(xs) == 0:
            self.left.add(shape)
        if max(xs) == board.width - 1:
            self.right.add(shape)
        new_rows = board.complete_rows_mask() & ~before
        rows_by_piece = 0
        if new_rows:
            piece_rows = 0
            for _, y in piece.cells:
                piece_rows |= 1 << y
            rows_by_piece = (new_rows & piece_rows).bit_count()
        return diamonds, RoundFacts(shape, rows_by_piece)

    def after(self, shape: Shape, action: TowerAction) -> Tower:
        """A copy of this tower after ``action`` with PLAY piece ``shape`` (for lookahead).

        Minos the piece would earn are not added: they come from the common supply at resolution.
        """
        prepared = self.prepare(shape, action)
        other = self.copy()
        if action.hold:
            other.held = shape
        else:
            other.apply(prepared)
        return other


@cache
def _column_masks(width: int, height: int) -> tuple[int, ...]:
    g = geometry(width, height)
    return tuple(sum(1 << (y * g.stride + x) for y in range(height)) for x in range(width))


# ---------------------------------------------------------------------- game


class TowerGame:
    """One game of tower Tetris for 1-4 players.

    Public state: ``players``, ``rules``, ``seed``, ``round`` (the number of the card in PLAY, or
    of the last round played once over), ``over``, ``play_card``, ``next_card``, ``deck_left``
    (cards not yet in PLAY, NEXT included), ``supply`` (minos in the box), ``towers[seat]``,
    ``achievements`` (cards in play), ``rounds`` (resolved rounds: one action or None per seat).
    """

    def __init__(
        self,
        players: Sequence[str],
        rules: TowerRules | Mapping[str, Any] | None = None,
        seed: int | None = None,
        towers: Sequence[Any] | None = None,
        deck: Sequence[Shape | str] | None = None,
    ) -> None:
        if not (1 <= len(players) <= MAX_PLAYERS):
            raise RulesError(Message(N_("players: the tower game takes 1 to {most} players, got {count}"), most=MAX_PLAYERS, count=len(players)))
        for name in players:
            if not isinstance(name, str) or not name.strip():
                raise RulesError(Message(N_("players: every player needs a name, got {name!r}"), name=name))
        self.players = list(players)
        n = len(players)
        base = rules if isinstance(rules, TowerRules) else TowerRules.from_dict(rules)
        self.seed = seed if seed is not None else secrets.randbits(32)
        self.rng = random.Random(self.seed)
        if base.start_minos * n > base.minos_in_box:
            raise RulesError(Message(
                N_("rules.minos_in_box: {box} minos cannot give {count} players {each} each"),
                box=base.minos_in_box, count=n, each=base.start_minos,
            ))
        layouts = self._setup_layouts(base, towers if towers is not None else base.towers)
        self._cards: list[Shape] = self._setup_deck(deck)
        self._deck_size = len(self._cards)
        if base.achievements is None:
            drawn = tuple(self.rng.sample(list(ACHIEVEMENTS), base.draw_achievements))
            base = replace(base, achievements=drawn)
        self.rules = base
        self.rules_spec: dict[str, Any] = options_to_spec(base, TOWER_PRESETS)
        self.layout_specs: list[str | dict[str, Any]] = [lay.to_spec() for lay in layouts]
        self.towers: list[Tower] = [Tower(base.width, base.height, lay, base.start_minos) for lay in layouts]
        self.supply = base.minos_in_box - base.start_minos * n
        self.achievements: list[AchievementCard] = [AchievementCard.new(c, n) for c in base.achievements or ()]
        self.rounds: list[list[TowerAction | None]] = []
        self.over = False
        self._drawn = 0
        self.play_card: Shape | None = None
        self._pending: list[_Prepared | None] = [None] * n
        self._submitted: list[bool] = [False] * n
        self.viewer: int | None = None
        self._revealed = False
        """A view that keeps the real deck order (``view(seat, reveal=True)``: the oracle's)."""
        self._public_submitted: list[bool] | None = None
        self._start_round()

    # ------------------------------------------------------------------ setup

    def _setup_layouts(self, rules: TowerRules, towers: Sequence[Any] | None) -> list[Layout]:
        """Each seat's chosen layout; a seat without one (None) gets a free physical tower and
        end drawn by the generator. No two seats may choose the same physical tower (the first
        release's ``@v1`` names, which only old records use, are not checked)."""
        n = len(self.players)
        w, h = rules.width, rules.height
        if towers is None:
            towers = [None] * n
        if isinstance(towers, str | bytes) or not isinstance(towers, Sequence):
            raise RulesError(Message(N_("towers: expected a list with one layout per player")))
        if len(towers) != n:
            raise RulesError(Message(N_("towers: expected one layout per player ({count}), got {got}"), count=n, got=len(towers)))
        chosen: list[Layout | None] = [
            None if spec is None else parse_layout(spec, f"towers[{i}]", w, h) for i, spec in enumerate(towers)
        ]
        seats_of: dict[int, list[int]] = {}
        for seat, layout in enumerate(chosen):
            number = None if layout is None or layout.name in LEGACY_LAYOUT_NAMES else layout.tower
            if number is not None:
                seats_of.setdefault(number, []).append(seat)
        free = [t for t in range(1, 5) if t not in seats_of]
        for number, seats in seats_of.items():
            if len(seats) > 1:
                raise RulesError(Message(
                    N_("towers: seats {seats} and {last} both chose tower {tower} (each player has a tower of their own; free towers: {free})")
                    if len(seats) == 2
                    else N_("towers: seats {seats} and {last} all chose tower {tower} (each player has a tower of their own; free towers: {free})"),
                    # Seats counted from 1, as every front end shows them ("seat 1" is the first).
                    seats=", ".join(str(s + 1) for s in seats[:-1]), last=seats[-1] + 1, tower=number,
                    free=" ".join(map(str, free)) or Message(N_("none")),
                ))
        if chosen.count(None) > len(free):
            raise RulesError(Message(N_("towers: {count} seats without a tower, but only {free} free"), count=chosen.count(None), free=len(free)))
        # The draw without any choice is the one the first release made, so seeds keep their towers.
        order = self.rng.sample(free, len(free)) if None in chosen else []
        result = []
        for layout in chosen:
            if layout is None:
                layout = library_layout(f"{order.pop(0)}{self.rng.choice('ab')}")
                if (w, h) != (8, 15):
                    layout = layout.clipped(w, h)
            result.append(layout)
        return result

    def _setup_deck(self, deck: Sequence[Shape | str] | None) -> list[Shape]:
        if deck is None:
            cards = [s for s in TETROMINOES for _ in range(CARDS_PER_SHAPE)]
            self.rng.shuffle(cards)
            cards.pop()  # removed unseen
            return cards
        if isinstance(deck, str | bytes) or not isinstance(deck, Sequence):
            raise RulesError(Message(N_("deck: expected a list of 27 shape letters")))
        if len(deck) != DECK_SIZE:
            raise RulesError(Message(N_("deck: expected {count} cards (28 minus the one removed unseen), got {got}"), count=DECK_SIZE, got=len(deck)))
        cards = []
        for i, card in enumerate(deck):
            if isinstance(card, Shape):
                shape = card
            else:
                if not isinstance(card, str):
                    raise RulesError(Message(N_("{where}: expected a shape letter, got {value}"), where=f"deck[{i}]", value=json.dumps(card)))
                try:
                    shape = Shape.parse(card)
                except ValueError as e:
                    raise RulesError(Message(N_("{where}: {error}"), where=f"deck[{i}]", error=_text(e))) from None
            if not shape.is_tetromino:
                raise RulesError(Message(N_("{where}: the cards show tetrominoes, not M"), where=f"deck[{i}]"))
            cards.append(shape)
        for shape in TETROMINOES:
            if cards.count(shape) > CARDS_PER_SHAPE:
                raise RulesError(Message(
                    N_("deck: {count} {shape} cards, the deck has {most}"), count=cards.count(shape), shape=shape.value, most=CARDS_PER_SHAPE
                ))
        return cards

    # ---------------------------------------------------------------- queries

    @property
    def player_count(self) -> int:
        return len(self.players)

    @property
    def round(self) -> int:
        """The number (from 1) of the round being played, or of the last one once over."""
        return len(self.rounds) + (0 if self.over else 1)

    @property
    def next_card(self) -> Shape | None:
        """The NEXT card, visible to everybody; None when PLAY holds the last card."""
        if self._drawn >= self._deck_size:
            return None
        if self._drawn >= len(self._cards):
            self._guess_rest()
        return self._cards[self._drawn]

    @property
    def deck_left(self) -> int:
        """Cards not yet moved to PLAY, NEXT included."""
        return self._deck_size - self._drawn

    @property
    def deck(self) -> list[Shape]:
        """The cards in draw order: all 27 in a real game (or a revealing view); in a view only
        those seen so far."""
        if self.viewer is not None and not self._revealed:
            return list(self._cards[: self._drawn + 1])
        return list(self._cards)

    @property
    def reveals_deck(self) -> bool:
        """Whether ``deck`` holds the real order: the game itself, or a revealing view."""
        return self.viewer is None or self._revealed

    def cards_seen(self) -> dict[Shape, int]:
        """Per shape, the cards seen so far: played, in PLAY and NEXT (public information)."""
        seen = {s: 0 for s in TETROMINOES}
        for card in self._cards[: min(self._drawn + 1, len(self._cards))]:
            seen[card] += 1
        return seen

    def cards_unseen(self) -> dict[Shape, int]:
        """Per shape, the cards not seen yet: still in the deck below NEXT, or removed unseen."""
        return {s: CARDS_PER_SHAPE - k for s, k in self.cards_seen().items()}

    def active_seats(self) -> list[int]:
        """Seats that are not out."""
        return [i for i, t in enumerate(self.towers) if not t.out]

    def waiting_for(self) -> list[int]:
        """Seats that still have to submit an action this round."""
        if self.over:
            return []
        return [i for i, t in enumerate(self.towers) if not t.out and not self._submitted[i]]

    def pending(self, seat: int) -> TowerAction | None:
        """``seat``'s submitted (or engine-forced) action this round, None if none yet or out."""
        self._seat(seat)
        p = self._pending[seat]
        return None if p is None else p.action

    def forced(self, seat: int) -> bool:
        """Whether the engine decided ``seat``'s action this round (a forced hold, or out)."""
        self._seat(seat)
        p = self._pending[seat]
        return (p is not None and p.forced) or (self.towers[seat].out and not self.over)

    def can_hold(self, seat: int) -> bool:
        t = self.towers[self._seat(seat)]
        return not self.over and not t.out and not t.hold_used

    def legal_drops(self, seat: int, minos: Sequence[int] = ()) -> list[Placement]:
        """The PLAY piece's legal drops in ``seat``'s tower after dropping ``minos`` (columns)."""
        t = self.towers[self._seat(seat)]
        if self.over or self.play_card is None or t.out:
            return []
        if len(minos) > t.minos:
            raise IllegalMove(Message(
                N_("{player} has {minos} mino, not {count}") if t.minos == 1 else N_("{player} has {minos} minos, not {count}"),
                player=self.players[seat], minos=t.minos, count=len(minos),
            ))
        board = t.board
        pushed = 0
        try:
            for i, column in enumerate(minos):
                try:
                    board.push(t.mino_placement(column))
                except IllegalMove as e:
                    raise IllegalMove(Message(N_("mino {number}: {error}"), number=i + 1, error=_text(e))) from None
                pushed += 1
            return t.legal_drops(self.play_card)
        finally:
            for _ in range(pushed):
                board.pop()

    def preview(self, seat: int, action: TowerAction) -> Tower:
        """``seat``'s tower after ``action`` on a copy (IllegalMove if illegal); the game is unchanged."""
        if self.over or self.play_card is None:
            raise IllegalMove(Message(N_("the game is over")))
        try:
            return self.towers[self._seat(seat)].after(self.play_card, action)
        except IllegalMove as e:
            raise IllegalMove(Message(N_("{player}: {error}"), player=self.players[seat], error=_text(e))) from None

    def score(self, seat: int) -> dict[str, Any]:
        """``seat``'s score: complete rows, their points, bonus, each achievement, total."""
        t = self.towers[self._seat(seat)]
        lines = t.lines
        achievements = {c.id: c.points_for(seat) for c in self.achievements if c.space_of(seat) is not None}
        total = 2 * lines + t.bonus + sum(achievements.values())
        return {
            "lines": lines,
            "line_points": 2 * lines,
            "bonus": t.bonus,
            "achievements": achievements,
            "total": total,
        }

    def scores(self) -> list[int]:
        return [self.score(i)["total"] for i in range(len(self.players))]

    def winners(self) -> list[int]:
        """Seats with the highest total once over; a tie goes to more complete rows, then is shared."""
        if not self.over:
            return []
        keys = [(s["total"], s["lines"]) for s in (self.score(i) for i in range(len(self.players)))]
        best = max(keys)
        return [i for i, k in enumerate(keys) if k == best]

    def _seat(self, seat: int) -> int:
        if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < len(self.players):
            raise IllegalMove(Message(N_("seat {seat!r} does not exist (0-{last})"), seat=seat, last=len(self.players) - 1))
        return seat

    # ---------------------------------------------------------------- actions

    def submit(self, seat: int, action: TowerAction | Mapping[str, Any]) -> None:
        """Submit ``seat``'s action for this round, privately; the round resolves when all are in.

        A seat may submit again to change its mind until the round resolves. IllegalMove (with
        the player's name and the rule) leaves the game unchanged.
        """
        self._seat(seat)
        name = self.players[seat]
        if self.over or self.play_card is None:
            raise IllegalMove(Message(N_("{player}: {error}"), player=name, error=Message(N_("the game is over"))))
        tower = self.towers[seat]
        if tower.out:
            raise IllegalMove(Message(N_("{player} is out: the tower is frozen"), player=name))
        current = self._pending[seat]
        if current is not None and current.forced:
            raise IllegalMove(Message(
                N_("{player} has no legal drop for {shape}: the engine holds for them"), player=name, shape=self.play_card.value
            ))
        if not isinstance(action, TowerAction):
            try:
                action = TowerAction.from_dict(action)
            except MalformedMove as e:
                raise MalformedMove(Message(N_("{player}: {error}"), player=name, error=_text(e)), e.key, e.why) from None
        try:
            prepared = tower.prepare(self.play_card, action)
        except IllegalMove as e:
            raise IllegalMove(Message(N_("{player}: {error}"), player=name, error=_text(e)), _text(e)) from None
        self._pending[seat] = prepared
        self._submitted[seat] = True
        if not self.waiting_for():
            self._resolve()

    def _start_round(self) -> None:
        """Move the top card to PLAY; force holds and outs; resolve if nobody is left to choose."""
        while True:
            if self._drawn >= self._deck_size:
                self.over = True
                self.play_card = None
                return
            if self._drawn >= len(self._cards):
                self._guess_rest()
            self.play_card = self._cards[self._drawn]
            self._drawn += 1
            n = len(self.players)
            self._pending = [None] * n
            self._submitted = [False] * n
            for seat, tower in enumerate(self.towers):
                if tower.out:
                    continue
                if not tower.has_drop(self.play_card):
                    if tower.hold_used:
                        tower.out = True
                    else:
                        self._pending[seat] = _Prepared(TowerAction(hold=True), (), None, forced=True)
                        self._submitted[seat] = True
            if not self.active_seats():
                self.over = True
                return
            if self.waiting_for():
                return
            self._resolve(start_next=False)

    def _resolve(self, start_next: bool = True) -> None:
        """Apply every seat's action in seat order, hand out minos, check achievements."""
        shape = self.play_card
        assert shape is not None
        actions: list[TowerAction | None] = []
        earned: list[int] = []
        facts: list[RoundFacts | None] = []
        for seat, tower in enumerate(self.towers):
            prepared = self._pending[seat]
            if tower.out or prepared is None:
                actions.append(None)
                earned.append(0)
                facts.append(None)
                continue
            actions.append(prepared.action)
            if prepared.action.hold:
                tower.held = shape
                earned.append(0)
                facts.append(RoundFacts(None, 0))
                continue
            diamonds, fact = tower.apply(prepared, seat)
            earned.append(diamonds)
            facts.append(fact)
        for seat, want in enumerate(earned):  # seat order when the supply runs short [interpretation]
            give = min(want, self.supply)
            self.supply -= give
            self.towers[seat].minos += give
        self.rounds.append(actions)
        number = len(self.rounds)
        for card in self.achievements:
            condition = card.spec.condition
            meeting = [
                seat
                for seat, fact in enumerate(facts)
                if fact is not None and seat not in card.met and condition(self.towers[seat], fact, self.rules)
            ]
            if meeting:
                card.award(meeting, number)
        self._pending = [None] * len(self.players)
        self._submitted = [False] * len(self.players)
        if start_next:
            self._start_round()

    # ------------------------------------------------------------ the game protocol

    # What the table, the records, the server and the bots ask of every game (``games.Game``).

    def to_act(self) -> list[int]:
        """Every seat still to submit this round (``waiting_for``)."""
        return self.waiting_for()

    def advance(self) -> list[dict[str, Any]]:
        """Nothing: a round begins by itself when the last one resolves (chance is the deck,
        dealt at set-up)."""
        return []

    def check_can_act(self, seat: int) -> None:
        """A seat may submit (or submit again) until the round resolves, unless it is out or the
        engine holds for it."""
        self._seat(seat)
        name = self.players[seat]
        if self.over or self.play_card is None:
            raise IllegalMove(Message(N_("the game is over")))
        if self.towers[seat].out:
            raise IllegalMove(Message(N_("{player} is out: the tower is frozen"), player=name))
        if self.forced(seat):
            raise IllegalMove(Message(
                N_("{player} has no legal drop for {shape}: the engine holds for them"), player=name, shape=self.play_card.value
            ))

    def legal_actions(self, seat: int) -> list[TowerAction]:
        """The PLAY piece's drops without minos, then the hold while it is unused (minos widen
        these: ``legal_drops(seat, minos)``); none for a seat that may not act."""
        try:
            self.check_can_act(seat)
        except IllegalMove:
            return []
        actions = [TowerAction.drop(p) for p in self.legal_drops(seat)]
        if self.can_hold(seat):
            actions.append(TowerAction.holding())
        return actions

    def complete(self, action: TowerAction) -> TowerAction:
        """A tower action leaves nothing open."""
        return action

    def apply(self, seat: int, action: TowerAction) -> list[dict[str, Any]]:
        """``submit``; the submission as an event (``{"seat", "round", "action"}``)."""
        if not isinstance(action, TowerAction):
            raise TypeError(f"a tower action is a TowerAction, got {type(action).__name__}")
        number = self.round
        self.submit(seat, action)
        return [{"seat": seat, "round": number, "action": action.to_dict()}]

    def seat_view(self, seat: int | None, reveal: bool = False) -> TowerGame:
        return self.view(seat, reveal)

    def seat_scores(self) -> list[int]:
        return self.scores()

    def turn_key(self) -> int:
        return self.round

    def turns_played(self) -> int:
        return len(self.rounds)

    def starting_seat(self) -> int:
        """Everybody acts at once: seat 0 stands for the table."""
        return 0

    # ------------------------------------------------------------------ views

    def view(self, seat: int | None = None, reveal: bool = False) -> TowerGame:
        """A copy for ``seat`` (or a spectator): public state and that seat's own pending action.

        Other seats' pending actions are dropped, the seed and generator are blanked, and the
        cards below NEXT are replaced by a guess drawn from the unseen cards (a fixed generator
        seeded by round and seat), so lookahead works but reveals nothing of the real deck.
        ``reveal`` keeps the real cards instead: a measuring bot's view (the ``oracle``).
        """
        other = TowerGame.__new__(TowerGame)
        other.__dict__.update(self.__dict__)
        other.viewer = -1 if seat is None else self._seat(seat)
        other.seed = 0
        other.rng = _BLANK_RNG
        other.towers = [t.copy() for t in self.towers]
        other.achievements = [c.copy() for c in self.achievements]
        other.rounds = [list(r) for r in self.rounds]
        if reveal:
            other._cards = list(self._cards)
            other._revealed = True
        else:
            other._cards = self._cards[: self._drawn + 1]  # the rest is guessed when a lookahead needs it
        other._pending = [
            p if (i == seat or (p is not None and p.forced)) else None for i, p in enumerate(self._pending)
        ]
        other._submitted = [p is not None for p in other._pending]
        other._public_submitted = [self.submitted(i) for i in range(len(self.players))]
        return other

    def _guess_rest(self) -> None:
        """In a view: fill the unknown cards below NEXT with a shuffle of the unseen ones.

        The generator is seeded by the view's round and viewer only, so a lookahead is
        repeatable and carries no information about the real deck.
        """
        pool: list[Shape] = []
        for shape, k in self.cards_unseen().items():
            pool.extend([shape] * k)
        random.Random(self._drawn * 8 + (self.viewer or 0) + 1).shuffle(pool)
        self._cards = self._cards + pool[: self._deck_size - len(self._cards)]

    def submitted(self, seat: int) -> bool:
        """Whether ``seat`` has an action in for this round (public: not what the action is)."""
        self._seat(seat)
        if self._public_submitted is not None:
            return self._public_submitted[seat]
        return self._submitted[seat]

    # ---------------------------------------------------------------- records

    def drop_error(self, seat: int, orientation: Orientation, column: int, minos: Sequence[int] = ()) -> str | None:
        """Why the PLAY piece in ``orientation`` cannot be dropped with its left edge in
        ``column`` (after ``minos``), in the engine's words; None when it can. Front ends ask this
        instead of wording the skyline rule themselves."""
        t = self.towers[self._seat(seat)]
        if self.over or self.play_card is None:
            return Message(N_("the game is over"))
        if t.out:
            return Message(N_("{player} is out: the tower is frozen"), player=self.players[seat])
        if orientation.shape is not self.play_card:
            return Message(
                N_("the card in PLAY is {card}, not {shape}"), card=self.play_card.value, shape=orientation.shape.value
            )
        if orientation not in self.play_card.orientations("rotate"):
            return Message(
                N_("{shape} {reason}"), shape=self.play_card.value, reason=Message(N_("would have to be mirrored (orientation rotate)"))
            )
        width = t.board.width
        if not 0 <= column <= width - orientation.width:
            return Message(
                N_("{shape} this way up is {width} wide: its left edge goes in column 1-{last}, not {column}"),
                shape=self.play_card.value, width=orientation.width, last=width - orientation.width + 1, column=column + 1,
            )
        try:
            drops = self.legal_drops(seat, minos)
        except IllegalMove as e:
            return _text(e)
        if any(p.orientation == orientation and p.x == column for p in drops):
            return None
        return Message(
            N_("{shape} cannot be dropped in column {column} this way up: it would end above the skyline"),
            shape=self.play_card.value, column=column + 1,
        )

    def __repr__(self) -> str:
        if self.over:
            state = "over"
        else:
            play = self.play_card.value if self.play_card is not None else "-"
            state = f"round {self.round}, {play} in PLAY"
        return f"<TowerGame {', '.join(self.players)}: {state}, scores {self.scores()}>"

    def summary(self) -> dict[str, Any]:
        """The replay summary of record-format.md."""
        winners = self.winners()
        players = []
        for seat, name in enumerate(self.players):
            s = self.score(seat)
            t = self.towers[seat]
            players.append(
                {
                    "name": name,
                    "score": s["total"],
                    "lines": s["lines"],
                    "bonus": s["bonus"],
                    "achievements": s["achievements"],
                    "out": t.out,
                    "minos": t.minos,
                    "held": t.hold_used,
                    "rows": t.rows(),
                }
            )
        return {
            "game": "tower",
            "over": self.over,
            "round": self.round,
            "players": players,
            "winners": [self.players[i] for i in winners],
        }

    def public_state(self) -> dict[str, Any]:
        """Everything every player may see, as JSON-ready data (front ends, bots, the server)."""
        return {
            "round": self.round,
            "over": self.over,
            "play": None if self.play_card is None else self.play_card.value,
            "next": None if self.next_card is None else self.next_card.value,
            "deck_left": self.deck_left,
            "cards_seen": {s.value: k for s, k in self.cards_seen().items()},
            "supply": self.supply,
            "achievements": [c.to_dict() for c in self.achievements],
            "waiting_for": self.waiting_for(),
            "towers": [
                {
                    "layout": self.layout_specs[i],
                    "rows": t.rows(),
                    "minos": t.minos,
                    "held": None if t.held is None else t.held.value,
                    "out": t.out,
                    "score": self.score(i),
                }
                for i, t in enumerate(self.towers)
            ],
        }

