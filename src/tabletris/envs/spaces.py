"""The Gymnasium spaces and argument checks every tabletris environment shares."""

from __future__ import annotations

from typing import Any, Literal, Protocol

import numpy as np
from gymnasium import spaces

ObservationForm = Literal["vector", "image"]


class Codec(Protocol):
    obs_low: Any
    obs_high: Any
    n_actions: int


def codec_spaces(
    codec: Codec, observation: str = "vector", action_mask: bool = True
) -> tuple[spaces.Space[Any], spaces.Discrete]:
    """New observation and action spaces for a codec.

    ``observation``: ``"vector"`` (the flat vector) or ``"image"`` (the codec's planes,
    channels x rows x columns). With ``action_mask`` the observation is a dict of that and the
    mask; without, it is the bare Box and the mask comes from the env's ``action_masks()``.
    New objects on every call: PettingZoo wants one space per agent, and seeding one must not
    seed another.
    """
    if observation == "image":
        box = spaces.Box(codec.image_low, codec.image_high, dtype=np.float32)  # type: ignore[attr-defined]
    else:
        box = spaces.Box(codec.obs_low, codec.obs_high, dtype=np.float32)
    action = spaces.Discrete(codec.n_actions)
    if not action_mask:
        return box, action
    mask = spaces.Box(0, 1, (codec.n_actions,), dtype=np.int8)
    return spaces.Dict({"observation": box, "action_mask": mask}), action


def check_modes(
    render_mode: str | None, render_modes: list[str], illegal_action: str, observation: str = "vector"
) -> None:
    """A ValueError naming the argument when the render mode, the illegal-action policy or the
    observation form is unknown."""
    if render_mode is not None and render_mode not in render_modes:
        raise ValueError(f"render_mode: {render_mode!r}: expected one of {', '.join(render_modes)} or None")
    if illegal_action not in ("raise", "replace"):
        raise ValueError(f"illegal_action: {illegal_action!r}: expected 'raise' or 'replace'")
    if observation not in ("vector", "image"):
        raise ValueError(f"observation: {observation!r}: expected 'vector' or 'image'")
