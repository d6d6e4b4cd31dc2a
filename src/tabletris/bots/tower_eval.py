"""Lookahead on one tower for the tower-game bots: actions, their effect, and a position value.

Every step goes through the engine's own ``Tower.prepare``/``Tower.apply`` on a copy, so minos,
bonus icons, diamonds and the facts the achievement cards test are exactly the engine's. What is
added here is only judgement: how much a board shape, a mino in hand, an unused hold and partial
progress towards an achievement card are worth, in points.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from functools import cache
from typing import Any

from tabletris.bots.heuristics import features_of
from tabletris.engine.achievements import ACHIEVEMENTS, RoundFacts, largest_group
from tabletris.engine.board import Placement
from tabletris.engine.errors import IllegalMove
from tabletris.engine.shapes import TETROMINOES, Shape
from tabletris.engine.tower import Tower, TowerAction, TowerGame, TowerRules


@dataclass(frozen=True)
class TowerWeights:
    """Worth of position features in points (penalties positive)."""

    hole_rows: float = 1.4
    holes: float = 0.4
    bumpiness: float = 0.12
    column_transitions: float = 0.05
    wells: float = 0.08
    height_margin: int = 4
    """Rows under the skyline where height starts to cost (a tall tower risks going out)."""
    height: float = 0.8
    mino: float = 0.8
    hold: float = 1.2
    """Worth of an unused hold while enough cards are left to need it."""
    progress: float = 0.4
    """Share of a card's points credited for partial progress towards it."""
    race_discount: float = 0.85
    """A card met later in a lookahead line, while others still race for it, is worth less."""


DEFAULT_TOWER_WEIGHTS = TowerWeights()
"""Greedy's weights (and the oracle's), the first expert's."""

EXPERT_TOWER_WEIGHTS = TowerWeights(
    hole_rows=4.49, holes=4.16, bumpiness=0.057, column_transitions=0.126, wells=0.036, height_margin=1,
    height=1.2, mino=1.11, hold=1.01, progress=0.15, race_discount=0.71,
)
"""The expert's weights (issue 29): tuned for it by a random search (a few weights scaled at a
time, kept when the mean score rose) over 200-400 whole solo games in the tower core, on the decks
of seed 7, not the strength measure's (seed 2026; docs/strength.md)."""


@cache
def core_params(
    weights: TowerWeights = DEFAULT_TOWER_WEIGHTS,
    width1: int = 0,
    width2: int = 0,
    minos2: bool = False,
    minos3: bool = False,
) -> tuple[Any, ...]:
    """The weights and a lookahead's shape as the compiled tower core reads them
    (``tw_load_params``: the weights in field order, then the widths and whether NEXT's and the
    third card's replies include the drops after a mino). Greedy and the oracle read only the
    weights; the rest is ``ExpertBot``'s."""
    values = tuple(getattr(weights, f.name) for f in fields(weights))
    return (*values, int(width1), int(width2), int(minos2), int(minos3))


@dataclass
class CardStake:
    """An achievement card as one seat sees it: points still available, and the competition."""

    id: str
    points: int
    contested: bool


@dataclass
class Context:
    """What a seat knows this round: rules, the cards in play for it, the deck's composition."""

    seat: int
    rules: TowerRules
    stakes: list[CardStake]
    deck_left: int
    supply: int
    unseen: dict[Shape, int] = field(default_factory=dict)

    @classmethod
    def of(cls, game: TowerGame, seat: int) -> Context:
        stakes = []
        players = game.player_count
        for card in game.achievements:
            if seat in card.met or card.next_space >= len(card.points):
                continue
            others = [s for s in range(players) if s != seat and s not in card.met and not game.towers[s].out]
            stakes.append(CardStake(card.id, card.points[card.next_space], bool(others)))
        return cls(seat, game.rules, stakes, game.deck_left, game.supply, game.cards_unseen())


@dataclass
class Node:
    """A tower in a lookahead line and the achievement points the line has won so far."""

    tower: Tower
    achieved: frozenset[str]
    card_points: float
    minos_used: int = 0

    @property
    def points(self) -> float:
        t = self.tower
        return 2 * t.lines + t.bonus + self.card_points


def root(tower: Tower) -> Node:
    return Node(tower, frozenset(), 0.0)


def advance(
    node: Node, shape: Shape, action: TowerAction, ctx: Context, depth: int, weights: TowerWeights = DEFAULT_TOWER_WEIGHTS
) -> Node:
    """``node`` after ``action`` with PLAY piece ``shape``: the engine's own rules on a copy.

    Diamonds pay minos from the supply as the engine will (the supply as seen now); cards met are
    credited with the points of their next space, discounted for deeper plies when contested.
    """
    t = node.tower.copy()
    prepared = t.prepare(shape, action)
    if action.hold:
        t.held = shape
        facts = RoundFacts(None, 0)
        diamonds = 0
    else:
        diamonds, facts = t.apply(prepared)
    if diamonds:
        t.minos += min(diamonds, max(0, ctx.supply - node.minos_used))
    achieved = node.achieved
    card_points = node.card_points
    for stake in ctx.stakes:
        if stake.id in achieved:
            continue
        if ACHIEVEMENTS[stake.id].condition(t, facts, ctx.rules):
            achieved = achieved | {stake.id}
            worth = float(stake.points)
            if stake.contested and depth > 0:
                worth *= weights.race_discount**depth
            card_points += worth
    return Node(t, achieved, card_points, node.minos_used + len(action.minos))


def drops(tower: Tower, shape: Shape, minos: tuple[int, ...] = ()) -> list[Placement]:
    """Legal drops of ``shape`` after dropping ``minos`` (columns), through the engine."""
    board = tower.board
    pushed = 0
    try:
        for column in minos:
            board.push(tower.mino_placement(column))
            pushed += 1
        return tower.legal_drops(shape)
    except IllegalMove:
        return []
    finally:
        for _ in range(pushed):
            board.pop()


def actions(tower: Tower, shape: Shape, minos: bool = True) -> list[TowerAction]:
    """The actions worth looking at: every drop, every drop after one mino (any column), and the
    hold if unused. Several minos in one round are left to the greedy extension in ``expert``."""
    result = [TowerAction.drop(p) for p in drops(tower, shape)]
    if minos and tower.minos > 0:
        for column in range(tower.board.width):
            if tower.column_height(column) >= tower.board.height:
                continue
            result.extend(TowerAction.drop(p, (column,)) for p in drops(tower, shape, (column,)))
    if not tower.hold_used:
        result.append(TowerAction.holding())
    return result


def value(node: Node, ctx: Context, cards_after: int, weights: TowerWeights = DEFAULT_TOWER_WEIGHTS) -> float:
    """Points won so far plus the worth of the position with ``cards_after`` cards still to come."""
    t = node.tower
    board = t.board
    f = features_of(board.occupied, board.width, board.height)
    v = node.points
    if t.out:
        return v
    future = min(1.0, cards_after / 6)  # shape matters while pieces are still to come
    v -= future * (
        weights.hole_rows * f.hole_rows
        + weights.holes * f.holes
        + weights.bumpiness * f.bumpiness
        + weights.column_transitions * f.column_transitions
        + weights.wells * f.wells
    )
    over = f.max_height - (board.height - weights.height_margin)
    if over > 0 and cards_after > 0:
        v -= weights.height * over * over
    if cards_after > 0:
        v += weights.mino * t.minos
        if not t.hold_used:
            v += weights.hold * min(1.0, cards_after / 10)
    if weights.progress and cards_after > 0:
        for stake in ctx.stakes:
            if stake.id not in node.achieved:
                v += weights.progress * stake.points * progress(t, stake.id) ** 2
    return v


def progress(t: Tower, card: str) -> float:
    """How far (0-1) a tower is towards a card whose condition builds up over the game."""
    if card == "six-lines":
        return min(1.0, t.lines / 6)
    if card == "five-bonus":
        return min(1.0, t.bonus / 5)
    if card == "four-diamonds":
        return min(1.0, t.diamonds_covered() / 4)
    if card == "seven-on-a-side":
        left, right = t.wall_shapes()
        return max(len(left), len(right)) / len(TETROMINOES)
    if card == "full-column":
        occ = t.board.occupied
        return max((occ & m).bit_count() for m in t.column_masks) / t.board.height
    if card in ("connect-lj", "connect-sz", "connect-io"):
        return min(1.0, largest_group(t, _GROUPS[card]) / 4)
    if card == "four-pairs":
        stones = t.board.stones
        pairs = sum(1 for a, b in t.touching() if stones[a].shape is stones[b].shape)
        return min(1.0, pairs / 4)
    return 0.0


_GROUPS = {
    "connect-lj": frozenset({Shape.L, Shape.J}),
    "connect-sz": frozenset({Shape.S, Shape.Z}),
    "connect-io": frozenset({Shape.I, Shape.O}),
}


def shape_odds(unseen: dict[Shape, int], known: Shape | None = None) -> list[tuple[Shape, float]]:
    """Card counting: the chance of each shape for a card not seen yet.

    ``unseen`` counts the cards not seen so far (in the deck below NEXT, or the one removed
    unseen); every unseen card is equally likely to be any later card. ``known`` is a card about
    to be revealed whose shape is already counted as seen (none by default).
    """
    counts = {s: k for s, k in unseen.items() if k > 0}
    if known is not None and counts.get(known, 0) > 0:
        counts[known] -= 1
    total = sum(counts.values())
    if total <= 0:
        return [(s, 1 / len(TETROMINOES)) for s in TETROMINOES]
    return [(s, k / total) for s, k in counts.items() if k > 0]

