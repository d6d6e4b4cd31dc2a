"""Charts of a simulation run (matplotlib, Agg backend: no display needed, safe in workers).

Three PNGs: the score distribution of each seat, the win rate by table position, and the game
length, each with one series (or one panel, on a shared y axis) per preset so presets are
compared on the same axes.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
from matplotlib.ticker import MaxNLocator

from tabletris.lab.tasks import SimulationResults


def write_charts(run: SimulationResults, summary: dict[str, Any], directory: Path) -> list[Path]:
    """Write ``scores.png``, ``positions.png`` and ``length.png`` into ``directory``."""
    directory.mkdir(parents=True, exist_ok=True)
    labels = [s.label for s in run.config.seats]
    presets = list(run.config.presets)
    paths = []

    fig = score_figure(run)
    paths.append(_save(fig, directory / "scores.png"))

    fig, ax = plt.subplots(figsize=(6, 4))
    width = 0.8 / len(presets)
    for k, p in enumerate(summary["presets"]):
        xs = [row["position"] + k * width for row in p["positions"]]
        rates = [row["win_rate"] for row in p["positions"]]
        errs = [
            [r - row["ci95"][0] for r, row in zip(rates, p["positions"], strict=True)],
            [row["ci95"][1] - r for r, row in zip(rates, p["positions"], strict=True)],
        ]
        ax.bar(xs, rates, width=width, yerr=errs, capsize=3, label=p["preset"])
    ax.axhline(1 / len(labels), color="grey", linestyle="--", linewidth=1)
    ax.set_xticks([i + 0.4 - width / 2 for i in range(len(labels))], [f"position {i}" for i in range(len(labels))])
    ax.set_ylabel("win rate (95% CI)")
    ax.set_title("win rate by seat position")
    ax.legend()
    fig.tight_layout()
    paths.append(_save(fig, directory / "positions.png"))

    fig = length_figure(run)
    paths.append(_save(fig, directory / "length.png"))
    return paths


def score_figure(run: SimulationResults) -> Any:
    """One box plot panel per preset, all on one y axis, so the presets' scores compare by eye."""
    labels = [s.label for s in run.config.seats]
    presets = list(run.config.presets)
    fig, axes = plt.subplots(1, len(presets), figsize=(5 * len(presets), 4), squeeze=False, sharey=True)
    for k, (ax, preset) in enumerate(zip(axes[0], presets, strict=True)):
        results = run.for_preset(preset)
        data = [[r.scores[b] for r in results] for b in range(len(labels))]
        ax.boxplot(data)
        ax.set_xticks(range(1, len(labels) + 1), labels)
        ax.set_title(f"score per seat ({preset})")
        if k == 0:
            ax.set_ylabel("score")
    fig.tight_layout()
    return fig


def length_bins(lengths: list[int], most: int = 30) -> list[float]:
    """Histogram bin edges at half-integers, each bin a whole number of turns (or rounds) wide,
    so every bar stands over whole numbers and no length is split between two bars."""
    low, high = min(lengths), max(lengths)
    width = max(1, math.ceil((high - low + 1) / most))
    return [low - 0.5 + i * width for i in range((high - low) // width + 2)]


def length_figure(run: SimulationResults) -> Any:
    """Game lengths of every preset on one pair of axes, with bins on whole numbers."""
    fig, ax = plt.subplots(figsize=(6, 4))
    every = [r.length for r in run.results]
    bins = length_bins(every)
    for preset in run.config.presets:
        lengths = [r.length for r in run.for_preset(preset)]
        ax.hist(lengths, bins=bins, alpha=0.6, label=preset)
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_xlabel("turns (dice) / rounds (tower)")
    ax.set_ylabel("games")
    ax.set_title("game length")
    ax.legend()
    fig.tight_layout()
    return fig


def _save(fig: Any, path: Path) -> Path:
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path
