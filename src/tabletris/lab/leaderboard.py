"""A leaderboard: every pair of bots plays head to head, and openskill rates them from the results.

The games are the lab's own (``lab.simulate``: seeded, the same for any ``jobs``), two bots a
game, seats swapped game by game so each bot moves first equally often against each other. The
ratings are openskill's Plackett-Luce model (a Bayesian rating for games with any number of
players, draws included), updated game by game in a fixed order (pairing by pairing, game by
game), so a run always gives the same table. Ranked by the conservative ``ordinal`` (mu minus
3 sigma): a bot climbs by winning, not by luck in few games.

Bots that do not play the game (``bot_refusal``: the oracle in the dice game, the mcts bot in the
tower game) are left out with their reason, never seated.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from openskill.models import PlackettLuce

from tabletris.bots.registry import bot_refusal
from tabletris.lab.simulate import simulate
from tabletris.lab.stats import wilson
from tabletris.lab.tasks import GameResult, config_from, parse_seat_bots

DEFAULT_BOTS = ("random", "greedy", "expert", "oracle", "mcts")


@dataclass(frozen=True)
class Entry:
    """One bot's line: its rating, and its head-to-head record over all its games."""

    bot: str
    mu: float
    sigma: float
    ordinal: float
    games: int
    wins: float
    win_rate: float
    ci95: tuple[float, float]

    def to_dict(self) -> dict[str, Any]:
        return {
            "bot": self.bot,
            "mu": round(self.mu, 3),
            "sigma": round(self.sigma, 3),
            "ordinal": round(self.ordinal, 3),
            "games": self.games,
            "wins": self.wins,
            "win_rate": round(self.win_rate, 4),
            "ci95": [round(self.ci95[0], 4), round(self.ci95[1], 4)],
        }


@dataclass
class Leaderboard:
    game: str
    entries: list[Entry]
    """Best first (by ordinal)."""
    left_out: dict[str, str]
    """Bots not seated, with the reason."""
    pairings: list[dict[str, Any]]
    """Per pairing: the two bots and each one's wins."""

    def to_dict(self) -> dict[str, Any]:
        return {
            "game": self.game,
            "rating": "openskill PlackettLuce, ranked by ordinal (mu - 3 sigma)",
            "entries": [e.to_dict() for e in self.entries],
            "left_out": self.left_out,
            "pairings": self.pairings,
        }

    def markdown(self) -> str:
        lines = [
            "| rank | bot | ordinal | mu | sigma | games | win rate (95% CI) |",
            "| ---: | --- | ---: | ---: | ---: | ---: | --- |",
        ]
        for i, e in enumerate(self.entries, 1):
            lines.append(
                f"| {i} | {e.bot} | {e.ordinal:.2f} | {e.mu:.2f} | {e.sigma:.2f} | {e.games} | "
                f"{e.win_rate:.1%} ({e.ci95[0]:.1%}-{e.ci95[1]:.1%}) |"
            )
        return "\n".join(lines)


def run_leaderboard(
    game: str,
    bots: Sequence[str] = DEFAULT_BOTS,
    games: int = 20,
    seed: int = 0,
    preset: str = "standard",
    jobs: int = 1,
    progress: Callable[[int], None] | None = None,
) -> Leaderboard:
    """Play every pairing ``games`` times (seats swapped each game) and rate the bots."""
    if games < 2:
        raise ValueError(f"--games: {games}: at least 2 per pairing (one in each seat)")
    labels = [s.label for s in parse_seat_bots(list(bots))]
    seated: list[str] = []
    left_out: dict[str, str] = {}
    for label, seat in zip(labels, parse_seat_bots(list(bots)), strict=True):
        reason = bot_refusal(seat.bot, game)
        if reason:
            left_out[label] = reason
        else:
            seated.append(label)
    if len(seated) < 2:
        raise ValueError(f"--bots: a leaderboard needs two bots that play the {game} game, got {seated}")
    model = PlackettLuce()
    ratings = {b: model.rating(name=b) for b in seated}
    record = {b: [0.0, 0] for b in seated}  # wins, games
    pairings = []
    for a, b in itertools.combinations(seated, 2):
        config = config_from(game, [a, b], games, seed=seed, presets=[preset], swap=True)
        results: list[GameResult] = simulate(config, backend="process" if jobs > 1 else "local", jobs=jobs,
                                             progress=progress).results
        wins = [0.0, 0.0]
        for r in results:
            # Rank 1 for the winners (shared wins share it), 2 for the others.
            ranks: list[float] = [1.0 if r.wins[i] > 0 else 2.0 for i in range(2)]
            (ra,), (rb,) = model.rate([[ratings[a]], [ratings[b]]], ranks=ranks)
            ratings[a], ratings[b] = ra, rb
            for i, bot in enumerate((a, b)):
                wins[i] += r.wins[i]
                record[bot][0] += r.wins[i]
                record[bot][1] += 1
        pairings.append({"bots": [a, b], "games": len(results), "wins": wins})
    entries = []
    for bot in seated:
        won, played = record[bot]
        rating = ratings[bot]
        entries.append(
            Entry(bot, rating.mu, rating.sigma, rating.ordinal(), int(played), won, won / played, wilson(won, int(played)))
        )
    entries.sort(key=lambda e: -e.ordinal)
    return Leaderboard(game, entries, left_out, pairings)


def write_chart(board: Leaderboard, path: Path) -> Path:
    """A horizontal bar chart of mu with its 3-sigma band, best at the top."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    entries = list(reversed(board.entries))
    fig, ax = plt.subplots(figsize=(6, 0.6 * len(entries) + 1.2))
    ys = range(len(entries))
    ax.barh(ys, [e.mu for e in entries], xerr=[3 * e.sigma for e in entries], color="#4c72b0", capsize=4)
    ax.set_yticks(list(ys), [e.bot for e in entries])
    ax.set_xlabel("openskill mu (bars: 3 sigma)")
    ax.set_title(f"tabletris {board.game} leaderboard")
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path
