"""The twelve achievement cards of the tower game (rules.md section 3) and the race for their spaces.

A card's *condition* is a pure function of one tower and of what happened to it this round (the
``RoundFacts``): the game calls it for every seat at the end of every round. Whether a seat then
scores, and how much, is the card's *race* (``AchievementCard``): three spaces high to low, the
seats meeting it first in the same round share the highest vacant space, each space serves one
round only, 2-player games skip the high space, and a seat scores a card at most once.

Two conditions carry an **[interpretation]** and read a rules option (``TowerRules``):
``seven_on_a_side`` (``one-wall``: all seven shapes on the same wall; ``both-walls``: each shape
on either wall) and ``four_pairs`` (``matching``: four disjoint touching same-shape pairs;
``pairs``: any four touching same-shape pairs, a piece may be in several).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, NamedTuple, Protocol

from tabletris.engine.board import Board
from tabletris.engine.shapes import TETROMINOES, Shape
from tabletris.engine.texts import N_


class Tower(Protocol):
    """What a card's condition reads of a tower (``tower.Tower`` is one): the cards sit below the
    game that uses them, so they name only these queries, never the tower module."""

    @property
    def board(self) -> Board: ...
    @property
    def bonus(self) -> int: ...
    @property
    def lines(self) -> int: ...
    @property
    def column_masks(self) -> tuple[int, ...]: ...
    def wall_shapes(self) -> tuple[set[Shape], set[Shape]]: ...
    def diamonds_covered(self) -> int: ...
    def touching(self) -> list[tuple[int, int]]: ...


class TowerRules(Protocol):
    """The two rules options a card's condition reads (both [interpretation]s of rules.md)."""

    @property
    def seven_on_a_side(self) -> str: ...
    @property
    def four_pairs(self) -> str: ...


class RoundFacts(NamedTuple):
    """What one seat's drop did this round: the piece's shape and the rows it completed.

    ``rows_by_piece`` counts rows complete after the drop, not complete at the start of the round,
    that contain a cell of the tetromino. A row the minos completed before the piece fell cannot
    contain the piece, so it never counts (rules.md, last paragraph of section 3).
    """

    shape: Shape | None
    rows_by_piece: int


Condition = Callable[[Tower, RoundFacts, TowerRules], bool]


@dataclass(frozen=True)
class AchievementSpec:
    """One card: its id, the points of its three spaces (high to low), its rule text and test.

    ``name`` (the card's title, after the rulebook) and ``text`` are English catalog messages: a
    front end shows them through ``tabletris.i18n.translate`` in the player's language.
    """

    id: str
    points: tuple[int, int, int]
    text: str
    condition: Condition
    name: str = ""


def _tetris(t: Tower, f: RoundFacts, r: TowerRules) -> bool:
    return f.shape is Shape.I and f.rows_by_piece >= 4


def _three_rows(t: Tower, f: RoundFacts, r: TowerRules) -> bool:
    return f.shape in (Shape.L, Shape.J) and f.rows_by_piece >= 3


def _two_rows(t: Tower, f: RoundFacts, r: TowerRules) -> bool:
    return f.shape is Shape.O and f.rows_by_piece >= 2


def _six_lines(t: Tower, f: RoundFacts, r: TowerRules) -> bool:
    return t.lines >= 6


def _seven_on_a_side(t: Tower, f: RoundFacts, r: TowerRules) -> bool:
    left, right = t.wall_shapes()
    everything = len(TETROMINOES)
    if r.seven_on_a_side == "both-walls":
        return len(left | right) == everything
    return len(left) == everything or len(right) == everything


def _full_column(t: Tower, f: RoundFacts, r: TowerRules) -> bool:
    occ = t.board.occupied
    return any(occ & m == m for m in t.column_masks)


def _five_bonus(t: Tower, f: RoundFacts, r: TowerRules) -> bool:
    return t.bonus >= 5


def _four_diamonds(t: Tower, f: RoundFacts, r: TowerRules) -> bool:
    return t.diamonds_covered() >= 4


def _touching_pairs(t: Tower) -> dict[Shape, list[tuple[int, int]]]:
    """Per shape, the pairs of that shape's tetrominoes that touch edge to edge."""
    pairs: dict[Shape, list[tuple[int, int]]] = {}
    for a, b in t.touching():
        sa = t.board.stones[a].shape
        if sa is t.board.stones[b].shape:
            pairs.setdefault(sa, []).append((a, b))
    return pairs


def _max_matching(edges: list[tuple[int, int]]) -> int:
    """Size of a maximum matching; the graphs are tiny (one shape: at most 4 pieces)."""
    if not edges:
        return 0
    (a, b), rest = edges[0], edges[1:]
    with_first = 1 + _max_matching([e for e in rest if a not in e and b not in e])
    return max(with_first, _max_matching(rest))


def _four_pairs(t: Tower, f: RoundFacts, r: TowerRules) -> bool:
    pairs = _touching_pairs(t)
    if r.four_pairs == "pairs":
        return sum(len(p) for p in pairs.values()) >= 4
    return sum(_max_matching(p) for p in pairs.values()) >= 4


def largest_group(t: Tower, shapes: frozenset[Shape]) -> int:
    """The most tetrominoes of ``shapes`` in one edge-connected group of such pieces."""
    stones = t.board.stones
    members = [n for n, s in stones.items() if s.shape in shapes]
    if not members:
        return 0
    parent = {n: n for n in members}

    def find(n: int) -> int:
        while parent[n] != n:
            parent[n] = parent[parent[n]]
            n = parent[n]
        return n

    for a, b in t.touching():
        if a in parent and b in parent:
            parent[find(a)] = find(b)
    sizes: dict[int, int] = {}
    for n in members:
        root = find(n)
        sizes[root] = sizes.get(root, 0) + 1
    return max(sizes.values())


def _connected(shapes: frozenset[Shape]) -> Condition:
    def condition(t: Tower, f: RoundFacts, r: TowerRules) -> bool:
        return largest_group(t, shapes) >= 4

    return condition


_SPECS = (
    AchievementSpec("tetris", (8, 5, 2), N_("this round an I piece completed 4 rows, all containing a cell of that I"), _tetris, name=N_("Tetris line clear")),
    AchievementSpec("six-lines", (7, 4, 1), N_("6 or more complete rows anywhere"), _six_lines, name=N_("6 complete lines")),
    AchievementSpec("three-rows", (8, 5, 2), N_("this round an L or J completed 3 rows, all containing a cell of it"), _three_rows, name=N_("3 rows with an L or J")),
    AchievementSpec("two-rows", (8, 5, 2), N_("this round an O completed 2 rows, both containing a cell of it"), _two_rows, name=N_("2 rows with an O")),
    AchievementSpec("seven-on-a-side", (7, 4, 1), N_("a cell of each of the seven tetrominoes touches the same side wall (minos do not count)"), _seven_on_a_side, name=N_("Every tetromino on one side")),
    AchievementSpec("full-column", (7, 4, 1), N_("a column with every cell filled"), _full_column, name=N_("1 complete column")),
    AchievementSpec("five-bonus", (7, 4, 1), N_("5 bonus icons covered by tetrominoes of their own shape"), _five_bonus, name=N_("5 bonus icons")),
    AchievementSpec("four-diamonds", (7, 4, 1), N_("4 diamond icons covered by any pieces, minos included"), _four_diamonds, name=N_("4 diamond icons")),
    AchievementSpec("four-pairs", (8, 5, 2), N_("4 disjoint pairs of same-shape tetrominoes, each pair touching edge to edge"), _four_pairs, name=N_("4 matching pairs")),
    AchievementSpec("connect-lj", (8, 5, 2), N_("4 or more L/J tetrominoes in one edge-connected group"), _connected(frozenset({Shape.L, Shape.J})), name=N_("Connect 4 L/J")),
    AchievementSpec("connect-sz", (8, 5, 2), N_("4 or more S/Z tetrominoes in one edge-connected group"), _connected(frozenset({Shape.S, Shape.Z})), name=N_("Connect 4 S/Z")),
    AchievementSpec("connect-io", (7, 4, 1), N_("4 or more I/O tetrominoes in one edge-connected group"), _connected(frozenset({Shape.I, Shape.O})), name=N_("Connect 4 I/O")),
)

ACHIEVEMENTS: dict[str, AchievementSpec] = {s.id: s for s in _SPECS}
"""Every card by id, in the order of rules.md's table."""

SPACES = 3


@dataclass
class AchievementCard:
    """One card in play: its spaces and who holds each, and who has met it already.

    ``holders[i]`` lists the seats on space ``i`` (0 = high). ``next_space`` is the highest vacant
    space; in a 2-player game it starts at 1 (the high space is never used). ``met`` holds every
    seat that has met the card, with or without a space, so nobody scores it twice.
    """

    id: str
    points: tuple[int, int, int]
    next_space: int = 0
    holders: list[list[int]] = field(default_factory=lambda: [[] for _ in range(SPACES)])
    met: set[int] = field(default_factory=set)
    met_round: dict[int, int] = field(default_factory=dict)

    @classmethod
    def new(cls, card_id: str, players: int) -> AchievementCard:
        spec = ACHIEVEMENTS[card_id]
        return cls(card_id, spec.points, next_space=1 if players == 2 else 0)

    @property
    def spec(self) -> AchievementSpec:
        return ACHIEVEMENTS[self.id]

    def award(self, seats: list[int], round_number: int) -> int | None:
        """Seats meeting the card for the first time this round share the highest vacant space.

        Returns the space index they took, or None when the spaces have run out (they score
        nothing, now or later).
        """
        fresh = [s for s in seats if s not in self.met]
        if not fresh:
            return None
        for s in fresh:
            self.met.add(s)
            self.met_round[s] = round_number
        if self.next_space >= SPACES:
            return None
        space = self.next_space
        self.holders[space] = sorted(fresh)
        self.next_space += 1
        return space

    def points_for(self, seat: int) -> int:
        for space, seats in enumerate(self.holders):
            if seat in seats:
                return self.points[space]
        return 0

    def space_of(self, seat: int) -> int | None:
        for space, seats in enumerate(self.holders):
            if seat in seats:
                return space
        return None

    def copy(self) -> AchievementCard:
        return AchievementCard(
            self.id,
            self.points,
            self.next_space,
            [list(h) for h in self.holders],
            set(self.met),
            dict(self.met_round),
        )

    def to_dict(self) -> dict[str, Any]:
        """Public state for views and front ends."""
        return {
            "id": self.id,
            "points": list(self.points),
            "name": self.spec.name,
            "text": self.spec.text,
            "holders": [list(h) for h in self.holders],
            "next_space": self.next_space,
            "met": sorted(self.met),
        }
