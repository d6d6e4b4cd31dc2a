"""Entry points the command line calls: a game at this terminal, or a record's replay viewer.

Each returns the exit status: 0, or 1 when the app stopped on an error. Whatever way the app
ends (quit, ctrl+q, a crash), a game started with ``--save`` keeps its record.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from tabletris.i18n import use_language
from tabletris.table.seats import SeatSpec
from tabletris.tui.setup import Setup
from tabletris.tui.texts import _, engine_text


def run_app(app: Any, *, headless: bool = False) -> int:
    """Run ``app`` (a ``TabletrisApp``) to its end; the exit status. The record is saved on the way
    out, crash or not, so a game is never lost to a bug in a screen. When the player switched the
    language (the palette), the next app runs in it, and so does the rest of the process."""
    while True:
        try:
            app.run(headless=headless)
        finally:
            try:
                saved = app.save_on_exit()
            except OSError as e:
                print(_("error: could not save the record: {error}").format(error=e), file=sys.stderr)
            else:
                if saved is not None:
                    print(_("Record saved to {path}").format(path=saved), file=sys.stderr)
        following = app.relaunch()
        if following is None:
            return 1 if app.return_code else 0
        use_language(following.language)
        app = following


def launch(
    game: str,
    seat_specs: list[SeatSpec],
    rules_obj: dict[str, Any],
    seed: int | None,
    save: Path | None,
    *,
    color: bool = True,
) -> int:
    """Run the full-screen app on the game the command line describes (``tabletris play``)."""
    from tabletris.tui.app import TabletrisApp

    setup = Setup(game=game, seats=list(seat_specs), rules=dict(rules_obj), seed=seed, save=save)
    return run_app(TabletrisApp(setup, no_color=not color))


def launch_setup(*, color: bool = True) -> int:
    """Run the app on the new-game screen, starting from the last setup used."""
    from tabletris.tui.app import TabletrisApp

    return run_app(TabletrisApp(show_setup=True, no_color=not color))


def launch_tutorial(game: str, *, color: bool = True) -> int:
    """Run the app on ``game``'s guided first game (``tabletris play GAME --tutorial``); 2 with
    ``error:`` when the game has none."""
    from tabletris.tui.app import TabletrisApp
    from tabletris.tui.game_ui import game_label, ui_of
    from tabletris.tui.tutorial import tutorial_of

    if tutorial_of(ui_of(game)) is None:
        print(_("error: the {game} game has no guided first game yet").format(game=game_label(game)), file=sys.stderr)
        return 2
    return run_app(TabletrisApp(tutorial=game, no_color=not color))


def launch_replay(path: Path | str, *, color: bool = True) -> int:
    """Open a record in the replay viewer; returns the exit status (1 with ``error:`` if unreadable)."""
    from tabletris.engine.errors import RecordError
    from tabletris.tui.app import TabletrisApp
    from tabletris.tui.replay_screen import ReplayScreen

    try:
        ReplayScreen.from_path(Path(path))
    except RecordError as e:
        print(_("error: {error}").format(error=engine_text(e)), file=sys.stderr)
        return 1
    return run_app(TabletrisApp(replay=Path(path), no_color=not color))
