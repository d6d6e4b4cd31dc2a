"""The games, each declared once: what every front end, the lab, the server and the records read.

A ``GameSpec`` is this project's boardgame.io game object (or python-chess's ``VARIANTS`` entry):
the game and rules classes, presets and their help, seat limits, how to start one, how to replay
a record of one, and the rematch rule. Adding a third game means adding one spec here.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from tabletris.engine import dice, dice_rules, tower
from tabletris.engine.errors import RulesError
from tabletris.engine.options import options_to_dict
from tabletris.engine.texts import N_, Message


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
    preset_help: Mapping[str, str] = field(default_factory=dict)
    """Each preset in one line, for the player choosing one (catalog messages, like ``rule_help``)."""
    option_labels: Mapping[str, str] = field(default_factory=dict)
    """Each option's name as a player reads it in a form (the key stays the record's name)."""

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



DICE_PRESET_HELP: dict[str, str] = {
    "standard": N_("The published rules: a 10×20 board, every completed row scores 1 point."),
    "long": N_("The long board house rule: a board 30 rows high."),
    "clear-rows": N_("Completed rows leave the board and everything above falls; first to 20 points wins."),
    "clear-stones": N_("Stones in completed rows go back to the supply whole; first to 20 points wins."),
    "must-close": N_("If the rolled piece can complete a row, it must."),
    "penalty": N_("The player who cannot place loses 1 point."),
    "choose": N_("A completed row scores a point or removes an opponent's stone."),
    "garbage": N_("Six stones are placed at random before the game."),
    "classic": N_("Computer Tetris: seven shapes, rotations only, pieces drop straight down."),
}

DICE_OPTION_LABELS: dict[str, str] = {
    "preset": N_("Preset"),
    "width": N_("Width"),
    "height": N_("Height"),
    "die": N_("Die faces"),
    "supply": N_("Supply"),
    "orientation": N_("Orientation"),
    "access": N_("Access"),
    "stuck_penalty": N_("Stuck penalty"),
    "rescore_reopened": N_("Rescore reopened rows"),
    "clear_rows": N_("Clear rows"),
    "target": N_("Target"),
    "row_reward": N_("Row reward"),
    "garbage": N_("Garbage"),
    "take": N_("Take"),
    "unlimited_supply": N_("Unlimited supply"),
    "first_player": N_("First player"),
    "tokens_from_supply": N_("Tokens from the supply"),
    "must_close": N_("Must close a row"),
}

TOWER_PRESET_HELP: dict[str, str] = {
    "standard": N_("The standard game: only the 6 complete lines card."),
    "advanced": N_("The advanced game: two achievement cards drawn at random."),
}

TOWER_OPTION_LABELS: dict[str, str] = {
    "preset": N_("Preset"),
    "width": N_("Width"),
    "height": N_("Height"),
    "minos_in_box": N_("Minos in the box"),
    "start_minos": N_("Starting minos"),
    "achievements": N_("Achievement cards"),
    "draw_achievements": N_("Cards drawn"),
    "seven_on_a_side": N_("Seven on a side"),
    "four_pairs": N_("Four pairs"),
    "towers": N_("Towers"),
}


def _dice_next_rules(last: dice.DiceGame, rules: dice.DiceRules) -> dice.DiceRules:
    return replace(rules, first_player=dice.next_starter(last))


def _same_rules(last: Any, rules: Any) -> Any:
    return rules


GAMES: dict[str, GameSpec] = {
    "dice": GameSpec(
        name="dice",
        title=N_("Dice Tetris"),
        game_cls=dice.DiceGame,
        rules_cls=dice.DiceRules,
        presets=dice.DICE_PRESETS,
        rule_help=dice_rules.RULE_HELP,
        min_players=1,
        max_players=dice.MAX_PLAYERS,
        simultaneous=False,
        next_rules=_dice_next_rules,
        preset_help=DICE_PRESET_HELP,
        option_labels=DICE_OPTION_LABELS,
    ),
    "tower": GameSpec(
        name="tower",
        title=N_("Tower Tetris"),
        game_cls=tower.TowerGame,
        rules_cls=tower.TowerRules,
        presets=tower.TOWER_PRESETS,
        rule_help=tower.RULE_HELP,
        min_players=1,
        max_players=tower.MAX_PLAYERS,
        simultaneous=True,
        next_rules=_same_rules,
        preset_help=TOWER_PRESET_HELP,
        option_labels=TOWER_OPTION_LABELS,
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
        raise RulesError(Message(N_("unknown game {name!r}: expected one of {games}"), name=name, games=known)) from None


def spec_of(game: Any) -> GameSpec:
    """The spec of a game object (no duck typing on attributes in the front ends)."""
    for s in GAMES.values():
        if isinstance(game, s.game_cls):
            return s
    raise TypeError(f"{type(game).__name__} is not a tabletris game")
