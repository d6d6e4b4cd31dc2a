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

from tabletris.engine.board import IllegalPlacement, Placement
from tabletris.engine.dice import DiceGame
from tabletris.i18n import language
from tabletris.table.positions import for_people
from tabletris.tui.app import TabletrisApp
from tabletris.tui.dice_screen import UI as DICE_UI
from tabletris.tui.dice_tutorial import RULES, SEED, STEPS, DiceTutorialScreen, capture
from tabletris.tui.end_screen import EndScreen
from tabletris.tui.new_game import NewGameScreen
from tabletris.tui.tutorial import TutorialPanel, tutorial_of
from tabletris.tui.widgets.dialogs import TokenScreen
from tui_helpers import settle, steer_dice

pytestmark = pytest.mark.asyncio


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


async def test_the_palette_offers_the_tutorial_and_the_last_setup_is_kept(tmp_path: Path) -> None:
    app = TabletrisApp(None, roll_frames=0, bot_pause=0.0)
    async with app.run_test(size=(110, 40)) as pilot:
        await settle(pilot, lambda: isinstance(app.screen, NewGameScreen))
        commands = {c.title: c for c in app.get_system_commands(app.screen)}
        assert "Tutorial: dice" in commands
        commands["Tutorial: dice"].callback()
        await settle(pilot, lambda: placing(app))
        assert not (tmp_path / "config" / "tabletris" / "last_setup.json").exists()


async def test_the_tutorial_speaks_czech() -> None:
    app = TabletrisApp(None, roll_frames=0, bot_pause=0.0, lang="cs")
    async with app.run_test(size=(110, 40)) as pilot:
        screen = await open_tutorial(pilot, app)
        panel = str(screen.query_one(TutorialPanel).render())
        with language("cs"):
            from tabletris.tui.texts import _

            assert _(STEPS[0].text) != STEPS[0].text and _(STEPS[0].text) in panel
        assert screen.game.players != ["You"]


def test_every_path_through_the_script_takes_from_the_lowest_rows_and_ends() -> None:
    """Whatever the player places (a row where the row step asks for one, any token), the seeded
    game reaches a take and its end within a few moves: the script cannot strand a newcomer."""
    found = tutorial_of(DICE_UI)
    assert found is not None and found.steps == STEPS
    ends: list[tuple[int, bool]] = []

    def walk(path: list[tuple[Any, ...]]) -> None:
        game = DiceGame(["You"], RULES, seed=SEED)
        for shape, take, place, tokens in path:
            game.roll()
            game.play(place, shape, take, None, tokens)
        if not game.over:
            game.roll()
        if game.over or len(path) > 10:
            ends.append((len(path), any(m.take is not None for m in game.moves)))
            return
        before = capture(game)
        for shape in game.shapes_for_roll():
            for take in game.take_options(shape):
                for p in game.legal_placements(shape, take):
                    rows = game.scoring_rows_after(p, take)
                    choices = game.token_choices() if rows else []
                    for tokens in [None] + ([[c] for c in choices] if len(rows) == 1 and len(choices) > 1 else []):
                        trial = DiceGame(["You"], RULES, seed=SEED)
                        for s, t, q, k in path:
                            trial.roll()
                            trial.play(q, s, t, None, k)
                        trial.roll()
                        trial.play(p, shape, take.cells if take else None, None, tokens)
                        if len(path) == 1 and not STEPS[1].done(trial, before):
                            continue  # the row step takes this move back
                        walk([*path, (shape, take.cells if take else None, p, tokens)])

    walk([])
    assert ends and all(n <= 8 for n, _ in ends), max(ends)
    assert all(took for _, took in ends)


async def test_the_app_can_open_on_the_tutorial() -> None:
    """``tabletris play dice --tutorial`` runs the app with ``tutorial="dice"``."""
    app = TabletrisApp(tutorial="dice", roll_frames=0, bot_pause=0.0)
    async with app.run_test(size=(110, 40)) as pilot:
        await settle(pilot, lambda: placing(app))
        assert app.screen.guide.index == 0  # type: ignore[attr-defined]


def test_play_tutorial_asks_for_the_full_screen_app_and_a_game_that_has_one(capsys: pytest.CaptureFixture[str]) -> None:
    from typer.testing import CliRunner

    from tabletris.cli.app import app
    from tabletris.tui.launch import launch_tutorial

    result = CliRunner().invoke(app, ["play", "dice", "--tutorial"])  # not a terminal: no app
    assert result.exit_code == 2 and "--tutorial" in result.output and "full-screen" in result.output
    assert launch_tutorial("tower") == 2  # no guided tower game yet: said, and no app is started
    assert "tower" in capsys.readouterr().err


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
