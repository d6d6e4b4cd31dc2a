"""Single-agent Gymnasium environments: one seat is the learner, the other seats are opponents.

``gymnasium.make("tabletris/Dice-v0", players=2, seat=0, opponents="random")`` after
``import tabletris``, or ``gymnasium.make("tabletris:tabletris/Dice-v0")`` with no import at all
(Gymnasium imports the module named before the colon). Options, both games:

- ``opponents``: one per other seat, or one for all: a bot name (``make_bot``: ``random``,
  ``greedy``, ``expert``, ``ext:...``), a ``Bot`` instance, or a policy: a callable
  ``policy(observation, action_mask) -> action id`` that plays its seat through the same encoding
  as the learner (``observation`` exactly as the learner gets it, ``action_mask`` a bool array). A policy makes
  self-play a one-liner (``SelfPlay`` below). Named bots are seeded from the env's seed, so
  ``reset(seed=...)`` replays the same game for the same actions.
- ``reward``: ``score`` (own points; the default), ``difference`` or ``win`` (``envs.rewards``);
  the dice env also ``shaped`` (``difference`` plus potential-based shaping with discount ``gamma``).
- ``observation``: ``vector`` (flat) or ``image`` (channels x rows x columns; see the codecs);
  ``action_mask``: True puts the mask in the observation dict, False gives the bare Box; either
  way ``action_masks()`` returns it (what sb3-contrib's ``MaskablePPO`` calls).
- ``render_mode``: ``ansi`` (text) or ``rgb_array``.

``info`` carries ``scores``, ``winner`` (the engine's winning seats once over, else None) and
``is_success`` (the learner is among them; False until the end).
"""


from __future__ import annotations

from tabletris.envs.dice_env import DiceEnv
from tabletris.envs.seat_env import Opponent, Policy, SelfPlay, opponent_list
from tabletris.envs.tower_env import TowerEnv

__all__ = ["DiceEnv", "Opponent", "Policy", "SelfPlay", "TowerEnv", "opponent_list"]
