"""tabletris: the digital table for tabletop Tetris games.

``import tabletris`` gives the engine: ``tabletris.DiceGame``, ``tabletris.TowerGame``, their rules
and actions, ``Shape``, ``Board``, the errors, and ``tabletris.replay`` / ``tabletris.record_of``
for records. Bots are in ``tabletris.bots``, the turn driver in ``tabletris.table``.
"""

from tabletris import engine as _engine
from tabletris.engine import *  # noqa: F403  (the engine's names are the package's face)
from tabletris.engine.records import record_of, replay
from tabletris.envs.registration import install as _install_gym_envs

__version__ = "0.1.0"

__all__ = [*_engine.__all__, "__version__", "record_of", "replay"]

_install_gym_envs()  # registers tabletris/Dice-v0 and Tower-v0 with Gymnasium, lazily and safely
