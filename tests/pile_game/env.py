"""The pile game's env module for ``tabletris/Game-v0``: its observation and action count."""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np

MAX_ACTIONS = 6
"""A turn takes 1 to the roll; the die has at most 6 faces."""


def observation_space(rules: Any, players: int) -> gym.Space[Any]:
    return gym.spaces.Box(0, 99, shape=(3,), dtype=np.int64)


def observe(view: Any) -> np.ndarray:
    """Stones left, the roll (0 before it), and whether the viewing seat is to move."""
    return np.array([view.left, view.roll_face or 0, int(view.to_move == view.viewer)], dtype=np.int64)
