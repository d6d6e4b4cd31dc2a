"""tabletris.engine: the rules of both games, pure, deterministic and seeded.

The value types (``Shape``, ``Stone``, ``Placement``), the ``Board`` with legal-move generation and
``push``/``pop``, the two games and their actions, the game registry and the errors. Records
(``tabletris.engine.records``) sit above the games, as ``chess.pgn`` sits above ``chess``.
"""

from tabletris.engine.board import Board, Placement, Stone
from tabletris.engine.dice import DiceAction, DiceGame, DiceMatch, DiceMove, DiceRules
from tabletris.engine.errors import (
    IllegalMove,
    IllegalPlacement,
    MalformedMove,
    RecordError,
    RulesError,
    TabletrisError,
)
from tabletris.engine.games import GAMES, GameSpec, spec
from tabletris.engine.shapes import Orientation, Shape
from tabletris.engine.tower import TowerAction, TowerGame, TowerRules

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
    "spec",
]
