"""What the app's shared screens show of the tower game: its keys in the help, every tower at the
end and in the replay, and each seat's choice of tower in the new-game form."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from textual.app import ComposeResult
from textual.containers import HorizontalScroll, Vertical
from textual.widget import Widget
from textual.widgets import Static

from tabletris.engine.tower_layouts import LAYOUT_NAMES
from tabletris.tui.game_ui import Keys, ReplayView, SeatOption
from tabletris.tui.texts import N_, _
from tabletris.tui.widgets.tower import tower_reveal, tower_score_line

TOWER_KEYS: Keys = (
    ("← →", N_("move the piece (or the mino)")),
    ("r / e", N_("rotate clockwise / back")),
    ("m", N_("mino mode: drop a mino in the column (enter)")),
    ("h", N_("hold (once per game)")),
    (N_("enter"), N_("drop the PLAY piece (or the mino in mino mode)")),
    (N_("backspace"), N_("take back a mino planned this round")),
    (N_("space"), N_("pass the table to the next player (hot-seat)")),
    ("?", N_("this help · n new game · q quit")),
)

RANDOM_TOWER = "-"


def tower_choices() -> list[tuple[str, str]]:
    """Each seat's choice of tower (1-4) and of the end at the bottom (a, b), or a free one."""
    return [(_("tower: random"), RANDOM_TOWER)] + [(_("tower {name}").format(name=n), n) for n in LAYOUT_NAMES]


SEAT_TOWERS = SeatOption(name="towers", widget="seat-tower", choices=tower_choices, free=RANDOM_TOWER)
"""rules.md: each player chooses a tower and its bottom end (the rules' ``towers``, seat by seat)."""


def tower_end_position(game: Any) -> Widget:
    return HorizontalScroll(*tower_reveal(game), id="reveal")


class TowerReplay(Vertical, ReplayView):
    """Every tower after the shown round, and the score line."""

    def __init__(self, final: Any, steps: Sequence[Any]) -> None:
        super().__init__(id="replay-main")

    def compose(self) -> ComposeResult:
        yield Static(id="replay-head")
        yield HorizontalScroll(id="reveal")
        yield Static(id="replay-scores")

    def show(self, game: Any, position: int) -> None:
        reveal = self.query_one("#reveal", HorizontalScroll)
        reveal.remove_children()
        reveal.mount_all(list(tower_reveal(game)))
        self.query_one("#replay-scores", Static).update(tower_score_line(game))


__all__ = ["RANDOM_TOWER", "SEAT_TOWERS", "TOWER_KEYS", "TowerReplay", "tower_choices", "tower_end_position"]
