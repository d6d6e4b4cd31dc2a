"""`tabletris play tower --plain` driven by scripted standard input."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from tabletris.cli.app import app
from tabletris.engine import records
from tabletris.engine.records import record_of

runner = CliRunner()


def _play(seats: str, seed: int, script: str, *extra: str) -> tuple[int, str]:
    result = runner.invoke(
        app, ["play", "tower", "--plain", "--no-color", "--seats", seats, "--seed", str(seed), *extra], input=script
    )
    return result.exit_code, result.output


def test_human_against_random_bots_plays_to_the_end_and_saves_a_replayable_record(tmp_path: Path) -> None:
    """Line mode: a human (always drop number 1) plays a whole game; --save writes a replayable record."""
    save = tmp_path / "tower.json"
    code, out = _play("human=Ann,random,random", 11, "1\n" * 40, "--save", str(save))
    assert code == 0, out
    assert "Traceback" not in out and "Game over." in out
    assert "Final scores" in out and "row points" in out and "six-lines" in out
    doc = json.loads(save.read_text())
    assert doc["game"] == "tower" and doc["players"][0] == "Ann" and doc["seed"] == 11
    game = records.replay(save)
    assert game.over
    assert records.dumps(record_of(game)) == save.read_text()
    assert any(r[0] is not None and "place" in r[0] for r in doc["rounds"])


def test_invalid_input_is_answered_with_the_reason_and_asked_again() -> None:
    """Line mode: bad input gets the reason, never a traceback; minos and hold are checked by the engine."""
    script = "\n".join(
        ["banana", "9 1", "1 43", "999", "m 43", "m x", "m 1", "m 1", "clear", "help", "hold", "hold", "quit"]
    ) + "\n"
    code, out = _play("human=Ann,random", 3, script)
    assert code == 0
    assert "cannot read 'banana'" in out
    assert "orientation 9 does not exist" in out
    assert "in column 43 is not a legal drop" in out
    assert "there is no drop number 999" in out
    assert "column 43 is outside the tower (1-8)" in out
    assert "type m and a column number" in out
    assert "Ann has 1 mino, not 2" in out
    assert "queued: columns 1" in out
    assert "m C        first drop one of your minos" in out  # help
    assert "Ann: has used the hold already" in out
    assert "Stopped (quit)" in out
    assert "Traceback" not in out


def test_queued_minos_fall_before_the_piece_and_are_recorded(tmp_path: Path) -> None:
    """Line mode: `m C` drops a mino before the piece (column 8 as people count: index 7); the record lists it."""
    save = tmp_path / "minos.json"
    code, out = _play("human=Ann", 5, "m 8\n1\nquit\n", "--save", str(save))
    assert code == 0, out
    doc = json.loads(save.read_text())
    assert doc["rounds"][0][0]["minos"] == [7]
    stone = records.replay(save).towers[0].board.stone_at((7, 0))
    assert stone is not None and stone.shape.value == "M"


def test_two_humans_pass_the_keyboard_and_see_the_reveal() -> None:
    """Line mode hot-seat: 'pass to NAME' between people; the reveal shows every tower and the legend."""
    code, out = _play("human=Ann,human=Bob", 2, "\n1\n\n1\nquit\n")
    assert code == 0, out
    assert "Pass to Ann" in out and "Pass to Bob" in out
    assert "Round 1 revealed:" in out
    assert "Ann drops at" in out and "Bob drops at" in out
    assert "lowercase letter = bonus icon" in out and "* = diamond" in out
    assert "[7: not used with 2 players]" in out


def test_bots_only_game_needs_no_input_and_explains_the_result() -> None:
    """Line mode: bots play alone; the final breakdown names the winner (or the tie-break)."""
    code, out = _play("random,random,random,random", 4, "", "--rules", "preset=advanced")
    assert code == 0, out
    assert "Game over." in out
    assert "Winner:" in out or "Tie on" in out
    assert "\x1b[" not in out  # --no-color


def test_bad_rules_exit_with_status_2_and_the_reason() -> None:
    """Line mode: unusable options are reported, not a traceback."""
    code, out = _play("human,random", 1, "", "--rules", 'achievements=["nope"]')
    assert code == 2
    assert "rules.achievements: unknown card 'nope'" in out


def test_end_of_input_mid_game_exits_1_and_still_saves(tmp_path: Path) -> None:
    """Issue 15.10: input ending mid-game exited 0; the record is still written."""
    save = tmp_path / "cut.json"
    code, out = _play("human=Ann,random", 3, "1\n", "--save", str(save))
    assert code == 1, out
    assert "Stopped (input ended)." in out
    assert len(json.loads(save.read_text())["rounds"]) == 1


def test_one_mino_is_singular() -> None:
    """Issue 15.10: "Ann has 1 minos" (the engine's message, as line mode shows it)."""
    code, out = _play("human=Ann", 5, "m 1\nm 2\nquit\n")
    assert code == 0
    assert "✗ Ann has 1 mino, not 2" in out
    assert "1 minos" not in out


def test_a_drop_that_breaks_a_rule_is_explained_in_the_engines_words() -> None:
    """Issue 10: line mode worded the skyline rule itself ("would not fit below the skyline or
    leave the tower", whichever it was); now the engine's drop_error says which."""
    code, out = _play("human=Ann,random", 3, "1 43\nquit\n")
    assert code == 0
    assert "✗ orientation 1 in column 43 is not a legal drop: S this way up is 3 wide: its left edge goes in column 1-6, not 43" in " ".join(out.split())
    assert "or leave the tower" not in out
