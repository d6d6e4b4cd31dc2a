"""The dice game in the Textual app, driven by key presses through Textual's pilot."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from helpers import play_dice_turn
from tabletris.engine import records
from tabletris.engine.board import IllegalPlacement
from tabletris.engine.records import record_of
from tabletris.table.positions import for_people
from tabletris.tui.dice_screen import DiceScreen
from tabletris.tui.end_screen import EndScreen
from tabletris.tui.widgets.dialogs import RewardScreen
from tabletris.tui.widgets.dice import dice_breakdown_rows
from tui_helpers import dice_ready, make_app, settle, steer_dice

pytestmark = pytest.mark.asyncio


@pytest.fixture(autouse=True)
def _config_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.chdir(tmp_path)


async def test_complete_game_human_vs_bot_by_keys(tmp_path: Path) -> None:
    """A whole game: each human turn steered with keys; it ends on the engine's final breakdown."""
    save = tmp_path / "game.json"
    app = make_app("dice", [("human", "Ann"), ("random", "Robo")], {"height": 8}, seed=11)
    app.initial_setup.save = save  # type: ignore[union-attr]
    async with app.run_test(size=(100, 40)) as pilot:
        turns = 0
        while True:
            await settle(pilot, lambda: dice_ready(app))
            if isinstance(app.screen, EndScreen):
                break
            screen = app.screen
            assert isinstance(screen, DiceScreen) and screen.ghost.shape is not None
            game = screen.game
            legal = sorted(
                game.legal_placements(screen.ghost.shape, screen.ghost.take), key=lambda p: (p.y, p.x, p.orientation.index)
            )
            before = len(game.moves)
            await steer_dice(pilot, screen, legal[0])
            assert screen.ghost.reason() is None
            await pilot.press("enter")
            assert len(game.moves) > before  # the human's move went in
            turns += 1
        end = app.screen
        assert isinstance(end, EndScreen)
        game = end.game
        assert game.over and turns >= 3
        # The breakdown shows the engine's numbers, and the saved record replays to them.
        rows = dice_breakdown_rows(game)
        assert [r["total"] for r in rows] == game.scores
        assert [r["rows"] for r in rows] == game.rows_completed
        replayed = records.replay(Path(save))
        assert replayed.scores == game.scores and replayed.board.rows() == game.board.rows()
        assert [r["winner"] for r in rows] == [i in game.winners() for i in range(2)]


async def test_illegal_placement_shows_reason_and_changes_nothing() -> None:
    app = make_app("dice", [("human", "Ann"), ("random", "Robo")], seed=3)
    async with app.run_test(size=(100, 40)) as pilot:
        await settle(pilot, lambda: dice_ready(app))
        screen = app.screen
        assert isinstance(screen, DiceScreen) and screen.ghost.orient is not None
        game = screen.game
        rows_before, moves_before = game.board.rows(), list(game.moves)
        for _ in range(6):
            await pilot.press("up")  # up in the air: the piece does not rest
        cells = screen.ghost.orient.at(screen.ghost.gx, screen.ghost.gy)
        with pytest.raises(IllegalPlacement) as expected:
            game.board.validate(screen.ghost.shape, cells, game.rules.orientation_mode, game.rules.access_mode)
        await pilot.press("enter")
        assert str(screen.message) == for_people(str(expected.value), cells)  # the engine's words, cells counted from 1
        assert "does not rest" in str(screen.message)
        assert game.board.rows() == rows_before and game.moves == moves_before
        assert screen.phase == "place"
        # Space lets the ghost fall to where it fits; then it can be placed.
        await pilot.press("space")
        assert screen.ghost.reason() is None


async def test_undo_takes_back_the_bot_reply_and_the_human_move() -> None:
    app = make_app("dice", [("human", "Ann"), ("random", "Robo")], seed=5)
    async with app.run_test(size=(100, 40)) as pilot:
        await settle(pilot, lambda: dice_ready(app))
        screen = app.screen
        assert isinstance(screen, DiceScreen)
        game = screen.game
        face = game.roll_face
        await pilot.press("u")
        assert "Nothing to undo" in str(screen.message)
        await pilot.press("space", "enter")
        await settle(pilot, lambda: dice_ready(app) and len(game.moves) == 2)
        await pilot.press("u")
        await settle(pilot, lambda: dice_ready(app))
        assert game.moves == [] and game.roll_face == face and game.to_move == 0


async def test_click_moves_the_ghost_and_a_second_click_places() -> None:
    app = make_app("dice", [("human", "Ann"), ("human", "Bea")], seed=9)
    async with app.run_test(size=(100, 40)) as pilot:
        await settle(pilot, lambda: dice_ready(app))
        screen = app.screen
        assert isinstance(screen, DiceScreen) and screen.ghost.shape is not None
        game = screen.game
        target = max(game.legal_placements(screen.ghost.shape), key=lambda p: p.x)
        cell = target.cells[0]
        board = screen.query_one("#board")
        region = board.content_region
        x = region.x - board.region.x + cell[0] * 2
        y = region.y - board.region.y + (game.board.height - 1 - cell[1])
        await pilot.click("#board", offset=(x, y))
        assert cell in screen.ghost.orient.at(screen.ghost.gx, screen.ghost.gy)  # type: ignore[union-attr]
        assert screen.ghost.reason() is None
        await pilot.click("#board", offset=(x, y))
        assert len(game.moves) == 1 and cell in game.moves[0].place  # type: ignore[operator]


async def test_choose_reward_removes_an_opponent_stone() -> None:
    """row_reward: choose offers the point or another player's stone; the engine applies it."""
    garbage = [{"shape": "I", "cells": [[0, 0], [1, 0], [2, 0], [3, 0]]}, {"shape": "I", "cells": [[4, 0], [5, 0], [6, 0], [7, 0]]}]
    rules = {"preset": "choose", "width": 10, "garbage": garbage}
    app = make_app("dice", [("human", "Ann"), ("human", "Bea")], rules, seed=1)
    async with app.run_test(size=(100, 40)) as pilot:
        await settle(pilot, lambda: dice_ready(app))
        screen = app.screen
        assert isinstance(screen, DiceScreen)
        game = screen.game
        # Ann places anything away from row 0's gap; then Bea completes row 0 if her piece can.
        for _ in range(12):
            assert isinstance(app.screen, DiceScreen)
            shape = screen.ghost.shape
            assert shape is not None
            closing = [p for p in game.legal_placements(shape, screen.ghost.take) if game.scoring_rows_after(p, screen.ghost.take)]
            if closing and game.to_move == 1 and any(s.owner == 0 for s in game.board.stones.values()):
                await steer_dice(pilot, screen, closing[0])
                await pilot.press("enter")
                await settle(pilot, lambda: isinstance(app.screen, RewardScreen))
                reward = app.screen
                assert isinstance(reward, RewardScreen)
                ann_stone = next(s for s in reward.stones if s.owner == 0)
                assert all(s.owner == 0 for s in reward.stones)  # only another player's stones
                score_before = game.scores[1]
                for _ in range(len(reward.stones)):  # the cursor walks the marked stones
                    if reward.current is ann_stone:
                        break
                    await pilot.press("right")
                assert reward.current is ann_stone
                await pilot.press("enter")
                await settle(pilot, lambda: isinstance(app.screen, DiceScreen))
                assert ann_stone.number not in game.board.stones
                assert game.scores[1] == score_before  # the row was traded for the removal
                assert game.moves[-1].rewards == (ann_stone.cells,)
                return
            legal = sorted(game.legal_placements(shape, screen.ghost.take), key=lambda p: (-p.y, p.x))
            safe = [p for p in legal if not game.scoring_rows_after(p, screen.ghost.take)] or legal
            await steer_dice(pilot, screen, safe[0])
            await pilot.press("enter")
            await settle(pilot, lambda: dice_ready(app))
        pytest.fail("no turn completed a row in 12 turns with this seed")


async def test_help_shows_rules_and_keys() -> None:
    app = make_app("dice", [("human", "Ann"), ("random", "Robo")], {"preset": "long"}, seed=2)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot, lambda: dice_ready(app))
        await pilot.press("question_mark")
        await pilot.pause()
        from tabletris.tui.help_screen import HelpScreen

        assert isinstance(app.screen, HelpScreen)
        text = app.screen.query_one("#help-text").source  # type: ignore[attr-defined]
        assert "The dice game" in text and "| height | `30` |" in text and "rotate clockwise" in text
        await pilot.press("escape")
        assert isinstance(app.screen, DiceScreen)


async def test_replay_viewer_reaches_the_engine_position(tmp_path: Path) -> None:
    from tabletris.bots.registry import make_bot
    from tabletris.engine.dice import DiceGame
    from tabletris.tui.app import TabletrisApp
    from tabletris.tui.replay_screen import ReplayScreen
    from tabletris.tui.widgets.board import BoardView

    game = DiceGame(["Ann", "Robo"], {"height": 10}, seed=21)
    bots = [make_bot("random", seed=1), make_bot("random", seed=2)]
    while not game.over:
        play_dice_turn(game, bots[game.to_move])
    path = tmp_path / "r.json"
    path.write_text(records.dumps(record_of(game)))
    expected = records.replay(path)
    app = TabletrisApp(replay=path)
    async with app.run_test(size=(100, 40)) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, ReplayScreen)
        board = screen.query_one("#replay-board", BoardView)
        assert board.board.rows() == expected.board.rows()
        await pilot.press("home")
        assert board.board.rows() == ["." * 10] * 10
        for k in range(1, 6):
            await pilot.press("right")
            doc = json.loads(path.read_text())
            partial = records.replay({**doc, "moves": doc["moves"][:k]})
            assert board.board.rows() == partial.board.rows() and screen.position == k
        await pilot.press("left")
        assert screen.position == 4
        await pilot.press("end")
        final = screen.game_at(screen.position)
        assert board.board.rows() == expected.board.rows() and final.scores == expected.scores


async def test_rematch_is_started_by_the_loser_of_the_game_before() -> None:
    """Seed 000: "the next games start with the one who lost the previous game"."""
    from tabletris.engine.dice import next_starter

    app = make_app("dice", [("random", "Ann"), ("random", "Bob"), ("random", "Cy")], {"width": 5, "height": 6}, seed=4)
    async with app.run_test(size=(100, 40)) as pilot:
        await settle(pilot, lambda: isinstance(app.screen, EndScreen))
        first = app.game
        expected = next_starter(first)
        assert expected != first.rules.first_player  # the seed makes the rule visible
        assert min(first.scores) == first.scores[expected]
        await pilot.press("r")
        await settle(pilot, lambda: app.game is not first and len(app.game.moves) >= 1)
        assert app.game.rules.first_player == expected
        assert app.game.moves[0].player == expected
