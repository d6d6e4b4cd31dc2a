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


@pytest.fixture(autouse=True)
def _config_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.chdir(tmp_path)


def _tower_ready(app: Any) -> bool:
    s = app.screen
    return isinstance(s, EndScreen | CurtainScreen | RevealScreen) or (isinstance(s, TowerScreen) and s.phase == "plan")


@pytest.mark.asyncio
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


def test_a_crash_keeps_the_record_and_exits_non_zero(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 15.1: the app died with exit status 0 and no record; now the record is saved on the
    way out whatever ends the app, and the status says it failed."""
    from tabletris.engine import records
    from tabletris.tui.dice_screen import DiceScreen
    from tabletris.tui.launch import run_app

    real_commit = DiceScreen.commit

    def commit_then_break(self: DiceScreen, action: Any) -> None:
        if len(self.game.moves) >= 3:
            raise RuntimeError("a bug in a screen")
        real_commit(self, action)

    monkeypatch.setattr(DiceScreen, "commit", commit_then_break)
    save = tmp_path / "crash.json"
    app = make_app("dice", [("random", "Ann"), ("random", "Bob")], seed=5)
    app.initial_setup.save = save  # type: ignore[union-attr]
    assert run_app(app, headless=True) == 1
    doc = json.loads(save.read_text(encoding="utf-8"))
    assert len(doc["moves"]) == 3
    assert records.replay(doc).moves == app.game.moves[:3]


@pytest.mark.asyncio
async def test_q_asks_first_and_leaving_saves_with_save(tmp_path: Path) -> None:
    """Issue 15.2: q abandoned the game at once, nothing saved even with --save."""
    from tabletris.tui.dice_screen import DiceScreen
    from tabletris.tui.widgets.dialogs import LeaveScreen
    from tui_helpers import dice_ready

    save = tmp_path / "left.json"
    app = make_app("dice", [("human", "Ann"), ("random", "Robo")], seed=7)
    app.initial_setup.save = save  # type: ignore[union-attr]
    async with app.run_test(size=(100, 40)) as pilot:
        await settle(pilot, lambda: dice_ready(app))
        await pilot.press("space", "enter")
        await settle(pilot, lambda: dice_ready(app) and len(app.game.moves) >= 2)
        await pilot.press("q")
        await pilot.pause()
        assert isinstance(app.screen, LeaveScreen)
        await pilot.press("n")  # stay
        await pilot.pause()
        assert isinstance(app.screen, DiceScreen) and app.is_running and not save.exists()
        await pilot.press("q")
        await pilot.pause()
        await pilot.press("y")
        await pilot.pause()
    assert not app.is_running
    doc = json.loads(save.read_text(encoding="utf-8"))
    assert len(doc["moves"]) == len(app.game.moves) >= 2


@pytest.mark.asyncio
async def test_n_asks_first_and_s_saves_without_a_save_path(tmp_path: Path) -> None:
    """Issue 15.2: without --save, leaving offers to save (to a default name in the current folder)."""
    from tabletris.tui.new_game import NewGameScreen
    from tabletris.tui.widgets.dialogs import LeaveScreen
    from tui_helpers import dice_ready

    app = make_app("dice", [("human", "Ann"), ("random", "Robo")], seed=7)
    async with app.run_test(size=(100, 40)) as pilot:
        await settle(pilot, lambda: dice_ready(app))
        await pilot.press("space", "enter")
        await settle(pilot, lambda: dice_ready(app) and len(app.game.moves) >= 2)
        await pilot.press("n")
        await pilot.pause()
        assert isinstance(app.screen, LeaveScreen)
        await pilot.press("s")
        await settle(pilot, lambda: isinstance(app.screen, NewGameScreen))
    saved = tmp_path / "tabletris-dice-7.json"
    assert len(json.loads(saved.read_text(encoding="utf-8"))["moves"]) >= 2


@pytest.mark.asyncio
async def test_rematch_and_repeated_saves_never_overwrite(tmp_path: Path) -> None:
    """Issue 15.3: a rematch saved over the first game's record."""
    from tabletris.tui.widgets.panels import MessageLine

    save = tmp_path / "game.json"
    app = make_app("dice", [("random", "Ann"), ("random", "Bob")], {"width": 5, "height": 6}, seed=4)
    app.initial_setup.save = save  # type: ignore[union-attr]
    async with app.run_test(size=(100, 40)) as pilot:
        await settle(pilot, lambda: isinstance(app.screen, EndScreen))
        first = app.game
        await pilot.press("s")  # the same state again: not a second file
        await pilot.pause()
        assert "Already saved to" in str(app.screen.query_one("#end-message", MessageLine))
        await pilot.press("r")
        await settle(pilot, lambda: isinstance(app.screen, EndScreen) and app.game is not first)
        second = app.game
    one = json.loads(save.read_text(encoding="utf-8"))
    two = json.loads((tmp_path / "game-2.json").read_text(encoding="utf-8"))
    assert one["seed"] == first.seed and two["seed"] == second.seed and one["seed"] != two["seed"]
    assert not (tmp_path / "game-3.json").exists()


@pytest.mark.asyncio
async def test_a_star_only_on_bonus_icons_that_score() -> None:
    """Issue 15.4: every covered icon got a ★, even under a piece of the wrong shape (9 ★, bonus 0)."""
    from tabletris.tui.widgets.board import BoardView

    app = make_app("tower", [("random", "Ann"), ("random", "Robo"), ("random", "Cleo")], {"preset": "advanced"}, seed=5)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(
            pilot, lambda: isinstance(app.screen, EndScreen) and len(app.screen.query("#reveal BoardView")) == 3
        )  # the end screen's towers are composed a moment after the screen itself
        game = app.game
        views = list(app.screen.query("#reveal BoardView").results(BoardView))
        assert len(views) == 3
        covered_icons = 0
        for seat, view in enumerate(views):
            tower = game.towers[seat]
            stars = [c for c in tower.layout.bonus if view.cell_text(c)[0].startswith("★")]
            covered_icons += sum(1 for c in tower.layout.bonus if tower.board.stone_at(c) is not None)
            assert len(stars) == game.score(seat)["bonus"]
        assert covered_icons > sum(game.score(s)["bonus"] for s in range(3))  # the case the issue saw


@pytest.mark.asyncio
async def test_the_new_game_form_offers_no_oracle_for_dice() -> None:
    """Issue 15.10: oracle was offered for dice (where it plays as expert)."""
    from textual.widgets import Select

    from tabletris.tui.app import TabletrisApp
    from tabletris.tui.new_game import NewGameScreen
    from tabletris.tui.setup import Setup

    app = TabletrisApp(Setup(game="dice"), show_setup=True)
    async with app.run_test(size=(120, 50)) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, NewGameScreen)
        kinds = [value for _, value in screen.query_one("#seat-kind-1", Select)._options]
        assert "expert" in kinds and "oracle" not in kinds
        screen.query_one("#game", Select).value = "tower"
        await pilot.pause()
        await pilot.pause()
        tower_kinds = [value for _, value in app.screen.query_one("#seat-kind-1", Select)._options]
        assert "oracle" in tower_kinds


def _dice_record(tmp_path: Path) -> Path:
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
    return path


@pytest.mark.asyncio
async def test_replay_keys_footer_help_and_clicks(tmp_path: Path) -> None:
    """Issue 15.8: the replay footer showed only ``? q``, ``?`` showed the playing keys, Home/End/
    PgUp/PgDn did nothing (the focused move list took them) and clicking a move did nothing."""
    from tabletris.tui.app import TabletrisApp
    from tabletris.tui.help_screen import HelpScreen
    from tabletris.tui.replay_screen import ReplayScreen

    app = TabletrisApp(replay=_dice_record(tmp_path))
    async with app.run_test(size=(100, 40)) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, ReplayScreen)
        total = len(screen.steps)
        assert total > 12
        shown = {key for key, b in screen.active_bindings.items() if b.binding.show and b.node is screen}
        assert {"left", "right", "home", "end", "pageup", "pagedown"} <= shown
        screen.query_one("#log-box").focus()  # where a person's click or tab leaves the focus
        await pilot.press("home")
        assert screen.position == 0
        await pilot.press("pagedown")
        assert screen.position == 10
        await pilot.press("pageup")
        assert screen.position == 0
        await pilot.press("end")
        assert screen.position == total
        await pilot.press("home")
        await pilot.click("#replay-log", offset=(3, 2))  # the third move's line
        assert screen.position == 3
        await pilot.press("question_mark")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        text = app.screen.query_one("#help-text").source  # type: ignore[attr-defined]
        assert "Replay keys" in text and "Home / End" in text and "rotate clockwise" not in text


@pytest.mark.asyncio
async def test_light_theme_board_no_color_and_too_small_terminal() -> None:
    """Issue 15.9: empty cells were a fixed near-black on light themes, ``--no-color`` did not
    reach the app, and a 60×20 terminal cut the board with no warning."""
    from rich.color import Color as RichColor

    from tabletris.tui import palette
    from tabletris.tui.app import TabletrisApp
    from tabletris.tui.widgets.board import BoardView
    from tui_helpers import dice_ready

    app = make_app("dice", [("human", "Ann"), ("random", "Robo")], seed=7)
    async with app.run_test(size=(100, 40)) as pilot:
        await settle(pilot, lambda: dice_ready(app))
        board = app.screen.query_one("#board", BoardView)
        for theme, light in (("textual-light", True), ("textual-dark", False)):
            app.theme = theme
            await pilot.pause()
            board.render()
            bg = board.cell_text((0, 19))[1].bgcolor
            assert isinstance(bg, RichColor) and bg.triplet is not None
            brightness = sum(bg.triplet) / 3 / 255
            assert (brightness > 0.5) is light, (theme, bg)
            assert app.theme_variables["text-warning"] == palette.HIGHLIGHT  # text accents follow too
        assert app.too_small is None
    assert TabletrisApp(no_color=True).no_color

    small = make_app("tower", [("human", "Ann"), ("random", "Robo")], seed=7)
    async with small.run_test(size=(60, 20)) as pilot:
        await settle(pilot, lambda: getattr(small.screen, "phase", "") == "plan")
        assert small.too_small is not None and "60×20" in small.too_small and "needs at least" in small.too_small


@pytest.mark.asyncio
async def test_command_palette_has_the_apps_commands(tmp_path: Path) -> None:
    """Issue 15.11: the palette had only Textual's built-ins."""
    from tui_helpers import dice_ready

    app = make_app("dice", [("human", "Ann"), ("random", "Robo")], seed=7)
    async with app.run_test(size=(100, 40)) as pilot:
        await settle(pilot, lambda: dice_ready(app))
        commands = {c.title: c for c in app.get_system_commands(app.screen)}
        assert {"New game", "Save record", "Rules and keys", "Replay a record", "Theme"} <= set(commands)
        commands["Save record"].callback()
        await pilot.pause()
        assert (tmp_path / "tabletris-dice-7.json").exists()
        commands["Replay a record"].callback()
        await pilot.pause()
        from tabletris.tui.replay_screen import ReplayScreen

        assert isinstance(app.screen, ReplayScreen)


@pytest.mark.asyncio
async def test_new_game_form_labels_seat_names_presets_and_empty_fields() -> None:
    """Issue 15.6: labels were option keys, a seat switched to expert kept "Random 2", empty seed
    and strength fields turned red, and the fields must show the chosen preset's values."""
    from textual.widgets import Input, Label, Select

    from tabletris.engine.dice import DiceRules
    from tabletris.tui.app import TabletrisApp
    from tabletris.tui.new_game import NewGameScreen
    from tabletris.tui.setup import Setup

    app = TabletrisApp(Setup(), show_setup=True)
    async with app.run_test(size=(120, 50)) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, NewGameScreen)
        labels = [str(label.render()) for label in screen.query(".rule-name").results(Label)]
        assert "Stuck penalty" in labels and "Row reward" in labels and not any("_" in x for x in labels)
        await pilot.click("#seed")
        await pilot.press("1", "backspace", "tab")
        await pilot.click("#seat-strength-1")
        await pilot.press("1", "backspace", "tab")
        await pilot.pause()
        assert not screen.query_one("#seed", Input).has_class("-invalid")
        assert not screen.query_one("#seat-strength-1", Input).has_class("-invalid")
        assert not screen.query_one("#start").disabled
        screen.query_one("#seat-kind-1", Select).value = "expert"
        await pilot.pause()
        assert screen.query_one("#seat-name-1", Input).value == "Expert 2"
        screen.query_one("#seat-name-1", Input).value = "Robo"
        screen.query_one("#seat-kind-1", Select).value = "greedy"
        await pilot.pause()
        assert screen.query_one("#seat-name-1", Input).value == "Robo"  # a typed name stays
        screen.query_one("#preset", Select).value = "long"
        for _ in range(4):
            await pilot.pause()
        form = app.screen
        assert isinstance(form, NewGameScreen)
        long = DiceRules.from_dict({"preset": "long"})
        assert form.query_one("#rule-height", Input).value == str(long.height)
        assert form.read_setup().rules == {"preset": "long"}


@pytest.mark.asyncio
async def test_reward_dialog_shows_the_board_and_a_click_picks_the_stone() -> None:
    """Issue 15.7: the choose-reward dialog hid the board; the stone was picked from coordinates."""
    from tabletris.tui.dice_screen import DiceScreen
    from tabletris.tui.widgets.board import BoardView
    from tabletris.tui.widgets.dialogs import RewardScreen
    from tui_helpers import dice_ready, steer_dice

    garbage = [{"shape": "I", "cells": [[0, 0], [1, 0], [2, 0], [3, 0]]}, {"shape": "I", "cells": [[4, 0], [5, 0], [6, 0], [7, 0]]}]
    app = make_app("dice", [("human", "Ann"), ("human", "Bea")], {"preset": "choose", "width": 10, "garbage": garbage}, seed=1)
    async with app.run_test(size=(120, 50)) as pilot:
        for _ in range(12):
            await settle(pilot, lambda: dice_ready(app))
            screen = app.screen
            assert isinstance(screen, DiceScreen)
            game, ghost = screen.game, screen.ghost
            assert ghost.shape is not None
            closing = [p for p in game.legal_placements(ghost.shape, ghost.take) if game.scoring_rows_after(p, ghost.take)]
            if closing and game.to_move == 1 and any(s.owner == 0 for s in game.board.stones.values()):
                await steer_dice(pilot, screen, closing[0])
                await pilot.press("enter")
                await settle(pilot, lambda: isinstance(app.screen, RewardScreen))
                dialog = app.screen
                assert isinstance(dialog, RewardScreen)
                view = dialog.query_one("#reward-board", BoardView)
                target = dialog.stones[-1]
                assert set(target.cells) <= view.highlight  # the candidates are marked on the board
                assert view.board.stone_at(target.cells[0]) is not None
                x, y = target.cells[0]
                await pilot.click("#reward-board", offset=(1 + 2 * x, 1 + view.board.height - 1 - y))
                await settle(pilot, lambda: isinstance(app.screen, DiceScreen))
                assert game.moves[-1].rewards == (target.cells,)
                assert target.number not in game.board.stones
                return
            legal = sorted(game.legal_placements(ghost.shape, ghost.take), key=lambda p: (-p.y, p.x))
            safe = [p for p in legal if not game.scoring_rows_after(p, ghost.take)] or legal
            await steer_dice(pilot, screen, safe[0])
            await pilot.press("enter")
        pytest.fail("no turn completed a row in 12 turns with this seed")
