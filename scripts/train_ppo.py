"""A MaskablePPO baseline on ``tabletris/Dice-v0``, trained against a bot and evaluated against
``random`` and ``greedy`` with Wilson intervals.

The default policy is ``tabletris.envs.sb3.ActionScorePolicy`` on the env's ``action_features``
(each action scored from the position it leaves by one small shared network); ``--policy mlp``
is sb3's ``MlpPolicy`` on the observation alone (one output per action id), for comparison.

Needs the ``train`` extra: ``pip install -e '.[train]'`` (a CPU torch, pinned). Training stops
at ``--timesteps`` or when this process has used ``--cpu-minutes`` of CPU time, whichever comes
first, so a run fits a CPU budget on any machine. The run in docs/ai-interfaces.md (the defaults
are the docs example's setup, ``tests/test_envs_docs.py`` checks they build the same weights)::

    python scripts/train_ppo.py --cpu-minutes 15 --out docs/ppo-baseline.json

The learner plays seat 0 and seat 1 in alternate evaluation games (the dice game's first player
has an edge). Most games between weak players end 0-0, a shared win, so the evaluation reports
sole wins, shared wins (draws) and losses apart, besides the rate that counts a shared win one
half: a learner that only ever draws scores 50% there and has beaten nobody.
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import gymnasium
import numpy as np
import torch
from sb3_contrib import MaskablePPO
from stable_baselines3.common.callbacks import BaseCallback
from stable_baselines3.common.env_util import make_vec_env

from tabletris.envs.gym import DiceEnv
from tabletris.envs.sb3 import ActionScorePolicy
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


def make_env(
    opponent: str, reward: str, seat: int = 0, observation: str = "vector", gamma: float = 0.99,
    action_features: bool = True,
) -> gymnasium.Env[Any, Any]:
    """The env as the docs' example makes it (``gymnasium.make``, so with Gymnasium's checker)."""
    return gymnasium.make(
        "tabletris:tabletris/Dice-v0", opponents=opponent, seat=seat, reward=reward,
        action_mask=False, observation=observation, gamma=gamma, action_features=action_features,
    )


def tally(outcomes: Sequence[tuple[int, Sequence[int]]]) -> dict[str, Any]:
    """Win / draw / loss counts of ``(learner's seat, winners)`` games, and the rate with shared
    wins counted ``1/len(winners)`` (a 0-0 game between two players is half a win), with its
    Wilson interval and the sole-win rate's."""
    games = len(outcomes)
    wins = draws = losses = 0
    credit = 0.0
    for seat, winners in outcomes:
        if seat not in winners:
            losses += 1
        elif len(winners) == 1:
            wins += 1
            credit += 1.0
        else:
            draws += 1
            credit += 1.0 / len(winners)
    low, high = wilson(credit, games)
    sole_low, sole_high = wilson(wins, games)
    return {
        "games": games,
        "won": wins,
        "drawn": draws,
        "lost": losses,
        "wins": credit,
        "win_rate": credit / games,
        "ci95": [low, high],
        "sole_win_rate": wins / games,
        "sole_ci95": [sole_low, sole_high],
    }


Predict = Callable[[Any, np.ndarray], int]


def play(
    predict: Predict, opponent: str, games: int, seed: int, observation: str = "vector",
    action_features: bool = True,
) -> dict[str, Any]:
    """``games`` games of ``predict(observation, mask) -> action`` against ``opponent``, the learner
    seated first in every other one; the tally plus the learner's and the opponent's mean scores."""
    outcomes: list[tuple[int, list[int]]] = []
    scores: list[int] = []
    other: list[int] = []
    for i in range(games):
        env = make_env(opponent, "score", seat=i % 2, observation=observation, action_features=action_features)
        game: DiceEnv = env.unwrapped  # type: ignore[assignment]
        obs, info = env.reset(seed=seed + i)
        done = False
        while not done:
            obs, _r, terminated, truncated, info = env.step(predict(obs, game.action_masks()))
            done = terminated or truncated
        outcomes.append((game.seat, list(info["winner"] or [])))
        scores.append(info["scores"][game.seat])
        other.append(max(s for k, s in enumerate(info["scores"]) if k != game.seat))
    return {
        "opponent": opponent,
        **tally(outcomes),
        "mean_score": float(np.mean(scores)),
        "opponent_mean_score": float(np.mean(other)),
    }


def evaluate(
    model: MaskablePPO, opponent: str, games: int, seed: int, observation: str = "vector",
    action_features: bool = True,
) -> dict[str, Any]:
    """The trained policy (masked, deterministic) against ``opponent``."""

    def predict(obs: Any, mask: np.ndarray) -> int:
        action, _ = model.predict(obs, deterministic=True, action_masks=mask)
        return int(action)

    return play(predict, opponent, games, seed, observation, action_features)


def parser() -> argparse.ArgumentParser:
    """The options; their defaults are the setup of the docs' example (``docs/ai-interfaces.md``)."""
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--timesteps", type=int, default=122_880, help="the docs example's TIMESTEPS")
    p.add_argument("--cpu-minutes", type=float, default=15.0)
    p.add_argument("--wall-minutes", type=float, default=None, help="also stop after this long")
    p.add_argument("--opponent", default="random")
    p.add_argument("--reward", default="shaped", choices=["score", "difference", "win", "shaped"])
    p.add_argument("--observation", default="vector", choices=["vector", "image"])
    p.add_argument(
        "--policy", default="actions", choices=["actions", "mlp"],
        help="actions: ActionScorePolicy on action_features (one scorer shared by every action); "
        "mlp: sb3's MlpPolicy on the observation alone",
    )
    p.add_argument("--score-arch", default="32,32", help="hidden sizes of the per-action scorer (--policy actions)")
    p.add_argument("--value-arch", default="64,64", help="hidden sizes of the value MLP (--policy actions)")
    p.add_argument("--net", default="64,64", help="hidden sizes of the policy and value MLPs (--policy mlp)")
    p.add_argument("--n-envs", type=int, default=8, help="games stepped together (one batched policy call)")
    p.add_argument("--n-steps", type=int, default=64, help="steps per game per rollout")
    p.add_argument("--batch-size", type=int, default=256)
    p.add_argument("--n-epochs", type=int, default=4)
    p.add_argument("--learning-rate", type=float, default=1e-3)
    p.add_argument("--gamma", type=float, default=0.99)
    p.add_argument("--ent-coef", type=float, default=0.01)
    p.add_argument("--eval-games", type=int, default=300)
    p.add_argument("--eval-opponents", default="random,greedy")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--out", type=Path, default=None, help="write the figures here as JSON")
    p.add_argument("--save", type=Path, default=None, help="save the model here")
    return p


def hyperparameters(args: argparse.Namespace) -> dict[str, Any]:
    return {
        "n_steps": args.n_steps, "batch_size": args.batch_size, "n_epochs": args.n_epochs,
        "learning_rate": args.learning_rate, "gamma": args.gamma, "ent_coef": args.ent_coef,
    }


def sizes(text: str) -> list[int]:
    return [int(n) for n in text.split(",")]


def policy_setup(args: argparse.Namespace) -> tuple[Any, dict[str, Any], str]:
    """The policy class (or sb3 name), its ``policy_kwargs`` and a description for the JSON."""
    if args.policy == "actions":
        score, value = sizes(args.score_arch), sizes(args.value_arch)
        return (
            ActionScorePolicy, {"score_arch": score, "value_arch": value},
            f"sb3-contrib MaskablePPO, ActionScorePolicy score_arch {score} value_arch {value}",
        )
    net = sizes(args.net)
    return "MlpPolicy", {"net_arch": net}, f"sb3-contrib MaskablePPO, MlpPolicy net_arch {net}"


def build_model(args: argparse.Namespace) -> MaskablePPO:
    """The untrained learner on ``n_envs`` games, built as the docs' example builds it."""
    env_kwargs = {"opponents": args.opponent, "reward": args.reward, "gamma": args.gamma,
                  "action_mask": False, "observation": args.observation,
                  "action_features": args.policy == "actions"}
    env = make_vec_env("tabletris:tabletris/Dice-v0", n_envs=args.n_envs, env_kwargs=env_kwargs)
    policy, policy_kwargs, _what = policy_setup(args)
    return MaskablePPO(
        policy, env, policy_kwargs=policy_kwargs, seed=args.seed, verbose=0, **hyperparameters(args),
    )


def main(argv: Sequence[str] | None = None) -> None:
    args = parser().parse_args(argv)
    torch.set_num_threads(args.threads)
    model = build_model(args)
    described = policy_setup(args)[2]
    hyper = hyperparameters(args)
    start_cpu, start_wall = time.process_time(), time.perf_counter()
    model.learn(total_timesteps=args.timesteps, callback=CpuBudget(args.cpu_minutes, args.wall_minutes))
    train_cpu, train_wall = time.process_time() - start_cpu, time.perf_counter() - start_wall
    if args.save:
        model.save(args.save)
    results: dict[str, Any] = {
        "env": "tabletris/Dice-v0 (2 players, standard rules)",
        "algorithm": described,
        "hyperparameters": hyper,
        "opponent": args.opponent,
        "reward": args.reward,
        "observation": args.observation,
        "n_envs": args.n_envs,
        "timesteps": int(model.num_timesteps),
        # The steps of the rollouts the policy was trained on: a budget that stops training in
        # the middle of a rollout leaves the weights of learn(total_timesteps=this).
        "trained_timesteps": int(model._n_updates // args.n_epochs) * args.n_steps * args.n_envs,
        "train_cpu_s": round(train_cpu, 1),
        "train_wall_s": round(train_wall, 1),
        "seed": args.seed,
        "eval": [],
    }
    for opponent in args.eval_opponents.split(","):
        results["eval"].append(evaluate(
            model, opponent, args.eval_games, 10_000 + args.seed, args.observation, args.policy == "actions",
        ))
    text = json.dumps(results, indent=2)
    print(text)
    if args.out:
        args.out.write_text(text + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
