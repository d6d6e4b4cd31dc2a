"""`tabletris replay`: summaries of good records, the one-line error for bad ones (record-format.md)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from cli_helpers import colour_codes
from helpers import play_dice_turn
from tabletris.bots.registry import make_bot
from tabletris.cli.app import app
from tabletris.engine import records
from tabletris.engine.dice import DiceGame
from tabletris.engine.records import record_of

runner = CliRunner()


def _played_game(seed: int = 5, rules: dict | None = None, turns: int | None = None) -> DiceGame:
    game = DiceGame(["Ann", "Bob", "Cy"], rules, seed=seed)
    bot = make_bot("random", seed=seed)
    while not game.over and (turns is None or game.turn < turns):
        play_dice_turn(game, bot)
    return game


def _write(tmp_path: Path, doc: dict | str, name: str = "game.json") -> Path:
    path = tmp_path / name
    path.write_text(doc if isinstance(doc, str) else records.dumps(doc), encoding="utf-8")
    return path


def test_replay_json_prints_the_summary_of_the_spec(tmp_path: Path) -> None:
    game = _played_game()
    path = _write(tmp_path, record_of(game))
    result = runner.invoke(app, ["replay", str(path), "--json"])
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout)
    assert summary == game.summary()
    assert set(summary) == {"game", "over", "turn", "players", "winners", "rows"}
    assert summary["over"] is True
    assert summary["winners"] and all(w in ("Ann", "Bob", "Cy") for w in summary["winners"])
    assert len(summary["rows"]) == 20 and all(len(r) == 10 for r in summary["rows"])


def test_replay_of_an_unfinished_game_has_no_winners(tmp_path: Path) -> None:
    game = _played_game(turns=6)
    path = _write(tmp_path, record_of(game))
    result = runner.invoke(app, ["replay", str(path), "--json"])
    assert result.exit_code == 0
    summary = json.loads(result.stdout)
    assert summary["over"] is False and summary["winners"] == [] and summary["turn"] == 6


def test_replay_without_json_shows_board_and_scoreboard(tmp_path: Path) -> None:
    game = _played_game()
    path = _write(tmp_path, record_of(game))
    result = runner.invoke(app, ["replay", str(path), "--no-color"])
    assert result.exit_code == 0
    out = result.stdout
    for name in ("Ann", "Bob", "Cy"):
        assert name in out
    assert game.board.rows()[-1].replace("", " ").strip() in out
    assert "winner" in out.lower()


def test_illegal_move_exits_1_with_one_error_line_naming_move_player_and_rule(tmp_path: Path) -> None:
    game = _played_game(seed=9, turns=4)
    doc = record_of(game)
    # Move 3 floats in the air: lift its cells far above everything.
    doc["moves"][2]["place"] = [[x, y + 12] for x, y in doc["moves"][2]["place"]]
    path = _write(tmp_path, doc)
    result = runner.invoke(app, ["replay", str(path), "--json"])
    assert result.exit_code == 1
    assert result.stdout == ""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1
    player = game.players[doc["moves"][2]["player"]]
    assert lines[0].startswith(f"error: move 3 ({player}): ")
    assert "does not rest" in lines[0]


@pytest.mark.parametrize(
    ("mutate", "key"),
    [
        (lambda d: d.pop("format"), "format"),
        (lambda d: d.__setitem__("game", "chess"), "game"),
        (lambda d: d.__setitem__("players", []), "players"),
        (lambda d: d.__setitem__("rules", {"colour": "red"}), "rules.colour"),
        (lambda d: d["moves"][1].__setitem__("roll", 3), "moves[1].roll"),
        (lambda d: d["moves"][0].__setitem__("place", [[0, "a"]]), "moves[0].place"),
        (lambda d: d["moves"][0].__setitem__("spin", True), "moves[0].spin"),
    ],
)
def test_malformed_record_names_the_key(tmp_path: Path, mutate, key: str) -> None:
    doc = record_of(_played_game(turns=3))
    mutate(doc)
    result = runner.invoke(app, ["replay", str(_write(tmp_path, doc))])
    assert result.exit_code == 1
    assert result.stdout == ""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ")
    assert key in lines[0]


def test_not_json_and_missing_file_are_clear_errors(tmp_path: Path) -> None:
    bad = _write(tmp_path, "{not json", "bad.json")
    result = runner.invoke(app, ["replay", str(bad)])
    assert result.exit_code == 1 and result.stdout == ""
    assert result.stderr.startswith("error: not a JSON document")
    result = runner.invoke(app, ["replay", str(tmp_path / "missing.json")])
    assert result.exit_code == 1 and result.stdout == ""
    assert result.stderr.startswith("error: cannot read")


def test_wrong_player_and_turn_after_the_end_are_rejected(tmp_path: Path) -> None:
    game = _played_game(seed=2)
    doc = record_of(game)
    wrong = json.loads(json.dumps(doc))
    wrong["moves"][0]["player"] = 1
    result = runner.invoke(app, ["replay", str(_write(tmp_path, wrong, "w.json"))])
    assert result.exit_code == 1
    assert result.stderr.startswith("error: move 1 (Ann): it is seat 0's turn")
    extra = json.loads(json.dumps(doc))
    extra["moves"].append({"roll": "O", "place": [[0, 0], [1, 0], [0, 1], [1, 1]]})
    n = len(extra["moves"])
    result = runner.invoke(app, ["replay", str(_write(tmp_path, extra, "x.json"))])
    assert result.exit_code == 1
    assert result.stderr.startswith(f"error: move {n} ({game.players[game.to_move]}): the game is already over")


def test_a_binary_or_non_utf8_file_is_one_error_line(tmp_path: Path) -> None:
    """Issue 15.5: a non-UTF-8 file made `replay` print a UnicodeDecodeError traceback."""
    for name, data in (("latin1.json", '{"players": ["Zoë"]}'.encode("latin-1")), ("bin.json", b"\xff\xfe\x00\x01")):
        path = tmp_path / name
        path.write_bytes(data)
        result = runner.invoke(app, ["replay", str(path)])
        assert result.exit_code == 1
        assert result.stdout == ""
        lines = result.stderr.strip().splitlines()
        assert lines == [f"error: {path} is not a record: not UTF-8 text (byte {data.index(next(b for b in data if b > 127))})"]


def test_replay_honours_no_color(tmp_path: Path) -> None:
    """Issue 15.9: NO_COLOR was ignored by `replay` (it asked Rich for colour explicitly)."""
    path = _write(tmp_path, record_of(_played_game()))
    coloured = runner.invoke(app, ["replay", str(path)], env={"FORCE_COLOR": "1", "NO_COLOR": ""})
    assert colour_codes(coloured.stdout)
    plain = runner.invoke(app, ["replay", str(path)], env={"FORCE_COLOR": "1", "NO_COLOR": "1"})
    assert plain.exit_code == 0 and "winner" in plain.stdout.lower()
    assert colour_codes(plain.stdout) == set()
