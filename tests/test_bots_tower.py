"""Tower bots: legal actions in every position and preset, and no peeking at hidden information."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from helpers import play_tower_round
from tabletris.bots.registry import make_bot
from tabletris.bots.tower_eval import shape_odds
from tabletris.engine.shapes import TETROMINOES, Shape
from tabletris.engine.tower import TowerAction, TowerGame

VIEW_BOTS = ("random", "greedy", "expert")
PRESETS = (
    {"preset": "standard"},
    {"preset": "advanced"},
    {"achievements": ["connect-lj", "four-pairs"]},
    {"achievements": ["tetris", "seven-on-a-side"], "start_minos": 3},
    {"achievements": ["four-diamonds", "full-column"], "width": 6, "height": 10},
)


def _position(rules: dict[str, object], seed: int, rounds: int, players: int) -> TowerGame:
    game = TowerGame([f"P{i}" for i in range(players)], rules, seed=seed)
    bots = [make_bot("random", seed=seed + i) for i in range(players)]
    for _ in range(rounds):
        if game.over:
            break
        play_tower_round(game, bots)
    return game


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    rules=st.sampled_from(PRESETS),
    seed=st.integers(0, 2**32 - 1),
    rounds=st.integers(0, 26),
    players=st.integers(1, 4),
    bot=st.sampled_from(VIEW_BOTS),
    strength=st.sampled_from([None, 0.0, 0.5]),
)
def test_tower_bots_only_return_legal_actions(
    rules: dict[str, object], seed: int, rounds: int, players: int, bot: str, strength: float | None
) -> None:
    game = _position(rules, seed, rounds, players)
    if game.over:
        assert game.waiting_for() == []
        return
    for seat in game.waiting_for():
        action = make_bot(bot, seed=seed, strength=strength).choose_tower(game.view(seat))
        assert isinstance(action, TowerAction)
        game.preview(seat, action)  # IllegalMove if the action breaks a rule
        game.submit(seat, action)


@pytest.mark.parametrize("bot", ("greedy", "expert"))
@pytest.mark.parametrize("rules", PRESETS[:3], ids=str)
def test_tower_bots_finish_whole_games(bot: str, rules: dict[str, object]) -> None:
    game = TowerGame(["A", "B"], rules, seed=21)
    bots = [make_bot(bot, seed=1), make_bot("random", seed=2)]
    while not game.over:
        play_tower_round(game, bots)
    assert game.winners()
    assert len(game.rounds) <= 27


def test_oracle_plans_legal_actions_with_the_whole_deck() -> None:
    game = _position({"preset": "standard"}, seed=4, rounds=14, players=1)
    oracle = make_bot("oracle", seed=0, strength=0.0)
    assert oracle.sees_deck
    while not game.over:
        play_tower_round(game, [oracle])  # submit raises on an illegal action
    assert game.over
    # Handed only a view it cannot see the deck: it still plays legally (as the expert).
    fresh = _position({"preset": "standard"}, seed=4, rounds=3, players=2)
    fresh.preview(0, oracle.choose_tower(fresh.view(0)))


def _two_decks(played: int) -> tuple[list[Shape], list[Shape]]:
    """Two deck orders that agree up to NEXT once ``played`` rounds are over, and differ below."""
    cards = [s for s in TETROMINOES for _ in range(4)][:27]
    a = list(cards)
    b = list(cards)
    k = played + 2  # PLAY is card ``played``, NEXT the one after: k is the first hidden card
    i = next(j for j in range(k + 1, 27) if b[j] != b[k])
    b[k], b[i] = b[i], b[k]
    return a, b


@pytest.mark.parametrize("bot", VIEW_BOTS)
def test_tower_bots_ignore_the_hidden_deck_and_other_pending_actions(bot: str) -> None:
    deck_a, deck_b = _two_decks(played=3)
    games = [
        TowerGame(["A", "B"], {"preset": "advanced"}, seed=77, deck=deck) for deck in (deck_a, deck_b)
    ]
    for game in games:
        players = [make_bot("random", seed=5), make_bot("random", seed=6)]
        for _ in range(3):
            play_tower_round(game, players)
    assert games[0].play_card == games[1].play_card and games[0].next_card == games[1].next_card
    assert games[0].towers[0].board == games[1].towers[0].board
    # Seat 1 has already submitted, differently in the two games.
    games[0].submit(1, TowerAction.drop(games[0].legal_drops(1)[0]))
    games[1].submit(1, TowerAction.drop(games[1].legal_drops(1)[-1]))
    decisions = [make_bot(bot, seed=9).choose_tower(game.view(0)) for game in games]
    assert decisions[0] == decisions[1]


def test_card_counting_weighs_unseen_shapes() -> None:
    unseen = {s: 0 for s in TETROMINOES}
    unseen[Shape.I] = 3
    unseen[Shape.O] = 1
    odds = dict(shape_odds(unseen))
    assert odds == {Shape.I: 0.75, Shape.O: 0.25}
    after = dict(shape_odds(unseen, known=Shape.I))
    assert after[Shape.I] == pytest.approx(2 / 3) and after[Shape.O] == pytest.approx(1 / 3)


def test_greedy_takes_the_row_now() -> None:
    """A row missing the I's four cells at the bottom: greedy (most points now) completes it."""
    deck = ["I"] * 4 + ["O"] * 4 + ["T"] * 4 + ["S"] * 4 + ["Z"] * 4 + ["J"] * 4 + ["L"] * 3
    game = TowerGame(["A"], {"preset": "standard", "towers": ["1a"]}, seed=1, deck=deck)
    # Two I pieces lying flat fill row 0, cells 0-3 then 4-7: after the first, greedy completes it.
    game.submit(0, TowerAction.drop([[0, 0], [1, 0], [2, 0], [3, 0]]))
    action = make_bot("greedy", seed=1).choose_tower(game.view(0))
    game.submit(0, action)
    assert game.score(0)["lines"] == 1
