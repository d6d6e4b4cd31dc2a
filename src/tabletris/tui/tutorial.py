"""A guided first game at the terminal, shared by every game that has one (``GameUI.tutorial``).

The script (its seeded game, its steps and how each is checked on the engine's state) is the
table layer's (``table.tutorial``), shared with the browser; the terminal adds its screen, the
panel that shows the step, and each step's keys (a step's words name none). The game's module
holds its screen and keys (``tui.dice_tutorial``); this one what they share.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual.widgets import Static

from tabletris.table.seats import SeatSpec
from tabletris.table.tutorial import Guide, Script
from tabletris.tui import palette
from tabletris.tui.setup import Setup
from tabletris.tui.texts import _, engine_text

if TYPE_CHECKING:
    from textual.screen import Screen

    from tabletris.table.driver import Table
    from tabletris.tui.game_ui import GameUI


@dataclass(frozen=True)
class Tutorial:
    """A game's guided first game at the terminal: the shared script, the screen, the keys."""

    script: Script
    screen: Callable[[Setup, Table, Tutorial], Screen[None]]
    """The game's screen with the guide's panel."""
    keys: Mapping[str, str] = field(default_factory=dict)
    """Each step's keys, by the step's name (catalog messages of the terminal's own)."""
    last_word: str = ""
    """What the keys do once the game is over (a catalog message), after the script's ending."""

    def setup(self) -> Setup:
        """The seeded game as the app's setups say it (its seat named in the player's language)."""
        return Setup(self.script.game, [SeatSpec("human", _("You"))], dict(self.script.rules), self.script.seed)

    def new_game(self, setup: Setup) -> Any:
        return self.script.new_game(setup.seats[0].name)


def tutorial_of(ui: GameUI) -> Tutorial | None:
    """A game's guided first game (the ``TUTORIAL`` of its ``GameUI.tutorial`` module), or None."""
    if not ui.tutorial:
        return None
    tutorial: Tutorial = importlib.import_module(ui.tutorial).TUTORIAL
    return tutorial


def render_guide(guide: Guide, tutorial: Tutorial, result: str = "") -> Text:
    """The panel's words: the step (and its keys), and the praise for the last move; once the
    game is over, the ending with ``result`` (the screen's reading of the end)."""
    total = guide.count
    text = Text()
    head = _("Tutorial: done") if guide.finished else _("Tutorial: step {k} of {n}").format(k=guide.index + 1, n=total)
    text.append(head, style=f"bold {palette.HIGHLIGHT}")
    text.append("\n")
    if guide.finished:
        ending = engine_text(tutorial.script.ending).format(result=result).strip()
        text.append(" ".join(part for part in (ending, _(tutorial.last_word) if tutorial.last_word else "") if part), style=f"italic {palette.GOOD}")
        return text
    text.append(engine_text(guide.step.text))
    keys = tutorial.keys.get(guide.step.name)
    if keys:
        text.append("\n")
        text.append(_(keys), style="dim")
    if guide.note and guide.kept:  # a move taken back is said on the screen's message line
        text.append("\n")
        text.append(engine_text(guide.note), style=f"italic {palette.GOOD}")
    return text


class TutorialPanel(Static):
    """The guide's words above the game: the step, and the last word on a move."""

    DEFAULT_CSS = """
    TutorialPanel {
        height: auto;
        border: round $accent;
        padding: 0 1;
    }
    """

    def show(self, guide: Guide, tutorial: Tutorial, result: str = "") -> None:
        self.update(render_guide(guide, tutorial, result))


__all__ = ["Tutorial", "TutorialPanel", "render_guide", "tutorial_of"]
