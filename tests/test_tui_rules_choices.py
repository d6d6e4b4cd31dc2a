"""Issue 11 in the app: the scorer names each point token's shape (tokens_from_supply), with the
engine's default pre-selected so one key accepts it, and a tower and end chosen per seat."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import Select

from tabletris.engine.shapes import Shape
from tabletris.table.seats import SeatSpec
from tabletris.tui.app import TabletrisApp
from tabletris.tui.dice_screen import DiceScreen
from tabletris.tui.new_game import NewGameScreen
from tabletris.tui.setup import Setup
from tabletris.tui.tower_screen import TowerScreen
from tabletris.tui.widgets.dialogs import TokenScreen
from tui_helpers import dice_ready, make_app, settle, steer_dice

pytestmark = pytest.mark.asyncio

NARROW = {"width": 4, "height": 8, "die": ["I", "L"]}


@pytest.fixture(autouse=True)
def _config_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.chdir(tmp_path)


async def _place_a_scoring_piece(pilot: object, app: object) -> DiceScreen:
    """Play people's turns (lowest legal spot) until one can complete a row; steer there, enter."""
    for _ in range(20):
        await settle(pilot, lambda: dice_ready(app))  # type: ignore[arg-type]
        screen = app.screen  # type: ignore[attr-defined]
        assert isinstance(screen, DiceScreen) and screen.ghost.shape is not None
        game = screen.game
        legal = sorted(game.legal_placements(screen.ghost.shape, screen.ghost.take), key=lambda p: (p.y, p.x))
        scoring = [p for p in legal if game.scoring_rows_after(p, screen.ghost.take)]
        await steer_dice(pilot, screen, (scoring or legal)[0])  # type: ignore[arg-type]
        await pilot.press("enter")  # type: ignore[attr-defined]
        await pilot.pause()  # type: ignore[attr-defined]
        if scoring:
            return screen
    raise AssertionError("no turn could complete a row")


async def test_the_scorer_accepts_the_default_token_with_one_key() -> None:
    app = make_app("dice", [("human", "Ann"), ("human", "Bob")], NARROW, seed=3)
    async with app.run_test(size=(100, 40)) as pilot:
        screen = await _place_a_scoring_piece(pilot, app)
        game = screen.game
        dialog = app.screen
        assert isinstance(dialog, TokenScreen)  # the move waits for the token
        default = dialog.tokens[0]  # pre-selected: the engine's default for this move
        moves = len(game.moves)
        await pilot.press("enter")
        await pilot.pause()
        assert len(game.moves) == moves + 1
        assert game.moves[-1].tokens == (default,)
        supply_text = str(screen.query_one("#supply").render())
        assert f"tokens {game.players[game.moves[-1].player]} {default.value}" in supply_text  # left the supply


async def test_the_scorer_names_another_shape_and_the_supply_gives_it() -> None:
    app = make_app("dice", [("human", "Ann"), ("human", "Bob")], NARROW, seed=3)
    async with app.run_test(size=(100, 40)) as pilot:
        screen = await _place_a_scoring_piece(pilot, app)
        game = screen.game
        dialog = app.screen
        assert isinstance(dialog, TokenScreen)
        other = next(s for s in game.token_choices() if s != dialog.tokens[0])
        before = dict(game.supply)
        scorer = game.to_move
        await pilot.press(other.value.lower())
        await pilot.press("enter")
        await pilot.pause()
        move = game.moves[-1]
        assert move.tokens == (other,)
        assert game.tokens[scorer] == [other]
        placed = Shape(move.roll) if move.shape is None else move.shape
        assert game.supply[other] == before[other] - 1 - (placed == other)  # the token left the supply


async def test_escape_takes_the_move_back_before_it_is_played() -> None:
    app = make_app("dice", [("human", "Ann"), ("human", "Bob")], NARROW, seed=3)
    async with app.run_test(size=(100, 40)) as pilot:
        screen = await _place_a_scoring_piece(pilot, app)
        moves = len(screen.game.moves)
        await pilot.press("escape")
        await pilot.pause()
        assert len(screen.game.moves) == moves and screen.phase == "place"


async def test_each_seat_chooses_a_tower_and_its_end() -> None:
    """Seed 002: "Choose which end of the Tower will be the bottom": a seat's pick is its layout,
    and a seat left on random gets a free tower from the engine."""
    app = TabletrisApp(Setup("tower", [SeatSpec("human", "Ann"), SeatSpec("random", "Robo")]), show_setup=True,
                       roll_frames=0, bot_pause=0)
    async with app.run_test(size=(140, 50)) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, NewGameScreen)
        screen.query_one("#seat-tower-0", Select).value = "2b"
        await pilot.pause()
        await pilot.press("ctrl+s")
        await settle(pilot, lambda: isinstance(app.screen, TowerScreen))
        game = app.screen.game  # type: ignore[attr-defined]
        assert game.towers[0].layout.name == "2b"
        assert game.towers[1].layout.name is not None and game.towers[1].layout.name[0] != "2"  # a free tower
