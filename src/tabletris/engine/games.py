"""The games, each declared once: what every front end, the lab, the server and the records read.

A ``GameSpec`` is this project's boardgame.io game object (or python-chess's ``VARIANTS`` entry):
the game and rules classes, presets and their help, seat limits, how to start one, how to replay
a record of one, and the rematch rule. Adding a third game means adding one spec here.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from tabletris.engine import dice, tower
from tabletris.engine.errors import RulesError
from tabletris.engine.options import options_to_dict


@dataclass(frozen=True)
class GameSpec:
    """One game: its classes and data, and the few operations that differ between games."""

    name: str
    title: str
    game_cls: type[Any]
    rules_cls: type[Any]
    presets: Mapping[str, Mapping[str, Any]]
    rule_help: Mapping[str, str]
    min_players: int
    max_players: int
    simultaneous: bool
    """True when every seat acts at once (tower rounds); False for turns in seat order (dice)."""
    next_rules: Callable[[Any, Any], Any]
    """The rematch rule: the rules of the game after ``last`` (dice: its loser starts)."""

    def rules(self, raw: Mapping[str, Any] | None = None) -> Any:
        """Rules from a rules object (``{"preset": NAME, …}``); ``RulesError`` naming the option."""
        return self.rules_cls.from_dict(raw)

    def new(self, players: Sequence[str], rules: Any = None, seed: int | None = None, **setup: Any) -> Any:
        """A new game. ``setup`` passes game-specific set-up on (the tower's ``towers``, ``deck``)."""
        return self.game_cls(list(players), rules, seed=seed, **setup)

    def rules_meta(self) -> dict[str, Any]:
        """Every option with its default and help, and each preset's values (forms use this)."""
        defaults = options_to_dict(self.rules_cls())
        return {
            "presets": {name: options_to_dict(self.rules({"preset": name})) for name in self.presets},
            "options": [
                {"name": k, "default": v, "help": self.rule_help.get(k, "")}
                for k, v in defaults.items()
                if k != "preset"
            ],
        }



def _dice_next_rules(last: dice.DiceGame, rules: dice.DiceRules) -> dice.DiceRules:
    return replace(rules, first_player=dice.next_starter(last))


def _same_rules(last: Any, rules: Any) -> Any:
    return rules


GAMES: dict[str, GameSpec] = {
    "dice": GameSpec(
        name="dice",
        title="Dice Tetris",
        game_cls=dice.DiceGame,
        rules_cls=dice.DiceRules,
        presets=dice.DICE_PRESETS,
        rule_help=dice.RULE_HELP,
        min_players=1,
        max_players=dice.MAX_PLAYERS,
        simultaneous=False,
        next_rules=_dice_next_rules,
    ),
    "tower": GameSpec(
        name="tower",
        title="Tower Tetris",
        game_cls=tower.TowerGame,
        rules_cls=tower.TowerRules,
        presets=tower.TOWER_PRESETS,
        rule_help=tower.RULE_HELP,
        min_players=1,
        max_players=tower.MAX_PLAYERS,
        simultaneous=True,
        next_rules=_same_rules,
    ),
}
"""Every game, by the name records and commands use."""

GAME_NAMES: tuple[str, ...] = tuple(GAMES)


def spec(name: str) -> GameSpec:
    """The game called ``name``; ``RulesError`` naming the known games otherwise."""
    try:
        return GAMES[name]
    except (KeyError, TypeError):
        known = ", ".join(GAMES)
        raise RulesError(f"unknown game {name!r}: expected one of {known}") from None


def spec_of(game: Any) -> GameSpec:
    """The spec of a game object (no duck typing on attributes in the front ends)."""
    for s in GAMES.values():
        if isinstance(game, s.game_cls):
            return s
    raise TypeError(f"{type(game).__name__} is not a tabletris game")
