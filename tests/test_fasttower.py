"""The compiled tower core against the reference: set-ups, drops, cards, lookahead, whole games.

``engine/fasttower.py`` plays the tower game in C (a second copy of its rules, allowed by issue 29
only under these tests). Each piece is held to the Python engine on the same inputs: CPython's
generator (every draw the set-up and the random bot make), the set-up of a new game from its seed,
the drops of every shape after any minos (the skyline rule), the features, the cards' conditions
and progress, every action's lookahead node (points, value, cards met, minos), and whole games
from the same seeds (1-4 players, random, greedy and expert seats, every rule option, custom
layouts and sizes), compared field by field: records, towers, stones, scores, supply, cards,
generators. The reference also runs on the pure-Python board (``pure``: the whole Python engine
against the C), which is how CI runs these tests under ``TABLETRIS_PURE=1`` too.
"""

from __future__ import annotations

import dataclasses
import random
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tabletris.bots import tower_eval as te
from tabletris.bots.expert import ExpertBot
from tabletris.bots.greedy import GreedyBot
from tabletris.bots.heuristics import features_of_py
from tabletris.engine import board as board_mod
from tabletris.engine import fasttower as ft
from tabletris.engine.achievements import ACHIEVEMENTS, RoundFacts
from tabletris.engine.errors import IllegalMove
from tabletris.engine.shapes import TETROMINOES
from tabletris.engine.tower import TowerAction, TowerGame, TowerRules
from tabletris.engine.tower_layouts import LAYOUT_NAMES
from tower_reference import assert_same_games, layouts, make_bots, play_python, tower_rules

pytestmark = pytest.mark.skipif(ft.built_module() is None, reason="the compiled tower core is not built here")

PARAMS = ExpertBot().tower_core_params()


def seat_params(policies: list[str]) -> list[Any]:
    """Each seat's params for a playout: greedy's weights, the expert's, none for random."""
    return [PARAMS if p == "expert" else te.core_params() if p == "greedy" else None for p in policies]
POLICIES = ("random", "greedy", "expert")


@pytest.fixture(autouse=True)
def core() -> Any:
    """The core in use for every test, on the native board or the pure one (TABLETRIS_PURE=1)."""
    with ft.forced():
        yield


def engines() -> list[bool]:
    return [True, False] if board_mod.native_available() else [False]


# ------------------------------------------------------------------ CPython's generator


@given(st.integers(0, 2**32 - 1), st.integers(1, 21), st.integers(0, 3))
@settings(max_examples=150, deadline=None)
def test_draws_are_cpythons(seed: int, n: int, kind: int) -> None:
    nat = ft.built_module()
    rng = random.Random(seed)
    count = n if kind == 3 else 40
    got, state = nat.draws(rng.getstate()[1], kind, n, count)
    if kind == 0:
        want: Any = [rng.randrange(n) for _ in range(count)]
    elif kind == 1:
        want = [rng.random() for _ in range(count)]
    elif kind == 2:
        want = list(range(n))
        rng.shuffle(want)
    else:
        want = rng.sample(range(n), count)
    assert got == want
    assert tuple(state) == rng.getstate()[1]


# ------------------------------------------------------------------ set-up


@pytest.mark.parametrize("preset", ["standard", "advanced"])
@pytest.mark.parametrize("size", [(8, 15), (6, 9), (12, 20)])
def test_new_game_is_the_engines_set_up(preset: str, size: tuple[int, int]) -> None:
    """Layouts and ends, the deck (and the card removed unseen), the cards drawn: as TowerGame draws them."""
    nat = ft.built_module()
    rules = TowerRules.from_dict({"preset": preset, "width": size[0], "height": size[1]})
    for seed in [0, 1, 2**32 - 1, *range(3, 60)]:
        for n in range(1, 5):
            py = TowerGame([f"p{i}" for i in range(n)], rules, seed=seed)
            dump, cards, lays, deck = nat.new_game(ft.kernel_rules(rules), ft.setup_state(rules), n, seed)
            assert [ft.CARDS[c] for c in cards] == list(py.rules.achievements or ())
            library = ft.setup_state(rules)[0]
            for index, tower in zip(lays, py.towers, strict=True):
                bonus, diamonds = ft.layout_spec_of_icons(tower.layout)
                assert (set(bonus), set(diamonds)) == (set(library[index][0]), set(library[index][1]))
                assert size != (8, 15) or tower.layout.name == LAYOUT_NAMES[index]
            assert list(deck) == [ft.SHAPE_INDEX[c] for c in py._cards]
            state = ft.game_state(py)
            assert dump[1:6] == (state[2], state[3], state[4], state[5], state[6])
            assert nat.roundtrip(ft.kernel_rules(py.rules), state)[0] == dump[0]


def test_the_core_knows_every_card_and_rule() -> None:
    assert ft.CARDS == ft.KNOWN_CARDS
    assert {f.name for f in dataclasses.fields(TowerRules)} == ft.CORE_READS
    assert ft.supports(TowerRules())


def test_a_rule_the_core_does_not_read_is_refused() -> None:
    """A TowerRules field the C copy was not taught is never silently ignored."""

    @dataclasses.dataclass(frozen=True)
    class Newer(TowerRules):
        gravity: bool = False

    assert ft.unsupported(Newer()) == "the rule 'gravity' is not one the core plays"
    assert ft.unsupported(TowerRules(minos_in_box=300)) == "more than 255 minos"


# ------------------------------------------------------------------ positions


def positions(rules: dict[str, Any], players: int, seed: int, rounds: int) -> TowerGame:
    """A game after ``rounds`` rounds of random play (minos, holds, outs on small towers)."""
    game = TowerGame([f"p{i}" for i in range(players)], rules, seed=seed)
    play_python(game, make_bots(["random"] * players, seed), rounds)
    return game


@given(tower_rules(), st.integers(1, 4), st.integers(0, 2**32 - 1), st.integers(0, 26), st.data())
@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_drops_after_minos_are_the_engines(rules: dict[str, Any], players: int, seed: int, rounds: int, data: st.DataObject) -> None:
    """Every shape's drops (order included) after any minos: the skyline rule and full columns."""
    nat = ft.built_module()
    game = positions(rules, players, seed, rounds)
    seat = data.draw(st.integers(0, players - 1))
    tower = game.towers[seat]
    width = tower.board.width
    minos = data.draw(st.lists(st.integers(0, width - 1), max_size=6))
    state = ft.game_state(game)
    one = ((state[0][seat],), *state[1:6], ((0, 0, b"", -1, -1, -1),), (), *state[8:])
    for shape in TETROMINOES:
        board = tower.board
        pushed = 0
        want: Any
        try:
            for c in minos:
                board.push(tower.mino_placement(c))
                pushed += 1
            want = [(list(shape.orientations("rotate")).index(p.orientation), p.x, p.y) for p in tower.legal_drops(shape)]
        except IllegalMove:
            want = "full"
        finally:
            for _ in range(pushed):
                board.pop()
        try:
            got: Any = [tuple(p) for p in nat.drops(ft.kernel_rules(game.rules), one, ft.SHAPE_INDEX[shape], bytes(minos))]
        except ValueError:
            got = "full"
        assert got == want, (shape, minos)


@given(tower_rules(), st.integers(1, 4), st.integers(0, 2**32 - 1), st.integers(0, 26), st.data())
@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_features_cards_and_progress_are_the_engines(
    rules: dict[str, Any], players: int, seed: int, rounds: int, data: st.DataObject
) -> None:
    """The heuristics' features, every card's condition (for each shape and rows completed, and a
    hold) and its progress on a played tower, as achievements.py and tower_eval.py measure them."""
    nat = ft.built_module()
    game = positions(rules, players, seed, rounds)
    seat = data.draw(st.integers(0, players - 1))
    tower = game.towers[seat]
    board = tower.board
    for shape, rows in [(None, 0), *[(s, k) for s in TETROMINOES for k in range(5)]]:
        features, lines, progress, conditions = nat.measure(
            ft.kernel_rules(game.rules), ft.tower_state(tower), -1 if shape is None else ft.SHAPE_INDEX[shape], rows
        )
        f = features_of_py(board.occupied, board.width, board.height)
        assert features == (f.holes, f.hole_rows, f.bumpiness, f.column_transitions, f.wells, f.max_height)
        assert lines == tower.lines
        assert progress == tuple(te.progress(tower, card) for card in ACHIEVEMENTS)
        facts = RoundFacts(shape, rows)
        assert conditions == tuple(spec.condition(tower, facts, game.rules) for spec in ACHIEVEMENTS.values())


@given(tower_rules(), st.integers(1, 4), st.integers(0, 2**32 - 1), st.integers(0, 25), st.data())
@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_lookahead_nodes_are_the_engines(
    rules: dict[str, Any], players: int, seed: int, rounds: int, data: st.DataObject
) -> None:
    """Every action of tower_eval.actions and its advanced node: points, value, cards met and minos
    (diamonds paying from the supply), at a drawn depth (the race discount) and cards to come."""
    nat = ft.built_module()
    game = positions(rules, players, seed, rounds)
    if game.over:
        return
    seat = data.draw(st.sampled_from(game.active_seats()))
    view = game.view(seat)
    tower = view.towers[seat]
    ctx = te.Context.of(view, seat)
    shape = data.draw(st.sampled_from(TETROMINOES))
    depth = data.draw(st.integers(0, 3))
    after = data.draw(st.integers(0, 27))
    minos = data.draw(st.booleans())
    weights = te.TowerWeights(**{
        f.name: data.draw(st.sampled_from([getattr(te.DEFAULT_TOWER_WEIGHTS, f.name), 0.0, 1.3]))
        if f.name != "height_margin" else data.draw(st.integers(0, 6))
        for f in dataclasses.fields(te.TowerWeights)
    })
    got = nat.lookahead(
        ft.kernel_rules(view.rules), ft.tower_state(tower), ft.context_state(view, seat), te.core_params(weights),
        ft.SHAPE_INDEX[shape], after, int(minos), depth,
    )
    actions = te.actions(tower, shape, minos)
    assert len(got) == len(actions)
    root = te.root(tower)
    ids = [s.id for s in ctx.stakes]
    for (raw, points, value, achieved, tower_minos), action in zip(got, actions, strict=True):
        hold, mino, orient, x, y = raw
        assert bool(hold) == action.hold
        if not hold:
            assert action.minos == (() if mino < 0 else (mino,))
            assert action.place == shape.orientations("rotate")[orient].at(x, y)
        node = te.advance(root, shape, action, ctx, depth, weights)
        assert points == node.points
        assert value == te.value(node, ctx, after, weights)
        assert {ids[i] for i in range(len(ids)) if achieved >> i & 1} == set(node.achieved)
        assert tower_minos == node.tower.minos


# ------------------------------------------------------------------ decisions


@given(tower_rules(), st.integers(1, 4), st.integers(0, 2**32 - 1), st.integers(0, 25), st.data())
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_decisions_are_the_python_bots(rules: dict[str, Any], players: int, seed: int, rounds: int, data: st.DataObject) -> None:
    """The greedy and expert decision of a seat's view, in C and in Python, from any position."""
    game = positions(rules, players, seed, rounds)
    if game.over:
        return
    waiting = game.waiting_for()
    if not waiting:
        return
    seat = data.draw(st.sampled_from(waiting))
    view = game.view(seat)
    for bot in (GreedyBot(), ExpertBot()):
        bot.fast_path = False
        python = bot.choose_tower(game.view(seat))
        fast = ft.decision(view, seat, "greedy" if isinstance(bot, GreedyBot) else "expert",
                           te.core_params() if isinstance(bot, GreedyBot) else PARAMS)
        assert fast == python, type(bot).__name__


# ------------------------------------------------------------------ whole games


def assert_same(rules: dict[str, Any], towers: Any, players: int, seed: int, policies: list[str], before: int = 0,
                pure: bool = False) -> None:
    """One game on both engines: ``before`` rounds of random play in Python first (the core loads
    any position), then ``policies`` to the end; ``pure``: the reference on the pure board."""
    names = [f"p{i}" for i in range(players)]
    a = TowerGame(names, rules, seed=seed, towers=towers)
    b = TowerGame(names, rules, seed=seed, towers=towers)
    assert ft.supports(a.rules)
    if before:
        play_python(a, make_bots(["random"] * players, seed + 1), before)
        play_python(b, make_bots(["random"] * players, seed + 1), before)
    bots = make_bots(policies, seed)
    for bot in bots:
        if isinstance(bot, ExpertBot | GreedyBot):
            bot.fast_path = False
    with board_mod.engine(not pure) if board_mod.native_available() else ft.forced():
        play_python(a, bots)
    rngs = [random.Random(seed * 31 + i) if p == "random" else None for i, p in enumerate(policies)]
    boards = [t.board for t in b.towers]
    ft.playout(b, policies, rngs, seat_params(policies))
    assert [t.board for t in b.towers] == boards and all(x is y for x, y in zip(boards, [t.board for t in b.towers], strict=True))
    assert_same_games(a, b, f"rules {rules}, seed {seed}, policies {policies}, before {before}")
    for bot, rng, name in zip(bots, rngs, policies, strict=True):
        if name == "random":
            assert rng is not None and bot.rng.getstate() == rng.getstate()


@given(
    tower_rules(), st.integers(1, 4), st.integers(0, 2**32 - 1), st.data(), st.integers(0, 20), st.booleans()
)
@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_whole_games_random_and_greedy(rules: dict[str, Any], players: int, seed: int, data: st.DataObject,
                                       before: int, pure: bool) -> None:
    towers = data.draw(layouts(rules["width"], rules["height"], players))
    policies = data.draw(st.lists(st.sampled_from(["random", "greedy"]), min_size=players, max_size=players))
    assert_same(rules, towers, players, seed, policies, before, pure and board_mod.native_available())


@given(tower_rules(width=8, height=12), st.integers(1, 3), st.integers(0, 2**32 - 1), st.data(), st.integers(0, 20))
@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_whole_games_with_experts(rules: dict[str, Any], players: int, seed: int, data: st.DataObject, before: int) -> None:
    towers = data.draw(layouts(rules["width"], rules["height"], players))
    policies = ["expert", *data.draw(st.lists(st.sampled_from(POLICIES), min_size=players - 1, max_size=players - 1))]
    assert_same(rules, towers, players, seed, policies, before)


@pytest.mark.parametrize("preset", ["standard", "advanced"])
@pytest.mark.parametrize("pure", engines())
def test_product_games(preset: str, pure: bool) -> None:
    """The product's towers and decks: 1-4 players, every pairing, seeds in a row."""
    for seed in range(8):
        players = 1 + seed % 4
        policies = [POLICIES[(seed + k) % 3] for k in range(players)]
        assert_same({"preset": preset}, None, players, seed, policies, pure=not pure)


def test_a_game_over_stays_over() -> None:
    game = TowerGame(["a", "b"], seed=3)
    ft.playout(game, ["random", "random"], [random.Random(1), random.Random(2)], [None, None])
    assert game.over
    rounds = list(game.rounds)
    assert ft.playout(game, ["random", "random"], [random.Random(1), random.Random(2)], [None, None]) == []
    assert game.rounds == rounds


def test_max_rounds_stops_between_rounds() -> None:
    a = TowerGame(["a", "b"], seed=4)
    b = TowerGame(["a", "b"], seed=4)
    ra, rb = [random.Random(5), random.Random(6)], [random.Random(5), random.Random(6)]
    params = seat_params(["random", "greedy"])
    ft.playout(a, ["random", "greedy"], ra, params, max_rounds=7)
    assert len(a.rounds) == 7 and not a.over
    ft.playout(a, ["random", "greedy"], ra, params)
    ft.playout(b, ["random", "greedy"], rb, params)
    assert_same_games(a, b, "a game played on in two calls")


def test_a_view_without_the_deck_is_refused() -> None:
    game = TowerGame(["a", "b"], seed=4)
    with pytest.raises(ValueError, match="whole deck"):
        ft.playout(game.view(0), ["random", "random"], [random.Random(1), random.Random(2)], [None, None])
    assert ft.game_state(game.view(0, reveal=True))


def test_playout_names_a_bad_policy() -> None:
    game = TowerGame(["a", "b"], seed=4)
    with pytest.raises(ValueError, match="policies\\[1\\]: 'oracle'"):
        ft.playout(game, ["random", "oracle"], [random.Random(1), None], [None, None])
    with pytest.raises(ValueError, match="needs its params"):
        ft.playout(game, ["random", "greedy"], [random.Random(1), None], [None, None])


def test_pending_actions_carry_over() -> None:
    """A playout from the middle of a round: the seats already in keep their actions."""
    a = TowerGame(["a", "b", "c"], seed=9, rules={"start_minos": 2})
    b = TowerGame(["a", "b", "c"], seed=9, rules={"start_minos": 2})
    for game in (a, b):
        seat = game.waiting_for()[0]
        drops = game.legal_drops(seat, [0, 1])
        game.submit(seat, TowerAction.drop(drops[-1], [0, 1]))
    play_python(a, make_bots(["greedy"] * 3, 2))
    ft.playout(b, ["greedy"] * 3, [None] * 3, seat_params(["greedy"] * 3))
    assert_same_games(a, b, "a round half submitted")
