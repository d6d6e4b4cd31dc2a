"""What a game is started from (game, seats, rules, seed, save path) and where it is remembered.

The new-game screen edits a ``Setup``; the app builds the engine's game from it, and the last one
used is kept as JSON in the user's config directory so the next session starts from it.
"""

from __future__ import annotations

import dataclasses
import json
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tabletris.engine.options import RulesError
from tabletris.table.seats import SeatSpec

GAMES = ("dice", "tower")
MAX_SEATS = {"dice": 8, "tower": 4}


@dataclass
class Setup:
    """Everything needed to start a game; ``rules`` is a rules object as records write it."""

    game: str = "dice"
    seats: list[SeatSpec] = field(
        default_factory=lambda: [SeatSpec("human", "Player 1"), SeatSpec("random", "Random 2")]
    )
    rules: dict[str, Any] = field(default_factory=dict)
    seed: int | None = None
    save: Path | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "game": self.game,
            "seats": [dataclasses.asdict(s) for s in self.seats],
            "rules": self.rules,
            "seed": self.seed,
            "save": None if self.save is None else str(self.save),
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Setup:
        """A setup from saved JSON; ValueError naming the key that is wrong."""
        game = data.get("game", "dice")
        if game not in GAMES:
            raise ValueError(f"key 'game': expected dice or tower, got {game!r}")
        seats_raw = data.get("seats", [])
        if not isinstance(seats_raw, list) or not seats_raw:
            raise ValueError("key 'seats': expected a non-empty list")
        seats = []
        for i, s in enumerate(seats_raw):
            if not isinstance(s, dict) or not isinstance(s.get("kind"), str) or not isinstance(s.get("name"), str):
                raise ValueError(f"key 'seats[{i}]': expected {{kind, name, strength}}")
            strength = s.get("strength")
            if strength is not None and not isinstance(strength, int | float):
                raise ValueError(f"key 'seats[{i}].strength': expected a number or null")
            seats.append(SeatSpec(s["kind"], s["name"], None if strength is None else float(strength)))
        rules = data.get("rules", {})
        if not isinstance(rules, dict):
            raise ValueError("key 'rules': expected an object")
        seed = data.get("seed")
        if seed is not None and (not isinstance(seed, int) or isinstance(seed, bool)):
            raise ValueError("key 'seed': expected an integer or null")
        save = data.get("save")
        return cls(game, seats, dict(rules), seed, None if not save else Path(str(save)))


def config_dir() -> Path:
    """``$XDG_CONFIG_HOME/tabletris``, else ``~/.config/tabletris``."""
    base = os.environ.get("XDG_CONFIG_HOME")
    root = Path(base) if base else Path.home() / ".config"
    return root / "tabletris"


def last_setup_path() -> Path:
    return config_dir() / "last_setup.json"


def load_last_setup() -> Setup | None:
    """The setup saved last time, or None when there is none or it cannot be read."""
    path = last_setup_path()
    try:
        return Setup.from_json(json.loads(path.read_text(encoding="utf-8")))
    except (OSError, ValueError, TypeError, AttributeError):
        return None


def save_last_setup(setup: Setup) -> Path | None:
    """Remember ``setup``; returns the path, or None when the config dir is not writable."""
    path = last_setup_path()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(setup.to_json(), indent=2) + "\n", encoding="utf-8")
    except OSError:
        return None
    return path


# ------------------------------------------------------------------ the games


def rules_model(game: str) -> tuple[type[Any], Mapping[str, Mapping[str, Any]], Mapping[str, str]]:
    """The rules dataclass, presets and per-option help of ``game``, from its engine module."""
    if game == "dice":
        from tabletris.engine.dice import DICE_PRESETS, RULE_HELP, DiceRules

        return DiceRules, DICE_PRESETS, RULE_HELP
    if game == "tower":
        try:
            from tabletris.engine import tower
        except ImportError as e:
            raise RulesError(f"the tower game is not available: {e}") from None
        return tower.TowerRules, tower.TOWER_PRESETS, tower.RULE_HELP
    raise RulesError(f"unknown game {game!r}: expected dice or tower")


def build_rules(game: str, rules: Mapping[str, Any]) -> Any:
    """The engine's rules object for ``rules``; RulesError with the engine's wording if invalid."""
    cls, _presets, _help = rules_model(game)
    return cls.from_dict(dict(rules))


def new_game(setup: Setup) -> Any:
    """The engine game ``setup`` describes (DiceGame or TowerGame); RulesError if it cannot be."""
    names = [s.name for s in setup.seats]
    if setup.game == "dice":
        from tabletris.engine.dice import DiceGame

        return DiceGame(names, dict(setup.rules), seed=setup.seed)
    if setup.game == "tower":
        try:
            from tabletris.engine.tower import TowerGame
        except ImportError as e:
            raise RulesError(f"the tower game is not available: {e}") from None
        return TowerGame(names, dict(setup.rules), seed=setup.seed)
    raise RulesError(f"unknown game {setup.game!r}: expected dice or tower")


def make_bots(setup: Setup, seed: int | None) -> dict[int, Any]:
    """A bot per non-human seat, seeded from the game's seed so seeded games repeat exactly."""
    from tabletris.bots.registry import make_bot

    bots = {}
    for seat, spec in enumerate(setup.seats):
        if not spec.is_human:
            bot_seed = None if seed is None else seed * 31 + seat
            bots[seat] = make_bot(spec.kind, seed=bot_seed, strength=spec.strength)
    return bots
