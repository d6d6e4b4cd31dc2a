"""Measure what point tokens (``tokens_from_supply``, issue 11) change in 2-player dice games.
Not a test: it prints figures (docs/strength.md quotes them).

    .venv/bin/python scripts/measure_tokens.py --games 300

For tokens off and on, over the same dice seeds:
- takes per game (turns that had to take a stone off the board) and turns per game, greedy vs
  greedy and expert vs greedy;
- the expert's win rate against greedy (seats swapped every other game), with its 95% Wilson
  interval;
- with tokens on, the expert against an expert that takes the default tokens (most stones
  left): what choosing tokens with purpose is worth.
"""

from __future__ import annotations

import argparse
import statistics
import time
from typing import Any

from tabletris.bots.base import Bot
from tabletris.bots.expert import ExpertBot
from tabletris.bots.registry import make_bot
from tabletris.engine.dice import DiceAction, DiceGame
from tabletris.lab.stats import wilson
from tabletris.table.driver import Table


class DefaultTokenExpert(ExpertBot):
    """The expert, taking the default tokens: the baseline for its token choice."""

    def _with_tokens(self, game: DiceGame, decision: DiceAction) -> DiceAction:
        return decision


def _bot(name: str, seed: int) -> Bot:
    if name == "expert-default-tokens":
        return DefaultTokenExpert(seed=seed)
    return make_bot(name, seed=seed)


def run(first: str, second: str, games: int, tokens: bool, seed: int) -> dict[str, Any]:
    wins = 0.0
    takes: list[int] = []
    turns: list[int] = []
    for i in range(games):
        swap = i % 2 == 1
        names = [second, first] if swap else [first, second]
        game = DiceGame(["A", "B"], {"preset": "standard", "tokens_from_supply": tokens}, seed=seed + i // 2)
        Table(game, [_bot(n, seed + 7 * i + k) for k, n in enumerate(names)]).play_out()
        me = 1 if swap else 0
        winners = game.winners()
        if me in winners:
            wins += 1 / len(winners)
        takes.append(sum(1 for m in game.moves if m.take is not None))
        turns.append(game.turn)
    low, high = wilson(wins, games)
    return {
        "pair": f"{first} vs {second}",
        "tokens": tokens,
        "games": games,
        "first_wins": wins,
        "win_rate": wins / games,
        "wilson": (low, high),
        "takes_mean": statistics.fmean(takes),
        "takes_median": statistics.median(takes),
        "turns_mean": statistics.fmean(turns),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=300)
    parser.add_argument("--seed", type=int, default=11_000)
    parser.add_argument("--parts", default="0,1,2,3,4", help="which lines of the plan to run (0-4)")
    args = parser.parse_args()
    parts = {int(p) for p in args.parts.split(",")}
    plan = [
        ("greedy", "greedy", False),
        ("greedy", "greedy", True),
        ("expert", "greedy", False),
        ("expert", "greedy", True),
        ("expert", "expert-default-tokens", True),
    ]
    for i, (first, second, tokens) in enumerate(plan):
        if i not in parts:
            continue
        start = time.perf_counter()
        r = run(first, second, args.games, tokens, args.seed)
        low, high = r["wilson"]
        print(
            f"{r['pair']:<34} tokens {'on ' if tokens else 'off'}  games {r['games']}  "
            f"{first} win rate {100 * r['win_rate']:.1f}% (95% Wilson {100 * low:.1f}-{100 * high:.1f}%)  "
            f"takes/game {r['takes_mean']:.2f} (median {r['takes_median']:g})  "
            f"turns/game {r['turns_mean']:.1f}  [{time.perf_counter() - start:.0f} s]",
            flush=True,
        )


if __name__ == "__main__":
    main()
