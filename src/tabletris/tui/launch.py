"""Entry points the command line calls: a game at this terminal, or a record's replay viewer."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from tabletris.table.seats import SeatSpec
from tabletris.tui.setup import Setup


def launch(
    game: str,
    seat_specs: list[SeatSpec],
    rules_obj: dict[str, Any],
    seed: int | None,
    save: Path | None,
) -> None:
    """Run the full-screen app on the game the command line describes (``tabletris play``)."""
    from tabletris.tui.app import TabletrisApp

    setup = Setup(game=game, seats=list(seat_specs), rules=dict(rules_obj), seed=seed, save=save)
    TabletrisApp(setup).run()


def launch_setup() -> None:
    """Run the app on the new-game screen, starting from the last setup used."""
    from tabletris.tui.app import TabletrisApp

    TabletrisApp(show_setup=True).run()


def launch_replay(path: Path | str) -> int:
    """Open a record in the replay viewer; returns the exit status (1 with ``error:`` if unreadable)."""
    from tabletris.engine.errors import RecordError
    from tabletris.tui.app import TabletrisApp
    from tabletris.tui.replay_screen import ReplayScreen

    try:
        ReplayScreen.from_path(Path(path))
    except RecordError as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    TabletrisApp(replay=Path(path)).run()
    return 0
