"""The app's dialogs: hot-seat curtain and reveal, the reward choice, leaving a game."""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual import events, on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import HorizontalScroll, Vertical
from textual.screen import ModalScreen
from textual.widgets import Footer, Static

from tabletris.engine.board import Board, Stone
from tabletris.engine.dice import DiceAction, DiceGame
from tabletris.engine.shapes import Shape
from tabletris.engine.tower import TowerGame
from tabletris.tui import palette
from tabletris.tui.texts import N_, TranslatedBindings, _, ngettext, styled
from tabletris.tui.widgets.board import BoardView
from tabletris.tui.widgets.pieces import format_cells_short, shape_letter
from tabletris.tui.widgets.tower import tower_reveal


class CurtainScreen(TranslatedBindings, ModalScreen[None]):
    """Hot-seat privacy: covers the table until the named player is the one looking."""

    BINDINGS = [Binding("space", "go", N_("I am here")), Binding("enter", "go", N_("I am here"), show=False)]

    def __init__(self, text: Text) -> None:
        super().__init__(classes="curtain-screen")
        self.text = text

    def compose(self) -> ComposeResult:
        with Vertical(id="curtain"):
            yield Static(self.text, id="curtain-text")
        yield Footer()

    def on_click(self) -> None:
        """A click anywhere lifts the curtain too (a mouse or a touch terminal has no space bar to hand)."""
        self.action_go()

    def action_go(self) -> None:
        self.dismiss(None)


class RevealScreen(TranslatedBindings, ModalScreen[None]):
    """After a hot-seat round: all towers side by side, and what each player did."""

    BINDINGS = [Binding("space", "go", N_("Continue")), Binding("enter", "go", N_("Continue"), show=False)]

    def __init__(self, game: TowerGame, summary: Text) -> None:
        super().__init__(classes="reveal-screen")
        self.game = game
        self.summary = summary

    def compose(self) -> ComposeResult:
        with Vertical(id="curtain"):
            with HorizontalScroll(id="reveal"):
                yield from tower_reveal(self.game)
            yield Static(self.summary, id="reveal-summary")
        yield Footer()

    def action_go(self) -> None:
        self.dismiss(None)


Reward = str | tuple[tuple[int, int], ...]


class RewardScreen(TranslatedBindings, ModalScreen[tuple[Reward, ...] | None]):
    """``row_reward: choose``: for each scored row, the point or another player's stone to remove.

    The board is shown as it lies once the piece is placed, every stone that may be removed is
    marked, and the cursor (arrows, tab) or a click picks one; ``p`` takes the point instead.
    """

    BINDINGS = [
        Binding("right,down,tab", "cursor(1)", N_("Next stone")),
        Binding("left,up,shift+tab", "cursor(-1)", N_("Previous"), show=False),
        Binding("enter", "remove", N_("Remove it")),
        Binding("p", "point", N_("Take the point")),
        Binding("escape", "cancel", N_("Back")),
    ]

    def __init__(self, rows: int, board: Board, stones: list[Stone], players: list[str]) -> None:
        super().__init__()
        self.rows = rows
        self.board = board
        self.stones = stones
        self.players = players
        self.chosen: list[Reward] = []
        self.cursor = 0

    def compose(self) -> ComposeResult:
        with Vertical(id="reward-box"):
            yield Static(id="reward-title")
            yield BoardView(self.board, id="reward-board")
            yield Static(id="reward-choice")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#reward-board", BoardView).border_title = _("after your piece")
        self._show()

    def available(self) -> list[Stone]:
        """The candidate stones not already chosen for an earlier row."""
        taken = {c for r in self.chosen if not isinstance(r, str) for c in r}
        return [s for s in self.stones if not set(s.cells) & taken]

    @property
    def current(self) -> Stone | None:
        stones = self.available()
        return stones[self.cursor % len(stones)] if stones else None

    def _show(self) -> None:
        stones = self.available()
        current = self.current
        self.query_one("#reward-title", Static).update(
            _(
                "Row {number} of {rows} completed: remove a marked stone another player "
                "placed (arrows or click, enter), or p to take the point."
            ).format(number=len(self.chosen) + 1, rows=self.rows)
        )
        lifted = [c for r in self.chosen if not isinstance(r, str) for c in r]
        self.query_one("#reward-board", BoardView).show(
            highlight=[c for s in stones for c in s.cells],
            selected=current.cells if current else (),
            lifted=lifted,
        )
        line = Text()
        if current is None:
            line.append(_("No stone left to remove: p takes the point."), "dim")
        else:
            owner = self.players[current.owner] if current.owner is not None else _("nobody")
            line.append_text(
                styled(
                    _("Remove {shape} of {owner} at {cells}"),
                    shape=(current.shape.value, palette.shape_style(current.shape)),
                    owner=owner,
                    cells=format_cells_short(current.cells),
                )
            )
        self.query_one("#reward-choice", Static).update(line)

    def _pick(self, reward: Reward) -> None:
        self.chosen.append(reward)
        self.cursor = 0
        if len(self.chosen) >= self.rows:
            self.dismiss(tuple(self.chosen))
        else:
            self._show()

    def action_cursor(self, step: int) -> None:
        self.cursor += step
        self._show()

    def action_remove(self) -> None:
        if self.current is not None:
            self._pick(tuple(self.current.cells))

    def action_point(self) -> None:
        self._pick("point")

    @on(BoardView.CellClicked, "#reward-board")
    def clicked(self, event: BoardView.CellClicked) -> None:
        for stone in self.available():
            if event.cell in stone.cells:
                self._pick(tuple(stone.cells))
                return

    def action_cancel(self) -> None:
        self.dismiss(None)


class TokenScreen(TranslatedBindings, ModalScreen[tuple[Shape, ...] | None]):
    """``tokens_from_supply``: the scorer names the shape of each point's token.

    The engine's default (the shape with the most stones left) is pre-selected, so enter accepts
    at once; a shape's letter sets the token under the cursor and moves on, the arrows move.
    The engine checks the choice when the move is played.
    """

    BINDINGS = [
        Binding("enter", "accept", N_("Accept")),
        Binding("right,tab", "cursor(1)", N_("Next token"), show=False),
        Binding("left,shift+tab", "cursor(-1)", N_("Previous"), show=False),
        Binding("escape", "cancel", N_("Back")),
    ]

    def __init__(self, default: tuple[Shape, ...], choices: list[Shape], supply: dict[Shape, int]) -> None:
        super().__init__()
        self.tokens = list(default)
        self.choices = choices
        self.supply = supply
        self.cursor = 0

    @classmethod
    def for_action(cls, game: DiceGame, action: DiceAction) -> TokenScreen | None:
        """The dialog when ``action`` scores points that take tokens and there is a choice."""
        if action.tokens is not None or not game.rules.takes_tokens:
            return None
        default = game.complete(action).tokens or ()
        choices = game.token_choices()
        return cls(default, choices, dict(game.supply)) if default and len(choices) > 1 else None

    def compose(self) -> ComposeResult:
        with Vertical(id="token-box"):
            yield Static(id="token-title")
            yield Static(id="token-choice")
        yield Footer()

    def on_mount(self) -> None:
        self._show()

    def _show(self) -> None:
        n = len(self.tokens)
        self.query_one("#token-title", Static).update(
            ngettext(
                "{n} point: its token is a stone taken out of the supply. "
                "Type a shape ({shapes}) to change it, enter to accept.",
                "{n} points: each takes a stone out of the supply as its token. "
                "Type a shape ({shapes}) to change it, enter to accept.",
                n,
            ).format(n=n, shapes=" ".join(s.value for s in self.choices))
        )
        line = Text()
        for i, shape in enumerate(self.tokens):
            line.append(" ")
            line.append_text(shape_letter(shape))
            if i == self.cursor:
                line.append("◂", "bold")
            line.append(" ")
        line.append("   " + _("supply:") + " " + "  ".join(f"{s.value} {self.supply.get(s, 0)}" for s in self.choices), "dim")
        self.query_one("#token-choice", Static).update(line)

    def on_key(self, event: events.Key) -> None:
        letter = (event.character or "").upper()
        picked = next((s for s in self.choices if s.value == letter), None)
        if picked is not None:
            event.stop()
            self.tokens[self.cursor] = picked
            self.cursor = min(self.cursor + 1, len(self.tokens) - 1)
            self._show()

    def action_cursor(self, step: int) -> None:
        self.cursor = (self.cursor + step) % len(self.tokens)
        self._show()

    def action_accept(self) -> None:
        self.dismiss(tuple(self.tokens))

    def action_cancel(self) -> None:
        self.dismiss(None)


class LeaveScreen(TranslatedBindings, ModalScreen[str | None]):
    """Asked before a game in progress is left (q, n): leave, save and leave, or stay.

    With a save path (``--save``) leaving always saves, so the choice is only leave or stay.
    """

    BINDINGS = [
        Binding("y", "choose('leave')", N_("Leave")),
        Binding("s", "choose('save')", N_("Save and leave")),
        Binding("n,escape", "choose('stay')", N_("Stay")),
    ]

    def __init__(self, doing: str, save_path: Any = None) -> None:
        super().__init__(classes="leave-screen")
        self.doing = doing
        self.save_path = save_path

    def compose(self) -> ComposeResult:
        text = Text(justify="center")
        text.append(f"{self.doing}\n\n", "bold")
        text.append(_("The game in progress is not over.") + "\n")
        if self.save_path is not None:
            text.append(_("Its record will be saved to {path}.").format(path=self.save_path) + "\n\n")
            text.append(_("y leave (saving) · n stay"), "dim")
        else:
            text.append("\n" + _("y leave without saving · s save the record and leave · n stay"), "dim")
        yield Static(text, id="leave-text")
        yield Footer()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        # With a save path leaving saves anyway, so "save and leave" is not offered.
        return not (action == "choose" and parameters and parameters[0] == "save" and self.save_path is not None)

    def action_choose(self, choice: str) -> None:
        self.dismiss(None if choice == "stay" else choice)
