"""Driving the Textual app from tests: wait for a human's turn, steer a ghost with key presses."""

from __future__ import annotations

import contextlib
from typing import Any

from textual.pilot import Pilot
from textual.worker import WorkerCancelled

from tabletris.engine.board import Placement
from tabletris.table.seats import SeatSpec
from tabletris.tui.app import TabletrisApp
from tabletris.tui.dice_screen import DiceScreen
from tabletris.tui.end_screen import EndScreen
from tabletris.tui.setup import Setup


def make_app(game: str, seats: list[tuple[str, str]], rules: dict[str, Any] | None = None, seed: int = 7, **kw: Any) -> TabletrisApp:
    """An app straight on a seeded game, with no die animation and no bot pause (fast, repeatable)."""
    setup = Setup(game, [SeatSpec(kind, name) for kind, name in seats], dict(rules or {}), seed)
    return TabletrisApp(setup, roll_frames=kw.pop("roll_frames", 0), bot_pause=kw.pop("bot_pause", 0.0), **kw)


async def settle(pilot: Pilot[Any], until: Any, limit: int = 600) -> None:
    """Let timers, bot threads and messages run until ``until()`` is true (or fail loudly)."""
    app = pilot.app
    for _ in range(limit):
        await pilot.pause()
        if until():
            return
        with contextlib.suppress(WorkerCancelled):  # an exclusive bot worker replaced by a newer one
            await app.workers.wait_for_complete()
        await pilot.pause(0.005)
        if until():
            return
    raise AssertionError(f"the app never reached the expected state; screen is {app.screen!r}")


def dice_ready(app: TabletrisApp) -> bool:
    screen = app.screen
    return isinstance(screen, EndScreen) or (isinstance(screen, DiceScreen) and screen.phase == "place")


async def steer_dice(pilot: Pilot[Any], screen: DiceScreen, target: Placement) -> None:
    """Bring the ghost onto ``target`` with the player's keys only: r, f and the arrows."""
    for _ in range(12):
        if screen.ghost.orient is target.orientation:
            break
        if screen.ghost.orient is not None and screen.ghost.orient.mirrored != target.orientation.mirrored:
            await pilot.press("f")
        else:
            await pilot.press("r")
    assert screen.ghost.orient is target.orientation, "could not turn the ghost into the target form"
    for _ in range(60):
        if (screen.ghost.gx, screen.ghost.gy) == (target.x, target.y):
            break
        if screen.ghost.gx != target.x:
            await pilot.press("right" if target.x > screen.ghost.gx else "left")
        else:
            await pilot.press("up" if target.y > screen.ghost.gy else "down")
    assert (screen.ghost.gx, screen.ghost.gy) == (target.x, target.y)
