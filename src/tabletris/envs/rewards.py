"""Reward schemes and outcomes shared by the Gymnasium, PettingZoo and OpenSpiel interfaces.

A learner's reward decides what it learns, so the scheme is an option, not a choice made here:

- ``score`` (the default): the change of the seat's own score. Dense, but blind to the
  opponents and to winning.
- ``difference``: the change of (own score minus the best other score); over a game it sums to
  the final margin. With one player it is ``score``.
- ``win``: 0 until the game ends, then the outcome: +1 for a sole win, 0 for a shared win,
  -1 for a loss (who won is the engine's ``winners()``, never recomputed here).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

RewardScheme = Literal["score", "difference", "win"]
REWARD_SCHEMES: tuple[str, ...] = ("score", "difference", "win")


def check_scheme(reward: str) -> None:
    if reward not in REWARD_SCHEMES:
        raise ValueError(f"reward: {reward!r}: expected one of {', '.join(REWARD_SCHEMES)}")


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
