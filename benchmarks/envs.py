"""Environment speed (a script, not a test): learner steps per CPU-second, masked random actions.

Counts CPU time of this process (``time.process_time``), not wall time, so a loaded machine
gives comparable figures. Gymnasium's CartPole and PettingZoo's connect four run the same loop
for scale.

    .venv/bin/python benchmarks/envs.py            # about 3 CPU-seconds per environment
    .venv/bin/python benchmarks/envs.py --seconds 10
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Callable

import gymnasium
import numpy as np

import tabletris  # noqa: F401  (registers the environments)
from tabletris.envs import dice_v0, tower_v0
from tabletris.envs.gym import DiceEnv, TowerEnv
from tabletris.envs.vector import DiceVectorEnv


def gym_rate(make: Callable[[], gymnasium.Env], seconds: float, masked: bool = True) -> float:
    env = make()
    rng = np.random.default_rng(0)
    obs, _ = env.reset(seed=0)
    steps = 0
    start = time.process_time()
    while time.process_time() - start < seconds:
        if masked:
            action = int(rng.choice(np.flatnonzero(env.unwrapped.action_masks())))
        else:
            action = env.action_space.sample()
        obs, _r, terminated, truncated, _ = env.step(action)
        steps += 1
        if terminated or truncated:
            env.reset()
    return steps / (time.process_time() - start)


def vector_rate(n: int, seconds: float) -> float:
    vec = DiceVectorEnv(n, action_mask=False)
    rng = np.random.default_rng(0)
    vec.reset(seed=0)
    steps = 0
    start = time.process_time()
    while time.process_time() - start < seconds:
        actions = [int(rng.choice(np.flatnonzero(m))) for m in vec.action_masks()]
        vec.step(np.array(actions))
        steps += n
    return steps / (time.process_time() - start)


def aec_rate(env, seconds: float) -> float:
    rng = np.random.default_rng(0)
    env.reset(seed=0)
    steps = 0
    start = time.process_time()
    while time.process_time() - start < seconds:
        for _agent in env.agent_iter():
            obs, _r, terminated, truncated, _ = env.last()
            if terminated or truncated:
                env.step(None)
                continue
            env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
            steps += 1
        env.reset()
    return steps / (time.process_time() - start)


def parallel_rate(seconds: float) -> float:
    env = tower_v0.parallel_env(players=2)
    rng = np.random.default_rng(0)
    obs, _ = env.reset(seed=0)
    steps = 0
    start = time.process_time()
    while time.process_time() - start < seconds:
        if not env.agents:
            obs, _ = env.reset()
        actions = {a: int(rng.choice(np.flatnonzero(obs[a]["action_mask"]))) for a in env.agents}
        obs, *_ = env.step(actions)
        steps += 1
    return steps / (time.process_time() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=3.0, help="CPU-seconds per environment")
    args = parser.parse_args()
    s = args.seconds
    rates = {
        "Dice-v0 vs random (learner steps)": gym_rate(lambda: DiceEnv(opponents="random"), s),
        "Dice-v0 vs greedy (learner steps)": gym_rate(lambda: DiceEnv(opponents="greedy"), s),
        "DiceVectorEnv x8 (learner steps)": vector_rate(8, s),
        "Tower-v0 vs random (learner steps)": gym_rate(lambda: TowerEnv(opponents="random"), s),
        "dice_v0 AEC, 2 seats (agent steps)": aec_rate(dice_v0.env(players=2), s),
        "tower_v0 Parallel, 2 seats (joint steps)": parallel_rate(s),
        "reference: CartPole-v1": gym_rate(lambda: gymnasium.make("CartPole-v1"), s, masked=False),
    }
    try:
        from pettingzoo.classic import connect_four_v3

        rates["reference: PettingZoo connect_four_v3 (agent steps)"] = aec_rate(connect_four_v3.env(), s)
    except ImportError:  # its extra (pygame) is not installed
        pass
    for name, rate in rates.items():
        print(f"{name:55s} {rate:10.0f} steps per CPU-second")
    print(json.dumps({k: round(v) for k, v in rates.items()}))




if __name__ == "__main__":
    main()
