"""``DiceGame.push``/``pop``: the bots' lookahead on their own view (issue 19).

``push`` must play exactly what ``play`` plays (the same move, state and errors) and ``pop`` must
give back exactly the position before it, down to the objects the game held; a view must stay
blind to the game's generator, also through ``undo``.
"""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from helpers import play_random_game, state_of
from tabletris.engine.dice import CHOICE, DiceGame, DiceRules
from tabletris.engine.errors import IllegalMove
from test_dice_properties import VARIANTS


def _state(game: DiceGame) -> dict[str, Any]:
    """``state_of`` without the generator: ``push``/``pop`` never touch it, and a view's is made
    on first use."""
    state = state_of(game)
    del state["rng"]
    state["tokens"] = [list(t) for t in game.tokens]
    state["scored_rows"] = game.scored_rows
    state["stuck"] = game.stuck
    return state


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    rules=st.sampled_from(VARIANTS),
    players=st.integers(1, 4),
    seed=st.integers(0, 2**32 - 1),
    turns=st.integers(0, 40),
    pick=st.integers(0, 2**32 - 1),
)
def test_push_plays_as_play_does_and_pop_restores_everything(
    rules: dict[str, Any], players: int, seed: int, turns: int, pick: int
) -> None:
    game = DiceGame(["Ann", "Bob", "Cid", "Dee"][:players], rules, seed=seed)
    play_random_game(game, random.Random(pick), max_turns=turns)
    if game.over:
        return
    if game.roll_face is None:
        game.roll()
    if game.over:
        return
    view = game.view()
    before = _state(view)
    board, scores, supply = view.board, view.scores, view.supply
    rng = random.Random(pick)
    for option in rng.sample(view.turn_options(), min(6, len(view.turn_options()))):
        action = view.complete(option)
        args = (action.placement, action.shape, action.take, action.rewards, action.tokens)
        reference = game.view()
        expected = reference.play(*args)
        move = view.push(*args)
        assert move == expected
        assert _state(view) == _state(reference)
        assert view.pop() == move
        assert _state(view) == before
        assert view.board is board and view.scores is scores and view.supply is supply
    # Nested pushes pop back in order (a two-ply lookahead).
    first = view.complete(view.turn_options()[0])
    view.push(first.placement, first.shape, first.take, first.rewards, first.tokens)
    if not view.over:
        middle = _state(view)
        view.roll()
        if not view.over:
            second = view.complete(view.turn_options()[-1])
            view.push(second.placement, second.shape, second.take, second.rewards, second.tokens)
            view.pop()
            view.roll_face = None  # the drawn roll is not part of what pop restores
            assert _state(view) == middle
        view.roll_face = None
    view.pop()
    assert _state(view) == before


def test_an_illegal_push_changes_nothing_and_pop_needs_a_push() -> None:
    game = DiceGame(["Ann", "Bob"], seed=3)
    face = game.roll()
    before = _state(game)
    with pytest.raises(IllegalMove):
        game.push([[0, 5], [1, 5], [2, 5], [3, 5]], "I" if face == CHOICE else None)
    assert _state(game) == before
    with pytest.raises(IllegalMove, match="no pushed move to pop"):
        game.pop()


def test_play_keeps_the_games_own_board_object() -> None:
    """Front ends hold ``game.board``: ``play`` changes that object, as it always did."""
    game = DiceGame(["Ann", "Bob"], seed=4)
    board = game.board
    game.roll()
    option = game.turn_options()[0]
    game.act(option)
    assert game.board is board and board.stones


def test_a_view_undone_is_still_blind_to_the_games_generator() -> None:
    """``undo`` in a view replays its moves from the start with a new generator, never the
    game's: the game's next rolls stay secret."""
    game = DiceGame(["Ann", "Bob"], seed=21)
    play_random_game(game, random.Random(2), max_turns=5)
    game.roll()
    view = game.view()
    view.undo()
    assert view.rng.getstate() != game.rng.getstate()
    future = [game.rng.random() for _ in range(3)]
    assert [view.rng.random() for _ in range(3)] != future


def test_rules_constants_are_computed_once() -> None:
    """Derived rule values are cached on the (frozen) rules object, and still right."""
    rules = DiceRules.from_dict({"die": ["I", "O", "*", "I"], "clear_rows": "cells"})
    assert rules.shapes is rules.shapes
    assert [s.value for s in rules.shapes] == ["I", "O"]
    assert rules.face_shapes["*"] == rules.shapes and [s.value for s in rules.face_shapes["I"]] == ["I"]
    assert not rules.limited_supply and not rules.takes_tokens
    assert rules == DiceRules.from_dict({"die": ["I", "O", "*", "I"], "clear_rows": "cells"})


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    rules=st.sampled_from(VARIANTS),
    seed=st.integers(0, 2**32 - 1),
    turns=st.integers(0, 40),
)
def test_one_option_by_index_is_turn_options_at_that_index(rules: dict[str, Any], seed: int, turns: int) -> None:
    """``turn_option(i)``/``turn_option_count()`` are ``turn_options()[i]``/its length, and the
    random bot that uses them draws exactly what ``rng.choice(turn_options())`` drew."""
    from tabletris.bots.registry import make_bot

    game = DiceGame(["Ann", "Bob"], rules, seed=seed)
    play_random_game(game, random.Random(seed), max_turns=turns)
    if not game.over and game.roll_face is None:
        game.roll()
    options = game.turn_options() if not game.over else []
    assert game.turn_option_count() == len(options)
    for i in {0, len(options) // 2, len(options) - 1} if options else set():
        assert game.turn_option(i) == options[i]
    with pytest.raises(IndexError):
        game.turn_option(len(options))
    if options:
        bot, twin = make_bot("random", seed=seed), make_bot("random", seed=seed)
        assert bot.choose_dice(game.view()) == game.complete(twin.rng.choice(options))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rules=st.sampled_from(VARIANTS), seed=st.integers(0, 2**32 - 1), turns=st.integers(0, 40))
def test_complete_without_a_trial_play_takes_the_tokens_play_takes(
    rules: dict[str, Any], seed: int, turns: int
) -> None:
    """``complete`` skips its trial play for a made placement that scores nothing: its tokens are
    still exactly those the trial play (``push``) takes, for every option."""
    game = DiceGame(["Ann", "Bob", "Cid"], rules, seed=seed)
    play_random_game(game, random.Random(seed), max_turns=turns)
    if not game.over and game.roll_face is None:
        game.roll()
    if game.over:
        return
    for option in game.turn_options():
        done = game.complete(option)
        if not game.rules.takes_tokens:
            assert done.tokens is None
            continue
        move = game.push(done.placement, done.shape, done.take, done.rewards)
        game.pop()
        assert done.tokens == (move.tokens or ())
