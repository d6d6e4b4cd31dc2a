"""`tabletris play dice --plain` driven by scripted standard input."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from tabletris.cli.app import app
from tabletris.engine import records
from tabletris.engine.records import record_of

runner = CliRunner()


def _script(repeats: int = 40) -> str:
    """Answers that cover every prompt: shapes, takes, rewards and many placements (most illegal)."""
    lines: list[str] = []
    for _ in range(repeats):
        lines += ["I", "T", "1", "point"]
        lines += [f"{o} {c}" for o in range(8) for c in range(10)]
    return "\n".join(lines) + "\n"


def test_human_against_random_bots_plays_to_the_end_and_saves_a_replayable_record(tmp_path: Path) -> None:
    save = tmp_path / "game.json"
    result = runner.invoke(
        app,
        ["play", "dice", "--plain", "--no-color", "--seats", "human=Ann,random,random", "--seed", "11", "--save", str(save)],
        input=_script(),
    )
    assert result.exit_code == 0, result.output
    assert "Traceback" not in result.output
    assert "Game over." in result.output
    doc = json.loads(save.read_text())
    assert doc["players"][0] == "Ann" and doc["seed"] == 11
    game = records.replay(save)
    assert game.over
    assert records.dumps(record_of(game)) == save.read_text()
    assert any(m.player == 0 for m in game.moves)


def test_invalid_input_is_answered_with_the_reason_and_asked_again(tmp_path: Path) -> None:
    result = runner.invoke(
        app,
        ["play", "dice", "--plain", "--no-color", "--seats", "human,random", "--seed", "3"],
        input="banana\n99 0\n0 42\n[[0,5],[1,5],[0,6],[1,6]]\nquit\n",
    )
    assert result.exit_code == 0
    out = result.output
    assert "cannot read 'banana'" in out
    assert "orientation 99 does not exist" in out
    assert "has no legal place in column 42" in out
    assert "does not rest" in out
    assert "Stopped (quit)" in out
    assert "Traceback" not in out


def test_bots_only_game_needs_no_input_and_reports_the_winner() -> None:
    result = runner.invoke(app, ["play", "dice", "--plain", "--no-color", "--seats", "random,random,random", "--seed", "4"])
    assert result.exit_code == 0
    assert "Game over." in result.output
    assert "Winner" in result.output


def test_undo_in_hot_seat_takes_back_the_last_human_move(tmp_path: Path) -> None:
    save = tmp_path / "undo.json"
    # seed 3: seat 0 rolls O first (see the record); place it, undo, place it elsewhere, stop.
    result = runner.invoke(
        app,
        ["play", "dice", "--plain", "--no-color", "--seats", "human=Ann,human=Bob", "--seed", "3", "--save", str(save)],
        input="0 0\nundo\n0 8\nquit\n",
    )
    assert result.exit_code == 0, result.output
    assert "Undone: Ann plays the O again." in result.output
    doc = json.loads(save.read_text())
    assert len(doc["moves"]) == 1
    assert sorted(map(tuple, doc["moves"][0]["place"])) == [(8, 0), (8, 1), (9, 0), (9, 1)]


def test_bad_options_are_clear_errors() -> None:
    result = runner.invoke(app, ["play", "dice", "--plain", "--seats", "human,wizard"])
    assert result.exit_code == 2
    assert "unknown bot 'wizard'" in result.output
    result = runner.invoke(app, ["play", "dice", "--plain", "--rules", "height=banana"])
    assert result.exit_code == 2
    assert "rules.height" in result.output
    result = runner.invoke(app, ["play", "chess"])
    assert result.exit_code == 2
    assert "unknown game 'chess'" in result.output
