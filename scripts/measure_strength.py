"""Measure the bots' strength and speed (docs/strength.md). Not a test: it prints figures.

    .venv/bin/python scripts/measure_strength.py all --jobs 2 > strength.log
    .venv/bin/python scripts/measure_strength.py dice --games 2000 --jobs 2
    .venv/bin/python scripts/measure_strength.py tower --games 400 --jobs 2
    .venv/bin/python scripts/measure_strength.py tower-duels --games 400
    .venv/bin/python scripts/measure_strength.py timing
    .venv/bin/python scripts/measure_strength.py throughput --jobs 2

Parts:
- ``dice``: 2-player expert vs greedy, seats swapped every other game over the same dice seed.
- ``tower``: solo games on the same seeded decks for random, greedy, expert and oracle, and the
  expert's mean score over the oracle's with its 95% interval (the decks paired).
- ``tower-duels``: 2-player standard tower games, seats swapped every other game over the same
  seed: the expert against greedy and against the first expert (``FIRST_TOWER_EXPERT``, the
  expert before issue 29's stronger one), all in the tower core.
- ``timing``: the expert's decision time (median, p99) in this one process, i.e. on one core.
- ``throughput``: 4-player greedy dice games per second through ``simulate`` with ``--jobs``.
The machine's load average is printed before and after each part.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import time
from typing import Any

from tabletris.bots import tower_eval as te
from tabletris.bots.base import Bot
from tabletris.bots.registry import make_bot
from tabletris.engine.dice import DiceGame
from tabletris.engine.tower import TowerGame
from tabletris.lab.simulate import config_from, simulate
from tabletris.lab.stats import Z95, summarize, wilson
from tabletris.lab.tasks import make_tasks
from tabletris.table.driver import Table


def load() -> str:
    one, five, fifteen = os.getloadavg()
    return f"load average {one:.2f} {five:.2f} {fifteen:.2f} on {os.cpu_count()} cores"


def part_dice(games: int, jobs: int, seed: int) -> dict[str, Any]:
    config = config_from("dice", "expert,greedy", games, seed=seed, swap=True)
    start = time.perf_counter()
    run = simulate(config, "process", jobs)
    seconds = time.perf_counter() - start
    summary = summarize(run)["presets"][0]
    return {"games": games, "seconds": seconds, "seats": summary["seats"], "length": summary["length"]}


def ratio_ci(num: list[float], den: list[float]) -> tuple[float, float, float]:
    """mean(num) / mean(den) over paired games (the same decks) and its 95% interval (the delta
    method: the ratio's error is the spread of num - ratio * den, over mean(den))."""
    n = len(num)
    ratio = statistics.fmean(num) / statistics.fmean(den)
    resid = [a - ratio * b for a, b in zip(num, den, strict=True)]
    half = Z95 * statistics.stdev(resid) / (n**0.5 * statistics.fmean(den))
    return ratio, ratio - half, ratio + half


def part_tower(games: int, jobs: int, seed: int, bots: list[str]) -> dict[str, Any]:
    out: dict[str, Any] = {"games": games}
    per_game: dict[str, list[float]] = {}
    for bot in bots:
        config = config_from("tower", bot, games, seed=seed)  # same seeds, so the same decks
        start = time.perf_counter()
        run = simulate(config, "process", jobs)
        scores = [r.scores[0] for r in run.results]
        per_game[bot] = [float(x) for x in scores]
        out[bot] = {
            "mean": statistics.fmean(scores),
            "median": statistics.median(scores),
            "stdev": statistics.pstdev(scores),
            "seconds": time.perf_counter() - start,
        }
        print(f"  tower solo {bot}: mean {out[bot]['mean']:.2f} ({load()})", flush=True)
    if "expert" in out and "oracle" in out:
        ratio, low, high = ratio_ci(per_game["expert"], per_game["oracle"])
        out["expert_over_oracle"] = ratio
        out["expert_over_oracle_ci95"] = [low, high]
        out["expert_at_least_oracle"] = sum(e >= o for e, o in zip(per_game["expert"], per_game["oracle"], strict=True))
    return out


FIRST_TOWER_EXPERT = te.core_params(te.DEFAULT_TOWER_WEIGHTS, 12, 4, False, False)
"""The tower expert before issue 29's item 3 (default weights, NEXT's and the third card's replies
without minos): what the stronger expert is measured against head to head."""


def tower_duel(games: int, seed: int, rival: str) -> dict[str, Any]:
    """The expert against ``rival`` (``greedy`` or ``first-expert``) in 2-player standard tower
    games, seats swapped every other game over the same seed, played in the tower core."""
    from tabletris.bots.expert import ExpertBot
    from tabletris.engine import fasttower

    expert = ExpertBot().tower_core_params()
    other, params = ("greedy", te.core_params()) if rival == "greedy" else ("expert", FIRST_TOWER_EXPERT)
    wins = 0.0
    scores: list[list[int]] = [[], []]
    start = time.perf_counter()
    for task in make_tasks(config_from("tower", "expert,greedy", games, seed=seed, swap=True)):
        game = TowerGame(["a", "b"], json.loads(task.rules), seed=task.seed)
        policies = ["expert" if b == 0 else other for b in task.order]
        fasttower.playout(game, policies, [None, None], [expert if b == 0 else params for b in task.order])
        seat_scores = game.seat_scores()
        winners = game.winners()
        for position, b in enumerate(task.order):
            scores[b].append(seat_scores[position])
            if b == 0 and position in winners:
                wins += 1.0 / len(winners)
    low, high = wilson(wins, games)
    return {
        "games": games, "rival": rival, "expert_wins": wins, "win_rate": wins / games, "win_rate_ci95": [low, high],
        "expert_mean": statistics.fmean(scores[0]), "rival_mean": statistics.fmean(scores[1]),
        "seconds": time.perf_counter() - start,
    }


def part_tower_duels(games: int, seed: int) -> dict[str, Any]:
    out = {}
    for rival in ("greedy", "first-expert"):
        out[rival] = tower_duel(games, seed, rival)
        print(f"  tower expert vs {rival}: {out[rival]['win_rate']:.3f} ({load()})", flush=True)
    return out


class Timed:
    """Wraps a bot and records how long each decision takes."""

    def __init__(self, bot: Bot) -> None:
        self.bot = bot
        self.times: list[float] = []
        self.sees_deck = False

    def choose_dice(self, game: DiceGame) -> Any:
        start = time.perf_counter()
        d = self.bot.choose_dice(game)
        self.times.append(time.perf_counter() - start)
        return d

    def choose_tower(self, view: TowerGame) -> Any:
        start = time.perf_counter()
        a = self.bot.choose_tower(view)
        self.times.append(time.perf_counter() - start)
        return a


def _percentiles(times: list[float]) -> dict[str, float]:
    times = sorted(times)
    p99 = times[min(len(times) - 1, int(0.99 * len(times)))]
    return {
        "decisions": len(times),
        "median_ms": 1000 * statistics.median(times),
        "p99_ms": 1000 * p99,
        "max_ms": 1000 * times[-1],
    }


def part_timing(games: int, seed: int) -> dict[str, Any]:
    result: dict[str, Any] = {}
    for preset, players in (("standard", 2), ("long", 4), ("choose", 2)):
        timed = Timed(make_bot("expert", seed=seed))
        for i in range(games):
            game = DiceGame([f"P{k}" for k in range(players)], {"preset": preset}, seed=seed + i)
            bots: list[Any] = [timed] + [make_bot("greedy", seed=i + k) for k in range(1, players)]
            Table(game, bots).play_out()
        result[f"dice {preset} {players}p"] = _percentiles(timed.times)
    for preset, players in (("standard", 1), ("advanced", 4)):
        timed = Timed(make_bot("expert", seed=seed))
        for i in range(max(1, games // 2)):
            tower = TowerGame([f"P{k}" for k in range(players)], {"preset": preset}, seed=seed + i)
            bots = [timed] + [make_bot("greedy", seed=i + k) for k in range(1, players)]
            Table(tower, bots).play_out()
        result[f"tower {preset} {players}p"] = _percentiles(timed.times)
    return result


def part_throughput(games: int, jobs: int, seed: int) -> dict[str, Any]:
    config = config_from("dice", "greedy,greedy,greedy,greedy", games, seed=seed)
    start = time.perf_counter()
    simulate(config, "process", jobs)
    seconds = time.perf_counter() - start
    return {"games": games, "jobs": jobs, "seconds": seconds, "games_per_s": games / seconds}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("part", choices=["dice", "tower", "tower-duels", "timing", "throughput", "all"])
    parser.add_argument(
        "--games", type=int, default=None, help="games (dice 2000, tower 400, tower-duels 400, timing 40, throughput 400)"
    )
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--bots", default="random,greedy,expert,oracle", help="tower bots to measure")
    parser.add_argument("--json", default=None, help="also write the figures to this JSON file")
    args = parser.parse_args()
    print(f"python {platform.python_version()} on {platform.machine()}, {load()}", flush=True)
    figures: dict[str, Any] = {}
    parts = ["dice", "tower", "tower-duels", "timing", "throughput"] if args.part == "all" else [args.part]
    for part in parts:
        print(f"== {part} ({load()})", flush=True)
        if part == "dice":
            figures[part] = part_dice(args.games or 2000, args.jobs, args.seed)
        elif part == "tower":
            figures[part] = part_tower(args.games or 400, args.jobs, args.seed, args.bots.split(","))
        elif part == "tower-duels":
            figures[part] = part_tower_duels(args.games or 400, args.seed)
        elif part == "timing":
            figures[part] = part_timing(args.games or 40, args.seed)
        else:
            figures[part] = part_throughput(args.games or 400, args.jobs, args.seed)
        print(json.dumps(figures[part], indent=2), flush=True)
        print(f"   done ({load()})", flush=True)
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(figures, f, indent=2)


if __name__ == "__main__":
    main()
