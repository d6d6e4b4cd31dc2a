"""Where the time goes (a script, not a test): cProfile of the three workloads issue 19's goals
are about, on the engine in use (``TABLETRIS_PURE=1`` for the pure one).

    .venv/bin/python benchmarks/profile_speed.py              # all three, top 15 by own time
    .venv/bin/python benchmarks/profile_speed.py expert --top 25

``expert``: the bench's expert decisions (``tabletris bench``'s fixed positions); ``simulate``:
2-player expert vs greedy games; ``env``: ``tabletris/Dice-v0`` steps against a random bot.
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import random
from collections.abc import Callable

import numpy as np

from tabletris.bots.registry import make_bot
from tabletris.cli.bench import midgame_positions
from tabletris.engine.board import engine_name
from tabletris.engine.dice import DiceGame
from tabletris.table.driver import Table


def expert() -> Callable[[], None]:
    positions = midgame_positions()
    bot = make_bot("expert", seed=3)

    def run() -> None:
        for _ in range(3):
            for game in positions:
                bot.choose_dice(game)

    return run


def simulate() -> Callable[[], None]:
    def run() -> None:
        rng = random.Random(7)
        for _ in range(4):
            seed = rng.getrandbits(32)
            game = DiceGame(["expert", "greedy"], seed=seed)
            Table(game, [make_bot("expert", seed=seed), make_bot("greedy", seed=seed + 1)]).play_bots()

    return run


def env() -> Callable[[], None]:
    import gymnasium

    import tabletris.envs  # noqa: F401 - registers the environments

    e = gymnasium.make("tabletris/Dice-v0")
    rng = np.random.default_rng(5)
    obs, _ = e.reset(seed=5)

    def run() -> None:
        nonlocal obs
        for _ in range(3000):
            legal = np.flatnonzero(obs["action_mask"])
            obs, _, terminated, truncated, _ = e.step(int(rng.choice(legal)))
            if terminated or truncated:
                obs, _ = e.reset()

    return run


WORKLOADS = {"expert": expert, "simulate": simulate, "env": env}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("names", nargs="*", default=list(WORKLOADS))
    parser.add_argument("--top", type=int, default=15)
    args = parser.parse_args()
    print(f"engine: {engine_name()}")
    for name in args.names:
        run = WORKLOADS[name]()
        run()  # warm up: caches, imports
        profile = cProfile.Profile()
        profile.enable()
        run()
        profile.disable()
        print(f"\n=== {name} (tottime: own time per function) ===")
        pstats.Stats(profile).sort_stats("tottime").print_stats(args.top)


if __name__ == "__main__":
    main()
