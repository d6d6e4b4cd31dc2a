"""What the tests that pin the compiled dice kernel (turns, expert, env) to the Python engine
share: the reference game loop, the comparison of games and of env outputs, and one hypothesis
strategy for rule sets (every option the kernel plays, at sizes each test chooses: small boards
end games sooner)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from hypothesis import strategies as st

from tabletris.bots.base import Bot
from tabletris.engine.dice import DiceGame

DICE = (
    ["I", "O", "T", "S", "L", "*"],
    ["I", "O", "T", "S", "Z", "J", "L"],
    ["T", "*"],
    ["O", "I", "I", "*"],
    ["T", "L", "J"],
)


def dice_rules(
    width: int = 12, height: int = 24, target: int = 8, supply: int = 4, garbage: int = 6
) -> st.SearchStrategy[dict[str, Any]]:
    """Rule sets up to these sizes, with every other option drawn."""
    return st.fixed_dictionaries(
        {
            "width": st.integers(4, width),
            "height": st.integers(4, height),
            "access": st.sampled_from(["drop", "slide", "free"]),
            "orientation": st.sampled_from(["free", "rotate"]),
            "take": st.sampled_from(["lowest", "any"]),
            "must_close": st.booleans(),
            "clear_rows": st.sampled_from([False, "cells", "stones"]),
            "target": st.integers(1, target),
            "stuck_penalty": st.booleans(),
            "rescore_reopened": st.booleans(),
            "unlimited_supply": st.sampled_from([None, True, False]),
            "supply": st.integers(0, supply),
            "tokens_from_supply": st.booleans(),
            "garbage": st.integers(0, garbage),
            "die": st.sampled_from(DICE),
        }
    )


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
