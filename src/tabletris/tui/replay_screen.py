"""The replay viewer: step through a record move by move (dice) or round by round (tower).

Position k is the record's first k moves (or rounds) replayed through ``records.replay`` into a
fresh game, so what is shown is exactly what the engine makes of the record.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rich.text import Text
from textual import events, on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, HorizontalScroll, Vertical, VerticalScroll
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Footer, Static

from tabletris.engine import records
from tabletris.engine.errors import RecordError
from tabletris.tui import palette
from tabletris.tui.setup import game_label
from tabletris.tui.texts import N_, TranslatedBindings, _, engine_text, pad
from tabletris.tui.widgets.board import BoardView
from tabletris.tui.widgets.pieces import format_cells_short, shape_letter
from tabletris.tui.widgets.tower import tower_reveal, tower_score_line


class ReplayLog(Static):
    """The move list, one line a move; a click on a line says which move it was."""

    class MoveClicked(Message):
        def __init__(self, index: int) -> None:
            super().__init__()
            self.index = index

    def on_click(self, event: events.Click) -> None:
        offset = event.get_content_offset(self)
        if offset is not None:
            event.stop()
            self.post_message(self.MoveClicked(offset.y))


class ReplayScreen(TranslatedBindings, Screen[None]):
    """← → step, home/end jump, q quits; the final position is ``records.replay`` of the record."""

    # priority: a focused scroll box (the move list) would take these keys for scrolling
    BINDINGS = [
        Binding("left", "step(-1)", N_("Back"), priority=True),
        Binding("right", "step(1)", N_("Forward"), priority=True),
        Binding("pageup", "step(-10)", "−10", priority=True),
        Binding("pagedown", "step(10)", "+10", priority=True),
        Binding("home", "jump(0)", N_("Start"), priority=True),
        Binding("end", "jump(-1)", N_("End"), priority=True),
        Binding("question_mark", "app.help", N_("Help")),
        Binding("q", "app.quit", N_("Quit")),
    ]

    def __init__(self, doc: dict[str, Any], path: Path | None = None) -> None:
        super().__init__()
        self.doc = doc
        self.path = path
        self.kind = str(doc.get("game"))
        self.key = "moves" if self.kind == "dice" else "rounds"
        self.steps: list[Any] = list(doc.get(self.key, []))
        self.final = records.replay(doc)  # raises RecordError for a record that breaks a rule
        self.position = len(self.steps)
        self._cache: dict[int, Any] = {len(self.steps): self.final}

    @classmethod
    def from_path(cls, path: Path) -> ReplayScreen:
        """A viewer for the record at ``path``; RecordError (naming the fault) if it cannot replay."""
        doc = records.load(Path(path))
        records.check_common(doc)
        return cls(doc, Path(path))

    def game_at(self, k: int) -> Any:
        """The game after the first ``k`` steps of the record."""
        if k not in self._cache:
            self._cache[k] = records.replay({**self.doc, self.key: self.steps[:k]})
        return self._cache[k]

    def compose(self) -> ComposeResult:
        if self.kind == "dice":
            with Horizontal(id="replay-main"):
                yield BoardView(self.final.board, id="replay-board")
                with Vertical(id="replay-side"):
                    yield Static(id="replay-head")
                    yield Static(id="replay-scores")
                    with VerticalScroll(id="log-box"):
                        yield ReplayLog(id="replay-log")
        else:
            with Vertical(id="replay-main"):
                yield Static(id="replay-head")
                yield HorizontalScroll(id="reveal")
                yield Static(id="replay-scores")
        yield Footer()

    def on_mount(self) -> None:
        self.show_position()

    @on(ReplayLog.MoveClicked)
    def move_clicked(self, event: ReplayLog.MoveClicked) -> None:
        """A click on move k of the list shows the position after it."""
        self.action_jump(min(event.index + 1, len(self.steps)))

    def action_step(self, delta: int) -> None:
        self.position = max(0, min(len(self.steps), self.position + delta))
        self.show_position()

    def action_jump(self, where: int) -> None:
        self.position = len(self.steps) if where < 0 else max(0, min(where, len(self.steps)))
        self.show_position()

    def show_position(self) -> None:
        try:
            game = self.game_at(self.position)
        except RecordError as e:  # cannot happen for a record that replays in full; say so if it does
            self.query_one("#replay-head", Static).update(Text(_("error: {error}").format(error=engine_text(e)), "bold red"))
            return
        name = self.path.name if self.path else _("record")
        head = Text()
        head.append(f"{name}", "bold")
        step = _("move {k}/{n}") if self.kind == "dice" else _("round {k}/{n}")
        head.append(f"  {game_label(self.kind)} · " + step.format(k=self.position, n=len(self.steps)))
        if game.over:
            head.append("  · " + _("game over"), f"bold {palette.HIGHLIGHT}")
        self.query_one("#replay-head", Static).update(head)
        if self.kind == "dice":
            board = self.query_one("#replay-board", BoardView)
            last = game.moves[-1] if game.moves else None
            board.border_title = _("replay")
            board.show(game.board, ghost=(), highlight=last.place if last and last.place else ())
            self.query_one("#replay-scores", Static).update(self.dice_scores(game))
            self.query_one("#replay-log", Static).update(self.dice_log())
        else:
            reveal = self.query_one("#reveal", HorizontalScroll)
            reveal.remove_children()
            reveal.mount_all(list(tower_reveal(game)))
            self.query_one("#replay-scores", Static).update(tower_score_line(game))

    def dice_scores(self, game: Any) -> Text:
        text = Text()
        winners = set(game.winners())
        for seat, player in enumerate(game.players):
            text.append(f"{palette.seat_mark(seat)} {player}", f"bold {palette.seat_colour(seat)}")
            text.append(f"  {game.scores[seat]}", "bold")
            if seat in winners:
                text.append("  ★", f"bold {palette.HIGHLIGHT}")
            text.append("\n")
        return text

    def dice_log(self) -> Text:
        text = Text(no_wrap=True, overflow="ellipsis")
        players = self.final.players
        for i, move in enumerate(self.steps):
            current = i == self.position - 1
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
