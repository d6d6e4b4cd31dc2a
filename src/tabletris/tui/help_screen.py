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

from tabletris.engine.rules_text import rules_text
from tabletris.tui.texts import N_, TranslatedBindings, _, engine_text

DICE_KEYS: tuple[tuple[str, str], ...] = (
    ("← → ↑ ↓", N_("move the ghost piece")),
    ("r / e", N_("rotate clockwise / back")),
    ("f", N_("flip (when orientation is free)")),
    (N_("space"), N_("drop the ghost to where it fits in its column")),
    ("] / [", N_("jump to the next / previous place it fits")),
    ("c", N_("change the shape (die shows ★)")),
    ("t", N_("take another stone (supply empty)")),
    (N_("enter, click on the green ghost"), N_("place")),
    (N_("click a cell"), N_("move the ghost there")),
    ("u", N_("undo back to your last move")),
    ("?", N_("this help · n new game · q quit")),
)
DICE_NOTE = N_("Green ghost: legal. Red ghost: not legal, the reason is shown beside the board.")

TOWER_KEYS: tuple[tuple[str, str], ...] = (
    ("← →", N_("move the piece (or the mino)")),
    ("r / e", N_("rotate clockwise / back")),
    ("m", N_("mino mode: drop a mino in the column (enter)")),
    ("h", N_("hold (once per game)")),
    (N_("enter"), N_("drop the PLAY piece (or the mino in mino mode)")),
    (N_("backspace"), N_("take back a mino planned this round")),
    (N_("space"), N_("pass the table to the next player (hot-seat)")),
    ("?", N_("this help · n new game · q quit")),
)

REPLAY_KEYS: tuple[tuple[str, str], ...] = (
    ("← →", N_("one move (or round) back / forward")),
    ("PgUp / PgDn", N_("ten back / forward")),
    ("Home / End", N_("the start / the end of the game")),
    (N_("click a move in the list"), N_("jump to the position after it")),
    ("?", N_("this help · q quit")),
)


def _cell(text: str) -> str:
    return text.replace("|", "/")


def keys_table(title: str, keys: tuple[tuple[str, str], ...], note: str = "") -> str:
    """The keys as a Markdown table in the player's language (the keys themselves stay)."""
    key_heading, does_heading = _("key"), _("does")
    lines = [f"## {title}", "", f"| {key_heading} | {does_heading} |", "| --- | --- |"]
    lines += [f"| {_cell(_(key))} | {_cell(_(does))} |" for key, does in keys]
    if note:
        lines += ["", _(note)]
    return "\n".join(lines) + "\n"


def rules_table(rules: Any, help_texts: dict[str, str]) -> str:
    """The options in force as a Markdown table, each with the engine's one-line explanation."""
    headings = (_("option"), _("value"), _("meaning"))
    lines = ["## " + _("Rules options in force"), "", "| {} | {} | {} |".format(*headings), "| --- | --- | --- |"]
    for f in dataclasses.fields(rules):
        value = getattr(rules, f.name)
        shown = json.dumps(list(value) if isinstance(value, tuple) else value)
        meaning = help_texts.get(f.name, "")
        meaning = engine_text(meaning) if meaning else ""
        lines.append(f"| {f.name} | `{shown}` | {_cell(meaning)} |")
    return "\n".join(lines) + "\n"


class HelpScreen(TranslatedBindings, ModalScreen[None]):
    """Rules, options and keys; any of escape, q or ? closes it."""

    BINDINGS = [
        Binding("escape", "close", N_("Close")),
        Binding("q", "close", N_("Close"), show=False),
        Binding("question_mark", "close", N_("Close"), show=False),
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
        rules = rules_text("dice" if self.game_name == "dice" else "tower", engine_text)
        if self.replay:
            keys = keys_table(_("Replay keys"), REPLAY_KEYS)
        elif self.game_name == "dice":
            keys = keys_table(_("Keys"), DICE_KEYS, DICE_NOTE)
        else:
            keys = keys_table(_("Keys"), TOWER_KEYS)
        parts = [rules + "\n" + keys]
        if self.rules is not None:
            parts.append(rules_table(self.rules, self.help_texts))
        parts.append("*" + _("escape closes this help") + "*")
        with VerticalScroll(id="help-box"):
            yield Markdown("\n".join(parts), id="help-text")

    def action_close(self) -> None:
        self.dismiss(None)
