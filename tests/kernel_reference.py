"""What the tests that pin the compiled dice kernel (turns, expert, env) to the Python engine
share: the reference game loop, the comparison of games and of env outputs, and one hypothesis
strategy for rule sets (every option the kernel plays, at sizes each test chooses: small boards
end games sooner)."""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Sequence
from typing import Any

import numpy as np
from hypothesis import strategies as st

from tabletris.bots.base import Bot
from tabletris.engine.dice import DiceGame, DiceRules

DICE = (
    ["I", "O", "T", "S", "L", "*"],
    ["I", "O", "T", "S", "Z", "J", "L"],
    ["T", "*"],
    ["O", "I", "I", "*"],
    ["T", "L", "J"],
)


EXAMPLES_SHARE = float(os.environ.get("TABLETRIS_EXAMPLES_SHARE", "1"))
"""The share of each kernel test's hypothesis examples that runs: 1 here; the CI's sanitizer
step, whose build runs several times slower, sets ``TABLETRIS_EXAMPLES_SHARE`` lower."""


def examples(n: int) -> int:
    """``n`` hypothesis examples, or ``EXAMPLES_SHARE`` of them (10 at least)."""
    return max(10, round(n * EXAMPLES_SHARE))


NOT_DRAWN: dict[str, str] = {
    "preset": "a name only: its values are the other options, drawn themselves",
    "row_reward": "the kernel plays only 'point' (fastdice.unsupported refuses 'choose')",
    "first_player": "a seat of the players a test chooses: tests/test_fastdice.py names it with its players",
}
"""The ``DiceRules`` fields the rule-set strategy does not draw, and why. Every other field is
drawn: ``dice_rules`` refuses to build while a field is in neither (a new option is tested on
the kernel the day it is added, or excluded here with its reason)."""


def dice_rules(
    width: int = 12, height: int = 24, target: int = 8, supply: int = 4, garbage: int = 6,
    rules_class: type[DiceRules] = DiceRules,
) -> st.SearchStrategy[dict[str, Any]]:
    """Rule sets up to these sizes, with every other option drawn: one strategy per field of
    ``rules_class`` (``dataclasses.fields``), less ``NOT_DRAWN``."""
    draws: dict[str, st.SearchStrategy[Any]] = {
        "width": st.integers(4, width),
        "height": st.integers(4, height),
        "die": st.sampled_from(DICE),
        "supply": st.integers(0, supply),
        "orientation": st.sampled_from(["free", "rotate"]),
        "access": st.sampled_from(["drop", "slide", "free"]),
        "stuck_penalty": st.booleans(),
        "rescore_reopened": st.booleans(),
        "clear_rows": st.sampled_from([False, "cells", "stones"]),
        "target": st.integers(1, target),
        "garbage": st.integers(0, garbage),
        "take": st.sampled_from(["lowest", "any"]),
        "unlimited_supply": st.sampled_from([None, True, False]),
        "tokens_from_supply": st.booleans(),
        "must_close": st.booleans(),
    }
    names = [f.name for f in dataclasses.fields(rules_class)]
    unknown = [name for name in names if name not in draws and name not in NOT_DRAWN]
    if unknown:
        raise ValueError(f"DiceRules fields neither drawn nor in NOT_DRAWN: {', '.join(unknown)}")
    return st.fixed_dictionaries({name: draws[name] for name in names if name in draws})


def play_bots(game: DiceGame, bots: Sequence[Bot], turns: int) -> None:
    """The reference: ``bots`` (one per seat) play ``game`` through the engine, as
    ``Table.play_out`` drives them, for at most ``turns`` turns."""
    for _ in range(turns):
        if game.over:
            break
        if game.roll_face is None:
            game.roll()
            if game.over:
                continue
        view = game.view()
        game.act(view.complete(bots[game.to_move].choose_dice(view)))


def game_state(game: DiceGame) -> dict[str, Any]:
    """Everything a game is, to compare the two engines' games field by field."""
    return {
        "moves": [m.to_dict() for m in game.moves],
        "scores": game.scores,
        "rows_completed": game.rows_completed,
        "supply": game.supply,
        "stones": sorted((s.number, s.shape.value, s.cells, s.owner) for s in game.board.stones.values()),
        "occupied": game.board.occupied,
        "next_number": game.board._next_number,
        "tokens": game.tokens,
        "scored_rows": game.scored_rows,
        "turn": game.turn,
        "to_move": game.to_move,
        "roll": game.roll_face,
        "over": game.over,
        "stuck": game.stuck,
        "rng": game.rng.getstate(),
        "winners": game.winners(),
    }


def same(x: Any, y: Any) -> bool:
    """Equal in value and in type (arrays: dtype and shape too): the two paths' outputs."""
    if isinstance(x, dict):
        return isinstance(y, dict) and list(x) == list(y) and all(same(x[k], y[k]) for k in x)
    if isinstance(x, list | tuple):
        return isinstance(y, list | tuple) and len(x) == len(y) and all(same(a, b) for a, b in zip(x, y, strict=True))
    if isinstance(x, np.ndarray):
        return isinstance(y, np.ndarray) and x.dtype == y.dtype and x.shape == y.shape and np.array_equal(x, y)
    return type(x) is type(y) and bool(x == y)


def copy_obs(obs: Any) -> Any:
    """An observation kept as it is now (the env reuses its arrays)."""
    return {k: v.copy() for k, v in obs.items()} if isinstance(obs, dict) else obs.copy()
