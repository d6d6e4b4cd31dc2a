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

from tabletris.engine.games import GAME_NAMES, spec
from tabletris.engine.games import GAMES as ENGINE_GAMES
from tabletris.table.seats import SeatSpec, make_seat_bots

GAMES = GAME_NAMES
MAX_SEATS = {name: g.max_players for name, g in ENGINE_GAMES.items()}


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
    """The rules dataclass, presets and per-option help of ``game``, from the game registry."""
    g = spec(game)
    return g.rules_cls, g.presets, g.rule_help


def build_rules(game: str, rules: Mapping[str, Any]) -> Any:
    """The engine's rules object for ``rules``; RulesError with the engine's wording if invalid."""
    return spec(game).rules(dict(rules))


def new_game(setup: Setup) -> Any:
    """The engine game ``setup`` describes (DiceGame or TowerGame); RulesError if it cannot be."""
    return spec(setup.game).new([s.name for s in setup.seats], dict(setup.rules), seed=setup.seed)


def make_bots(setup: Setup, seed: int | None) -> dict[int, Any]:
    """A bot per non-human seat, seeded from the game's seed so seeded games repeat exactly."""
    return make_seat_bots(setup.seats, seed)
