"""The statistics of a simulation: Wilson intervals against published values, and summaries."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tabletris.lab.simulate import GameResult, SimulationResults, config_from
from tabletris.lab.stats import first_seat_advantage, position_stats, seat_stats, summarize, wilson


@pytest.mark.parametrize(
    ("k", "n", "low", "high"),
    [
        # Values from Newcombe (1998), "Two-sided confidence intervals for the single proportion",
        # Table I, method 3 (Wilson score without continuity correction).
        (81, 263, 0.2553, 0.3662),
        (15, 148, 0.0624, 0.1605),
        (0, 20, 0.0, 0.1611),
        (1, 29, 0.0061, 0.1718),
        # Symmetric case: 50 of 100 -> 0.4038..0.5962 (Agresti & Coull 1998).
        (50, 100, 0.4038, 0.5962),
    ],
)
def test_wilson_matches_published_intervals(k: int, n: int, low: float, high: float) -> None:
    lo, hi = wilson(k, n)
    assert lo == pytest.approx(low, abs=5e-4)
    assert hi == pytest.approx(high, abs=5e-4)


@given(st.integers(1, 10_000), st.data())
def test_wilson_contains_the_estimate_and_stays_in_range(n: int, data: st.DataObject) -> None:
    k = data.draw(st.integers(0, n))
    lo, hi = wilson(k, n)
    assert 0.0 <= lo <= k / n <= hi <= 1.0
    assert hi - lo > 0


def test_wilson_rejects_impossible_counts() -> None:
    with pytest.raises(ValueError, match="trials must be positive"):
        wilson(0, 0)
    with pytest.raises(ValueError, match="outside"):
        wilson(5, 4)


def _result(index: int, order: tuple[int, ...], scores: tuple[int, ...], wins: tuple[float, ...]) -> GameResult:
    return GameResult("standard", index, index, order, scores, wins, 10 + index, 0)


def test_summaries_split_shared_wins_and_track_positions() -> None:
    results = [
        _result(0, (0, 1), (5, 3), (1.0, 0.0)),  # bot 0 in position 0 wins
        _result(1, (1, 0), (4, 4), (0.5, 0.5)),  # a shared win
        _result(2, (0, 1), (1, 6), (0.0, 1.0)),  # bot 1 in position 1 wins
        _result(3, (1, 0), (7, 2), (1.0, 0.0)),  # bot 0 in position 1 wins
    ]
    seats = seat_stats(results, ["a", "b"])
    assert seats[0]["wins"] == 2.5 and seats[1]["wins"] == 1.5
    assert seats[0]["mean_score"] == pytest.approx((5 + 4 + 1 + 7) / 4)
    assert seats[1]["median_score"] == pytest.approx(3.5)
    positions = position_stats(results, 2)
    # Position 0 holds: bot0 (won), bot1 (half), bot0 (lost), bot1 (lost).
    assert positions[0]["wins"] == 1.5
    assert positions[1]["wins"] == 2.5
    assert first_seat_advantage(results, 2) == pytest.approx(1.5 / 4 - 0.5)
    run = SimulationResults(config_from("dice", "random,random", 4), results)
    summary = summarize(run)
    assert summary["presets"][0]["length"]["mean"] == pytest.approx(11.5)
    assert summary["config"]["seats"] == ["random", "random#2"]
