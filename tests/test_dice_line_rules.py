"""Line mode (`tabletris play dice --plain`) with the issue 11 rules, driven by scripted input:
a removal above a cleared row, picking a point token, and must_close."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from tabletris.cli.app import app
from tabletris.engine import records
from tabletris.engine.dice import DiceGame
from tabletris.engine.shapes import Shape

runner = CliRunner()


def _play(tmp_path: Path, rules: dict[str, object], script: list[str], seed: int = 1) -> tuple[str, DiceGame]:
    save = tmp_path / f"game{len(list(tmp_path.iterdir()))}.json"  # a new file: saves never overwrite
    result = runner.invoke(
        app,
        ["play", "dice", "--plain", "--no-color", "--seats", "human=Ann,human=Bob", "--seed", str(seed),
         "--rules", json.dumps(rules), "--save", str(save)],
        input="\n".join([*script, "quit"]) + "\n",
    )
    assert result.exit_code == 0, result.output
    assert "Traceback" not in result.output
    return result.output, records.replay(save)


def _seed_rolling(rules: dict[str, object], face: str) -> int:
    """A seed whose first roll is ``face`` (the die is the game's own, drawn from the seed)."""
    for seed in range(1000):
        if DiceGame(["Ann", "Bob"], rules, seed=seed).roll() == face:
            return seed
    raise AssertionError(f"no seed rolls {face}")


def test_line_mode_removes_a_stone_above_a_cleared_row(tmp_path: Path) -> None:
    """rules.md `row_reward: choose` with `clear_rows`: 'a removal names the stone's cells before the
    fall' — the line mode offers the stones as they stand and the engine accepts them. (Defect:
    this removal was refused, since the engine wanted the cells after the fall.)"""
    rules = {"width": 4, "height": 6, "die": ["O"], "row_reward": "choose", "clear_rows": True}
    out, game = _play(tmp_path, rules, ["1 1", "1 1", "1 3", "1"])
    assert "Ann removes the stone at 1,3 1,4 2,3 2,4" in out  # counted from 1, as people count
    assert game.moves[2].rewards is not None and game.moves[2].rewards[0] != "point"
    assert game.board.stones == {} and game.scores == [1, 0]


def test_line_mode_lets_the_scorer_pick_the_token(tmp_path: Path) -> None:
    """rules.md 2.4: 'The scorer names the token's shape' — default shown, Enter accepts it."""
    rules = {"width": 4, "height": 6, "die": ["I", "O"], "supply": 1}
    seed = _seed_rolling(rules, "I")
    out, game = _play(tmp_path, rules, ["1,1 2,1 3,1 4,1", "I"], seed=seed)
    assert "1 point token out of the supply (I O) [Enter: O]" in out
    assert "Ann takes I out of the supply as point token" in out
    assert "point tokens (out of the supply): Ann I" in out
    assert game.tokens[0] == [Shape.I] and game.supply == {Shape.I: 0, Shape.O: 2}
    out, game = _play(tmp_path, rules, ["1,1 2,1 3,1 4,1", ""], seed=seed)
    assert game.tokens[0] == [Shape.O]  # Enter: the default


def test_line_mode_offers_only_closing_placements_with_must_close(tmp_path: Path) -> None:
    """`must_close`: 'If possible, he places the piece so that it closes the entire row' as a duty:
    the line mode offers only the closing places and refuses the others."""
    rules = {"width": 4, "height": 6, "die": ["O"], "must_close": True}
    out, game = _play(tmp_path, rules, ["1 1", "1 1", "1 3", ""])
    assert "must_close: a placement completes a row, so only those are offered." in out
    assert "orientation 1 has no legal place in column 1 (columns: 3)" in out
    assert game.scores == [0, 2]
