"""``?``: the rules of the game being played, the rules options in force, and the keys.

The option list is generated from the engine's rules object and ``RULE_HELP``, so a new option
shows up here without touching this file; the keys are the game's own (its ``GameUI.keys``).
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
from tabletris.tui.game_ui import Keys, ui_of
from tabletris.tui.texts import N_, TranslatedBindings, _, engine_text

REPLAY_KEYS: Keys = (
    ("← →", N_("one move (or round) back / forward")),
    ("PgUp / PgDn", N_("ten back / forward")),
    ("Home / End", N_("the start / the end of the game")),
    (N_("click a move in the list"), N_("jump to the position after it")),
    ("?", N_("this help · q quit")),
)


def _cell(text: str) -> str:
    return text.replace("|", "/")


def keys_table(title: str, keys: Keys, note: str = "") -> str:
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
        rules = rules_text(self.game_name, engine_text)
        if self.replay:
            keys = keys_table(_("Replay keys"), REPLAY_KEYS)
        else:
            ui = ui_of(self.game_name)
            keys = keys_table(_("Keys"), ui.keys, ui.keys_note)
        parts = [rules + "\n" + keys]
        if self.rules is not None:
            parts.append(rules_table(self.rules, self.help_texts))
        parts.append("*" + _("escape closes this help") + "*")
        with VerticalScroll(id="help-box"):
            yield Markdown("\n".join(parts), id="help-text")

    def action_close(self) -> None:
        self.dismiss(None)
