"""Statistics of a simulation run: win rates with Wilson intervals, scores, positions, lengths.

Everything here is a plain function of the results list, so the table the CLI prints, the JSON
it writes and the charts it draws all come from the same numbers.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from typing import Any

from tabletris.lab.tasks import GameResult, SimulationResults

Z95 = 1.959963984540054
"""The standard normal quantile for a two-sided 95% interval."""


def wilson(successes: float, trials: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval for a proportion: (low, high), both in [0, 1].

    Chosen over the normal approximation because it stays inside [0, 1] and behaves at 0 or all
    wins and for small samples. ``successes`` may be fractional (shared wins count 1/k).
    """
    if trials <= 0:
        raise ValueError(f"wilson: trials must be positive, got {trials}")
    if not 0 <= successes <= trials:
        raise ValueError(f"wilson: successes {successes} outside 0..{trials}")
    p = successes / trials
    z2 = z * z
    denom = 1 + z2 / trials
    centre = (p + z2 / (2 * trials)) / denom
    half = z * math.sqrt(p * (1 - p) / trials + z2 / (4 * trials * trials)) / denom
    low = 0.0 if successes == 0 else max(0.0, centre - half)  # exact ends, not rounding noise
    high = 1.0 if successes == trials else min(1.0, centre + half)
    return low, high


T95 = (
    12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
    2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
    2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042,
)
"""Student's t quantile for a two-sided 95% interval, by degrees of freedom 1 to 30."""


def t95(df: int) -> float:
    """Student's t quantile for a two-sided 95% interval with ``df`` degrees of freedom.

    The table up to 30, then the Cornish-Fisher expansion around the normal quantile (error below
    0.001 there), so the lab needs no SciPy for one number.
    """
    if df < 1:
        raise ValueError(f"t95: degrees of freedom must be at least 1, got {df}")
    if df <= len(T95):
        return T95[df - 1]
    z = Z95
    return z + (z**3 + z) / (4 * df) + (5 * z**5 + 16 * z**3 + 3 * z) / (96 * df**2)


def mean_ci(values: Sequence[float]) -> tuple[float, float]:
    """A 95% confidence interval for the mean (Student's t); the mean itself for one value.

    Game scores and lengths are sums of many small steps, so their means are close to normal at
    the sample sizes the lab runs; t rather than z keeps small runs honest.
    """
    if not values:
        return 0.0, 0.0
    mean = _mean(values)
    if len(values) == 1:
        return mean, mean
    half = t95(len(values) - 1) * statistics.stdev(values) / math.sqrt(len(values))
    return mean - half, mean + half


def _median(values: Sequence[float]) -> float:
    return float(statistics.median(values)) if values else 0.0


def _mean(values: Sequence[float]) -> float:
    return float(statistics.fmean(values)) if values else 0.0


def seat_stats(results: Sequence[GameResult], labels: Sequence[str]) -> list[dict[str, Any]]:
    """Per bot (``--seats`` entry): games, wins (shared wins split), win rate and its 95% CI,
    mean and median score."""
    n = len(results)
    out = []
    for b, label in enumerate(labels):
        wins = sum(r.wins[b] for r in results)
        scores = [r.scores[b] for r in results]
        low, high = wilson(wins, n) if n else (0.0, 0.0)
        out.append(
            {
                "seat": label,
                "games": n,
                "wins": wins,
                "win_rate": wins / n if n else 0.0,
                "ci95": [low, high],
                "mean_score": _mean(scores),
                "score_ci95": list(mean_ci(scores)),
                "median_score": _median(scores),
            }
        )
    return out


def position_stats(results: Sequence[GameResult], positions: int) -> list[dict[str, Any]]:
    """Per position at the table (0 = first seat): games, wins, win rate and its 95% CI."""
    n = len(results)
    out = []
    for p in range(positions):
        wins = sum(r.wins[r.order[p]] for r in results)
        low, high = wilson(wins, n) if n else (0.0, 0.0)
        out.append({"position": p, "games": n, "wins": wins, "win_rate": wins / n if n else 0.0, "ci95": [low, high]})
    return out


def first_seat_advantage(results: Sequence[GameResult], positions: int) -> float:
    """Win rate of the position that moved first minus a fair share (1/players)."""
    if not results or positions < 1:
        return 0.0
    wins = sum(r.wins[r.order[r.starter]] for r in results)
    return wins / len(results) - 1.0 / positions


def first_seat_advantage_ci(results: Sequence[GameResult], positions: int) -> tuple[float, float]:
    """The 95% interval of ``first_seat_advantage``: the starter's Wilson interval less 1/players."""
    if not results or positions < 1:
        return 0.0, 0.0
    wins = sum(r.wins[r.order[r.starter]] for r in results)
    low, high = wilson(wins, len(results))
    return low - 1.0 / positions, high - 1.0 / positions


def length_stats(results: Sequence[GameResult]) -> dict[str, Any]:
    lengths = [r.length for r in results]
    return {
        "mean": _mean(lengths),
        "ci95": list(mean_ci(lengths)),
        "median": _median(lengths),
        "min": float(min(lengths)) if lengths else 0.0,
        "max": float(max(lengths)) if lengths else 0.0,
    }


def summarize(run: SimulationResults) -> dict[str, Any]:
    """The run's figures, preset by preset, ready for the table, ``results.json`` and charts."""
    config = run.config
    labels = [s.label for s in config.seats]
    positions = len(labels)
    presets = []
    for preset in config.presets:
        results = run.for_preset(preset)
        presets.append(
            {
                "preset": preset,
                "games": len(results),
                "seats": seat_stats(results, labels),
                "positions": position_stats(results, positions),
                # Without --swap the first position always holds the same bot, so its win rate
                # measures that bot, not the seat: no advantage is reported then.
                "first_seat_advantage": first_seat_advantage(results, positions) if config.swap else None,
                "first_seat_advantage_ci95": (
                    list(first_seat_advantage_ci(results, positions)) if config.swap else None
                ),
                "length": length_stats(results),
            }
        )
    return {"config": config.to_dict(), "presets": presets}
