"""A guided first game, shared by every game that has one (``GameUI.tutorial``).

A tutorial is a seeded game on the game's own engine and screen, with a panel that says what to
do next. Each step is checked on the game's state after the player's move (the engine applied
it and said what happened: a row completed, a stone taken); the tutorial never decides what is
legal. A step may ask for a move to be taken back (``retry``): the engine's own undo, and the
same roll again. The game's module holds its script (``tui.dice_tutorial``); this one holds what
every script shares: the steps, the guide that walks them and the panel that shows them.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual.widgets import Static

from tabletris.tui import palette
from tabletris.tui.texts import _

if TYPE_CHECKING:
    from textual.screen import Screen

    from tabletris.table.driver import Table
    from tabletris.tui.game_ui import GameUI
    from tabletris.tui.setup import Setup


@dataclass(frozen=True)
class Step:
    """One thing to learn: what to do (a catalog message, ``N_``) and how the game shows it done."""

    text: str
    """What to do, in a sentence or two."""
    done: Callable[[Any, Any], bool]
    """Whether the player's last move reached the step: the game after it and what ``capture``
    read before it."""
    retry: str = ""
    """When set (a catalog message), a move that does not reach the step is taken back and this
    says why; otherwise the game goes on and the step waits for a later move."""
    praise: str = ""
    """Said when the step is reached (a catalog message), or nothing."""


@dataclass(frozen=True)
class Tutorial:
    """A game's guided first game: where it starts, its steps, and the screen that plays it."""

    setup: Callable[[], Setup]
    """The seeded game it plays (its seats named in the player's language)."""
    steps: tuple[Step, ...]
    capture: Callable[[Any], Any]
    """What a step compares the game with after a move (scores, tokens, moves), read before it."""
    screen: Callable[[Setup, Table, Tutorial], Screen[None]]
    """The game's screen with the guide's panel."""
    ending: str
    """The last word (a catalog message with ``{result}``: the engine's reading of the end)."""


def tutorial_of(ui: GameUI) -> Tutorial | None:
    """A game's guided first game (the ``TUTORIAL`` of its ``GameUI.tutorial`` module), or None."""
    if not ui.tutorial:
        return None
    tutorial: Tutorial = importlib.import_module(ui.tutorial).TUTORIAL
    return tutorial


class Guide:
    """Walks a tutorial's steps as the game goes: ``index`` is the step shown."""

    def __init__(self, tutorial: Tutorial) -> None:
        self.tutorial = tutorial
        self.index = 0
        self.note = ""
        """The last word on a move: praise, or why it was taken back."""
        self.finished = False
        self._reached: list[tuple[int, int]] = []
        """Each step reached and the number of moves the game had then, for ``rewind``."""

    @property
    def step(self) -> Step:
        return self.tutorial.steps[min(self.index, len(self.tutorial.steps) - 1)]

    def judge(self, game: Any, before: Any, moves: int) -> bool:
        """After a move (the game has ``moves`` now): go on when it reached the step; False when
        the step wants it taken back."""
        step = self.step
        if step.done(game, before):
            self.note = _(step.praise) if step.praise else ""
            self._reached.append((moves, self.index))
            self.index = min(self.index + 1, len(self.tutorial.steps) - 1)
            return True
        if step.retry:
            self.note = _(step.retry)
            return False
        self.note = ""
        return True

    def rewind(self, moves: int) -> None:
        """The player took moves back (the game has ``moves`` now): the steps those moves reached
        are to do again."""
        while self._reached and self._reached[-1][0] > moves:
            self.index = self._reached.pop()[1]
            self.note = ""
        self.finished = False

    def finish(self, result: str) -> None:
        """The game is over (the engine ended it): the last step is done, whatever came before."""
        self.index = len(self.tutorial.steps) - 1
        self.finished = True
        self.note = _(self.tutorial.ending).format(result=result)

    def render(self) -> Text:
        total = len(self.tutorial.steps)
        text = Text()
        head = _("Tutorial: done") if self.finished else _("Tutorial: step {k} of {n}").format(k=self.index + 1, n=total)
        text.append(head, style=f"bold {palette.HIGHLIGHT}")
        text.append("\n")
        if not self.finished:
            text.append(_(self.step.text))
        if self.note:
            if not self.finished:
                text.append("\n")
            text.append(self.note, style=f"italic {palette.GOOD}")
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

    def show(self, guide: Guide) -> None:
        self.update(guide.render())


__all__ = ["Guide", "Step", "Tutorial", "TutorialPanel", "tutorial_of"]
