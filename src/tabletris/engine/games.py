"""The games, each declared once: the one protocol every game answers, and the one registry.

A ``GameSpec`` is this project's boardgame.io game object (or python-chess's ``VARIANTS`` entry):
the game and rules classes, presets and their help, seat limits, the rules in brief, how to write
and replay a record of one, the bots it offers, the rematch rule, and where each front end finds
the game's own module. Every registry of games a front end holds is derived from ``GAMES``; the
driver, the records, the lab and the server ask the spec and the ``Game`` protocol and never
name a game.

Adding a game means writing its engine module (a class that answers ``Game``), its record
functions and one ``GameSpec``, then ``register(spec)``; its front ends are its own modules,
named in ``GameSpec.front_ends``. A plug-in game is registered by importing its module: name it
in ``TABLETRIS_GAMES`` (comma-separated module names) and ``load_plugins`` imports it.
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from types import ModuleType
from typing import Any, Protocol, runtime_checkable

from tabletris.engine import dice, dice_records, dice_rules, tower, tower_records
from tabletris.engine.errors import RulesError
from tabletris.engine.options import options_to_dict, value_choices
from tabletris.engine.texts import N_, Message

Event = dict[str, Any]
"""What a game reports it did, as record data (a dice turn; a tower submission)."""


@runtime_checkable
class Game(Protocol):
    """What the table, the records, the lab, the server and the bots ask of every game.

    Sequential games (dice) have one seat in ``to_act``; simultaneous ones (tower rounds) every
    seat still to submit. Chance (the die) moves in ``advance``, never inside a seat's action,
    so a front end can show a roll before anyone decides. ``apply`` checks everything first: an
    illegal action raises ``IllegalMove`` and leaves the game as it was.
    """

    players: list[str]
    seed: int
    over: bool
    rules: Any
    rules_spec: dict[str, Any]
    viewer: int | None
    """The seat a view was made for (``seat_view``); None in the game itself."""

    def to_act(self) -> list[int]:
        """The seats that must act now; empty while chance is to move or once the game is over."""
        ...

    def advance(self) -> list[Event]:
        """Let chance move if it must (a dice roll); the events it made (a roll that cannot be
        placed ends the game, and is a move of its own)."""
        ...

    def check_can_act(self, seat: int) -> None:
        """``IllegalMove`` in the game's words when ``seat`` may not act now (the game is over,
        another seat's turn, a frozen tower); nothing when it may."""
        ...

    def legal_actions(self, seat: int) -> Sequence[Any]:
        """Every decision ``seat`` may take now (empty when it has none to take)."""
        ...

    def complete(self, action: Any) -> Any:
        """``action`` with what it left open filled in by the rules (the dice game's default
        tokens and rewards); an action that leaves nothing open comes back as it is."""
        ...

    def apply(self, seat: int, action: Any) -> list[Event]:
        """Play ``seat``'s action; the events it made. ``IllegalMove`` changes nothing."""
        ...

    def seat_view(self, seat: int | None, reveal: bool = False) -> Game:
        """A copy with what ``seat`` may see (None: a spectator): no future rolls, no deck order,
        no other seat's pending action. ``reveal`` keeps the hidden order (a measuring bot that
        is handed the deck: the ``oracle``)."""
        ...

    def seat_scores(self) -> list[int]:
        """Each seat's score now."""
        ...

    def winners(self) -> list[int]:
        """The winning seats once the game is over (shared on a tie); empty before."""
        ...

    def turn_key(self) -> Hashable:
        """What names the decision being waited for (a dice turn, a tower round): a late action
        that answers an earlier one is refused, and a turn's deadline is kept per key."""
        ...

    def turns_played(self) -> int:
        """Turns (or rounds) played so far: a game's length, and whether there is anything to save."""
        ...

    def starting_seat(self) -> int:
        """The seat that acted first (the lab measures the first player's edge)."""
        ...

    def summary(self) -> dict[str, Any]:
        """The replay summary of record-format.md (``tabletris replay --json``)."""
        ...


@dataclass(frozen=True)
class GameSpec:
    """One game: its classes and data, and the few operations that differ between games."""

    name: str
    title: str
    """The game's full name (a catalog message): "Dice Tetris"."""
    label: str
    """The game's name in a sentence or a list (a catalog message): "dice"."""
    game_cls: type[Any]
    rules_cls: type[Any]
    presets: Mapping[str, Mapping[str, Any]]
    rule_help: Mapping[str, str]
    min_players: int
    max_players: int
    simultaneous: bool
    """True when every seat acts at once (tower rounds); False for turns in seat order (dice)."""
    rematch_changes: Callable[[Any], dict[str, Any]]
    """The rematch rule: the options the game after ``last`` changes (dice: its loser starts)."""
    rules_paragraphs: tuple[str, ...]
    """The rules in brief, as Markdown paragraphs, each a catalog message (``rules_text``)."""
    write_record: Callable[[Any], dict[str, Any]]
    """The game as a record document (record-format.md)."""
    replay_record: Callable[[Mapping[str, Any]], Any]
    """The game a record document describes, replayed through the engine; ``RecordError``."""
    bots: tuple[str, ...]
    """The bots this game offers, by registry name (``ext`` for outside programs); every front
    end lists these and refuses any other."""
    record_lists: tuple[str, ...] = ()
    """Record keys whose items a written record puts one per line (``records.dumps``)."""
    front_ends: Mapping[str, str] = field(default_factory=dict)
    """Where each front end finds this game's own module, by layer: ``server`` (its
    ``ADAPTER``), ``tui`` (its ``UI``), ``line`` (its ``play``), ``lab`` (a fast playout),
    ``web`` (the view's script, under the server's ``static/``), ``tutorial`` (its guided first
    game's ``SCRIPT``: ``table.tutorial``). A layer without an entry does
    without the game, and says so."""
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
        """Every option with its default and help, and each preset's values (forms use this); a
        string option that takes one of a few values lists them as ``choices`` (its help names
        them: ``value_choices``), for a form's list."""
        defaults = options_to_dict(self.rules_cls())
        options = []
        for k, v in defaults.items():
            if k == "preset":
                continue
            option: dict[str, Any] = {"name": k, "default": v, "help": self.rule_help.get(k, "")}
            choices = value_choices(self.rules_cls, k, option["help"]) if isinstance(v, str) else []
            if choices:
                option["choices"] = choices
            options.append(option)
        return {
            "presets": {name: options_to_dict(self.rules({"preset": name})) for name in self.presets},
            "options": options,
        }

    def next_rules(self, last: Any, rules: Any) -> Any:
        """The rules object of the game after ``last``: ``rules`` with the rematch's changes."""
        return replace(rules, **self.rematch_changes(last))

    def rematch_rules(self, last: Any, raw: Mapping[str, Any]) -> dict[str, Any]:
        """The rules of the game after ``last`` as a rules object (what a room or a form holds):
        ``raw`` with the rematch's changes."""
        return {**raw, **self.rematch_changes(last)}

    def rules_text(self, gettext: Callable[[str], str] = str) -> str:
        """The rules in brief as Markdown, each paragraph through ``gettext`` (a front end's
        ``_``); the default is the English text."""
        return "\n\n".join(gettext(p) for p in self.rules_paragraphs) + "\n"

    def offers(self, bot: str) -> bool:
        """Whether this game offers the bot called ``bot`` (``ext:COMMAND`` when it offers ``ext``)."""
        return bot in self.bots or (bot.startswith("ext:") and "ext" in self.bots)

    def front_end(self, layer: str) -> ModuleType:
        """This game's own module for ``layer`` (``front_ends``); ``LookupError`` naming the game
        and the layer when it has none."""
        path = self.front_ends.get(layer)
        if path is None:
            raise LookupError(f"the {self.name} game has no {layer} front end")
        return importlib.import_module(path)

    def has_front_end(self, layer: str) -> bool:
        return layer in self.front_ends


def _no_changes(last: Any) -> dict[str, Any]:
    return {}


DICE = GameSpec(
    name="dice",
    title=N_("Dice Tetris"),
    label=N_("dice"),
    game_cls=dice.DiceGame,
    rules_cls=dice_rules.DiceRules,
    presets=dice_rules.DICE_PRESETS,
    rule_help=dice_rules.RULE_HELP,
    min_players=1,
    max_players=dice_rules.MAX_PLAYERS,
    simultaneous=False,
    rematch_changes=dice.rematch_changes,
    rules_paragraphs=dice_rules.DICE_PARAGRAPHS,
    write_record=dice_records.dice_record,
    replay_record=dice_records.replay_dice,
    record_lists=dice_records.MOVE_LISTS,
    bots=("random", "greedy", "expert", "mcts", "ext"),
    front_ends={
        "server": "tabletris.server.dice_adapter",
        "tui": "tabletris.tui.dice_screen",
        "line": "tabletris.cli.line_dice",
        "lab": "tabletris.lab.dice_playout",
        "web": "js/views/dice.js",
        "tutorial": "tabletris.table.dice_tutorial",
    },
    preset_help=dice_rules.DICE_PRESET_HELP,
    option_labels=dice_rules.DICE_OPTION_LABELS,
)

TOWER = GameSpec(
    name="tower",
    title=N_("Tower Tetris"),
    label=N_("tower"),
    game_cls=tower.TowerGame,
    rules_cls=tower.TowerRules,
    presets=tower.TOWER_PRESETS,
    rule_help=tower.RULE_HELP,
    min_players=1,
    max_players=tower.MAX_PLAYERS,
    simultaneous=True,
    rematch_changes=_no_changes,
    rules_paragraphs=tower.TOWER_PARAGRAPHS,
    write_record=tower_records.tower_record,
    replay_record=tower_records.replay_tower,
    record_lists=tower_records.MOVE_LISTS,
    bots=("random", "greedy", "expert", "oracle", "ext"),
    front_ends={
        "server": "tabletris.server.tower_adapter",
        "tui": "tabletris.tui.tower_screen",
        "line": "tabletris.cli.line_tower",
        "lab": "tabletris.lab.tower_playout",
        "web": "js/views/tower.js",
        "tutorial": "tabletris.table.tower_tutorial",
    },
    preset_help=tower.TOWER_PRESET_HELP,
    option_labels=tower.TOWER_OPTION_LABELS,
)

GAMES: dict[str, GameSpec] = {}
"""Every game, by the name records and commands use: the one registry (``register``)."""

GAME_NAMES: tuple[str, ...] = ()
"""The product's games, in the order front ends list them (the built-in ones: a plug-in
registered later is in ``GAMES`` but not here, so it reaches only the front ends that ask
``GAMES``)."""


def register(game_spec: GameSpec) -> GameSpec:
    """Add a game to ``GAMES`` (a plug-in or a test's game); ``ValueError`` when its name or its
    game class is taken by another spec."""
    for other in GAMES.values():
        if other.name == game_spec.name and other is not game_spec:
            raise ValueError(f"a game called {game_spec.name!r} is registered already")
        if other.game_cls is game_spec.game_cls and other is not game_spec:
            raise ValueError(f"{game_spec.game_cls.__name__} is the {other.name} game already")
    GAMES[game_spec.name] = game_spec
    return game_spec


def unregister(name: str) -> None:
    """Take a plug-in game out of ``GAMES`` again (a test's game, after the test)."""
    if name in GAME_NAMES:
        raise ValueError(f"the {name} game is built in")
    GAMES.pop(name, None)


register(DICE)
register(TOWER)
GAME_NAMES = tuple(GAMES)


def load_plugins(names: str | None = None) -> list[str]:
    """Import the plug-in game modules: those named in ``names`` (default: ``TABLETRIS_GAMES``,
    comma-separated) and, without ``names``, those an installed package declares in the
    ``tabletris.games`` entry-point group. Each registers its games on import. The modules
    imported. A front end's entry point calls this once (the command line, the server)."""
    raw = os.environ.get("TABLETRIS_GAMES", "") if names is None else names
    modules = [m.strip() for m in raw.split(",") if m.strip()]
    if names is None:
        from importlib.metadata import entry_points

        modules += [ep.value for ep in entry_points(group="tabletris.games")]
    for module in modules:
        importlib.import_module(module)
    return modules


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


__all__ = ["GAMES", "GAME_NAMES", "Event", "Game", "GameSpec", "load_plugins", "register", "spec", "spec_of", "unregister"]
