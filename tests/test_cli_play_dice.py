"""`tabletris play dice --plain` driven by scripted standard input."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from rich.console import Console
from typer.testing import CliRunner

from cli_helpers import colour_codes
from tabletris.cli.app import app
from tabletris.cli.line_dice import play_dice
from tabletris.engine import records
from tabletris.engine.records import record_of
from tabletris.engine.shapes import Shape
from tabletris.table.seats import parse_seats

runner = CliRunner()


def _script(repeats: int = 40) -> str:
    """Answers that cover every prompt: shapes, takes, rewards and many placements (most illegal)."""
    lines: list[str] = []
    for _ in range(repeats):
        lines += ["I", "T", "1", "point"]
        lines += [f"{o} {c}" for o in range(1, 9) for c in range(1, 11)]
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
        input="banana\n99 1\n1 43\n[[0,5],[1,5],[0,6],[1,6]]\n1,6 2,6 1,7 2,7\nquit\n",
    )
    assert result.exit_code == 0
    out = result.output
    assert "cannot read 'banana'" in out
    assert "orientation 99 does not exist" in out
    assert "has no legal place in column 43" in out
    assert "✗ O does not rest at [[0,5],[1,5],[0,6],[1,6]]" in out  # a record's cells: as records write them
    assert "✗ O does not rest at 1,6 2,6 1,7 2,7" in out  # a person's: counted from 1, as typed
    assert "Stopped (quit)" in out
    assert "Traceback" not in out


def test_bots_only_game_needs_no_input_and_reports_the_winner() -> None:
    result = runner.invoke(app, ["play", "dice", "--plain", "--no-color", "--seats", "random,random,random", "--seed", "4"])
    assert result.exit_code == 0
    assert "Game over." in result.output
    assert "Winner" in result.output


def test_undo_takes_back_the_persons_move_and_the_bots_moves_after_it(tmp_path: Path) -> None:
    save = tmp_path / "undo.json"
    # seed 3: Ann rolls O first; she places it, the bot moves, Ann undoes and places it elsewhere.
    result = runner.invoke(
        app,
        ["play", "dice", "--plain", "--no-color", "--seats", "human=Ann,random", "--seed", "3", "--save", str(save)],
        input="1 1\nundo\n1 9\nquit\n",
    )
    assert result.exit_code == 0, result.output
    assert "Undone: Ann plays the O again." in result.output
    doc = json.loads(save.read_text())
    assert doc["moves"][0]["player"] == 0
    assert sorted(map(tuple, doc["moves"][0]["place"])) == [(8, 0), (8, 1), (9, 0), (9, 1)]


def test_in_hot_seat_a_person_cannot_undo_the_other_persons_move(tmp_path: Path) -> None:
    """Issue 15.10: Bob's undo took back Ann's move; now each person undoes only their own."""
    save = tmp_path / "hot.json"
    # seed 3: Ann places her O; Bob (who has not moved) asks to undo; he places his L; Ann asks.
    result = runner.invoke(
        app,
        ["play", "dice", "--plain", "--no-color", "--seats", "human=Ann,human=Bob", "--seed", "3", "--save", str(save)],
        input="1 1\nundo\n1 5\nundo\nquit\n",
    )
    assert result.exit_code == 0, result.output
    assert "✗ Bob has no move to undo" in result.output
    assert "✗ Ann can undo only their own move: Bob has moved since" in result.output
    assert "Undone" not in result.output
    doc = json.loads(save.read_text())
    assert [m["player"] for m in doc["moves"]] == [0, 1]
    assert sorted(map(tuple, doc["moves"][0]["place"])) == [(0, 0), (0, 1), (1, 0), (1, 1)]


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


# ---------------------------------------------------------------- issue 15: save, exits, wording

def test_save_never_overwrites_a_record_it_numbers_the_next_one(tmp_path: Path) -> None:
    """Issue 15.3: a second game saved to the same path went over the first."""
    save = tmp_path / "game.json"
    args = ["play", "dice", "--plain", "--no-color", "--seats", "random,random", "--save", str(save)]
    first = runner.invoke(app, [*args, "--seed", "4"])
    second = runner.invoke(app, [*args, "--seed", "5"])
    assert first.exit_code == 0 and second.exit_code == 0, second.output
    assert json.loads(save.read_text())["seed"] == 4
    numbered = tmp_path / "game-2.json"
    assert json.loads(numbered.read_text())["seed"] == 5
    assert "game-2.json" in second.output.replace("\n", "")


def test_a_bad_save_path_is_refused_before_the_game_starts(tmp_path: Path) -> None:
    """Issue 15.5: the path failed only after the whole game, with a traceback."""
    blocker = tmp_path / "file"
    blocker.write_text("x")
    for bad, why in ((blocker / "game.json", "is not a folder"), (tmp_path, "is a folder, not a file")):
        result = runner.invoke(
            app, ["play", "dice", "--plain", "--seats", "human,random", "--save", str(bad)], input="1 1\n"
        )
        assert result.exit_code == 2
        assert result.output.startswith("error: --save: ") and why in result.output
        assert "Dice Tetris" not in result.output  # no game was started
        assert "Traceback" not in result.output


def test_end_of_input_mid_game_exits_1_and_still_saves(tmp_path: Path) -> None:
    """Issue 15.10: input ending mid-game exited 0 as if the game had been played out."""
    save = tmp_path / "cut.json"
    result = runner.invoke(
        app,
        ["play", "dice", "--plain", "--no-color", "--seats", "human=Ann,random", "--seed", "3", "--save", str(save)],
        input="1 1\n",
    )
    assert result.exit_code == 1
    assert "Stopped (input ended)." in result.output
    assert len(json.loads(save.read_text())["moves"]) >= 1


def test_ctrl_c_exits_130_and_still_saves(tmp_path: Path) -> None:
    """Issue 15.10: Ctrl-C exited 0; 130 is what shells report for an interrupted program."""
    save = tmp_path / "int.json"
    answers = iter(["1 1"])

    def ask(prompt: str) -> str:
        try:
            return next(answers)
        except StopIteration:
            raise KeyboardInterrupt from None

    out = io.StringIO()
    seats = parse_seats("human=Ann,random")
    code = play_dice(seats, {}, 3, save, color=False, ask=ask, console=Console(file=out, width=100))
    assert code == 130
    assert "Stopped." in out.getvalue()
    assert json.loads(save.read_text())["moves"][0]["player"] == 0


def test_a_height_that_does_not_fit_is_named_not_the_column() -> None:
    """Issue 15.10: `O C Y` with a good column and a bad height blamed the column."""
    result = runner.invoke(
        app, ["play", "dice", "--plain", "--no-color", "--seats", "human", "--seed", "3"], input="1 1 6\nquit\n"
    )
    assert "✗ orientation 1 in column 1 has no legal place at height 6 (heights: 1)" in result.output
    assert "no legal place in column 1" not in result.output


def test_the_star_prompt_and_its_error_list_the_same_shapes() -> None:
    """Issue 15.10: the * prompt offered I O T S L but its error listed every shape, Z, J and M too."""
    result = runner.invoke(
        app, ["play", "dice", "--plain", "--no-color", "--seats", "human", "--seed", "19"], input="q2\nquit\n"
    )
    assert "name a shape (I O T S L)" in result.output
    assert "✗ 'q2' is not one of I O T S L" in result.output
    assert "Z J L M" not in result.output


def test_no_color_in_the_environment_turns_colour_off() -> None:
    """Issue 15.9: NO_COLOR was ignored (line mode asked Rich for colour explicitly)."""
    args = ["play", "dice", "--plain", "--seats", "random,random", "--seed", "4"]
    coloured = runner.invoke(app, args, env={"FORCE_COLOR": "1", "NO_COLOR": ""})
    assert colour_codes(coloured.output)  # the check can see colour when there is some
    plain = runner.invoke(app, args, env={"FORCE_COLOR": "1", "NO_COLOR": "1"})
    assert plain.exit_code == 0 and "Game over." in plain.output
    assert colour_codes(plain.output) == set()


def test_shapes_take_the_article_of_their_spoken_letter() -> None:
    """Issue 15.10: "is not the shape of a O" / "a S"; the letters are said eye, oh, ess, ell, em."""
    assert [s.with_article for s in Shape] == ["an I", "an O", "a T", "an S", "a Z", "a J", "an L", "an M"]
    result = runner.invoke(
        app,
        ["play", "dice", "--plain", "--no-color", "--seats", "human", "--seed", "3"],
        input="[[0,0],[1,0],[2,0],[1,1]]\nquit\n",
    )
    assert "✗ O is not the shape of an O at [[0,0],[1,0],[2,0],[1,1]]" in result.output


def test_a_record_that_cannot_be_written_after_the_game_is_printed_not_lost(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 15.5: if the save fails after the game (the disk filled up), the record still comes
    out, on standard output, with one error line and exit status 1: never a traceback."""

    def full_disk(doc: dict, path: Path) -> Path:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr("tabletris.cli.line_game.save_record", full_disk)
    save = tmp_path / "game.json"
    result = runner.invoke(
        app, ["play", "dice", "--plain", "--no-color", "--seats", "random,random", "--seed", "4", "--save", str(save)]
    )
    assert result.exit_code == 1
    assert "Traceback" not in result.output
    assert f"\nerror: cannot save the record to {save}: [Errno 28] No space left on device\n" in result.output
    record = result.output[result.output.index("\n{\n") + 1 :]
    assert record == records.dumps(json.loads(record)) + "\n"  # whole lines, unwrapped
    doc = json.loads(record)
    assert records.replay(doc).over


def test_positions_count_from_1_as_the_web_counts_them(tmp_path: Path) -> None:
    """Issue 27 item 7: line mode counted columns, rows and orientations from 0 where the web
    counts from 1. A person's cells and numbers count from 1 (row 1 at the bottom); the record
    keeps the board's indices from 0."""
    save = tmp_path / "one.json"
    # seed 3: Ann rolls O; she types its four cells at the bottom left, as she counts them.
    result = runner.invoke(
        app, ["play", "dice", "--plain", "--no-color", "--seats", "human=Ann,random", "--seed", "3", "--save", str(save)],
        input="1,1 2,1 1,2 2,2\nquit\n",
    )
    out = result.output
    lines = [line.rstrip() for line in out.splitlines()]
    assert " 1 . . . . . . . . . ." in lines and "   1 2 3 4 5 6 7 8 9 0" in lines  # the board's labels
    assert "  orientation 1: columns 1 2 3 4 5 6 7 8 9" in lines
    moves = json.loads(save.read_text())["moves"]
    assert sorted(moves[0]["place"]) == [[0, 0], [0, 1], [1, 0], [1, 1]]  # Ann's typed cells, as the record keeps them
    bot = moves[1]  # the bot's move as line mode says it: each cell one more than the record's
    assert f"Random 2 places {bot.get('shape') or bot['roll']} at " + " ".join(f"{x + 1},{y + 1}" for x, y in bot["place"]) in out
