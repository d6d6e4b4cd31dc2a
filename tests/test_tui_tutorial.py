"""Issue 26 item 4, the terminal half: the dice game's guided first game, played by key presses.

Each step is checked on the engine's state after the move; a move the engine refuses is refused
with its words and the step stays; a legal move that misses a step that asks for it is taken back
by the engine's undo, with the same roll. None of this existed before (no tutorial screen, no
``GameUI.tutorial``, no palette command, no form button): every test here fails on the old code.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual.widgets import Button, Select

from tabletris.engine.board import IllegalPlacement, Placement
from tabletris.engine.tower import TowerGame
from tabletris.i18n import language
from tabletris.table.dice_tutorial import RULES, SEED, STEPS
from tabletris.table.positions import for_people
from tabletris.table.tower_tutorial import RULES as TOWER_RULES
from tabletris.tui.app import TabletrisApp
from tabletris.tui.dice_tutorial import DiceTutorialScreen
from tabletris.tui.end_screen import EndScreen
from tabletris.tui.new_game import NewGameScreen
from tabletris.tui.tower_tutorial import TowerTutorialScreen
from tabletris.tui.tutorial import TutorialPanel
from tabletris.tui.widgets.dialogs import TokenScreen
from tui_helpers import settle, steer_dice


@pytest.fixture(autouse=True)
def _config_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.chdir(tmp_path)


def placing(app: TabletrisApp) -> bool:
    screen = app.screen
    return isinstance(screen, DiceTutorialScreen) and screen.phase in ("place", "over")


def choose(screen: DiceTutorialScreen) -> Placement:
    """A placement for the step shown, chosen from the engine's legal ones: a row for the row
    step, else the lowest."""
    game, ghost = screen.game, screen.ghost
    assert ghost.shape is not None
    legal = sorted(game.legal_placements(ghost.shape, ghost.take), key=lambda p: (max(y for _, y in p.cells), p.x, p.orientation.index))
    if screen.guide.index == 1:
        legal = [p for p in legal if game.scoring_rows_after(p, ghost.take)]
    assert legal
    return legal[0]


async def open_tutorial(pilot: Any, app: TabletrisApp) -> DiceTutorialScreen:
    await settle(pilot, lambda: isinstance(app.screen, NewGameScreen))
    await pilot.press("ctrl+t")  # the form's key (its Tutorial button does the same)
    await settle(pilot, lambda: placing(app))
    screen = app.screen
    assert isinstance(screen, DiceTutorialScreen)
    return screen


async def place_the_first_piece(pilot: Any, app: TabletrisApp, screen: DiceTutorialScreen) -> None:
    """Step 1 by keys: the rolled piece to a place the script suggests; the guide moves on."""
    await steer_dice(pilot, screen, choose(screen))
    await pilot.press("enter")
    await settle(pilot, lambda: placing(app) and screen.guide.index == 1)


@pytest.mark.asyncio
async def test_the_dice_tutorial_is_completed_by_keys() -> None:
    app = TabletrisApp(None, roll_frames=0, bot_pause=0.0)
    async with app.run_test(size=(110, 40)) as pilot:
        screen = await open_tutorial(pilot, app)
        game = screen.game
        assert game.seed == SEED and game.players == ["You"] and game.rules.width == RULES["width"]
        seen, tokens_asked = [], False
        for _ in range(20):
            await settle(pilot, lambda: placing(app) or isinstance(app.screen, TokenScreen))
            if isinstance(app.screen, TokenScreen):
                tokens_asked = True
                await pilot.press("enter")  # the default token
                continue
            if screen.phase == "over":
                break
            seen.append(screen.guide.index)
            before = len(game.moves)
            await steer_dice(pilot, screen, choose(screen))
            await pilot.press("enter")
            await settle(pilot, lambda before=before: len(game.moves) > before or isinstance(app.screen, TokenScreen))
        assert screen.phase == "over" and game.over and screen.guide.finished
        assert seen[:2] == [0, 1] and 2 in seen and seen == sorted(seen)  # the steps in order, none skipped
        assert tokens_asked and game.tokens[0]  # the row's point took its token out of the supply
        assert any(m.take is not None for m in game.moves)  # a stone came off the lowest rows
        panel = str(screen.query_one(TutorialPanel).render())
        assert "fits nowhere" in panel and "finished the tutorial" in panel
        assert not isinstance(app.screen, EndScreen)  # the last word stays until Enter
        await pilot.press("enter")
        await settle(pilot, lambda: isinstance(app.screen, EndScreen))
        await pilot.press("r")  # the rematch of a tutorial is the tutorial again, from its first step
        await settle(pilot, lambda: placing(app) and app.screen is not screen)
        assert app.screen.guide.index == 0 and app.game.seed == SEED and not app.game.moves  # type: ignore[attr-defined]


@pytest.mark.asyncio
async def test_an_illegal_move_is_refused_in_the_engines_words_and_the_step_stays() -> None:
    app = TabletrisApp(None, roll_frames=0, bot_pause=0.0)
    async with app.run_test(size=(110, 40)) as pilot:
        screen = await open_tutorial(pilot, app)
        game = screen.game
        for _ in range(4):
            await pilot.press("up")  # up in the air: the piece does not rest
        ghost = screen.ghost
        assert ghost.orient is not None and ghost.shape is not None
        cells = ghost.orient.at(ghost.gx, ghost.gy)
        with pytest.raises(IllegalPlacement) as expected:
            game.board.validate(ghost.shape, cells, game.rules.orientation_mode, game.rules.access_mode)
        await pilot.press("enter")
        assert str(screen.message) == for_people(str(expected.value), cells)
        assert game.moves == [] and screen.guide.index == 0 and screen.phase == "place"


@pytest.mark.asyncio
async def test_a_move_that_misses_the_row_step_is_taken_back_with_the_same_roll() -> None:
    app = TabletrisApp(None, roll_frames=0, bot_pause=0.0)
    async with app.run_test(size=(110, 40)) as pilot:
        screen = await open_tutorial(pilot, app)
        game = screen.game
        await place_the_first_piece(pilot, app, screen)
        shape, roll = screen.ghost.shape, game.roll_face
        assert shape is not None
        misses = [p for p in game.legal_placements(shape, screen.ghost.take) if not game.scoring_rows_after(p, screen.ghost.take)]
        assert misses  # an upright I completes no row
        await steer_dice(pilot, screen, misses[0])
        await pilot.press("enter")
        await settle(pilot, lambda: placing(app))
        assert len(game.moves) == 1 and game.roll_face == roll and game.rows_completed == [0]
        assert screen.guide.index == 1 and "taken back" in str(screen.message)


@pytest.mark.asyncio
async def test_the_palette_offers_the_tutorial_and_the_last_setup_is_kept(tmp_path: Path) -> None:
    app = TabletrisApp(None, roll_frames=0, bot_pause=0.0)
    async with app.run_test(size=(110, 40)) as pilot:
        await settle(pilot, lambda: isinstance(app.screen, NewGameScreen))
        commands = {c.title: c for c in app.get_system_commands(app.screen)}
        assert "Tutorial: dice" in commands
        commands["Tutorial: dice"].callback()
        await settle(pilot, lambda: placing(app))
        assert not (tmp_path / "config" / "tabletris" / "last_setup.json").exists()


@pytest.mark.asyncio
async def test_the_tutorial_speaks_czech() -> None:
    app = TabletrisApp(None, roll_frames=0, bot_pause=0.0, lang="cs")
    async with app.run_test(size=(110, 40)) as pilot:
        screen = await open_tutorial(pilot, app)
        panel = str(screen.query_one(TutorialPanel).render())
        with language("cs"):
            from tabletris.tui.texts import engine_text

            assert engine_text(STEPS[0].text) != STEPS[0].text and engine_text(STEPS[0].text) in panel
        assert screen.game.players != ["You"]


@pytest.mark.asyncio
async def test_the_app_can_open_on_the_tutorial() -> None:
    """``tabletris play dice --tutorial`` runs the app with ``tutorial="dice"``."""
    app = TabletrisApp(tutorial="dice", roll_frames=0, bot_pause=0.0)
    async with app.run_test(size=(110, 40)) as pilot:
        await settle(pilot, lambda: placing(app))
        assert app.screen.guide.index == 0  # type: ignore[attr-defined]


def test_play_tutorial_asks_for_the_full_screen_app_and_a_game_that_has_one(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    import dataclasses

    from typer.testing import CliRunner

    from tabletris.cli.app import app
    from tabletris.tui import game_ui
    from tabletris.tui.launch import launch_tutorial

    real = game_ui.ui_of
    monkeypatch.setattr(game_ui, "ui_of", lambda name: dataclasses.replace(real(name), tutorial="") if name == "tower" else real(name))

    result = CliRunner().invoke(app, ["play", "dice", "--tutorial"])  # not a terminal: no app
    assert result.exit_code == 2 and "--tutorial" in result.output and "full-screen" in result.output
    assert launch_tutorial("tower") == 2  # a game without a guided game: said, and no app is started
    assert "tower" in capsys.readouterr().err


@pytest.mark.asyncio
async def test_undo_takes_the_step_back_and_a_new_game_starts_from_the_players_own_setup() -> None:
    app = TabletrisApp(None, roll_frames=0, bot_pause=0.0)
    async with app.run_test(size=(110, 40)) as pilot:
        screen = await open_tutorial(pilot, app)
        game = screen.game
        await place_the_first_piece(pilot, app, screen)
        await pilot.press("u")
        await settle(pilot, lambda: placing(app) and not game.moves)
        assert screen.guide.index == 0 and "step 1 of 4" in str(screen.query_one(TutorialPanel).render())
        app.action_new_game()
        await settle(pilot, lambda: isinstance(app.screen, NewGameScreen))
        form = app.screen
        assert isinstance(form, NewGameScreen)
        assert form.setup.rules.get("width") != RULES["width"] and form.setup.seed != SEED


# --- the tower game's guided first game ------------------------------------------------------


def tower_planning(app: TabletrisApp) -> bool:
    screen = app.screen
    return isinstance(screen, TowerTutorialScreen) and screen.phase in ("plan", "over")


async def steer_tower(pilot: Any, screen: TowerTutorialScreen, column: int) -> None:
    """The ghost (or the mino in mino mode) to ``column`` with ← → only."""
    assert screen.plan is not None
    for _ in range(12):
        if screen.plan.gx == column:
            break
        await pilot.press("right" if column > screen.plan.gx else "left")
    assert screen.plan.gx == column


async def open_tower_tutorial(pilot: Any, app: TabletrisApp) -> TowerTutorialScreen:
    await settle(pilot, lambda: tower_planning(app))
    screen = app.screen
    assert isinstance(screen, TowerTutorialScreen)
    return screen


@pytest.mark.asyncio
async def test_the_tower_tutorial_is_completed_by_keys_and_a_missed_step_is_taken_back() -> None:
    app = TabletrisApp(tutorial="tower", roll_frames=0, bot_pause=0.0)
    async with app.run_test(size=(110, 44)) as pilot:
        screen = await open_tower_tutorial(pilot, app)
        game = screen.game
        assert isinstance(game, TowerGame) and game.players == ["You"] and game.rules.width == TOWER_RULES["width"]
        assert screen.guide.index == 0 and game.play_card is not None and game.play_card.value == "O"
        panel = lambda: str(screen.query_one(TutorialPanel).render())  # noqa: E731
        assert "step 1 of 5" in panel() and "PLAY card" in panel() and "Enter drops it" in panel()
        # Step 1, missed first: the O one column off the icon is taken back, the same O waits.
        await steer_tower(pilot, screen, 1)
        await pilot.press("enter")
        await settle(pilot, lambda: "taken back" in str(screen.message.render()))
        assert game.rounds == [] and screen.guide.index == 0 and game.play_card.value == "O" and screen.phase == "plan"
        await steer_tower(pilot, screen, 0)
        await pilot.press("enter")
        await settle(pilot, lambda: screen.guide.index == 1 and tower_planning(app))
        assert game.towers[0].bonus == 1 and game.towers[0].minos == 2 and "mino" in panel()
        # Step 2: the second O beside the first wins the card.
        await steer_tower(pilot, screen, 2)
        await pilot.press("enter")
        await settle(pilot, lambda: screen.guide.index == 2 and tower_planning(app))
        assert game.achievements[0].space_of(0) is not None and game.towers[0].lines == 2
        # Step 3: a T without a mino is taken back; a mino, then the T, is kept.
        await pilot.press("enter")
        await settle(pilot, lambda: "No mino was dropped" in str(screen.message.render()))
        assert len(game.rounds) == 2 and screen.guide.index == 2
        await pilot.press("m")
        await steer_tower(pilot, screen, 3)
        await pilot.press("enter")  # the mino is planned in column 4
        assert screen.plan is not None and screen.plan.minos == [3]
        await pilot.press("m", "enter")  # back to the piece, then the T
        await settle(pilot, lambda: screen.guide.index == 3 and tower_planning(app))
        assert game.rounds[-1][0] is not None and game.rounds[-1][0].minos == (3,)
        # Step 4: hold.
        await pilot.press("h")
        await settle(pilot, lambda: screen.guide.index == 4 or screen.phase == "over")
        assert game.towers[0].hold_used
        # Step 5: drop until the tower is out and the game ends.
        for _ in range(10):
            await settle(pilot, lambda: tower_planning(app))
            if screen.phase == "over":
                break
            await pilot.press("enter")
            await pilot.pause()
        assert game.over and screen.guide.finished and screen.phase == "over"
        assert "finished the tutorial" in panel() and "Press Enter for the scores" in panel()
        assert not isinstance(app.screen, EndScreen)
        await pilot.press("enter")
        await settle(pilot, lambda: isinstance(app.screen, EndScreen))


@pytest.mark.asyncio
async def test_the_new_game_form_offers_the_tower_tutorial_for_the_chosen_game() -> None:
    app = TabletrisApp(None, roll_frames=0, bot_pause=0.0)
    async with app.run_test(size=(110, 40)) as pilot:
        await settle(pilot, lambda: isinstance(app.screen, NewGameScreen))
        form = app.screen
        assert isinstance(form, NewGameScreen)
        commands = {c.title for c in app.get_system_commands(form)}
        assert {"Tutorial: dice", "Tutorial: tower"} <= commands
        form.query_one("#game", Select).value = "tower"
        await settle(pilot, lambda: form.setup.game == "tower" and bool(form.query("#tutorial")))
        form.query_one("#tutorial", Button).press()  # the form's Tutorial button, for the game chosen
        await settle(pilot, lambda: tower_planning(app))
        assert app.game is not None and app.game.rules.height == TOWER_RULES["height"]


@pytest.mark.asyncio
async def test_the_tower_tutorial_speaks_chinese() -> None:
    app = TabletrisApp(tutorial="tower", roll_frames=0, bot_pause=0.0, lang="zh_CN")
    async with app.run_test(size=(110, 44)) as pilot:
        screen = await open_tower_tutorial(pilot, app)
        panel = str(screen.query_one(TutorialPanel).render())
        assert "当前块" in panel and "PLAY card" not in panel and "Enter" in panel
        assert screen.game.players == ["你"]


def test_play_tower_tutorial_is_a_command() -> None:
    """``tabletris play tower --tutorial`` names a game that has one now (at a terminal it runs
    the app; here, without one, it asks for one rather than saying the game has none)."""
    from typer.testing import CliRunner

    from tabletris.cli.app import app

    result = CliRunner().invoke(app, ["play", "tower", "--tutorial"])
    assert result.exit_code == 2 and "full-screen" in result.output and "no guided" not in result.output
