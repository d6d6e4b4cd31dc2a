"""Line mode and the commands in Czech and Chinese: ``--lang``, ``LANG``, whole games, aligned boards.

A game is played to its end through the real command (``tabletris play … --plain``) with scripted
input, as the other line-mode tests do; its output is then checked against the English catalog of
the ``cli`` domain: no line may still be an English sentence that has a translation.
"""

from __future__ import annotations

import re
import string
from collections.abc import Iterator
from functools import cache
from pathlib import Path

import pytest
from rich.cells import cell_len
from typer.testing import CliRunner

from tabletris import i18n
from tabletris.cli.app import app
from tabletris.i18n import catalogs

runner = CliRunner()
NO_LOCALE = {"LANGUAGE": None, "LC_ALL": None, "LC_MESSAGES": None, "LANG": None}


@pytest.fixture(autouse=True)
def _english_afterwards() -> Iterator[None]:
    """``--lang`` sets the process's language; the other tests expect English."""
    yield
    i18n.use_language("en")


@cache
def _english_patterns(lang: str) -> list[tuple[str, re.Pattern[str]]]:
    """Each English line of the cli catalog that has a different translation in ``lang``, as a
    pattern matching a whole output line (placeholders match anything)."""
    tr = i18n.translations(lang)
    found = []
    for msg in catalogs.extract("cli"):
        if not msg.id:
            continue
        ids = [msg.id] if isinstance(msg.id, str) else list(msg.id)
        translated = tr.gettext(ids[0]) if len(ids) == 1 else tr.ngettext(ids[0], ids[1], 5)
        for english in ids:
            if translated == english:
                continue
            for line in english.split("\n"):
                words = re.sub(r"\{[^}]*\}", "", line)
                if not re.search(r"[A-Za-z]{3,}", words):  # a bare "{name}: {error}" proves nothing
                    continue
                parts = []
                for literal, field, _spec, _conv in string.Formatter().parse(line):
                    parts.append(re.escape(literal.strip() if not parts else literal))
                    if field is not None:
                        parts.append(".+?")
                found.append((english, re.compile(r"\s*" + "".join(parts).rstrip() + r"\s*")))
    return found


def _english_lines(output: str, lang: str) -> list[str]:
    patterns = _english_patterns(lang)
    return [f"{line!r} is {english!r}" for line in output.splitlines() for english, p in patterns if p.fullmatch(line)]


BOARD_ROW = re.compile(r"^ ?\d{1,2} [^\n]*[.#*][^\n]*$|^ {3}[0-9 ]+$")


def _board_blocks(output: str) -> list[list[str]]:
    """Runs of consecutive board lines (row number, cells; the column numbers under them)."""
    blocks: list[list[str]] = []
    current: list[str] = []
    for line in output.splitlines():
        if BOARD_ROW.match(line):
            current.append(line)
        else:
            if len(current) > 3:
                blocks.append(current)
            current = []
    if len(current) > 3:
        blocks.append(current)
    return blocks


def _check_aligned(output: str) -> int:
    blocks = _board_blocks(output)
    for block in blocks:
        widths = {cell_len(line) for line in block}
        assert len(widths) == 1, f"board columns out of line: widths {widths} in\n" + "\n".join(block)
    return len(blocks)


def _dice_script(repeats: int = 40) -> str:
    lines: list[str] = []
    for _ in range(repeats):
        lines += ["I", "T", "1", "point"]
        lines += [f"{o} {c}" for o in range(8) for c in range(10)]
    return "\n".join(lines) + "\n"


def test_the_english_check_catches_an_english_line() -> None:
    """The catalog check below can fail: an English line of the catalog is caught in any form."""
    assert _english_lines("Game over.", "cs") == ["'Game over.' is 'Game over.'"]
    assert _english_lines("Ann rolls T", "zh_CN") == ["'Ann rolls T' is '{name} rolls {face}'"]
    assert _english_lines("Konec hry.", "cs") == []
    assert _check_aligned(" 1 . . \n 0 . . \n   0 1 \n 9 . . \nnext") == 1
    with pytest.raises(AssertionError, match="out of line"):
        _check_aligned(" 1 . . \n 0 . 中 \n   0 1 \n 9 . . \n")


@pytest.mark.parametrize(("lang", "over"), [("cs", "Konec hry."), ("zh_CN", "游戏结束。")])
def test_a_whole_dice_game_in_line_mode_speaks_the_language(lang: str, over: str) -> None:
    result = runner.invoke(
        app,
        ["--lang", lang, "play", "dice", "--plain", "--no-color", "--seats", "human=Ann,random,random", "--seed", "11"],
        input=_dice_script(),
        env=NO_LOCALE,
    )
    out = result.output
    assert result.exit_code == 0, out
    assert "Traceback" not in out
    assert over in out and "Game over." not in out
    assert "✗" in out  # the script's illegal tries were answered (in the language: checked below)
    assert _english_lines(out, lang) == []
    assert _check_aligned(out) > 10


@pytest.mark.parametrize(("lang", "over"), [("cs", "Konec hry."), ("zh_CN", "游戏结束。")])
def test_a_whole_tower_game_in_line_mode_speaks_the_language(lang: str, over: str) -> None:
    script = "9 9\nm 99\nhold\n" + "1\n" * 40
    result = runner.invoke(
        app,
        ["--lang", lang, "play", "tower", "--plain", "--no-color", "--seats", "human=Ann,random,random", "--seed", "11",
         "--rules", "preset=advanced"],
        input=script,
        env=NO_LOCALE,
    )
    out = result.output
    assert result.exit_code == 0, out
    assert "Traceback" not in out
    assert over in out and "Game over." not in out and "Final scores" not in out
    assert _english_lines(out, lang) == []
    assert _check_aligned(out) > 10  # own towers and the side-by-side towers under Chinese labels


def test_an_unknown_language_is_refused_with_the_list() -> None:
    result = runner.invoke(app, ["--lang", "fr", "play", "dice", "--plain", "--seats", "random"], env=NO_LOCALE)
    assert result.exit_code == 2
    text = " ".join(re.sub(r"[│╭╮╰╯─]", " ", result.output).split())  # Rich's error box wraps it
    assert "Invalid value for '--lang': unknown language 'fr': tabletris speaks en, cs, zh_CN" in text


def test_the_terminals_language_is_used_without_lang() -> None:
    args = ["play", "dice", "--plain", "--no-color", "--seats", "random,random", "--seed", "4"]
    czech = runner.invoke(app, args, env={**NO_LOCALE, "LANG": "cs_CZ.UTF-8"})
    assert czech.exit_code == 0 and "Konec hry." in czech.output and "Game over." not in czech.output
    english = runner.invoke(app, args, env={**NO_LOCALE, "LANG": "fr_FR.UTF-8"})  # not ours: English
    assert english.exit_code == 0 and "Game over." in english.output
    chinese = runner.invoke(app, ["--lang", "zh-CN", *args], env={**NO_LOCALE, "LANG": "cs_CZ.UTF-8"})
    assert chinese.exit_code == 0 and "游戏结束。" in chinese.output  # --lang wins over LANG


def test_a_broken_rule_is_explained_in_the_language() -> None:
    result = runner.invoke(
        app,
        ["--lang", "cs", "play", "dice", "--plain", "--no-color", "--seats", "human,random", "--seed", "3"],
        input="[[0,5],[1,5],[0,6],[1,6]]\nquit\n",
        env=NO_LOCALE,
    )
    assert result.exit_code == 0
    assert "✗ O na [[0,5],[1,5],[0,6],[1,6]] neleží na ničem" in result.output
    assert "Zastaveno (konec)." in result.output
    bad = runner.invoke(app, ["--lang", "zh_CN", "play", "dice", "--plain", "--seats", "random", "--rules", "width=3"],
                        env=NO_LOCALE)
    assert bad.exit_code == 2
    assert "rules.width：3 超出范围（4-40）" in bad.output


def test_the_engine_and_cli_catalogs_are_complete() -> None:
    assert catalogs.problems(["engine", "cli"]) == []


def _flat(text: str) -> str:
    return " ".join(re.sub(r"[│╭╮╰╯─]", " ", text).split())


def test_help_pages_follow_the_language() -> None:
    czech = runner.invoke(app, ["--lang", "cs", "play", "-h"], env=NO_LOCALE)
    assert czech.exit_code == 0
    assert "Hrát u tohoto terminálu proti lidem" in _flat(czech.output) and "Příklady" in czech.output
    assert "Play a game at this terminal" not in _flat(czech.output)
    chinese = runner.invoke(app, ["-h"], env={**NO_LOCALE, "LANG": "zh_CN.UTF-8"})  # -h before --lang: LANG
    assert "桌面俄罗斯方块游戏的数字桌" in _flat(chinese.output) and "重放对局记录" in _flat(chinese.output)
    english = runner.invoke(app, ["replay", "-h"], env=NO_LOCALE)
    assert "Replay a game record" in _flat(english.output) and "Examples" in english.output


def test_the_print_kits_readme_is_written_in_the_language(tmp_path: Path) -> None:
    out = tmp_path / "kit"
    args = ["--lang", "cs", "kit", "--size", "mini", "--players", "2", "--out", str(out), "--no-slice", "--no-previews"]
    result = runner.invoke(app, args, env=NO_LOCALE)
    assert result.exit_code == 0, result.output
    readme = (out / "README.md").read_text(encoding="utf-8")
    assert "## Co vytisknout" in readme and "| Barevná sada | `plates/colour-set.3mf` | 2krát |" in readme
    assert "Vůle je 0,25 mm na každou stranu." in readme  # the locale's decimal comma
    assert _english_lines(readme, "cs") == []
    assert '"title": "Colour set"' in (out / "kit.json").read_text(encoding="utf-8")  # the data stays English


def test_replay_explains_a_broken_record_in_the_language(tmp_path: Path) -> None:
    import json

    save = tmp_path / "game.json"
    played = runner.invoke(app, ["play", "dice", "--plain", "--no-color", "--seats", "random,random", "--seed", "5",
                                 "--save", str(save)], env=NO_LOCALE)
    assert played.exit_code == 0
    doc = json.loads(save.read_text())
    doc["moves"][3]["place"] = [[0, 15], [1, 15], [2, 15], [3, 15]]
    broken = tmp_path / "broken.json"
    broken.write_text(json.dumps(doc))
    english = runner.invoke(app, ["replay", str(broken)], env=NO_LOCALE)
    assert english.exit_code == 1
    assert "error: move 4 (Random 2): T is not the shape of a T at [[0,15],[1,15],[2,15],[3,15]]" in english.output
    czech = runner.invoke(app, ["--lang", "cs", "replay", str(broken)], env=NO_LOCALE)
    assert czech.exit_code == 1
    assert "chyba: tah 4 (Random 2): T na [[0,15],[1,15],[2,15],[3,15]] nemá tvar T" in czech.output
    chinese = runner.invoke(app, ["--lang", "zh_CN", "replay", str(save), "--no-color"], env=NO_LOCALE)
    assert chinese.exit_code == 0 and "骰子游戏，29 步，已结束" in chinese.output and "获胜者：" in chinese.output


def test_lang_may_follow_the_command() -> None:
    """``tabletris play --lang cs`` was refused ("No such option"): --lang stood only before the command."""
    args = ["play", "dice", "--plain", "--no-color", "--seats", "random,random", "--seed", "4"]
    after = runner.invoke(app, [*args, "--lang", "cs"], env={**NO_LOCALE, "LANG": "en_US.UTF-8"})
    before = runner.invoke(app, ["--lang", "cs", *args], env={**NO_LOCALE, "LANG": "en_US.UTF-8"})
    assert after.exit_code == 0 and "Konec hry." in after.output
    assert after.output == before.output


def test_lang_first_moves_only_the_language() -> None:
    from tabletris.cli.app import lang_first

    assert lang_first(["play", "--lang", "cs", "--plain"]) == ["--lang", "cs", "play", "--plain"]
    assert lang_first(["play", "--lang=zh_CN"]) == ["--lang=zh_CN", "play"]
    assert lang_first(["replay", "--", "--lang", "x"]) == ["replay", "--", "--lang", "x"]
