"""What the line-based games share: reading a line, stopping, and starting and saving a game.

``play_dice`` and ``play_tower`` differ only in their game and their turn loop; everything around
that loop (bad options, the title, quitting, the record) is here, once.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Generic, TypeVar

from rich.console import Console
from rich.text import Text

from tabletris.bots.base import Bot
from tabletris.engine import records
from tabletris.engine.dice import DiceGame
from tabletris.engine.options import RulesError
from tabletris.engine.records import record_of
from tabletris.engine.shapes import Orientation
from tabletris.engine.tower import TowerGame
from tabletris.i18n import N_, _, translate
from tabletris.table.driver import Table
from tabletris.table.saving import save_record
from tabletris.table.seats import SeatSpec, make_seat_bots

EXIT_INPUT_ENDED = 1
"""Exit status when the input ends mid-game: the game was not finished, so a script that feeds
line mode can tell a finished game (0) from one its input cut short."""
EXIT_INTERRUPTED = 130
"""Exit status after Ctrl-C: 128 + SIGINT, as shells report an interrupted program."""


class QuitGame(Exception):
    """The player typed quit (exit status 0) or the input ended (``EXIT_INPUT_ENDED``)."""

    def __init__(self, reason: str, status: int = 0) -> None:
        super().__init__(reason)
        self.status = status


G = TypeVar("G", DiceGame, TowerGame)


class LineGame(Generic[G]):
    """One game at the terminal; ``ask`` reads a line (stdin by default). Subclasses add ``run``."""

    def __init__(
        self,
        game: G,
        seats: Sequence[SeatSpec],
        bots: dict[int, Bot],
        console: Console,
        color: bool = True,
        ask: Callable[[str], str] = input,
    ) -> None:
        self.game: G = game
        self.seats = list(seats)
        self.bots = bots
        self.table = Table(game, bots)
        """The turn driver: who acts now (it rolls the die), the bots' actions, applying moves."""
        self.console = console
        self.color = color
        self._ask = ask

    def ask(self, prompt: str) -> str:
        """A stripped line; QuitGame on ``quit`` or at the end of the input."""
        try:
            line = self._ask(prompt)
        except EOFError:
            raise QuitGame(N_("input ended"), EXIT_INPUT_ENDED) from None
        line = line.strip()
        if line.lower() in ("quit", "exit", "q"):
            raise QuitGame(N_("quit"))
        return line

    def say(self, message: str, style: str = "", soft_wrap: bool = False) -> None:
        """Print a line; ``soft_wrap`` leaves a long one to the terminal (Rich would break it)."""
        self.console.print(Text(message, style=style if self.color else ""), soft_wrap=soft_wrap)

    def run(self) -> None:
        raise NotImplementedError


def orientation_picture(o: Orientation) -> list[str]:
    """A piece's form as rows of ``#`` and ``.``, top row first."""
    cells = set(o.cells)
    return ["".join("#" if (x, y) in cells else "." for x in range(o.width)) for y in range(o.height - 1, -1, -1)]


def play_line_game(
    title: str,
    new_game: Callable[[list[str], dict[str, Any] | None, int | None], G],
    line_class: Callable[..., LineGame[G]],
    seats: Sequence[SeatSpec],
    rules: dict[str, Any],
    seed: int | None,
    save: Path | None,
    color: bool = True,
    ask: Callable[[str], str] = input,
    console: Console | None = None,
    intro: Callable[[G], list[str]] = lambda game: [],
) -> int:
    """Play one game; the exit code: 0 played to the end or stopped with ``quit``, 2 bad
    options, ``EXIT_INPUT_ENDED`` when the input ends mid-game, ``EXIT_INTERRUPTED`` after Ctrl-C.
    The record is saved with ``save`` even when the game stops early, never over another file.
    """
    console = console or Console(no_color=not color, highlight=False)
    style = (lambda s: s) if color else (lambda s: "")
    try:
        game = new_game([s.name for s in seats], rules or None, seed)
        bots = make_seat_bots(seats, game.seed)
    except (RulesError, ValueError) as e:
        console.print(Text(_("error: {error}").format(error=translate(e)), style=style("red")))
        return 2
    names = ", ".join(f"{s.name} ({s.kind})" for s in seats)
    console.print(Text(_("{title} — {players} — seed {seed}").format(title=title, players=names, seed=game.seed), style=style("bold")))
    for line in intro(game):
        console.print(Text(line, style=style("dim")))
    status = 0
    try:
        line_class(game, seats, bots, console, color=color, ask=ask).run()
    except QuitGame as e:
        console.print(Text("\n" + _("Stopped ({reason}).").format(reason=_(str(e))), style=style("yellow")))
        status = e.status
    except KeyboardInterrupt:
        console.print(Text("\n" + _("Stopped."), style=style("yellow")))
        status = EXIT_INTERRUPTED
    if save is not None:
        try:
            saved = save_record(record_of(game), save)
        except OSError as e:
            # The path was checked before the game; if it broke since, the record still goes out.
            console.print(
                Text(_("error: cannot save the record to {path}: {error}").format(path=save, error=e), style=style("red")), soft_wrap=True
            )
            console.print(records.dumps(record_of(game)), markup=False, highlight=False, soft_wrap=True)
            return status or 1
        console.print(Text(_("Record saved to {path}").format(path=saved), style=style("dim")))
    return status
