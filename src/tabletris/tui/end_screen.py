"""The end of a game: the final position, each player's score broken down, rematch and save.

The numbers come from the engine (``DiceGame.scores``/``rows_completed``/``winners``,
``TowerGame.score``/``winners``); this screen only lays them out.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, HorizontalScroll, Vertical, VerticalScroll
from textual.screen import Screen
from textual.widgets import Footer, Static

from tabletris.engine import records
from tabletris.engine.records import record_of
from tabletris.tui import palette
from tabletris.tui.board_view import BoardView
from tabletris.tui.setup import Setup


def default_record_path(game: Any) -> Path:
    """Where a record goes when no ``--save`` path was given: the current directory."""
    name = "dice" if hasattr(game, "roll_face") else "tower"
    return Path.cwd() / f"tabletris-{name}-{game.seed}.json"


def save_record(game: Any, path: Path) -> Path:
    """Write ``game``'s record to ``path`` (format tabletris/1); OSError passes through."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(records.dumps(record_of(game)), encoding="utf-8")
    return path


def dice_breakdown_rows(game: Any) -> list[dict[str, Any]]:
    """Per player: rows completed, the stuck penalty, the total and whether they won."""
    winners = set(game.winners())
    return [
        {
            "name": name,
            "rows": game.rows_completed[seat],
            "penalty": -1 if game.rules.stuck_penalty and game.stuck == seat else 0,
            "total": game.scores[seat],
            "winner": seat in winners,
        }
        for seat, name in enumerate(game.players)
    ]


def dice_breakdown(game: Any) -> Table:
    """Rows completed, the stuck penalty and the total per player of a dice game."""
    table = Table(title="Final score", expand=False, header_style="bold", title_style="bold")
    table.add_column("", no_wrap=True)
    table.add_column("player", no_wrap=True)
    table.add_column("rows", justify="right")
    table.add_column("penalty", justify="right")
    table.add_column("total", justify="right", style="bold")
    for seat, row in enumerate(dice_breakdown_rows(game)):
        table.add_row(
            Text("★ winner" if row["winner"] else "", "bold #feca57"),
            Text(row["name"], f"bold {palette.seat_colour(seat)}"),
            str(row["rows"]),
            str(row["penalty"]) if row["penalty"] else "",
            str(row["total"]),
        )
    return table


def dice_ending(game: Any) -> Text:
    text = Text()
    if game.stuck is not None:
        text.append(
            f"{game.players[game.stuck]} rolled {game.moves[-1].roll}, which fits nowhere: the game ends.\n"
        )
    elif game.rules.clear_rows:
        text.append(f"A player reached the target of {game.rules.target} points.\n")
    winners = game.winners()
    names = ", ".join(game.players[i] for i in winners)
    if len(winners) > 1:
        text.append(f"Shared win: {names} (equal points share the win).", "bold #feca57")
    else:
        text.append(f"{names} wins.", "bold #feca57")
    return text


class EndScreen(Screen[None]):
    """Final position and breakdown; ``r`` rematch, ``s`` save the record, ``n`` new game."""

    BINDINGS = [
        Binding("r", "rematch", "Rematch"),
        Binding("s", "save", "Save record"),
        Binding("n", "app.new_game", "New game"),
        Binding("question_mark", "app.help", "Help"),
        Binding("q", "app.quit", "Quit"),
    ]

    def __init__(self, setup: Setup, game: Any) -> None:
        super().__init__()
        self.setup = setup
        self.game = game
        self.saved: Path | None = None

    def compose(self) -> ComposeResult:
        if hasattr(self.game, "roll_face"):
            with Horizontal(id="end-main"):
                yield BoardView(self.game.board, id="end-board")
                with VerticalScroll(id="end-side"):
                    yield Static(dice_ending(self.game), id="end-result")
                    yield Static(dice_breakdown(self.game), id="breakdown")
                    yield Static(id="end-message")
        else:
            from tabletris.tui.tower_screen import tower_breakdown, tower_ending, tower_reveal

            with Vertical(id="end-main"):
                with HorizontalScroll(id="reveal"):
                    yield from tower_reveal(self.game)
                with VerticalScroll(id="end-side"):
                    yield Static(tower_ending(self.game), id="end-result")
                    yield Static(tower_breakdown(self.game), id="breakdown")
                    yield Static(id="end-message")
        yield Footer()

    def on_mount(self) -> None:
        for board in self.query(BoardView):
            board.border_title = board.border_title or "final board"
        if self.setup.save is not None:
            self.action_save()

    def action_save(self) -> None:
        path = self.setup.save or default_record_path(self.game)
        message = self.query_one("#end-message", Static)
        try:
            self.saved = save_record(self.game, path)
        except OSError as e:
            message.update(Text(f"Could not save the record to {path}: {e.strerror}", "bold #ff6b6b"))
            return
        message.update(Text(f"Record saved to {self.saved}", "#9fd3ff"))

    def action_rematch(self) -> None:
        self.app.rematch(self.setup)  # type: ignore[attr-defined]
