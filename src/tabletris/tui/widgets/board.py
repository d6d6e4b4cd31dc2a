"""A board drawn in the terminal: stones in their shapes' colours, a ghost piece, icons, clicks.

One widget serves both games: the dice game's shared board and each tower of the tower game.
It draws what it is given and reports which cell was clicked; it decides nothing about rules.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from rich.style import Style
from rich.text import Text
from textual import events
from textual.geometry import Size
from textual.message import Message
from textual.widget import Widget

from tabletris.engine.board import Board
from tabletris.engine.shapes import Cell
from tabletris.tui import palette


@dataclass(frozen=True)
class Overlay:
    """An icon drawn on a cell: ``glyph`` (2 columns) when the cell is empty, ``mark`` when filled."""

    glyph: str
    style: Style
    mark: str = ""


class BoardView(Widget):
    """Draws a ``Board``: two terminal columns per cell, row 0 at the bottom."""

    DEFAULT_CSS = """
    BoardView {
        width: auto;
        height: auto;
        border: round $primary-darken-1;
        padding: 0;
    }
    """

    class CellClicked(Message):
        """The player clicked ``cell`` of the board ``view``."""

        def __init__(self, view: BoardView, cell: Cell) -> None:
            super().__init__()
            self.view = view
            self.cell = cell

        @property
        def control(self) -> BoardView:
            """The board clicked, so ``@on(BoardView.CellClicked, "#id")`` can match it."""
            return self.view

    def __init__(
        self,
        board: Board,
        *,
        show_owner: bool = True,
        name: str | None = None,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self.board = board
        self.show_owner = show_owner
        self.ghost: tuple[Cell, ...] = ()
        self.ghost_ok = True
        self.highlight: frozenset[Cell] = frozenset()
        self.selected: frozenset[Cell] = frozenset()
        self.lifted: frozenset[Cell] = frozenset()
        self.overlays: dict[Cell, Overlay] = {}
        self._empty = self._empty_colours()

    # -------------------------------------------------------------- updates

    def show(
        self,
        board: Board | None = None,
        ghost: Iterable[Cell] = (),
        ghost_ok: bool = True,
        highlight: Iterable[Cell] = (),
        selected: Iterable[Cell] = (),
        lifted: Iterable[Cell] = (),
    ) -> None:
        """Replace what is drawn; ``lifted`` cells are drawn empty (a stone being taken)."""
        resized = board is not None and (board.width, board.height) != (self.board.width, self.board.height)
        if board is not None:
            self.board = board
        self.ghost = tuple(ghost)
        self.ghost_ok = ghost_ok
        self.highlight = frozenset(highlight)
        self.selected = frozenset(selected)
        self.lifted = frozenset(lifted)
        self.refresh(layout=resized)

    def get_content_width(self, container: Size, viewport: Size) -> int:
        return self.board.width * 2

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return self.board.height

    # ------------------------------------------------------------- drawing

    def cell_text(self, cell: Cell) -> tuple[str, Style]:
        """The two characters and the style of one cell, ghost and highlights included."""
        x, y = cell
        ghost = cell in self.ghost
        stone = None if cell in self.lifted else self.board.stone_at(cell)
        overlay = self.overlays.get(cell)
        if stone is not None:
            style = palette.stone_style(stone.shape)
            text = "  "
            if self.show_owner:
                text = " " + palette.seat_mark(stone.owner)
            if overlay is not None and overlay.mark:
                text = overlay.mark + text[1]
            if cell in self.selected:
                style = style + Style(reverse=True)
                text = "××"
            elif cell in self.highlight:
                style = style + Style(underline=True)
                text = text[0] + "◆" if not self.show_owner else "◆" + text[1]
            if ghost:
                style = Style(bgcolor=palette.GHOST_BAD, color="#ffffff", bold=True)
                text = "▓▓"
            return text, style
        bg, bg_alt, faint, dot = self._empty
        bg = bg if (x + y) % 2 == 0 else bg_alt
        if ghost:
            colour = palette.GHOST_OK if self.ghost_ok else palette.GHOST_BAD
            return "▒▒", Style(color=colour, bgcolor=bg, bold=True)
        if cell in self.lifted:
            return "░░", Style(color=faint, bgcolor=bg)
        if overlay is not None:
            return overlay.glyph, overlay.style + Style(bgcolor=bg)
        return " ·", Style(color=dot, bgcolor=bg)

    def _empty_colours(self) -> tuple[str, str, str, str]:
        """Empty cells from the theme: its background, a checker shade, and two faint marks, so
        the board reads on light themes as on dark ones (no fixed near-black)."""
        if not self.is_attached:
            return palette.EMPTY_BG, palette.EMPTY_BG_ALT, "#5a5a66", "#30323e"
        _, _, background, foreground = self.colors
        light = background.brightness > 0.5
        alt = background.darken(0.06) if light else background.lighten(0.04)
        return background.hex, alt.hex, background.blend(foreground, 0.4).hex, background.blend(foreground, 0.2).hex

    def render(self) -> Text:
        self._empty = self._empty_colours()
        board = self.board
        text = Text(no_wrap=True, overflow="crop")
        for row in range(board.height - 1, -1, -1):
            for x in range(board.width):
                chars, style = self.cell_text((x, row))
                text.append(chars, style)
            if row:
                text.append("\n")
        return text

    # -------------------------------------------------------------- input

    def cell_at(self, offset_x: int, offset_y: int) -> Cell | None:
        """The board cell under a content-relative offset, or None outside the board."""
        x = offset_x // 2
        y = self.board.height - 1 - offset_y
        if 0 <= x < self.board.width and 0 <= y < self.board.height:
            return (x, y)
        return None

    def on_click(self, event: events.Click) -> None:
        offset = event.get_content_offset(self)
        if offset is None:
            return
        cell = self.cell_at(offset.x, offset.y)
        if cell is not None:
            event.stop()
            self.post_message(self.CellClicked(self, cell))
