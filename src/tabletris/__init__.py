"""tabletris: the digital table for tabletop Tetris games."""

from tabletris.envs.registration import install as _install_gym_envs

__version__ = "0.1.0"

_install_gym_envs()  # registers tabletris/Dice-v0 and Tower-v0 with Gymnasium, lazily and safely
