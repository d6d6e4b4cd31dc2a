"""What the app's shared screens show of the dice game: its keys in the help, its final board, and
its replay (the board after each move, the scores and the move list)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widget import Widget
from textual.widgets import Static

from tabletris.tui import palette
from tabletris.tui.game_ui import Keys, ReplayView
from tabletris.tui.replay_screen import ReplayLog
from tabletris.tui.texts import N_, _, pad
from tabletris.tui.widgets.board import BoardView
from tabletris.tui.widgets.pieces import format_cells_short, shape_letter

DICE_KEYS: Keys = (
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


def dice_end_position(game: Any) -> Widget:
    return BoardView(game.board, id="end-board")


class DiceReplay(Horizontal, ReplayView):
    """The board after the shown move (its stones marked), the scores, and every move in a list
    that a click jumps in (``ReplayLog``)."""

    def __init__(self, final: Any, steps: Sequence[Mapping[str, Any]]) -> None:
        super().__init__(id="replay-main")
        self.final = final
        self.steps = steps

    def compose(self) -> ComposeResult:
        yield BoardView(self.final.board, id="replay-board")
        with Vertical(id="replay-side"):
            yield Static(id="replay-head")
            yield Static(id="replay-scores")
            with VerticalScroll(id="log-box"):
                yield ReplayLog(id="replay-log")

    def show(self, game: Any, position: int) -> None:
        board = self.query_one("#replay-board", BoardView)
        last = game.moves[-1] if game.moves else None
        board.border_title = _("replay")
        board.show(game.board, ghost=(), highlight=last.place if last and last.place else ())
        self.query_one("#replay-scores", Static).update(self.score_lines(game))
        self.query_one("#replay-log", Static).update(self.move_list(position))

    def score_lines(self, game: Any) -> Text:
        text = Text()
        winners = set(game.winners())
        for seat, player in enumerate(game.players):
            text.append(f"{palette.seat_mark(seat)} {player}", f"bold {palette.seat_colour(seat)}")
            text.append(f"  {game.scores[seat]}", "bold")
            if seat in winners:
                text.append("  ★", f"bold {palette.HIGHLIGHT}")
            text.append("\n")
        return text

    def move_list(self, position: int) -> Text:
        text = Text(no_wrap=True, overflow="ellipsis")
        players = self.final.players
        for i, move in enumerate(self.steps):
            current = i == position - 1
            text.append("▶" if current else " ", f"bold {palette.HIGHLIGHT}")
            text.append(f"{i + 1:>3} ", "bold" if current else "dim")
            seat = move.get("player", (self.final.rules.first_player + i) % len(players))
            text.append(pad(players[seat], 10) + " ", palette.seat_colour(seat))
            text.append_text(shape_letter(move["roll"]))
            if "shape" in move:
                text.append("→")
                text.append_text(shape_letter(move["shape"]))
            if "place" in move:
                text.append(f" {format_cells_short(move['place'])}", "" if current else "dim")
            else:
                text.append("  " + _("fits nowhere: end"), palette.BAD)
            text.append("\n")
        return text


__all__ = ["DICE_KEYS", "DICE_NOTE", "DiceReplay", "dice_end_position"]
