"""What a game is started from (game, seats, rules, seed, save path) and where it is remembered.

The new-game screen edits a ``Setup``; the app builds the engine's game from it. The game, seats
and rules of the last one used are kept as JSON in the user's config directory so the next session
starts from them; its seed and save path are not (they would repeat the dice and the file).
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
from tabletris.table.driver import Table
from tabletris.table.seats import SeatSpec, make_seat_bots
from tabletris.tui.texts import _, pgettext

GAMES = tuple(name for name in GAME_NAMES if spec(name).has_front_end("tui"))
"""The games the app offers: the product's games that have a terminal module (``GameUI``)."""
DEFAULT_GAME = GAMES[0]
"""The game a setup is for when nothing says otherwise (the first the form lists)."""
MAX_SEATS = {name: spec(name).max_players for name in GAMES}


def kind_labels() -> dict[str, str]:
    """Each seat kind (a person or a bot of the registry) as a player reads it; a bot missing here
    is shown by its registry name."""
    return {
        "human": pgettext("seat kind", "human"),
        "random": pgettext("seat kind", "random"),
        "greedy": pgettext("seat kind", "greedy"),
        "expert": pgettext("seat kind", "expert"),
        "mcts": pgettext("seat kind", "mcts"),
        "oracle": pgettext("seat kind", "oracle"),
    }


def kind_label(kind: str) -> str:
    return kind_labels().get(kind, kind)


def default_seat_name(kind: str, number: int) -> str:
    """The name a seat gets when none is typed: "Player 2" for a person, "Expert 2" for a bot, in
    the player's language (a name is the player's own text from then on, records keep it)."""
    if kind == "human":
        return _("Player {number}").format(number=number)
    label = kind_label(kind)
    return _("{bot} {number}").format(bot=label[:1].upper() + label[1:], number=number)


def default_seats() -> list[SeatSpec]:
    return [SeatSpec("human", default_seat_name("human", 1)), SeatSpec("random", default_seat_name("random", 2))]


@dataclass
class Setup:
    """Everything needed to start a game; ``rules`` is a rules object as records write it."""

    game: str = DEFAULT_GAME
    seats: list[SeatSpec] = field(default_factory=default_seats)
    rules: dict[str, Any] = field(default_factory=dict)
    seed: int | None = None
    save: Path | None = None

    def to_json(self) -> dict[str, Any]:
        """What the next launch starts from: game, seats and rules. Not the seed (the next game
        would repeat this one's dice) and not the save path (the next record would go to it)."""
        return {"game": self.game, "seats": [dataclasses.asdict(s) for s in self.seats], "rules": self.rules}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Setup:
        """A setup from saved JSON; ValueError naming the key that is wrong."""
        game = data.get("game", DEFAULT_GAME)
        if game not in GAMES:
            raise ValueError(f"key 'game': expected one of {', '.join(GAMES)}, got {game!r}")
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
        return cls(game, seats, dict(rules))


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
    """The rules dataclass, presets and per-option help of ``game``, from the engine's game spec."""
    s = spec(game)
    return s.rules_cls, s.presets, s.rule_help


def build_rules(game: str, rules: Mapping[str, Any]) -> Any:
    """The engine's rules object for ``rules``; RulesError with the engine's wording if invalid."""
    return spec(game).rules(dict(rules))


def new_table(setup: Setup) -> Table:
    """The game ``setup`` describes at a table with its bots (seeded from the game's seed, so a
    seeded game repeats exactly); RulesError/ValueError if the engine refuses it."""
    game = spec(setup.game).new([s.name for s in setup.seats], dict(setup.rules), seed=setup.seed)
    return Table(game, make_seat_bots(setup.seats, game.seed))
