"""Issue 27 item 8: the terminal's new-game form and hot-seat curtain as a newcomer found them.

Each test failed on the code before the fix: Enter in any field started the game, the focused
field was colour 235 on 234, the tower form cut seat names to three letters at 120 columns, a rule
name that fills its column ran into its value, and only the keyboard lifted the curtain.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from rich.color import ColorSystem
from textual.widgets import Input, Select

from tabletris.tui.app import TabletrisApp
from tabletris.tui.game_ui import game_label
from tabletris.tui.new_game import NewGameScreen
from tabletris.tui.tower_screen import TowerScreen
from tabletris.tui.widgets.dialogs import CurtainScreen
from tui_helpers import make_app, settle

pytestmark = pytest.mark.asyncio


@pytest.fixture(autouse=True)
def _config_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.chdir(tmp_path)


async def open_form(pilot: Any, app: TabletrisApp, game: str = "dice") -> NewGameScreen:
    await settle(pilot, lambda: isinstance(app.screen, NewGameScreen))
    screen = app.screen
    assert isinstance(screen, NewGameScreen)
    if game != screen.setup.game:
        screen.query_one("#game", Select).value = game
        # The form is composed anew for the game (``game_changed``), and titled for it last: until
        # then the old form's fields are still there, and a test that ended meanwhile closed the
        # app under the recomposition (NoMatches for #setup-rules in the handler, CI on 1bd3208).
        await settle(pilot, lambda: isinstance(app.screen, NewGameScreen) and app.screen.setup.game == game
                     and any(game_label(game) in str(w.border_title) for w in app.screen.query("#setup-rules"))
                     and bool(app.screen.query("#seat-name-0")) and app.screen.query_one("#seat-name-0").region.width > 0)
    return app.screen  # type: ignore[return-value]


async def test_enter_in_a_field_moves_on_and_does_not_start_the_game() -> None:
    app = TabletrisApp(None, roll_frames=0, bot_pause=0.0)
    async with app.run_test(size=(120, 40)) as pilot:
        form = await open_form(pilot, app)
        seed = form.query_one("#seed", Input)
        seed.focus()
        await pilot.press("4", "enter")
        await settle(pilot, lambda: app.focused is not seed)
        assert isinstance(app.screen, NewGameScreen) and app.focused is form.query_one("#save", Input)
        await pilot.press("ctrl+s")  # the form's own key starts it
        await settle(pilot, lambda: not isinstance(app.screen, NewGameScreen))
        assert app.game is not None and app.game.seed == 4


async def test_the_focused_field_stands_out_in_256_colours() -> None:
    app = TabletrisApp(None, roll_frames=0, bot_pause=0.0)
    async with app.run_test(size=(120, 40)) as pilot:
        form = await open_form(pilot, app)
        seed, save = form.query_one("#seed", Input), form.query_one("#save", Input)
        seed.focus()
        await settle(pilot, lambda: app.focused is seed)
        focused, other = seed.rich_style.bgcolor, save.rich_style.bgcolor
        assert focused is not None and other is not None
        assert focused.downgrade(ColorSystem.EIGHT_BIT).number != other.downgrade(ColorSystem.EIGHT_BIT).number
        f, o = focused.get_truecolor(), other.get_truecolor()
        assert sum(abs(a - b) for a, b in zip(f, o, strict=True)) >= 120, (f, o)  # not 1 step of grey


async def test_tower_seat_names_keep_their_width_at_120_columns() -> None:
    app = TabletrisApp(None, roll_frames=0, bot_pause=0.0)
    async with app.run_test(size=(120, 40)) as pilot:
        form = await open_form(pilot, app, "tower")
        for i in range(2):
            name = form.query_one(f"#seat-name-{i}", Input)
            assert name.region.width >= 12, (i, name.region)
            assert form.query_one(f"#seat-tower-{i}", Select).region.width > 0  # the tower choice is still there


@pytest.mark.parametrize("game", ["dice", "tower"])
async def test_no_rule_name_runs_into_its_value(game: str) -> None:
    app = TabletrisApp(None, roll_frames=0, bot_pause=0.0)
    async with app.run_test(size=(120, 50)) as pilot:
        form = await open_form(pilot, app, game)
        rows = list(form.query(".rule-line"))
        assert rows
        for row in rows:
            label, value = row.children[0], row.children[1]
            assert value.region.x - label.region.right >= 1, (str(label.render()), label.region, value.region)


async def test_a_click_lifts_the_hot_seat_curtain_and_it_says_which_keys_do() -> None:
    app = make_app("tower", [("human", "Ann"), ("human", "Bea")], seed=12)
    async with app.run_test(size=(100, 40)) as pilot:
        await settle(pilot, lambda: isinstance(app.screen, CurtainScreen))
        assert "Enter" in str(app.screen.text) and "click" in str(app.screen.text)  # type: ignore[attr-defined]
        await pilot.click("#curtain")
        await settle(pilot, lambda: isinstance(app.screen, TowerScreen))
        assert app.screen.phase == "plan" and app.screen.seat == 0  # type: ignore[attr-defined]
