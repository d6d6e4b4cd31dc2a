"""Tower-game speed: whole 4-player games between random bots, back to back, in this process.

Each bot sees only its seat's ``view`` (as in real play), so the figure includes the cost of
making views, generating drops, checking every submitted action and resolving rounds with the
achievement checks of the ``advanced`` preset's two cards. Figures are printed, never asserted.
"""

from __future__ import annotations

import random
import time
from typing import Any

from tabletris.bots.registry import make_bot
from tabletris.engine.tower import TowerGame

PLAYERS = ("P1", "P2", "P3", "P4")


def play_random_game(seed: int, preset: str = "advanced") -> TowerGame:
    """One 4-player game of random bots (seeded), played to the end through the public API."""
    rng = random.Random(seed)
    game = TowerGame(PLAYERS, {"preset": preset}, seed=rng.getrandbits(32))
    bots = [make_bot("random", seed=rng.getrandbits(32)) for _ in PLAYERS]
    while not game.over:
        for seat in game.waiting_for():
            game.submit(seat, bots[seat].choose_tower(game.view(seat)))
    return game


def bench_tower_games(seconds: float = 3.0) -> dict[str, Any]:
    """Random-bot 4-player games per second (advanced preset: two achievement cards)."""
    rng = random.Random(11)
    games = rounds = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        game = play_random_game(rng.getrandbits(32))
        games += 1
        rounds += len(game.rounds)
    elapsed = time.perf_counter() - start
    return {
        "games": games,
        "seconds": round(elapsed, 2),
        "games_per_s": round(games / elapsed, 1),
        "mean_rounds": round(rounds / max(games, 1), 1),
    }


if __name__ == "__main__":
    print(bench_tower_games())
