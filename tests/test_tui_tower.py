"""The tower game in the Textual app: whole games by key presses, minos, hold, hot-seat privacy."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot

from tabletris.engine import records
from tabletris.engine.board import Placement
from tabletris.tui.end_screen import EndScreen
from tabletris.tui.tower_screen import TowerScreen
from tabletris.tui.widgets.dialogs import CurtainScreen, RevealScreen
from tabletris.tui.widgets.tower import tower_breakdown
from tui_helpers import make_app, settle

pytestmark = pytest.mark.asyncio


@pytest.fixture(autouse=True)
def _config_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.chdir(tmp_path)


def planning(app: Any) -> bool:
    s = app.screen
    return isinstance(s, EndScreen | CurtainScreen | RevealScreen) or (isinstance(s, TowerScreen) and s.phase == "plan")


async def steer_tower(pilot: Pilot[Any], screen: TowerScreen, target: Placement) -> None:
    """Turn with r and move with the arrows until the ghost is the target drop."""
    for _ in range(4):
        if screen.plan.orient is target.orientation:
            break
        await pilot.press("r")
    assert screen.plan.orient is target.orientation
    for _ in range(10):
        if screen.plan.gx == target.x:
            break
        await pilot.press("right" if target.x > screen.plan.gx else "left")
    assert screen.plan.gx == target.x


async def test_complete_tower_game_human_vs_bot_by_keys(tmp_path: Path) -> None:
    """27 cards (or until out): minos when there are some, the hold once, drops by keys."""
    app = make_app("tower", [("human", "Ann"), ("random", "Robo")], seed=4)
    save = tmp_path / "tower.json"
    app.initial_setup.save = save  # type: ignore[union-attr]
    used_mino = used_hold = False
    async with app.run_test(size=(100, 40)) as pilot:
        while True:
            await settle(pilot, lambda: planning(app))
            screen = app.screen
            if isinstance(screen, EndScreen):
                break
            assert isinstance(screen, TowerScreen) and screen.seat == 0
            game = screen.game
            rounds_before = len(game.rounds)
            tower = game.towers[0]
            if not used_hold and game.round == 5 and game.can_hold(0):
                await pilot.press("h")
                used_hold = True
                await settle(pilot, lambda g=game, n=rounds_before: len(g.rounds) > n or g.over)
                assert game.towers[0].held is not None
                continue
            if tower.minos and not used_mino:
                await pilot.press("m")
                await pilot.press("left", "left", "left", "left")
                await pilot.press("enter")
                assert screen.plan.minos == [0 if screen.plan.gx == 0 else screen.plan.minos[0]]
                used_mino = True
                if screen.plan.mino_mode:
                    await pilot.press("m")
            drops = sorted(game.legal_drops(0, screen.plan.minos), key=lambda p: (p.y, p.x, p.orientation.index))
            await steer_tower(pilot, screen, drops[0])
            await pilot.press("enter")
            await settle(pilot, lambda g=game, n=rounds_before: len(g.rounds) > n or g.over)
        end = app.screen
        assert isinstance(end, EndScreen)
        game = end.game
        assert game.over and used_hold and used_mino
        replayed = records.replay(save)
        assert replayed.scores() == game.scores()
        assert [t.rows() for t in replayed.towers] == [t.rows() for t in game.towers]
        table = tower_breakdown(game)
        totals = [str(s["total"]) for s in (game.score(i) for i in range(2))]
        assert list(table.columns[-1].cells) == totals
        assert game.towers[0].held is not None


async def test_tower_illegal_mino_and_hold_show_the_engine_reason() -> None:
    rules = {"start_minos": 0, "minos_in_box": 24}
    app = make_app("tower", [("human", "Ann"), ("random", "Robo")], rules, seed=8)
    async with app.run_test(size=(100, 40)) as pilot:
        await settle(pilot, lambda: planning(app))
        screen = app.screen
        assert isinstance(screen, TowerScreen)
        game = screen.game
        await pilot.press("m")
        assert "has 0 minos, not 1" in str(screen.message) and not screen.plan.mino_mode
        await pilot.press("h")  # the first hold is legal
        await settle(pilot, lambda: planning(app) and len(game.rounds) == 1)
        await pilot.press("h")  # the second is refused by the engine, with its words
        assert "has used the hold already" in str(screen.message)
        assert len(game.rounds) == 1 and game.pending(0) is None


async def test_hot_seat_curtain_hides_the_table_and_reveal_shows_all_towers() -> None:
    app = make_app("tower", [("human", "Ann"), ("human", "Bea")], seed=12)
    async with app.run_test(size=(100, 40)) as pilot:
        await settle(pilot, lambda: isinstance(app.screen, CurtainScreen))
        tower_screen = app.screen_stack[-2]
        assert isinstance(tower_screen, TowerScreen)
        assert not tower_screen.query_one("#board").display  # nobody's tower while the curtain is up
        assert "Ann" in str(app.screen.text)  # type: ignore[attr-defined]
        await pilot.press("space")
        assert tower_screen.seat == 0 and tower_screen.query_one("#board").display
        await pilot.press("enter")
        await settle(pilot, lambda: isinstance(app.screen, CurtainScreen))
        assert "Bea" in str(app.screen.text)  # type: ignore[attr-defined]
        game = tower_screen.game
        assert game.pending(0) is not None and len(game.rounds) == 0
        await pilot.press("space")
        assert tower_screen.seat == 1
        await pilot.press("enter")
        await settle(pilot, lambda: isinstance(app.screen, RevealScreen))
        assert len(game.rounds) == 1
        assert len(app.screen.query("#reveal BoardView")) == 2
        await pilot.press("space")
        await settle(pilot, lambda: isinstance(app.screen, CurtainScreen))
        assert game.round == 2
