"""Reward schemes and outcomes shared by the Gymnasium, PettingZoo and OpenSpiel interfaces.

A learner's reward decides what it learns, so the scheme is an option, not a choice made here:

- ``score`` (the default): the change of the seat's own score. Dense, but blind to the
  opponents and to winning.
- ``difference``: the change of (own score minus the best other score); over a game it sums to
  the final margin. With one player it is ``score``.
- ``win``: 0 until the game ends, then the outcome: +1 for a sole win, 0 for a shared win,
  -1 for a loss (who won is the engine's ``winners()``, never recomputed here).
- ``shaped`` (the dice game's Gymnasium env only): ``difference`` plus a potential-based shaping
  term ``gamma * phi(s') - phi(s)`` (Ng, Harada and Russell, "Policy invariance under reward
  transformations", ICML 1999), with ``phi`` the board's row fill (``dice_potential``) and
  ``phi = 0`` once the game is over. Such a term cannot change which policy is optimal: its
  discounted sum over a game telescopes to ``-phi(s0)``, the same for every policy. It only
  makes the sparse points visible earlier: a placement that brings rows closer to complete is
  paid at once instead of when (and if) the row closes. ``gamma`` must be the learner's discount.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

RewardScheme = Literal["score", "difference", "win"]
REWARD_SCHEMES: tuple[str, ...] = ("score", "difference", "win")
SHAPED = "shaped"
"""The shaped scheme: ``difference`` plus a potential term; it needs the board (``dice_potential``)."""


def check_scheme(reward: str, shaped: bool = False) -> None:
    """Reject an unknown scheme by name; ``shaped`` says whether this interface offers ``shaped``."""
    allowed = (*REWARD_SCHEMES, SHAPED) if shaped else REWARD_SCHEMES
    if reward not in allowed:
        raise ValueError(f"reward: {reward!r}: expected one of {', '.join(allowed)}")


def outcome(winners: Sequence[int], seat: int) -> float:
    """+1 sole winner, 0 shared win, -1 loss (the win/draw/loss value of a finished game)."""
    if seat not in winners:
        return -1.0
    return 1.0 if len(winners) == 1 else 0.0


def margin(scores: Sequence[int | float], seat: int) -> float:
    """Own score minus the best other score (own score alone with one player)."""
    others = [s for i, s in enumerate(scores) if i != seat]
    return float(scores[seat] - (max(others) if others else 0))


def step_reward(
    scheme: str,
    seat: int,
    before: Sequence[int | float],
    after: Sequence[int | float],
    winners: Sequence[int] | None,
) -> float:
    """The reward of ``seat`` for a step that took the scores from ``before`` to ``after``;
    ``winners`` is the engine's list once the game is over, else None."""
    if scheme == "score":
        return float(after[seat] - before[seat])
    if scheme == "difference":
        return margin(after, seat) - margin(before, seat)
    return 0.0 if winners is None else outcome(winners, seat)


def dice_potential(occupied: int, row_masks: Sequence[int], width: int) -> float:
    """``phi`` of the shaped reward: the sum over board rows of (filled cells / width) squared.

    Squared, so four cells added to a row that already holds six are worth far more than four
    cells spread over empty rows: the potential rises as rows near completion, which is what
    scores. A complete row counts 1 whether or not it scored (points are paid by ``difference``).
    It reads the engine's bitboard (``board.occupied``, ``geometry.row_masks``) and nothing else.
    """
    total = 0
    for row in row_masks:
        n = (occupied & row).bit_count()
        total += n * n
    return total / float(width * width)


def shaping(gamma: float, before: float, after: float | None) -> float:
    """``gamma * phi(s') - phi(s)``; ``after`` is None when ``s'`` ends the game (``phi = 0``)."""
    return (0.0 if after is None else gamma * after) - before
