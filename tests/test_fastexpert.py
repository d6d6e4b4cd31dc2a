"""The expert's dice decision in C against the Python expert: the strength guarantee (issue 19).

``bots/_dice_expert.c`` repeats ``ExpertBot.choose_dice`` (full strength, no budget) on the
kernel's state; ``ExpertBot`` and ``simulate`` use it when the kernel plays the rules. It may only
do so because it makes *the same decision*: here the Python expert (``fast_path = False``, the
reference) and ``fastdice.expert_decision`` are asked at every position of whole games under
many rule sets, at hypothesis positions of any rules, and whole expert playouts in the kernel
are compared with the engine's games move for move.
"""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kernel_reference import dice_rules, examples, game_state, play_bots
from tabletris.bots.expert import ExpertBot
from tabletris.bots.heuristics import DEFAULT_WEIGHTS, weights_tuple
from tabletris.bots.registry import make_bot
from tabletris.engine import board as board_mod
from tabletris.engine import fastdice
from tabletris.engine.dice import DiceAction, DiceGame, DiceRules

pytestmark = pytest.mark.skipif(not board_mod.native_available(), reason="the compiled core is not built here")

WEIGHTS = weights_tuple(DEFAULT_WEIGHTS)
PARAMS = ExpertBot().kernel_params()
MAX_TURNS = 120
"""Games stop after this many turns (takes can make them long); every position up to there is asked."""


def reference() -> ExpertBot:
    bot = ExpertBot(seed=3)
    bot.fast_path = False
    return bot


class Counts:
    """What the positions asked covered: decisions, takes, tokens, tokens the expert moved off the
    default (so the starve term and the token trials are exercised, not only the default)."""

    def __init__(self) -> None:
        self.decisions = self.takes = self.tokens = self.moved_tokens = 0


def asked(game: DiceGame, ref: ExpertBot, counts: Counts, where: str) -> DiceAction:
    """Both experts at the position showing; the decision, after checking they agree."""
    want = ref.choose_dice(game.view())
    got = fastdice.expert_decision(game.view(), PARAMS, WEIGHTS)
    assert got == want, f"{where}, turn {game.turn}: C {got} != Python {want}"
    counts.decisions += 1
    counts.takes += want.take is not None
    if want.tokens:
        counts.tokens += 1
        default = game.view().complete(DiceAction(want.shape, want.placement, want.take)).tokens
        counts.moved_tokens += want.tokens != default
    return want


def walk(rules: dict[str, Any], players: int, seed: int, seats: list[str], counts: Counts, turns: int = MAX_TURNS) -> None:
    """One game played in Python (the expert seats by the reference) with both experts asked at
    every position, whoever is to move."""
    game = DiceGame([f"p{i}" for i in range(players)], rules, seed=seed)
    assert fastdice.supports(game.rules)
    ref = reference()
    bots = [ref if s == "expert" else make_bot(s, seed=seed * 7 + i) for i, s in enumerate(seats)]
    where = f"rules {rules}, {players} players, seed {seed}, seats {seats}"
    for _ in range(turns):
        if game.over:
            break
        if game.roll_face is None:
            game.roll()
            if game.over:
                continue
        want = asked(game, ref, counts, where)
        bot = bots[game.to_move]
        action = want if bot is ref else bot.choose_dice(game.view())
        game.act(game.view().complete(action))


RULE_SETS: list[tuple[str, dict[str, Any], int]] = [
    ("standard", {}, 2),
    ("standard 3", {}, 3),
    ("standard 4", {"first_player": 2}, 4),
    ("must_close", {"preset": "must-close"}, 2),
    ("clear cells", {"preset": "clear-rows"}, 2),
    ("clear cells target 3", {"clear_rows": "cells", "target": 3}, 3),
    ("clear stones", {"preset": "clear-stones"}, 2),
    ("clear stones supply 1", {"clear_rows": "stones", "target": 6, "supply": 1, "take": "any"}, 2),
    ("stuck penalty", {"preset": "penalty"}, 2),
    ("take any", {"take": "any", "supply": 2}, 2),
    ("take lowest, supply 1", {"supply": 1}, 3),
    ("unlimited supply", {"unlimited_supply": True}, 2),
    ("no tokens", {"tokens_from_supply": False, "supply": 2}, 2),
    ("rescore reopened", {"rescore_reopened": True, "take": "any", "supply": 1}, 2),
    ("garbage", {"preset": "garbage"}, 2),
    ("classic", {"preset": "classic"}, 2),
    ("long", {"preset": "long"}, 2),
    ("small board", {"width": 4, "height": 6, "supply": 2}, 2),
    ("tall board", {"width": 6, "height": 40}, 2),
    ("free access, seven faces", {"access": "free", "orientation": "free", "die": ["I", "O", "T", "S", "Z", "J", "L"]}, 2),
    ("one player", {}, 1),
    (
        "garbage given as cells",  # rules holding lists (not hashable)
        {"garbage": [{"shape": "I", "cells": [[0, 0], [1, 0], [2, 0], [3, 0]]},
                     {"shape": "O", "cells": [[8, 0], [9, 0], [8, 1], [9, 1]]}], "supply": 1},
        2,
    ),
]


@pytest.mark.parametrize(("name", "rules", "players"), RULE_SETS, ids=[r[0] for r in RULE_SETS])
def test_every_position_of_whole_games(name: str, rules: dict[str, Any], players: int) -> None:
    counts = Counts()
    for seed in range(3):
        seats = [["expert", "greedy", "random"][(seed + i) % 3] for i in range(players)]
        walk(rules, players, seed, seats, counts)
    assert counts.decisions >= 10


def test_the_cases_reach_takes_and_chosen_tokens() -> None:
    """The positions above are not all easy ones: takes happen, and the expert names tokens other
    than the default one (the trials and the starve term decide them)."""
    counts = Counts()
    for seed in range(4):
        walk({"supply": 1}, 2, seed, ["expert", "greedy"], counts)
        walk({"take": "any", "supply": 2}, 2, seed, ["expert", "random"], counts)
    assert counts.takes > 0
    assert counts.tokens > 0
    assert counts.moved_tokens > 0


rules_st = dice_rules()


@settings(max_examples=examples(300), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rules=rules_st, players=st.integers(1, 4), seed=st.integers(0, 2**32 - 1), before=st.integers(0, 40))
def test_any_position(rules: dict[str, Any], players: int, seed: int, before: int) -> None:
    """Any rules, a position ``before`` random turns in: the same decision (and none from the
    kernel once the game is over or no roll shows: the Python expert says why)."""
    game = DiceGame([f"p{i}" for i in range(players)], rules, seed=seed)
    play_bots(game, [make_bot("random", seed=seed + i) for i in range(players)], before)
    if game.over:
        assert fastdice.expert_decision(game.view(), PARAMS, WEIGHTS) is None
        return
    assert fastdice.expert_decision(game.view(), PARAMS, WEIGHTS) is None  # no roll showing
    game.roll()
    if game.over:
        return
    asked(game, reference(), Counts(), f"rules {rules}, {players} players, seed {seed}, {before} turns in")


# ------------------------------------------------------------------ whole playouts in the kernel




def same_playout(rules: dict[str, Any], players: int, seed: int, policies: list[str]) -> None:
    """The game played by bots through the engine (the expert by the Python reference) and the
    same game played in the kernel: equal records and positions."""
    names = [f"p{i}" for i in range(players)]
    seeds = [seed * 13 + i for i in range(players)]
    a = DiceGame(names, rules, seed=seed)
    b = DiceGame(names, rules, seed=seed)
    bots = [reference() if p == "expert" else make_bot(p, seed=s) for p, s in zip(policies, seeds, strict=True)]
    play_bots(a, bots, MAX_TURNS)
    rngs = [random.Random(s) for s in seeds]
    fastdice.playout(b, policies, rngs, WEIGHTS, max_turns=MAX_TURNS, expert=PARAMS)
    sa, sb = game_state(a), game_state(b)
    for key in sa:
        assert sa[key] == sb[key], f"{key} differs (rules {rules}, seed {seed}, policies {policies})"
    for bot, rng, p in zip(bots, rngs, policies, strict=True):
        if p == "random":
            assert bot.rng.getstate() == rng.getstate()


@pytest.mark.parametrize(
    ("rules", "players"),
    [({}, 2), ({"preset": "clear-stones"}, 2), ({"preset": "must-close"}, 3), ({"preset": "penalty"}, 2),
     ({"supply": 1, "take": "any"}, 2), ({"preset": "clear-rows"}, 4), ({"width": 5, "height": 8, "supply": 2}, 2)],
)
def test_expert_playouts_equal_the_engines_games(rules: dict[str, Any], players: int) -> None:
    for seed in range(3):
        policies = [["expert", "greedy", "random", "expert"][(seed + i) % 4] for i in range(players)]
        same_playout(rules, players, seed, policies)
    same_playout(rules, 2, 99, ["expert", "expert"])


def test_the_bot_uses_the_kernel_and_falls_back() -> None:
    """``ExpertBot`` decides in the kernel at full strength without a budget, and in Python for
    what the kernel does not cover (``choose``, a budget, a lower strength)."""
    game = DiceGame(["a", "b"], seed=4)
    game.roll()
    assert fastdice.expert_decision(game.view(), PARAMS, WEIGHTS) == ExpertBot().choose_dice(game.view())
    choose = DiceGame(["a", "b"], {"preset": "choose"}, seed=4)
    choose.roll()
    assert fastdice.expert_decision(choose.view(), PARAMS, WEIGHTS) is None
    assert ExpertBot().choose_dice(choose.view()) == reference().choose_dice(choose.view())
    with board_mod.engine(False):
        assert fastdice.expert_decision(game.view(), PARAMS, WEIGHTS) is None
        assert ExpertBot().choose_dice(game.view()) == reference().choose_dice(game.view())


def test_a_die_larger_than_the_kernels_is_decided_in_python() -> None:
    """A 70-face die is legal rules; the kernel holds 64 faces, so it refuses them (it used to
    raise "rules out of range" from the expert's decision instead)."""
    game = DiceGame(["a", "b"], {"die": ["I", "O"] * 35}, seed=1)
    assert "64 faces" in (fastdice.unsupported(game.rules) or "")
    game.roll()
    assert fastdice.expert_decision(game.view(), PARAMS, WEIGHTS) is None
    assert ExpertBot().choose_dice(game.view()) == reference().choose_dice(game.view())


def test_bad_params_say_what_is_wrong() -> None:
    game = DiceGame(["a", "b"], seed=1)
    game.roll()
    with pytest.raises(ValueError, match="width >= 1"):
        fastdice.expert_decision(game.view(), (4.0, 1.0, 0.5, 0.3, 0), WEIGHTS)
    with pytest.raises(ValueError, match="expert's params"):
        fastdice.playout(DiceGame(["a", "b"], seed=1), ["expert", "greedy"], [None, None], WEIGHTS)
    assert fastdice.supports(DiceRules())
