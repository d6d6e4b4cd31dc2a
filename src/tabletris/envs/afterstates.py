"""Per-action features of the dice game: what each legal action id leaves on the board.

``DiceEnv(action_features=True)`` adds ``observation["action_features"]``, a ``float32`` array
``(n_actions, len(FEATURES))``: one row per action id of the compact layout (``dice_codec``),
all zeros for an id that is not legal now. It is the afterstate encoding of Tetris learning
(Tsitsiklis and Van Roy 1996, Szita and Lorincz 2006; Bertsekas and Ioffe's "lambda-policy
iteration" features): a policy that scores every action from the position it leads to learns
one small function shared by all actions instead of one output per placement (2993 of them
under the standard rules), and a learner sees at once that the rows an action completes pay.

Columns (``FEATURES``; each divided by its ``SCALES`` entry, so most lie in 0-2 and every one has
a finite bound, ``feature_bounds``):

- ``place``, ``take``, ``choice``: the kind of id (PLACE; TAKE; POINT, REMOVE or TOKEN).
- ``points``: scoring rows the action completes now, as the engine counts them
  (``bots.dice_eval.immediate_all``: rows already scored do not score again unless the rules say so).
- ``row_fill``: the sum over rows of (filled cells / width) squared on the board the action leaves
  (``rewards.dice_potential``, the ``shaped`` reward's potential): how near rows are to complete.
- ``near_rows``: rows of the board left that miss 1 to 4 cells (``heuristics.gap_rows_of``): rows
  one more stone may complete, for whoever moves next.
- ``holes`` ... ``aggregate_height``: the classic Tetris board features of the board the action
  leaves (``bots.heuristics.Features``: holes, rows with holes, bumpiness, row and column
  transitions, wells, highest column, sum of column heights), measured by the engine's
  ``features_of`` (the compiled core when loaded).

A PLACE id whose placement can be paid with more than one stone taken from the board gets the
features of the first take the engine lists (the TAKE decision that follows has a row for each).
TAKE ids get the features of the placement being built with that stone taken; POINT, REMOVE and
TOKEN ids only their kind (what they change is the score, or the supply, not the board).
Only measures: which ids are legal is the codec's (the engine's) answer, passed in.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import fields
from functools import cache
from operator import attrgetter
from typing import Any

import numpy as np
from gymnasium import spaces

from tabletris.bots.dice_eval import immediate_all
from tabletris.bots.heuristics import Features, Weights, features_of, gap_rows_of
from tabletris.engine.board import Stone
from tabletris.engine.dice import DiceAction, DiceGame
from tabletris.envs.dice_codec import DiceCodec, DiceTurn
from tabletris.envs.rewards import dice_potential

KINDS: tuple[str, ...] = ("place", "take", "choice")
MEASURES: tuple[str, ...] = tuple(f.name for f in fields(Weights))
"""The board features, in ``Weights``' (and the compiled core's) order."""
FEATURES: tuple[str, ...] = (*KINDS, "points", "row_fill", "near_rows", *MEASURES)
KEY = "action_features"
"""The observation dict's key for the array."""


def scales(width: int, height: int) -> np.ndarray:
    """The divisor of each column (``FEATURES`` order): a typical size, so values are near 0-2."""
    per = {
        "place": 1.0, "take": 1.0, "choice": 1.0, "points": 1.0, "row_fill": 1.0, "near_rows": 1.0,
        "holes": float(width), "hole_rows": 4.0, "bumpiness": float(width),
        "row_transitions": 2.0 * height, "column_transitions": 2.0 * width,
        "wells": float(height), "max_height": float(height), "aggregate_height": width * height / 4.0,
    }
    return np.array([per[name] for name in FEATURES], dtype=np.float32)


@cache
def _scales(width: int, height: int) -> np.ndarray:
    return scales(width, height)


def feature_bounds(width: int, height: int) -> np.ndarray:
    """The largest value of each column after scaling (the observation space's ``high``)."""
    most = {
        "place": 1.0, "take": 1.0, "choice": 1.0, "points": 4.0, "row_fill": float(height), "near_rows": float(height),
        "holes": float(width * height), "hole_rows": float(height),
        "bumpiness": float((width - 1) * height), "row_transitions": float((width + 1) * height),
        "column_transitions": float(width * (height + 1)),
        "wells": float(width * height * (height + 1) // 2),
        "max_height": float(height), "aggregate_height": float(width * height),
    }
    raw = np.array([most[name] for name in FEATURES], dtype=np.float32)
    return raw / scales(width, height)


def features_space(codec: DiceCodec) -> spaces.Box:
    """The ``action_features`` Box for a codec: ``(n_actions, len(FEATURES))``, 0 to the bounds."""
    high = np.broadcast_to(feature_bounds(codec.width, codec.height), (codec.n_actions, len(FEATURES)))
    return spaces.Box(np.zeros_like(high), high.copy(), dtype=np.float32)


def with_features(space: spaces.Space[Any], codec: DiceCodec) -> spaces.Dict:
    """The env's observation space with the ``action_features`` entry added (a Dict either way)."""
    if isinstance(space, spaces.Dict):
        return spaces.Dict({**space.spaces, KEY: features_space(codec)})
    return spaces.Dict({"observation": space, KEY: features_space(codec)})


def measure(game: DiceGame, options: list[DiceAction]) -> np.ndarray:
    """``(len(options), 3 + len(MEASURES))``: the points, row fill, near rows and board features
    each option leaves.

    The points are the engine's ``immediate_all``. The board is the engine's own bitboard with the
    take's cells off and the placement's on (``immediate`` measures the same board); under rules
    that clear rows the board features are ``immediate_all`` with one unit weight per feature, so
    the cleared board is the engine's too.
    """
    out = np.zeros((len(options), 3 + len(MEASURES)), dtype=np.float32)
    if not options:
        return out
    out[:, 0] = [m.points for m in immediate_all(game, options)]
    board = game.board
    width, height = board.width, board.height
    row_masks = board.geometry.row_masks
    base = board.occupied
    counts = [(base & row).bit_count() for row in row_masks]
    square = float(width * width)
    base_fill = dice_potential(base, row_masks, width) * square
    base_near = sum(_near(n, width) for n in counts)
    rows: list[tuple[float, ...]] = []
    for option in options:
        placed = board.placement_mask(option.placement)
        occupied = base | placed
        if option.take is not None:  # the stone off, then the piece on (it may fill the room the
            # stone leaves); rows anywhere may change, so they are measured whole
            occupied = (base & ~board.geometry.mask(option.take.cells)) | placed
            fill = dice_potential(occupied, row_masks, width)
            near = len(gap_rows_of(occupied, board.geometry, (1 << height) - 1))
        else:  # only the rows the piece covers change: the same sums, updated
            filled, near = base_fill, base_near
            for y in {y for _x, y in option.placement.cells}:
                old, new = counts[y], (occupied & row_masks[y]).bit_count()
                filled += new * new - old * old
                near += _near(new, width) - _near(old, width)
            fill = filled / square
        rows.append((fill, near, *_measures(features_of(occupied, width, height))))
    out[:, 1:] = rows
    if game.rules.clear_rows:  # the engine's cleared board (row_fill stays the uncleared one's)
        for j, name in enumerate(MEASURES):
            unit = Weights(**{n: float(n == name) for n in MEASURES})
            out[:, 3 + j] = [m.cost for m in immediate_all(game, options, unit)]
    return out


_measures: Callable[[Features], tuple[int, ...]] = attrgetter(*MEASURES)


def _near(filled: int, width: int) -> bool:
    """A row ``gap_rows_of`` counts: 1 to 4 cells missing."""
    return width - 4 <= filled < width


def action_features(codec: DiceCodec, game: DiceGame, turn: DiceTurn, legal: dict[int, Any]) -> np.ndarray:
    """The ``(n_actions, len(FEATURES))`` array for the decision ``turn`` is at, whose legal ids
    (with what each stands for) are ``legal``; zeros when nothing is legal."""
    out = np.zeros((codec.n_actions, len(FEATURES)), dtype=np.float32)
    if not legal:
        return out
    ids = np.fromiter(legal, dtype=np.intp, count=len(legal))
    if turn.phase in ("place", "take"):
        options: list[DiceAction] = []
        if turn.phase == "place":
            for a, takes in legal.items():
                p = codec.placements[a]
                options.append(DiceAction(p.shape, p, takes[0]))
        else:
            placement = turn.placement
            assert placement is not None
            for stone in legal.values():
                take: Stone = stone
                options.append(DiceAction(placement.shape, placement, take))
        out[ids, FEATURES.index(turn.phase)] = 1.0
        out[ids, len(KINDS) :] = measure(game, options)
        out[ids] /= _scales(codec.width, codec.height)
    else:
        out[ids, FEATURES.index("choice")] = 1.0
    return out
