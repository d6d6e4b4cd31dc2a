"""The Gymnasium spaces and argument checks every tabletris environment shares."""

from __future__ import annotations

from typing import Any, Protocol

import numpy as np
from gymnasium import spaces


class Codec(Protocol):
    obs_low: Any
    obs_high: Any
    n_actions: int


def codec_spaces(codec: Codec) -> tuple[spaces.Dict, spaces.Discrete]:
    """New observation (vector and action mask) and action spaces for a codec.

    New objects on every call: PettingZoo wants one space per agent, and seeding one must not
    seed another.
    """
    observation = spaces.Dict(
        {
            "observation": spaces.Box(codec.obs_low, codec.obs_high, dtype=np.float32),
            "action_mask": spaces.Box(0, 1, (codec.n_actions,), dtype=np.int8),
        }
    )
    return observation, spaces.Discrete(codec.n_actions)


def check_modes(render_mode: str | None, render_modes: list[str], illegal_action: str) -> None:
    """A ValueError naming the argument when the render mode or the illegal-action policy is unknown."""
    if render_mode is not None and render_mode not in render_modes:
        raise ValueError(f"render_mode: {render_mode!r}: expected one of {', '.join(render_modes)} or None")
    if illegal_action not in ("raise", "replace"):
        raise ValueError(f"illegal_action: {illegal_action!r}: expected 'raise' or 'replace'")
