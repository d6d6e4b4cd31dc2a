"""A MaskablePPO baseline on ``tabletris/Dice-v0``, trained against a bot and evaluated against
``random`` and ``greedy`` with Wilson intervals.

Needs the ``train`` extra: ``pip install -e '.[train]'`` (a CPU torch, pinned). Training stops
at ``--timesteps`` or when this process has used ``--cpu-minutes`` of CPU time, whichever comes
first, so a run fits a CPU budget on any machine. Example (the run in docs/ai-interfaces.md)::

    python scripts/train_ppo.py --cpu-minutes 15 --out docs/ppo-baseline.json

The learner plays seat 0 and seat 1 in alternate evaluation games (the dice game's first player
has an edge); a shared win counts one half.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import Any

import numpy as np
import torch
from sb3_contrib import MaskablePPO
from stable_baselines3.common.callbacks import BaseCallback

from tabletris.envs.gym import DiceEnv
from tabletris.lab.stats import wilson


class CpuBudget(BaseCallback):
    """Stops training once the process has used ``minutes`` of CPU time (all threads), or
    ``wall_minutes`` have passed (a shared machine may give a process a small share of a core)."""

    def __init__(self, minutes: float, wall_minutes: float | None = None) -> None:
        super().__init__()
        self.limit = minutes * 60.0
        self.wall_end = None if wall_minutes is None else time.perf_counter() + wall_minutes * 60.0

    def _on_step(self) -> bool:
        if self.wall_end is not None and time.perf_counter() > self.wall_end:
            return False
        return time.process_time() < self.limit


def make_env(opponent: str, reward: str, seat: int = 0) -> DiceEnv:
    return DiceEnv(players=2, seat=seat, opponents=opponent, reward=reward, action_mask=False)


def evaluate(model: MaskablePPO, opponent: str, games: int, seed: int) -> dict[str, Any]:
    """Win rate of the trained policy (masked, deterministic) against ``opponent``."""
    wins = 0.0
    scores: list[int] = []
    for i in range(games):
        env = make_env(opponent, "score", seat=i % 2)
        obs, info = env.reset(seed=seed + i)
        done = False
        while not done:
            action, _ = model.predict(obs, deterministic=True, action_masks=env.action_masks())
            obs, _r, terminated, truncated, info = env.step(int(action))
            done = terminated or truncated
        winners = info["winner"] or []
        if env.seat in winners:
            wins += 1.0 / len(winners)
        scores.append(info["scores"][env.seat])
    low, high = wilson(wins, games)
    return {
        "opponent": opponent,
        "games": games,
        "wins": wins,
        "win_rate": wins / games,
        "ci95": [low, high],
        "mean_score": float(np.mean(scores)),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--timesteps", type=int, default=2_000_000)
    parser.add_argument("--cpu-minutes", type=float, default=15.0)
    parser.add_argument("--wall-minutes", type=float, default=None, help="also stop after this long")
    parser.add_argument("--opponent", default="random")
    parser.add_argument("--reward", default="difference", choices=["score", "difference", "win"])
    parser.add_argument("--eval-games", type=int, default=400)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--out", type=Path, default=None, help="write the figures here as JSON")
    parser.add_argument("--save", type=Path, default=None, help="save the model here")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)

    env = make_env(args.opponent, args.reward)
    model = MaskablePPO("MlpPolicy", env, n_steps=1024, batch_size=256, gamma=0.99, ent_coef=0.01, seed=args.seed, verbose=0)
    start_cpu, start_wall = time.process_time(), time.perf_counter()
    model.learn(total_timesteps=args.timesteps, callback=CpuBudget(args.cpu_minutes, args.wall_minutes))
    train_cpu, train_wall = time.process_time() - start_cpu, time.perf_counter() - start_wall
    if args.save:
        model.save(args.save)
    results = {
        "env": "tabletris/Dice-v0 (2 players, standard rules)",
        "algorithm": "sb3-contrib MaskablePPO, MlpPolicy, n_steps 1024, batch 256, ent_coef 0.01",
        "opponent": args.opponent,
        "reward": args.reward,
        "timesteps": int(model.num_timesteps),
        "train_cpu_s": round(train_cpu, 1),
        "train_wall_s": round(train_wall, 1),
        "seed": args.seed,
        "eval": [evaluate(model, o, args.eval_games, 10_000 + args.seed) for o in ("random", "greedy")],
    }
    text = json.dumps(results, indent=2)
    print(text)
    if args.out:
        args.out.write_text(text + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
