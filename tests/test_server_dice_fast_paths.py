"""The dice game's fast paths on the server (issue 28, cost per move), each checked against the
plain way it replaced, on random games:

- a client's move is found among the turn's options by its shape, cells and stone taken
  (``DiceAdapter.action``) without building every option (the search built hundreds of
  ``DiceAction`` objects and their cells per move, 0.6 ms): every option the engine lists is
  found as itself, whatever order its cells come in, and a move that is no option is refused;
- the public state is joined from each stone's and each logged move's cached text
  (``DiceAdapter.public_text``): the same JSON as ``public`` with the timer's marks;
- the seat's options are grouped by orientation in one pass (``DiceAdapter.private``): the same
  as grouping them orientation by orientation;
- a bot's view starts with the placements its game listed, and lists the same ones;
- an ended game's record is joined from the moves' cached texts (``DiceAdapter.record_text``): the
  same text as the record encoded."""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from tabletris.engine.dice import DiceAction, DiceGame, stone_dict
from tabletris.server.adapter import cells_json
from tabletris.server.errors import ActionError
from tabletris.server.games import adapter_for
from tabletris.server.jsontext import dumps
from tabletris.table.driver import Table

PRESETS = ["standard", "classic", "must-close", "choose", "garbage", "clear-rows"]


def client_move(option: DiceAction, rng: random.Random) -> dict[str, Any]:
    """The option as a client sends it, its cells in any order."""
    place = cells_json(option.placement.cells)
    rng.shuffle(place)
    move: dict[str, Any] = {"place": place, "shape": option.shape.value}
    if option.take is not None:
        move["take"] = cells_json(option.take.cells)
    return move


def old_lookup(game: DiceGame, move: dict[str, Any]) -> DiceAction | None:
    """The search before: the first of ``turn_options`` with the move's shape, cells and take."""
    cells = frozenset(tuple(c) for c in move["place"])
    take = None if move.get("take") is None else frozenset(tuple(c) for c in move["take"])
    for option in game.turn_options():
        if (
            option.shape.value == (move.get("shape") or game.roll_face)
            and frozenset(option.placement.cells) == cells
            and (None if option.take is None else frozenset(option.take.cells)) == take
        ):
            return option
    return None


def played(
    players: list[str], seed: int, preset: str, turns: int, after: Callable[[Any, DiceGame], None] | None = None,
) -> tuple[Any, DiceGame]:
    """The dice adapter and a game of ``turns`` random legal moves (fewer when it ends first),
    ``after(adapter, game)`` called after each of them."""
    adapter = adapter_for("dice")
    game = adapter.new_game(players, {"preset": preset, "width": 8, "height": 14, "supply": 1}, seed)
    table = Table(game)
    table.advance()
    rng = random.Random(seed)
    for _ in range(turns):
        if game.over or not game.turn_options():
            break
        table.act(game.to_move, rng.choice(game.turn_options()))
        table.advance()
        if after is not None:
            after(adapter, game)
    return adapter, game


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), preset=st.sampled_from(PRESETS), turns=st.integers(0, 10))
def test_every_listed_option_is_found_as_itself(seed: int, preset: str, turns: int) -> None:
    adapter, game = played(["A", "B"], seed, preset, turns)
    rng = random.Random(seed)
    assume(not game.over)
    seat = game.to_move
    options = game.turn_options()
    for option in rng.sample(options, min(len(options), 30)):
        move = client_move(option, rng)
        found = adapter.action(game, seat, move)
        assert found == old_lookup(game, move)
        assert (found.shape, set(found.placement.cells), found.take) == (option.shape, set(option.placement.cells), option.take)
    # Not an option: one cell moved off the piece, or the piece shifted off the board.
    if options:
        move = client_move(options[0], rng)
        move["place"] = [[x + 100, y] for x, y in move["place"]]
        assert old_lookup(game, move) is None
        with pytest.raises(ActionError) as refused:
            adapter.action(game, seat, move)
        assert refused.value.code == "illegal"



def private_before(game: DiceGame) -> dict[str, Any]:
    """``DiceAdapter.private`` as it was: a pass over the placements per orientation."""
    choose = game.rules.row_reward == "choose"
    options = []
    for shape in game.shapes_for_roll():
        for take in game.take_options(shape):
            placements = game.legal_placements(shape, take)
            forms = []
            for o in shape.orientations(game.rules.orientation_mode):
                mine = [p for p in placements if p.orientation is o]
                form: dict[str, Any] = {"cells": cells_json(o.cells), "places": [[p.x, p.y] for p in mine]}
                if choose:
                    form["rows"] = [len(game.scoring_rows_after(p, take)) for p in mine]
                forms.append(form)
            options.append({"shape": shape.value, "take": None if take is None else stone_dict(take), "orientations": forms})
    return {"options": options, "rewardable": [s.number for s in game.rewardable_stones()] if choose else [],
            "tokens": game.rules.takes_tokens}


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), preset=st.sampled_from(PRESETS), turns=st.integers(0, 30),
       marked=st.sets(st.integers(0, 40), max_size=8))
def test_the_joined_public_text_is_the_public_state(seed: int, preset: str, turns: int, marked: set[int]) -> None:
    def each_move(adapter: Any, game: DiceGame) -> None:
        # after every move: the stones' joined text grows with the board, and is joined anew
        # when rows are cleared or a stone is taken
        assert json.loads(adapter.public_text(game, set())) == adapter.public(game)

    adapter, game = played(["A", "B", "C"], seed, preset, turns, each_move)
    expected = adapter.public(game)
    if marked:
        adapter.mark_timer(game, expected, marked)
    assert json.loads(adapter.public_text(game, marked)) == expected
    if not game.over:  # the same JSON (corners may be tuples: the same arrays)
        assert json.loads(dumps(adapter.private(game, game.to_move))) == private_before(game)
    if not game.over:  # a view lists what its game listed
        seat = game.to_move
        listed = {(o.shape, o.placement, o.take) for o in game.turn_options()}
        view = adapter.bot_view(game, seat)
        assert {(o.shape, o.placement, o.take) for o in view.turn_options()} == listed
        fresh = adapter.bot_view(game, seat)
        fresh._cache.clear()
        assert {(o.shape, o.placement, o.take) for o in fresh.turn_options()} == listed


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), preset=st.sampled_from(PRESETS), turns=st.integers(0, 60),
       shown_every=st.integers(1, 7))
def test_the_joined_record_text_is_the_record(seed: int, preset: str, turns: int, shown_every: int) -> None:
    """The ended game's record joined from the moves' texts as the states rendered them (some
    moves never shown in a state: rendered then) is the record, byte for byte."""
    def each_move(adapter: Any, game: DiceGame) -> None:
        if len(game.moves) % shown_every == 0:
            adapter.public_text(game, set())

    adapter, game = played(["A", "B"], seed, preset, turns, each_move)
    assert adapter.record_text(game) == dumps(adapter.record(game))
    assert json.loads(adapter.record_text(game)) == adapter.record(game)
