"""The server finds a client's dice move among the turn's options by its shape, cells and stone
taken (``DiceAdapter.action``) without building every option (issue 28: the search built
hundreds of ``DiceAction`` objects and their cells per move, 0.6 ms). Property: for any game
and turn, every option the engine lists is found as itself, whatever order its cells come in,
and a move that is no option is refused as before."""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from tabletris.engine.dice import DiceAction, DiceGame
from tabletris.server.adapter import cells_json
from tabletris.server.errors import ActionError
from tabletris.server.games import adapter_for
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


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), preset=st.sampled_from(PRESETS), turns=st.integers(0, 10))
def test_every_listed_option_is_found_as_itself(seed: int, preset: str, turns: int) -> None:
    adapter = adapter_for("dice")
    game = adapter.new_game(["A", "B"], {"preset": preset, "width": 8, "height": 14, "supply": 1}, seed)
    table = Table(game)
    table.advance()
    rng = random.Random(seed)
    for _ in range(turns):
        if game.over or not game.turn_options():
            break
        table.act(game.to_move, rng.choice(game.turn_options()))
        table.advance()
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

