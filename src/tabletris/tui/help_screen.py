"""``?``: the rules of the game being played, the rules options in force, and the keys.

The option list is generated from the engine's rules object and ``RULE_HELP``, so a new option
shows up here without touching this file.
"""

from __future__ import annotations

import dataclasses
import json
from typing import Any

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Markdown

from tabletris.engine.rules_text import DICE_RULES, TOWER_RULES

DICE_KEYS = """\
## Keys

| key | does |
| --- | --- |
| ← → ↑ ↓ | move the ghost piece |
| r / e | rotate clockwise / back |
| f | flip (when orientation is free) |
| space | drop the ghost to where it fits in its column |
| ] / [ | jump to the next / previous place it fits |
| c | change the shape (die shows ★) |
| t | take another stone (supply empty) |
| enter, click on the green ghost | place |
| click a cell | move the ghost there |
| u | undo back to your last move |
| ? | this help · n new game · q quit |

Green ghost: legal. Red ghost: not legal, the reason is shown beside the board.
"""

TOWER_KEYS = """\
## Keys

| key | does |
| --- | --- |
| ← → | move the piece (or the mino) |
| r / e | rotate clockwise / back |
| m | mino mode: drop a mino in the column (enter) |
| h | hold (once per game) |
| enter | drop the PLAY piece (or the mino in mino mode) |
| backspace | take back a mino planned this round |
| space | pass the table to the next player (hot-seat) |
| ? | this help · n new game · q quit |
"""


REPLAY_KEYS = """\
## Replay keys

| key | does |
| --- | --- |
| ← → | one move (or round) back / forward |
| PgUp / PgDn | ten back / forward |
| Home / End | the start / the end of the game |
| click a move in the list | jump to the position after it |
| ? | this help · q quit |
"""


def rules_table(rules: Any, help_texts: dict[str, str]) -> str:
    """The options in force as a Markdown table, each with the engine's one-line explanation."""
    lines = ["## Rules options in force", "", "| option | value | meaning |", "| --- | --- | --- |"]
    for f in dataclasses.fields(rules):
        value = getattr(rules, f.name)
        shown = json.dumps(list(value) if isinstance(value, tuple) else value)
        meaning = help_texts.get(f.name, "")
        lines.append(f"| {f.name} | `{shown}` | {meaning.replace('|', '/')} |")
    return "\n".join(lines) + "\n"


class HelpScreen(ModalScreen[None]):
    """Rules, options and keys; any of escape, q or ? closes it."""

    BINDINGS = [
        Binding("escape", "close", "Close"),
        Binding("q", "close", "Close", show=False),
        Binding("question_mark", "close", "Close", show=False),
    ]

    def __init__(
        self, game_name: str, rules: Any = None, help_texts: dict[str, str] | None = None, *, replay: bool = False
    ) -> None:
        super().__init__()
        self.replay = replay
        """True over the replay viewer: its keys replace the playing keys."""
        self.game_name = game_name
        self.rules = rules
        self.help_texts = help_texts or {}

    def compose(self) -> ComposeResult:
        rules_text = DICE_RULES if self.game_name == "dice" else TOWER_RULES
        keys = REPLAY_KEYS if self.replay else DICE_KEYS if self.game_name == "dice" else TOWER_KEYS
        parts = [rules_text + "\n" + keys]
        if self.rules is not None:
            parts.append(rules_table(self.rules, self.help_texts))
        parts.append("*escape closes this help*")
        with VerticalScroll(id="help-box"):
            yield Markdown("\n".join(parts), id="help-text")

    def action_close(self) -> None:
        self.dismiss(None)
