"""Issue 15, the app's items: each test here failed on the app before its fix."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tabletris.tui.end_screen import EndScreen
from tabletris.tui.tower_screen import TowerScreen
from tabletris.tui.widgets.dialogs import CurtainScreen, RevealScreen
from tui_helpers import make_app, settle

pytestmark = pytest.mark.asyncio


@pytest.fixture(autouse=True)
def _config_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.chdir(tmp_path)


def _tower_ready(app: Any) -> bool:
    s = app.screen
    return isinstance(s, EndScreen | CurtainScreen | RevealScreen) or (isinstance(s, TowerScreen) and s.phase == "plan")


async def test_two_people_out_and_a_bot_playing_on_never_crash_and_the_record_is_saved(tmp_path: Path) -> None:
    """Issue 15.1: ``play tower --seats human=Ann,human=Bob,expert --seed 3 --save rep.json``, both
    people taking the default spot (or holding), space at every curtain and reveal. Once both are
    out the bot's rounds came back before the last reveal screen was gone: DuplicateIds."""
    save = tmp_path / "rep.json"
    app = make_app("tower", [("human", "Ann"), ("human", "Bob"), ("expert", "Expert")], seed=3)
    app.initial_setup.save = save  # type: ignore[union-attr]
    reveals = 0
    async with app.run_test(size=(120, 40)) as pilot:
        for _ in range(400):
            await settle(pilot, lambda: _tower_ready(app))
            screen = app.screen
            if isinstance(screen, EndScreen):
                break
            if isinstance(screen, CurtainScreen | RevealScreen):
                reveals += isinstance(screen, RevealScreen)
                await pilot.press("space")
                continue
            assert isinstance(screen, TowerScreen) and screen.seat is not None
            game = screen.game
            if game.legal_drops(screen.seat, []):
                await pilot.press("enter")
            else:
                await pilot.press("h")
            await pilot.pause()
        assert isinstance(app.screen, EndScreen)
        game = app.screen.game
        assert all(game.towers[s].out for s in (0, 1)), "the scenario is the one where both people are out"
    assert app.return_code in (0, None)
    assert reveals > 18
    doc = json.loads(save.read_text(encoding="utf-8"))
    assert doc["game"] == "tower" and len(doc["rounds"]) == len(game.rounds)
