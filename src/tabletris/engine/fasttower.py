"""The tower game in compiled code (issue 29): whole games, bot decisions and the env's steps in C.

``TowerGame`` (engine/tower.py) is the reference and stays the only implementation the front
ends use. The compiled tower core (``tabletris.engine._tower``, from ``_tower_core.c`` with the
bots' ``bots/_tower_bots.c`` and the env's ``envs/_tower_env.c``) is a second copy of the rules,
accepted because tests/test_fasttower*.py play whole games on both from the same seeds and check
that rounds, towers, stones, scores, supply, cards, records and generators agree exactly.

``playout(game, policies, rngs, params)`` plays from ``game``'s position to the end and writes
the result back into ``game`` (its towers' boards, minos, holds, the cards, the rounds, the
supply), as the table would have left it with those bots. Seats play ``random``
(``RandomBot.choose_tower``, drawing from the bot's own generator), ``greedy``
(``GreedyBot.choose_tower`` at full strength) or ``expert`` (``ExpertBot.choose_tower`` at full
strength), the last two with their seat's ``params``. ``decision`` is one greedy or expert decision of a seat's view;
``oracle_plan`` the oracle's whole plan over the known deck (``OracleBot.plan``).

The core is in use when it is built and the board's compiled core is (``TABLETRIS_PURE=1`` and
``board.use_native(False)`` switch both off: ``board.engine(False)`` runs all of Python);
``unsupported(rules)`` says why it cannot play a rule set (the Python engine then plays it).
"""

from __future__ import annotations

import dataclasses
import importlib
import random
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from functools import lru_cache
from types import ModuleType
from typing import Any

from tabletris.engine import board as board_module
from tabletris.engine.achievements import ACHIEVEMENTS, AchievementCard
from tabletris.engine.board import Placement, Stone, shape_spec
from tabletris.engine.shapes import TETROMINOES, Orientation, Shape
from tabletris.engine.tower import (
    _MINO_FORM,
    DECK_SIZE,
    MINO,
    Tower,
    TowerAction,
    TowerGame,
    TowerRules,
    _Prepared,
)
from tabletris.engine.tower_layouts import LAYOUT_NAMES, Layout, library_layout

POLICIES = ("random", "greedy", "expert")
"""The seat policies the core plays, by their bots' registry names (``POLICY_*`` in the C)."""
POLICY_CODE = {name: code for code, name in enumerate(POLICIES)}

CORE_READS = frozenset(
    {
        "preset", "width", "height", "minos_in_box", "start_minos", "achievements", "draw_achievements",
        "seven_on_a_side", "four_pairs", "towers",
    }
)
"""The ``TowerRules`` fields the core plays by (``preset`` and ``towers`` only name what the
others and the layouts say). A field added to ``TowerRules`` and not here makes ``unsupported``
refuse the rules, so a new rule can never be silently ignored by the C copy."""

CARDS = tuple(ACHIEVEMENTS)
"""The achievement cards the core knows (``tw_card_names`` in _tower_core.c), ACHIEVEMENTS order."""
KNOWN_CARDS = (
    "tetris", "six-lines", "three-rows", "two-rows", "seven-on-a-side", "full-column", "five-bonus",
    "four-diamonds", "four-pairs", "connect-lj", "connect-sz", "connect-io",
)
SHAPE_INDEX: dict[Shape, int] = {**{s: i for i, s in enumerate(TETROMINOES)}, MINO: 7}
STONE_SHAPES: tuple[Shape, ...] = (*TETROMINOES, MINO)


def _import() -> tuple[ModuleType | None, str]:
    try:
        return importlib.import_module("tabletris.engine._tower"), ""
    except ImportError as e:
        return None, f"the compiled tower core is not built: {e}"


_BUILT, _WHY_NOT = _import()
_FORCED: ModuleType | None = None


def built_module() -> ModuleType | None:
    """The compiled tower core if it is built, whatever is in use (the differential tests)."""
    return _BUILT


def core_module() -> ModuleType | None:
    """The core when it is in use: built, and the board's compiled core in use (or forced on by
    ``forced``); else None (callers then run the Python engine)."""
    if _FORCED is not None:
        return _FORCED
    if _BUILT is None or board_module.native_module() is None:
        return None
    return _BUILT


@contextmanager
def forced() -> Iterator[ModuleType]:
    """The core in use inside the block even on the pure board (``TABLETRIS_PURE=1``): the
    differential tests hold the C copy to the whole pure-Python reference this way."""
    global _FORCED
    if _BUILT is None:
        raise ValueError(_WHY_NOT)
    was = _FORCED
    _FORCED = _BUILT
    try:
        yield _BUILT
    finally:
        _FORCED = was


def engine_name() -> str:
    """``native``, or ``pure Python (why)`` for the tower core (``tabletris bench`` says it)."""
    if core_module() is not None:
        return "native"
    if _BUILT is None:
        return f"pure Python ({_WHY_NOT})"
    return board_module.engine_name()  # the board's compiled core is off, and the tower core with it


_REASONS: dict[int, tuple[TowerRules, str | None]] = {}
"""Each rule set's ``unsupported`` answer while the core is in use, by the object (a codec asks
at every step; rules holding a layout object cannot be a dict key)."""


def unsupported(rules: TowerRules) -> str | None:
    """Why the core cannot play ``rules`` (the Python engine then plays them), or None."""
    nat = core_module()
    if nat is None:
        return "the compiled tower core is not in use"
    known = _REASONS.get(id(rules))
    if known is not None and known[0] is rules:
        return known[1]
    if len(_REASONS) >= 512:
        _REASONS.clear()
    reason = _unsupported(rules, nat)
    _REASONS[id(rules)] = (rules, reason)
    return reason


def _unsupported(rules: TowerRules, nat: ModuleType) -> str | None:
    fields = {f.name for f in dataclasses.fields(rules)}
    unknown = sorted(fields - CORE_READS)
    if unknown:
        return f"the rule {unknown[0]!r} is not one the core plays"
    if CARDS != KNOWN_CARDS:
        return "achievement cards the core does not know"
    if rules.width > nat.MAX_WIDTH or rules.height > nat.MAX_HEIGHT:
        return f"towers larger than {nat.MAX_WIDTH}x{nat.MAX_HEIGHT}"
    if rules.minos_in_box > nat.MAX_MINOS or rules.start_minos > nat.MAX_MINOS:
        return f"more than {nat.MAX_MINOS} minos"
    return None


def supports(rules: TowerRules) -> bool:
    return unsupported(rules) is None


# ------------------------------------------------------------------ what the core reads


def kernel_rules(rules: TowerRules) -> tuple[Any, ...]:
    """The rules as the core reads them (``tw_load_rules``), made once per rule set (rules whose
    towers are given as objects cannot be a cache key: made each time)."""
    try:
        hash(rules)
    except TypeError:
        return _kernel_rules(rules)
    return _kernel_rules_cached(rules)


@lru_cache(maxsize=64)
def _kernel_rules_cached(rules: TowerRules) -> tuple[Any, ...]:
    return _kernel_rules(rules)


def _kernel_rules(rules: TowerRules) -> tuple[Any, ...]:
    specs = tuple(shape_spec(s, "rotate") for s in TETROMINOES)
    table = tuple((card, *ACHIEVEMENTS[card].points) for card in CARDS)
    return (
        rules.width, rules.height, rules.minos_in_box, rules.start_minos,
        int(rules.seven_on_a_side == "both-walls"), int(rules.four_pairs == "pairs"), specs, table,
    )


_LAYOUTS: dict[int, tuple[Layout, tuple[Any, ...]]] = {}


def layout_spec(layout: Layout) -> tuple[Any, ...]:
    """A layout's icons as the core reads them (``tw_load_layout``), made once per layout object."""
    known = _LAYOUTS.get(id(layout))
    if known is not None and known[0] is layout:
        return known[1]
    if len(_LAYOUTS) >= 512:
        _LAYOUTS.clear()
    spec = (
        tuple((x, y, SHAPE_INDEX[s]) for (x, y), s in layout.bonus.items()),
        tuple(layout.diamonds),
    )
    _LAYOUTS[id(layout)] = (layout, spec)
    return spec


def _mask(shapes: set[Shape]) -> int:
    return sum(1 << SHAPE_INDEX[s] for s in shapes)


def tower_state(tower: Tower) -> tuple[Any, ...]:
    """A tower as the core reads it (``tw_load_tower``): its stones in number order, the next
    stone number, minos, hold, out, bonus, wall shapes and layout."""
    board = tower.board
    stones = tuple(
        (
            SHAPE_INDEX[s.shape],
            -1 if s.owner is None else s.owner,
            s.number,
            bytes(v for cell in s.cells for v in cell),
        )
        for s in sorted(board.stones.values(), key=lambda s: s.number)
    )
    return (
        stones, board._next_number, tower.minos, -1 if tower.held is None else SHAPE_INDEX[tower.held],
        int(tower.out), tower.bonus, _mask(tower.left), _mask(tower.right), layout_spec(tower.layout),
    )


@lru_cache(maxsize=64)
def _orientation_index(shape: Shape) -> dict[Orientation, int]:
    return {o: i for i, o in enumerate(shape.orientations("rotate"))}


def _pending_state(prepared: _Prepared | None) -> tuple[Any, ...]:
    if prepared is None:
        return (0, 0, b"", -1, -1, -1)
    if prepared.action.hold:
        return (1, int(prepared.forced), b"", -1, -1, -1)
    piece = prepared.piece
    assert piece is not None
    return (2, 0, bytes(prepared.action.minos), _orientation_index(piece.shape)[piece.orientation], piece.x, piece.y)


def _card_state(card: AchievementCard, players: int) -> tuple[Any, ...]:
    return (
        CARDS.index(card.id),
        card.next_space,
        tuple(sum(1 << s for s in seats) for seats in card.holders),
        sum(1 << s for s in card.met),
        tuple(card.met_round.get(s, 0) for s in range(players)),
    )


def game_state(game: TowerGame) -> tuple[Any, ...]:
    """``game``'s position as the core reads it (``tw_load_game``); ValueError for a view that
    does not hold the real deck (the core plays real games and revealing views)."""
    if not game.reveals_deck or len(game._cards) != DECK_SIZE:
        raise ValueError("the tower core plays a game whose whole deck is known (a game, or a revealing view)")
    n = game.player_count
    return (
        tuple(tower_state(t) for t in game.towers),
        bytes(SHAPE_INDEX[c] for c in game._cards),
        game._drawn,
        -1 if game.play_card is None else SHAPE_INDEX[game.play_card],
        game.supply,
        int(game.over),
        tuple(_pending_state(p) for p in game._pending),
        tuple(_card_state(c, n) for c in game.achievements),
        len(game.rounds),
        game.rng.getstate()[1],
    )


# ------------------------------------------------------------------ back into the game


def _action(shape: Shape, raw: Any) -> TowerAction | None:
    """A round's action from the core (``tw_dump_round``): None (out), 1 (a hold), or (minos,
    orientation, x, y)."""
    if raw is None:
        return None
    if raw == 1:
        return TowerAction(hold=True)
    minos, orient, x, y = raw
    return TowerAction(tuple(minos), shape.orientations("rotate")[orient].at(x, y), False)


def _write_tower(tower: Tower, raw: Sequence[Any]) -> None:
    stones, next_number, minos, held, out, bonus, left, right = raw
    board = tower.board
    first_new = board._next_number
    board.occupied = 0
    board.stones = {}
    board._grid = [None] * len(board._grid)
    for shape, owner, number, cells in stones:
        board.add(Stone(
            STONE_SHAPES[shape],
            tuple((cells[i], cells[i + 1]) for i in range(0, len(cells), 2)),
            None if owner < 0 else owner,
            number,
        ))
    board._next_number = next_number
    board._stack = [k for k in [*board._stack, *range(first_new, next_number)] if k in board.stones]
    tower.minos = minos
    tower.held = None if held < 0 else TETROMINOES[held]
    tower.out = bool(out)
    tower.bonus = bonus
    tower.left = {s for i, s in enumerate(TETROMINOES) if left >> i & 1}
    tower.right = {s for i, s in enumerate(TETROMINOES) if right >> i & 1}
    tower._touch_cache = None


def _write_pending(game: TowerGame, seat: int, raw: Sequence[Any]) -> _Prepared | None:
    kind, forced, minos, orient, x, y = raw
    if kind == 0:
        return None
    if kind == 1:
        return _Prepared(TowerAction(hold=True), (), None, bool(forced))
    shape = game.play_card
    assert shape is not None
    tower = game.towers[seat]
    heights = [tower.column_height(c) for c in range(tower.board.width)]
    placed = []
    for column in minos:
        placed.append(Placement(MINO, _MINO_FORM, column, heights[column]))
        heights[column] += 1
    orientation = shape.orientations("rotate")[orient]
    piece = Placement(shape, orientation, x, y)
    return _Prepared(TowerAction(tuple(minos), piece.cells, False), tuple(placed), piece)


def write_back(game: TowerGame, dump: Sequence[Any]) -> list[list[TowerAction | None]]:
    """Put the core's position (``tw_dump_game``) into ``game``, as the engine leaves it; the
    rounds resolved in the core, now also in ``game.rounds``."""
    towers, drawn, play, supply, over, pending, cards, rounds, rng = dump
    for tower, raw in zip(game.towers, towers, strict=True):
        _write_tower(tower, raw)
    start = len(game.rounds)
    new = [
        [_action(game._cards[start + k], raw) for raw in row]
        for k, row in enumerate(rounds)
    ]
    game.rounds.extend(new)
    game._drawn = drawn
    game.play_card = None if play < 0 else TETROMINOES[play]
    game.supply = supply
    game.over = bool(over)
    game._pending = [_write_pending(game, seat, raw) for seat, raw in enumerate(pending)]
    game._submitted = [p is not None for p in game._pending]
    for card, (next_space, holders, met, met_round) in zip(game.achievements, cards, strict=True):
        card.next_space = next_space
        card.holders = [[s for s in range(game.player_count) if mask >> s & 1] for mask in holders]
        card.met = {s for s in range(game.player_count) if met >> s & 1}
        order = sorted(card.met, key=lambda s: (met_round[s], s))
        card.met_round = {s: met_round[s] for s in order}
    version, _, gauss = game.rng.getstate()
    game.rng.setstate((version, tuple(rng), gauss))
    return new


# ------------------------------------------------------------------ playing


def playout(
    game: TowerGame,
    policies: Sequence[str],
    rngs: Sequence[random.Random | None],
    params: Sequence[Sequence[Any] | None],
    max_rounds: int | None = None,
) -> list[list[TowerAction | None]]:
    """Play ``game`` on in the core until it is over (or ``max_rounds`` rounds resolved); the
    rounds played, which ``game`` now holds as if the table had played them.

    ``policies[seat]`` is ``random``, ``greedy`` or ``expert``; ``rngs[seat]`` the random seat's
    bot generator (drawn from and left where Python's bot leaves it; None for the others);
    ``params[seat]`` a greedy or expert seat's tuning (``tower_eval.core_params``: greedy's
    weights, ``ExpertBot.tower_core_params()``), None for a random seat. ValueError when the core
    does not play these rules (``unsupported``) or the game's deck is not known."""
    why = unsupported(game.rules)
    if why is not None:
        raise ValueError(f"the tower core does not play this game: {why}")
    n = game.player_count
    if len(policies) != n or len(rngs) != n or len(params) != n:
        raise ValueError(f"one policy, generator and params per seat: {n} seats")
    codes = []
    for seat, name in enumerate(policies):
        if name not in POLICY_CODE:
            raise ValueError(f"policies[{seat}]: {name!r}: expected one of {', '.join(POLICIES)}")
        if name == "random" and rngs[seat] is None:
            raise ValueError(f"policies[{seat}]: a random seat needs its bot's generator")
        if name != "random" and params[seat] is None:
            raise ValueError(f"policies[{seat}]: a {name} seat needs its params")
        codes.append(POLICY_CODE[name])
    states = tuple(
        r.getstate()[1] if r is not None and name == "random" else None for r, name in zip(rngs, policies, strict=True)
    )
    seat_params = tuple(None if p is None else tuple(p) for p in params)
    nat = core_module()
    assert nat is not None
    dump, after = nat.playout(
        kernel_rules(game.rules), game_state(game), bytes(codes), states, seat_params,
        (1 << 62) if max_rounds is None else max_rounds,
    )
    for r, name, state in zip(rngs, policies, after, strict=True):
        if r is not None and name == "random":
            version, _, gauss = r.getstate()
            r.setstate((version, tuple(state), gauss))
    return write_back(game, dump)


def context_state(view: TowerGame, seat: int) -> tuple[Any, ...]:
    """``tower_eval.Context.of(view, seat)`` as the core reads it (``tw_load_ctx``)."""
    stakes = []
    players = view.player_count
    for card in view.achievements:
        if seat in card.met or card.next_space >= len(card.points):
            continue
        contested = any(s != seat and s not in card.met and not view.towers[s].out for s in range(players))
        stakes.append((CARDS.index(card.id), card.points[card.next_space], int(contested)))
    unseen = view.cards_unseen()
    return (view.deck_left, view.supply, tuple(unseen[s] for s in TETROMINOES), tuple(stakes))


def decision(view: TowerGame, seat: int, policy: str, params: Sequence[Any]) -> TowerAction | None:
    """The ``greedy`` or ``expert`` decision of ``seat`` in ``view`` (a seat's view or the game),
    made in the core in one call; None when the core does not play these rules or this position,
    or the seat has nothing to decide (the Python bot then decides, or says why it cannot)."""
    shape = view.play_card
    if shape is None or view.over or view.towers[seat].out or not supports(view.rules):
        return None
    nat = core_module()
    assert nat is not None
    nxt = view.next_card
    try:
        hold, mino, orient, x, y = nat.decide(
            kernel_rules(view.rules), tower_state(view.towers[seat]), context_state(view, seat), tuple(params),
            POLICY_CODE[policy], SHAPE_INDEX[shape], -1 if nxt is None else SHAPE_INDEX[nxt],
        )
    except ValueError:  # a position past the core's bounds (a test's picture of 64 pieces): Python's
        return None
    if hold:
        return TowerAction.holding()
    placement = Placement(shape, shape.orientations("rotate")[orient], x, y)
    return TowerAction.drop(placement, () if mino < 0 else (mino,))


def oracle_plan(game: TowerGame, seat: int, params: Sequence[Any], width: int) -> list[TowerAction] | None:
    """``OracleBot.plan``'s actions for ``seat`` in ``game`` (the real game or a revealing view),
    a beam of ``width`` towers valued with ``params``' weights, made in the core in one call;
    None when the core does not play these rules or this position (the Python oracle then plans)."""
    if not game.reveals_deck or game.towers[seat].out or not supports(game.rules):
        return None
    nat = core_module()
    assert nat is not None
    upcoming = game.deck[game.round - 1 :]
    try:
        raw = nat.oracle_plan(
            kernel_rules(game.rules), tower_state(game.towers[seat]), context_state(game, seat), tuple(params),
            bytes(SHAPE_INDEX[s] for s in upcoming), width,
        )
    except ValueError:  # a position past the core's bounds: Python's
        return None
    plan = []
    for (hold, mino, orient, x, y), shape in zip(raw, upcoming, strict=False):
        if hold:
            plan.append(TowerAction.holding())
            continue
        placement = Placement(shape, shape.orientations("rotate")[orient], x, y)
        plan.append(TowerAction.drop(placement, () if mino < 0 else (mino,)))
    return plan


# ------------------------------------------------------------------ new games in the core


def setup_state(rules: TowerRules) -> tuple[Any, ...] | None:
    """What the core needs to set up ``TowerGame(players, rules, seed)`` itself (``tw_load_setup``):
    the library's layouts (clipped to the tower's size), the cards in play or how many to draw;
    None when the rules choose towers (the Python engine sets those games up)."""
    if rules.towers is not None and any(t is not None for t in rules.towers):
        return None
    return _setup_state(rules)


@lru_cache(maxsize=32)
def _setup_state(rules: TowerRules) -> tuple[Any, ...]:
    layouts = []
    for name in LAYOUT_NAMES:
        layout = library_layout(name)
        if (rules.width, rules.height) != (8, 15):
            layout = layout.clipped(rules.width, rules.height)
        layouts.append(layout_spec_of_icons(layout))
    in_play = None if rules.achievements is None else tuple(CARDS.index(c) for c in rules.achievements)
    return (tuple(layouts), in_play, rules.draw_achievements)


def layout_spec_of_icons(layout: Layout) -> tuple[Any, ...]:
    """``layout_spec`` without the per-object cache (for layouts made on the fly)."""
    return (
        tuple((x, y, SHAPE_INDEX[s]) for (x, y), s in layout.bonus.items()),
        tuple(layout.diamonds),
    )
