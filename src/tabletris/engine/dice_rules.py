"""The dice game's rules as options (rules.md section 2): every option, its bounds, its presets and
its help, in one place. ``DiceRules`` is what a record's ``rules`` object reads as; ``dice.py``
plays by it.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from tabletris.engine.board import ACCESS_MODES, Access
from tabletris.engine.errors import RulesError
from tabletris.engine.options import build_options, options_to_dict
from tabletris.engine.shapes import ORIENTATION_MODES, OrientationMode, Shape
from tabletris.engine.texts import N_, Message

CHOICE = "*"
DEFAULT_DIE: tuple[str, ...] = ("I", "O", "T", "S", "L", CHOICE)
MAX_PLAYERS = 8
MAX_COUNT = 2**53 - 1
"""The most a count option (supply, target, garbage) may be: the largest integer a record's JSON
carries exactly to every reader (RFC 7493: JavaScript, the web table's, reads numbers as
doubles). The Python engine honours any count up to it; the compiled kernel, whose counts are
32-bit, leaves larger ones to the Python engine (``fastdice.unsupported``)."""

DICE_PRESETS: dict[str, dict[str, Any]] = {
    "standard": {},
    "long": {"height": 30},
    "clear-rows": {"clear_rows": "cells", "target": 20},
    "clear-stones": {"clear_rows": "stones", "target": 20},
    "must-close": {"must_close": True},
    "penalty": {"stuck_penalty": True},
    "choose": {"row_reward": "choose"},
    "garbage": {"garbage": 6},
    "classic": {
        "orientation": "rotate",
        "access": "drop",
        "die": ("I", "O", "T", "S", "Z", "J", "L"),
    },
}
"""Named rule sets. ``standard``, ``long`` and ``clear-rows`` are required by the record format."""

RECORD_DEFAULTS: dict[str, Any] = {"tokens_from_supply": False}
"""Options a record that does not name them replays with: their values before they existed, so a
record saved by an older release replays exactly as it was played. A new game writes these
options into its record's ``rules`` whatever their value (``DiceGame.rules_spec``)."""

CLEAR_MODES = ("cells", "stones")

RULE_HELP: dict[str, str] = {
    "width": N_("Board width in cells."),
    "height": N_("Board height in cells (the 'long board' house rule: e.g. 30)."),
    "die": N_("The die's faces; '*' lets the player name any shape on the die."),
    "supply": N_("Stones of each shape per player in the shared supply."),
    "orientation": N_("'free': pieces may be turned over (S=Z, J=L); 'rotate': rotations only."),
    "access": N_("'slide': a piece must slide in from the top; 'drop': straight down; 'free': anywhere it rests."),
    "stuck_penalty": N_("The player who cannot place loses 1 point."),
    "rescore_reopened": N_("A row reopened by a removal scores again when completed again."),
    "clear_rows": N_(
        "Completed rows leave the board; first to the target wins. 'cells' (or true): the rows' cells "
        "vanish and everything above falls (computer Tetris); 'stones': every stone with a cell in a "
        "completed row goes back to the supply whole and nothing moves (at a table)."
    ),
    "target": N_("Points that end the game when clear_rows is on."),
    "row_reward": N_("'point': each completed row scores 1; 'choose': a point or remove an opponent's stone."),
    "garbage": N_("Stones placed at random (a number) or at listed cells before the game."),
    "take": N_("With an empty supply, take a stone of the shape from the lowest rows ('lowest') or anywhere ('any')."),
    "unlimited_supply": N_("Never run out of stones (null: only when clear_rows is on)."),
    "first_player": N_("The seat that starts (a match's later games start with the previous loser)."),
    "tokens_from_supply": N_(
        "Each point takes a stone out of the supply as its token (the scorer names the shape; "
        "default: most stones left). A record that does not name it replays with it off."
    ),
    "must_close": N_("If a placement of the rolled piece completes a row, the player must choose one that does."),
}


@dataclass(frozen=True)
class DiceRules:
    """Every option of the dice game; defaults are rules.md's, interpretations included."""

    preset: str = "standard"
    width: int = 10
    height: int = 20
    die: tuple[str, ...] = DEFAULT_DIE
    supply: int = 5
    orientation: str = "free"
    access: str = "slide"
    stuck_penalty: bool = False
    rescore_reopened: bool = False
    clear_rows: Any = False
    """``False``, ``"cells"`` or ``"stones"`` (``True`` is read as ``"cells"``); ``Any`` so that a
    wrong value reaches ``__post_init__``, which names all three."""
    target: int = 20
    row_reward: str = "point"
    garbage: int | tuple[Any, ...] = 0
    take: str = "lowest"
    unlimited_supply: bool | None = None
    first_player: int = 0
    tokens_from_supply: bool = True
    must_close: bool = False

    def __post_init__(self) -> None:
        if self.clear_rows is True:
            object.__setattr__(self, "clear_rows", "cells")
        if not (self.clear_rows is False or self.clear_rows in CLEAR_MODES):
            shown = json.dumps(self.clear_rows) if isinstance(self.clear_rows, str | int | None) else repr(self.clear_rows)
            raise RulesError(
                Message(N_('rules.clear_rows: {value}: expected false, "cells" or "stones" (true means "cells")'), value=shown)
            )
        if not (4 <= self.width <= 40):
            raise RulesError(Message(N_("rules.width: {value} is out of range ({low}-{high})"), value=self.width, low=4, high=40))
        if not (4 <= self.height <= 100):
            raise RulesError(Message(N_("rules.height: {value} is out of range ({low}-{high})"), value=self.height, low=4, high=100))
        if not self.die:
            raise RulesError(Message(N_("rules.die: the die needs at least one face")))
        for face in self.die:
            if face != CHOICE and (face not in Shape.__members__ or face == "M"):
                raise RulesError(Message(N_("rules.die: unknown face {face!r}: expected a tetromino letter or '*'"), face=face))
        if not self.shapes:
            raise RulesError(Message(N_("rules.die: the die needs at least one shape face besides '*'")))
        if self.supply < 0:
            raise RulesError(Message(N_("rules.{option}: {value} is negative"), option="supply", value=self.supply))
        if self.orientation not in ORIENTATION_MODES:
            raise RulesError(Message(N_("rules.orientation: {value!r}: expected 'free' or 'rotate'"), value=self.orientation))
        if self.access not in ACCESS_MODES:
            raise RulesError(Message(N_("rules.access: {value!r}: expected 'slide', 'drop' or 'free'"), value=self.access))
        if self.row_reward not in ("point", "choose"):
            raise RulesError(Message(N_("rules.row_reward: {value!r}: expected 'point' or 'choose'"), value=self.row_reward))
        if self.take not in ("lowest", "any"):
            raise RulesError(Message(N_("rules.take: {value!r}: expected 'lowest' or 'any'"), value=self.take))
        if self.target < 1:
            raise RulesError(Message(N_("rules.target: {value} must be at least 1"), value=self.target))
        if isinstance(self.garbage, int) and self.garbage < 0:
            raise RulesError(Message(N_("rules.{option}: {value} is negative"), option="garbage", value=self.garbage))
        if self.first_player < 0:
            raise RulesError(Message(N_("rules.{option}: {value} is negative"), option="first_player", value=self.first_player))
        garbage = self.garbage if isinstance(self.garbage, int) else 0
        for option, value, low, high in (
            ("supply", self.supply, 0, MAX_COUNT),
            ("target", self.target, 1, MAX_COUNT),
            ("garbage", garbage, 0, MAX_COUNT),
            ("first_player", self.first_player, 0, MAX_PLAYERS - 1),
        ):
            if value > high:
                raise RulesError(Message(
                    N_("rules.{option}: {value} is out of range ({low}-{high})"), option=option, value=value, low=low, high=high
                ))

    @classmethod
    def from_dict(cls, raw: Mapping[str, Any] | None = None) -> DiceRules:
        return build_options(cls, DICE_PRESETS, raw)

    @classmethod
    def preset_named(cls, name: str) -> DiceRules:
        return cls.from_dict({"preset": name})

    def to_dict(self) -> dict[str, Any]:
        return options_to_dict(self)

    # The derived values below are asked on every turn (and hundreds of times per bot decision):
    # computed once per rules object (frozen, so they cannot go stale). ``cached_property``
    # writes the instance's ``__dict__`` directly, which a frozen dataclass allows.
    @cached_property
    def shapes(self) -> tuple[Shape, ...]:
        """The shapes on the die, each once, in die order: what ``*`` may name."""
        seen: list[Shape] = []
        for face in self.die:
            if face != CHOICE and Shape(face) not in seen:
                seen.append(Shape(face))
        return tuple(seen)

    @cached_property
    def face_shapes(self) -> dict[str, tuple[Shape, ...]]:
        """Each face of the die and the shapes it lets the player place (``*``: every shape)."""
        return {face: self.shapes if face == CHOICE else (Shape(face),) for face in self.die}

    @cached_property
    def limited_supply(self) -> bool:
        """Whether stones run out. Clearing ``cells`` cuts stones that cannot go back to the box,
        so its supply is unlimited; clearing ``stones`` returns them whole, so it stays finite."""
        if self.unlimited_supply is not None:
            return not self.unlimited_supply
        return self.clear_rows != "cells"

    @cached_property
    def takes_tokens(self) -> bool:
        """Whether a point takes a stone out of the supply (only a finite supply can give one)."""
        return self.tokens_from_supply and self.limited_supply

    @cached_property
    def orientation_mode(self) -> OrientationMode:
        return "free" if self.orientation == "free" else "rotate"

    @cached_property
    def access_mode(self) -> Access:
        return "drop" if self.access == "drop" else "free" if self.access == "free" else "slide"


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

DICE_PARAGRAPHS: tuple[str, ...] = (
    # The rules in brief, paragraph by paragraph (each its own catalog message): ``GameSpec.rules_text``.
    N_("## The dice game"),
    N_(
        "A shared board (10×20 by default). On your turn the die is rolled and names the piece you place\n"
        "(★ = you name any shape on the die). The piece must **rest** (a cell on the bottom row or right\n"
        "above a stone) and, with access *slide*, be able to slide in from the top through empty cells.\n"
        "Every row your piece completes scores 1 point; a row scores once per game. When the supply has\n"
        "no stone of the shape, you take one of that shape off the board, from the lowest rows, and place\n"
        "it again. The game ends when a rolled shape fits nowhere; most points wins, ties share the win."
    ),
)
