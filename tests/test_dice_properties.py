"""Hypothesis properties of the dice game, checked turn by turn on random games.

Every check here recomputes the rule from the board with plain code (``tests/helpers.py``): which
rows are complete, which stones may be taken, where a piece may go (an independent breadth-first
search), and compares it with what the engine did. The random games come from seeded random
legal play over a spread of rule variants, small boards so that games end, rows complete and the
supply runs out.
"""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from helpers import filled_cells, play_random_game, reference_positions, state_of
from tabletris.engine import records
from tabletris.engine.board import Stone
from tabletris.engine.dice import CHOICE, DiceGame
from tabletris.engine.errors import IllegalMove
from tabletris.engine.records import record_of
from tabletris.engine.shapes import Cell, Shape

VARIANTS: list[dict[str, Any]] = [
    {"preset": "standard"},
    {"width": 4, "height": 8, "supply": 1, "access": "free"},
    {"width": 5, "height": 8, "supply": 1},
    {"width": 6, "height": 10, "supply": 1, "access": "free", "take": "any"},
    {"width": 4, "height": 8, "supply": 1, "rescore_reopened": True, "access": "free"},
    {"width": 4, "height": 8, "supply": 1, "access": "free", "row_reward": "choose"},
    {"width": 4, "height": 6, "access": "free", "clear_rows": True, "target": 8},
    {"width": 6, "height": 8, "garbage": 3, "stuck_penalty": True},
    {
        "width": 6,
        "height": 8,
        "orientation": "rotate",
        "access": "drop",
        "die": ["I", "O", "T", "S", "Z", "J", "L", "*"],
    },
    {"width": 5, "height": 6, "die": ["S", "*"], "orientation": "rotate", "supply": 2},
    {"preset": "long", "width": 6},
]

POINT_VARIANTS = [
    v for v in VARIANTS if v.get("row_reward") != "choose" and not v.get("clear_rows")
]

PROPERTY_SETTINGS = settings(
    max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)

games = st.fixed_dictionaries(
    {
        "rules": st.sampled_from(VARIANTS),
        "players": st.integers(1, 4),
        "seed": st.integers(0, 2**32 - 1),
        "choices": st.integers(0, 2**32 - 1),
        "low": st.booleans(),
    }
)


def new_game(spec: dict[str, Any]) -> DiceGame:
    return DiceGame(
        ["Ann", "Bob", "Cid", "Dee"][: spec["players"]], spec["rules"], seed=spec["seed"]
    )


def complete_rows(cells: set[Cell], width: int, height: int) -> set[int]:
    """rules.md 'Complete row', from the filled cells alone."""
    return {y for y in range(height) if all((x, y) in cells for x in range(width))}


def allowed_takes(game: DiceGame, shape: Shape) -> list[Stone | None]:
    """rules.md §2 step 2, recomputed: no take while the supply has one; else the lowest stones."""
    if not game.rules.limited_supply or game.supply.get(shape, 0) > 0:
        return [None]
    stones = [s for s in game.board.stones.values() if s.shape is shape]
    if game.rules.take == "lowest" and stones:
        low = min(min(y for _, y in s.cells) for s in stones)
        stones = [s for s in stones if min(y for _, y in s.cells) == low]
    return list(stones)


def reference_options(
    game: DiceGame,
) -> set[tuple[Shape, frozenset[Cell] | None, tuple[Cell, ...]]]:
    """Every (shape, taken cells, placed cells) the pending roll allows, by the plain rules."""
    result = set()
    filled = filled_cells(game.board)
    for shape in game.shapes_for_roll():
        for take in allowed_takes(game, shape):
            room = filled - set(take.cells) if take else filled
            for o in shape.orientations(game.rules.orientation_mode):
                for x, y in reference_positions(
                    game.board.width, game.board.height, room, o, game.rules.access
                ):
                    result.add((shape, frozenset(take.cells) if take else None, o.at(x, y)))
    return result


def engine_options(game: DiceGame) -> set[tuple[Shape, frozenset[Cell] | None, tuple[Cell, ...]]]:
    return {
        (o.shape, frozenset(o.take.cells) if o.take else None, o.placement.cells)
        for o in game.turn_options()
    }


@PROPERTY_SETTINGS
@given(spec=games)
def test_every_turn_follows_the_rules(spec: dict[str, Any]) -> None:
    """§2 A turn and End, turn by turn on a random game.

    - the options after a roll are exactly the plain rules' (takes from the lowest rows included),
      and a roll ends the game exactly when there are none;
    - the placer scores the rows this placement completed, each row once per game (unless
      `rescore_reopened`), nobody else's score moves, removing a stone takes no points away;
    - stones never move without `clear_rows`; the supply plus the stones of a shape on the board
      plus the point tokens of that shape stays what the box holds.
    """
    game = new_game(spec)
    rng = random.Random(spec["choices"])
    rules = game.rules
    width, height = game.board.width, game.board.height
    box = {s: rules.supply * game.player_count for s in rules.shapes}
    scored = complete_rows(filled_cells(game.board), width, height)  # garbage rows: nobody's
    for _ in range(60):
        before_scores = list(game.scores)
        face = game.roll()
        expected = reference_options(game)
        if game.over:
            assert expected == set(), f"the game ended on {face} though a placement exists"
            assert game.stuck is not None
            penalty = 1 if rules.stuck_penalty else 0
            assert game.scores[game.stuck] == before_scores[game.stuck] - penalty
            break
        assert engine_options(game) == expected
        options = game.turn_options()
        if spec["low"]:
            best = min(max(y for _, y in o.placement.cells) for o in options)
            options = [o for o in options if max(y for _, y in o.placement.cells) == best]
        option = rng.choice(options)
        player = game.to_move
        room = filled_cells(game.board) - (set(option.take.cells) if option.take else set())
        stones_before = dict(game.board.stones)
        complete_before = complete_rows(room, width, height)
        after_cells = room | set(option.placement.cells)
        new_rows = complete_rows(after_cells, width, height) - complete_before
        gained = new_rows if rules.rescore_reopened or rules.clear_rows else new_rows - scored
        rewards = ["point"] * len(gained) if rules.row_reward == "choose" else None
        game.play(
            option.placement,
            shape=option.shape if face == CHOICE else None,
            take=option.take,
            rewards=rewards,
        )
        scored |= new_rows
        assert game.scores[player] == before_scores[player] + len(gained)
        assert [s for i, s in enumerate(game.scores) if i != player] == [
            s for i, s in enumerate(before_scores) if i != player
        ]
        if not rules.clear_rows:
            assert filled_cells(game.board) == after_cells
            for number, stone in stones_before.items():
                if option.take is None or number != option.take.number:
                    assert game.board.stones[number] == stone
        else:
            scored = set()
            assert complete_rows(filled_cells(game.board), width, height) == set()
            assert len(filled_cells(game.board)) == len(after_cells) - width * len(new_rows)
        if rules.limited_supply:
            for shape, total in box.items():
                on_board = sum(1 for s in game.board.stones.values() if s.shape is shape)
                tokens = sum(mine.count(shape) for mine in game.tokens)  # tokens_from_supply
                assert game.supply[shape] + on_board + tokens == total
                assert game.supply[shape] >= 0
        if game.over:
            assert rules.clear_rows and game.scores[player] >= rules.target
            break


@PROPERTY_SETTINGS
@given(
    spec=games.filter(
        lambda s: s["rules"] in POINT_VARIANTS and not s["rules"].get("stuck_penalty")
    )
)
def test_score_equals_rows_completed(spec: dict[str, Any]) -> None:
    """§2 A turn, 4: with `row_reward: point`, each player's score is the rows that player completed."""
    game = play_random_game(
        new_game(spec), random.Random(spec["choices"]), max_turns=60, low=spec["low"]
    )
    assert game.scores == game.rows_completed
    assert sum(game.scores) <= game.board.height or game.rules.rescore_reopened


@PROPERTY_SETTINGS
@given(spec=games)
def test_random_game_replays_from_its_record(spec: dict[str, Any]) -> None:
    """record-format.md: a saved record replays the same game and round-trips exactly."""
    game = play_random_game(
        new_game(spec), random.Random(spec["choices"]), max_turns=60, low=spec["low"]
    )
    doc = record_of(game)
    text = records.dumps(doc)
    assert records.load(text) == doc
    again = records.replay(text)
    assert record_of(again) == doc
    assert again.summary() == game.summary()
    assert again.board == game.board
    assert again.supply == game.supply and again.over == game.over
    # A record may stop mid-game: every prefix replays to the same moves.
    cut = len(doc["moves"]) // 2
    partial = records.replay({**doc, "moves": doc["moves"][:cut]})
    assert record_of(partial)["moves"] == doc["moves"][:cut]
    assert partial.turn == cut


@PROPERTY_SETTINGS
@given(spec=games, data=st.data())
def test_undo_walks_back_through_every_state(spec: dict[str, Any], data: st.DataObject) -> None:
    """Undo restores the exact state of every earlier turn, the roll showing included."""
    game = new_game(spec)
    rng = random.Random(spec["choices"])
    states = []
    for _ in range(data.draw(st.integers(1, 15))):
        if game.over:
            break
        game.roll()
        if game.over:
            break
        states.append(state_of(game))
        option = rng.choice(game.turn_options())
        rewards = ["point"] * len(game.scoring_rows_after(option.placement, option.take))
        game.play(
            option.placement,
            shape=option.shape,
            take=option.take,
            rewards=rewards if game.rules.row_reward == "choose" else None,
        )
    for state in reversed(states):
        game.undo()
        assert state_of(game) == state
    with pytest.raises(IllegalMove):
        game.undo()


@PROPERTY_SETTINGS
@given(
    spec=games,
    turns=st.integers(0, 10),
    shape=st.sampled_from(list(Shape)),
    index=st.integers(0, 7),
    x=st.integers(-2, 10),
    y=st.integers(-2, 12),
    junk=st.sampled_from([None, "take", "rewards", "shape"]),
)
def test_an_illegal_play_changes_nothing(
    spec: dict[str, Any], turns: int, shape: Shape, index: int, x: int, y: int, junk: str | None
) -> None:
    """An illegal `play` raises IllegalMove and leaves the game exactly as it was; a legal one is accepted."""
    game = play_random_game(new_game(spec), random.Random(spec["choices"]), max_turns=turns)
    if game.over:
        return
    face = game.roll()
    if game.over:
        return
    forms = shape.orientations("free")
    cells = forms[index % len(forms)].at(x, y)
    named = shape if face == CHOICE else None
    legal = {(s, cells_) for s, take, cells_ in engine_options(game) if take is None}
    kwargs: dict[str, Any] = {"shape": named.value if named else None}
    if junk == "take":
        kwargs["take"] = [[x, y]]
    elif junk == "rewards":
        kwargs["rewards"] = [{"remove": [[x, y]]}, "point", 3]
    elif junk == "shape":
        kwargs["shape"] = "Q"
    before = state_of(game)
    chosen = named if face == CHOICE else Shape(face)
    if junk is None and (chosen, tuple(sorted(cells))) in {(s, tuple(sorted(c))) for s, c in legal}:
        if game.rules.row_reward == "choose":
            return
        game.play(list(cells), **kwargs)
        assert game.turn == before["turn"] + 1  # type: ignore[operator]
        return
    with pytest.raises(IllegalMove):
        game.play(list(cells), **kwargs)
    assert state_of(game) == before


JUNK = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-2, 11)
    | st.floats(allow_nan=True)
    | st.sampled_from(["O", "*", "T", "point", "", "remove"]),
    lambda inner: (
        st.lists(inner, max_size=5)
        | st.tuples(inner, inner)
        | st.dictionaries(st.sampled_from(["remove", "cells", "x"]), inner, max_size=2)
    ),
    max_leaves=10,
)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    spec=games,
    turns=st.integers(0, 8),
    place=JUNK,
    shape=JUNK,
    take=JUNK,
    rewards=JUNK,
)
def test_junk_input_is_an_illegal_move_never_a_crash(
    spec: dict[str, Any], turns: int, place: Any, shape: Any, take: Any, rewards: Any
) -> None:
    """Bad input gets IllegalMove (a clear error), never another exception, and never changes the game."""
    game = play_random_game(new_game(spec), random.Random(spec["choices"]), max_turns=turns)
    if game.over:
        return
    game.roll()
    if game.over:
        return
    before = state_of(game)
    try:
        game.play(place, shape=shape, take=take, rewards=rewards)
    except IllegalMove as e:
        assert str(e)
        assert state_of(game) == before
    else:
        assert game.turn == before["turn"] + 1  # type: ignore[operator]
