"""Snapshots of the main screens (pytest-textual-snapshot); refresh with ``--snapshot-update``.

Seeds are fixed, the die does not tumble and bots do not pause, so every screen is the same on
every run. The snapshots were looked at by a person before they were accepted.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot

from tabletris.tui.app import TabletrisApp
from tabletris.tui.end_screen import EndScreen
from tabletris.tui.setup import Setup
from tui_helpers import dice_ready, make_app, settle


@pytest.fixture(autouse=True)
def _config_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.chdir(tmp_path)


def test_dice_screen_80x24(snap_compare: Any) -> None:
    app = make_app("dice", [("human", "Ann"), ("random", "Robo")], seed=7)

    async def run_before(pilot: Pilot[Any]) -> None:
        await settle(pilot, lambda: dice_ready(app))
        await pilot.press("space", "enter")
        await settle(pilot, lambda: dice_ready(app) and len(app.game.moves) >= 2)
        await pilot.press("up", "up", "up")  # a red ghost with its reason

    assert snap_compare(app, terminal_size=(80, 24), run_before=run_before)


def test_dice_end_screen_100x30(snap_compare: Any) -> None:
    app = make_app("dice", [("random", "Ann"), ("random", "Robo")], {"height": 8}, seed=3)

    async def run_before(pilot: Pilot[Any]) -> None:
        await settle(pilot, lambda: isinstance(app.screen, EndScreen))

    assert snap_compare(app, terminal_size=(100, 30), run_before=run_before)


def test_tower_screen_80x24(snap_compare: Any) -> None:
    app = make_app("tower", [("human", "Ann"), ("random", "Robo")], seed=7)

    async def run_before(pilot: Pilot[Any]) -> None:
        await settle(pilot, lambda: getattr(app.screen, "phase", "") == "plan")

    assert snap_compare(app, terminal_size=(80, 24), run_before=run_before)


def test_tower_end_screen_120x40(snap_compare: Any) -> None:
    app = make_app("tower", [("random", "Ann"), ("random", "Robo"), ("random", "Cleo")], {"preset": "advanced"}, seed=5)

    async def run_before(pilot: Pilot[Any]) -> None:
        await settle(pilot, lambda: isinstance(app.screen, EndScreen))

    assert snap_compare(app, terminal_size=(120, 40), run_before=run_before)


def test_new_game_screen_80x24(snap_compare: Any) -> None:
    app = TabletrisApp(Setup(seed=7), show_setup=True)
    assert snap_compare(app, terminal_size=(80, 24))


def test_help_screen_80x24(snap_compare: Any) -> None:
    app = make_app("dice", [("human", "Ann"), ("random", "Robo")], seed=7)

    async def run_before(pilot: Pilot[Any]) -> None:
        await settle(pilot, lambda: dice_ready(app))
        await pilot.press("question_mark")
        await pilot.pause()

    assert snap_compare(app, terminal_size=(80, 24), run_before=run_before)


def test_dice_screen_light_theme_80x24(snap_compare: Any) -> None:
    """Issue 15.9: a light theme must read (board, panels and ghost from the theme's colours)."""
    app = make_app("dice", [("human", "Ann"), ("random", "Robo")], seed=7)

    async def run_before(pilot: Pilot[Any]) -> None:
        app.theme = "textual-light"
        await settle(pilot, lambda: dice_ready(app))
        await pilot.press("space", "enter")
        await settle(pilot, lambda: dice_ready(app) and len(app.game.moves) >= 2)

    assert snap_compare(app, terminal_size=(80, 24), run_before=run_before)


def test_replay_screen_100x30(snap_compare: Any, tmp_path: Path) -> None:
    """Issue 15.8: the replay viewer's footer shows its own keys (back, forward, ±10, start, end)."""
    from helpers import play_dice_turn
    from tabletris.bots.registry import make_bot
    from tabletris.engine import records
    from tabletris.engine.dice import DiceGame
    from tabletris.engine.records import record_of

    game = DiceGame(["Ann", "Robo"], {"height": 10}, seed=21)
    bots = [make_bot("random", seed=1), make_bot("random", seed=2)]
    while not game.over:
        play_dice_turn(game, bots[game.to_move])
    path = tmp_path / "r.json"
    path.write_text(records.dumps(record_of(game)), encoding="utf-8")
    app = TabletrisApp(replay=path)

    async def run_before(pilot: Pilot[Any]) -> None:
        await pilot.press("home", "pagedown", "right")

    assert snap_compare(app, terminal_size=(100, 30), run_before=run_before)
