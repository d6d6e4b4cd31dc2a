"""What the app's shared screens ask of a game: its ``UI``, one per game, in the game's own module.

The engine's ``GameSpec`` names each game's terminal module (``spec.front_end("tui")``: the
dice game's is ``tui.dice_screen``); that module's ``UI`` is a :class:`GameUI`. The app, the
new-game form, the end screen, the replay viewer and the help ask it and the ``Game`` protocol,
never a game's name or class, so a third game brings its own module and no shared file changes.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from rich.console import RenderableType
from textual.screen import Screen
from textual.widget import Widget

from tabletris.engine.games import GAMES, spec, spec_of

if TYPE_CHECKING:
    from tabletris.table.driver import Table
    from tabletris.tui.setup import Setup

SIDE_PANEL = 40
"""Columns of a game screen's side panel (beside the board, a column apart)."""

Keys = tuple[tuple[str, str], ...]
"""A help table: each key and what it does (catalog messages, ``N_``)."""


class ReplayView(Widget):
    """The replay viewer's body for one game, mixed in after a container (``DiceReplay(Horizontal,
    ReplayView)``: Textual takes a widget's default CSS along its first bases). It holds a
    ``Static`` with id ``replay-head``, which the viewer writes (the record's name, the step, the
    end); ``show`` draws the rest for the position after ``position`` steps."""

    def show(self, game: Any, position: int) -> None:
        raise NotImplementedError


@dataclass(frozen=True)
class SeatOption:
    """A rules option the new-game form asks seat by seat (the tower game's ``towers``): a list in
    each seat's row; the rules get one item per seat in use (None where a seat left it ``free``),
    or nothing when no seat chose."""

    name: str
    """The rules option (the record's key)."""
    widget: str
    """Id prefix (``-N`` is the seat) and class of the list in the seat row (``seat-tower``)."""
    choices: Callable[[], list[tuple[str, str]]]
    """Each choice as the player reads it and its value, in the player's language."""
    free: str
    """The value that means "no choice" (the engine decides)."""

    def values(self) -> set[str]:
        return {value for _label, value in self.choices()}


@dataclass(frozen=True)
class GameUI:
    """One game at the terminal: its screen and what the shared screens show of it."""

    label: Callable[[], str]
    """The game's name in the form's list and the replay's head, in the player's language."""
    screen: Callable[[Setup, Table], Screen[None]]
    """The game screen for a table (a ``GameScreen``: it posts ``GameScreen.Ended`` at the end)."""
    needed_size: Callable[[Any], tuple[int, int]]
    """Columns and lines the game needs to be seen whole (``board_and_panel``)."""
    end_layout: Callable[..., Widget]
    """The end screen's container: ``Horizontal`` (the position beside the scores) or ``Vertical``."""
    end_position: Callable[[Any], Widget]
    """The final position on the end screen (a board, a row of towers)."""
    end_result: Callable[[Any], RenderableType]
    """Who won and why, in a sentence or two."""
    end_breakdown: Callable[[Any], RenderableType]
    """Each player's score broken down."""
    replay_view: Callable[[Any, Sequence[Any]], ReplayView]
    """The replay viewer's body for a record's final game and its steps."""
    replay_steps: str
    """The record's key whose items the viewer steps through (``moves``, ``rounds``)."""
    replay_step: str
    """The head's step counter (a catalog message with ``{k}`` and ``{n}``): "move {k}/{n}"."""
    keys: Keys
    """The game screen's keys for the help."""
    keys_note: str = ""
    """A line under the keys (a catalog message), or none."""
    seat_options: tuple[SeatOption, ...] = ()
    """Rules options the new-game form asks seat by seat instead of among the rules."""
    tutorial: str = ""
    """The module of the game's guided first game (its ``TUTORIAL``, a ``tui.tutorial.Tutorial``,
    read by ``tutorial.tutorial_of``: the module builds on the game's screen, so it is imported
    when asked, never by the game's module); empty where it has none."""


def ui_of(game: str) -> GameUI:
    """The terminal UI of the game called ``game`` (its spec's ``tui`` module); ``LookupError``
    when the game has none, ``RulesError`` when there is no such game."""
    ui: GameUI = spec(game).front_end("tui").UI
    return ui


def game_label(game: str) -> str:
    """A game's name as a player reads it (the key stays the name records and commands use): its
    ``GameUI.label``, or the key for a game without a terminal UI."""
    from_registry = GAMES.get(game)
    return ui_of(game).label() if from_registry is not None and from_registry.has_front_end("tui") else game


def ui_of_game(game: Any) -> GameUI:
    """The terminal UI of a game object's game."""
    return ui_of(spec_of(game).name)


def board_and_panel(game: Any, boards: int = 1) -> tuple[int, int]:
    """The size of ``boards`` boards of the game's rules side by side (2 columns a cell, borders,
    a column between) and the side panel, with the footer under them."""
    rules = game.rules
    board_w, board_h = rules.width * 2 + 2, rules.height + 2
    return board_w + SIDE_PANEL + 1 + (board_w + 1) * (boards - 1), board_h + 1


__all__ = ["GameUI", "Keys", "ReplayView", "SeatOption", "board_and_panel", "game_label", "ui_of", "ui_of_game"]
