"""tabletris: the digital table for tabletop Tetris games.

``import tabletris`` gives the engine: ``tabletris.DiceGame``, ``tabletris.TowerGame``, their rules
and actions, ``Shape``, ``Board``, the errors, and ``tabletris.replay`` / ``tabletris.record_of``
for records. Bots are in ``tabletris.bots``, the turn driver in ``tabletris.table``.
"""

from tabletris.engine import (
    GAMES,
    Board,
    DiceAction,
    DiceGame,
    DiceMatch,
    DiceMove,
    DiceRules,
    GameSpec,
    IllegalMove,
    IllegalPlacement,
    MalformedMove,
    Orientation,
    Placement,
    RecordError,
    RulesError,
    Shape,
    Stone,
    TabletrisError,
    TowerAction,
    TowerGame,
    TowerRules,
    spec,
)
from tabletris.engine.records import record_of, replay
from tabletris.envs.registration import install as _install_gym_envs

__version__ = "0.1.0"

__all__ = [
    "GAMES",
    "Board",
    "DiceAction",
    "DiceGame",
    "DiceMatch",
    "DiceMove",
    "DiceRules",
    "GameSpec",
    "IllegalMove",
    "IllegalPlacement",
    "MalformedMove",
    "Orientation",
    "Placement",
    "RecordError",
    "RulesError",
    "Shape",
    "Stone",
    "TabletrisError",
    "TowerAction",
    "TowerGame",
    "TowerRules",
    "__version__",
    "record_of",
    "replay",
    "spec",
]

_install_gym_envs()  # registers tabletris/Dice-v0 and Tower-v0 with Gymnasium, lazily and safely
