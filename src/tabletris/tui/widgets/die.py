"""The die of the dice game: its face letter and a drawing of the piece it names."""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Any

from rich.align import Align
from rich.console import Group
from rich.text import Text
from textual.widgets import Static

from tabletris.engine.dice import CHOICE
from tabletris.engine.shapes import Shape
from tabletris.tui import palette
from tabletris.tui.texts import _
from tabletris.tui.widgets.pieces import piece_picture


class DieView(Static):
    """Shows one face; the screen animates a roll by showing random faces before the real one."""

    DEFAULT_CSS = """
    DieView { width: 14; height: 6; border: round $accent; content-align: center middle; }
    """

    def tumble(self, faces: Sequence[str], frames: int, then: Callable[[], Any]) -> None:
        """Show ``frames`` random faces a few hundredths of a second apart, then call ``then``.

        Only a show: the engine has rolled already, and ``then`` shows the real face.
        """
        rng = random.Random()

        def tick(left: int) -> None:
            if left <= 0:
                then()
                return
            self.show_face(rng.choice(list(faces)), rolling=True)
            self.set_timer(0.06, lambda: tick(left - 1))

        tick(frames)

    def show_face(self, face: str | None, rolling: bool = False) -> None:
        parts: list[Text] = []
        if face is None:
            parts = [Text("\n–", "dim")]
        elif face == CHOICE:
            parts = [Text("★", "bold"), Text(_("any shape"), "dim")]
        else:
            shape = Shape(face)
            parts = [Text(face, palette.shape_style(shape)), piece_picture(shape)]
        self.border_title = _("rolling…") if rolling else _("die")
        self.update(Group(*(Align.center(p) for p in parts)))
