"""The terminal app in Czech and Chinese (issue 16): snapshots, a Czech game with no English left
on screen, wide glyphs that keep the board's columns, the language reaching bot threads.

Seeds are fixed, the die does not tumble and bots do not pause, so the snapshots repeat; refresh
them with ``--snapshot-update`` and look at them before accepting.
"""

from __future__ import annotations

import re
import string
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from babel.messages.pofile import read_po
from rich.cells import cell_len
from textual.binding import Binding
from textual.pilot import Pilot

from tabletris import i18n
from tabletris.i18n import LOCALE_DIR
from tabletris.i18n.catalogs import extract
from tabletris.tui.app import TabletrisApp
from tabletris.tui.dice_screen import DiceScreen
from tabletris.tui.end_screen import EndScreen
from tabletris.tui.setup import Setup
from tabletris.tui.texts import pad, styled
from tabletris.tui.widgets.board import BoardView
from tui_helpers import dice_ready, make_app, settle


@pytest.fixture(autouse=True)
def _config_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.chdir(tmp_path)


# ------------------------------------------------------------------ what is on screen


def screen_lines(app: TabletrisApp) -> list[str]:
    """The text of every terminal line as the player sees it (the composited screen)."""
    return [strip.text for strip in app.screen._compositor.render_strips()]


def cell_at(app: TabletrisApp, x: int, y: int) -> str:
    """The character in terminal cell ``(x, y)`` (a wide glyph fills two cells: cells, not chars)."""
    return app.screen._compositor.render_strips()[y].crop(x, x + 1).text


@cache
def english_left_patterns(lang: str) -> list[tuple[str, re.Pattern[str]]]:
    """Each tui message whose translation differs from the English, as a pattern that finds the
    English sentence on a line (placeholders match any text)."""
    with (LOCALE_DIR / lang / "LC_MESSAGES" / "tui.po").open("rb") as f:
        catalog = read_po(f, locale=lang, domain="tui")
    translated = {(m.context, m.id if isinstance(m.id, str) else m.id[0]): m.string for m in catalog if m.id}
    patterns = []
    for msg in extract("tui"):
        if not msg.id or msg.context == "rules value":
            continue  # rule values ('slide', 'free') are quoted as they stand in the engine's help texts
        ids = [msg.id] if isinstance(msg.id, str) else list(msg.id)
        strings = translated.get((msg.context, ids[0]))
        strings = [strings] if isinstance(strings, str) else list(strings or [])
        for english in ids:
            if english in strings:
                continue  # the same in both languages (a name, a key, "Mino" in Czech)
            pieces = [re.escape(lit) for lit, *_rest in string.Formatter().parse(english)]
            pattern = r"(?<![\w])" + "(.+?)".join(pieces) + r"(?![\w])"
            patterns.append((english, re.compile(pattern)))
    return patterns


def english_on_screen(app: TabletrisApp) -> list[tuple[str, str]]:
    found = []
    for line in screen_lines(app):
        for english, pattern in english_left_patterns(app.language):
            if pattern.search(line):
                found.append((english, line.strip()))
    return found


def misaligned_boards(app: TabletrisApp) -> list[str]:
    """Boards whose rows do not all have the board's width in cells, in the widget's drawing and on
    the screen (each row's right border in the same terminal column)."""
    problems = []
    for board in app.screen.query(BoardView):
        if not board.display or not board.region.width:
            continue
        rows = board.render().plain.split("\n")
        widths = {cell_len(row) for row in rows}
        if widths != {board.board.width * 2}:
            problems.append(f"{board.id}: rows of {sorted(widths)} cells, not {board.board.width * 2}")
        region = board.region
        right = region.right - 1
        for y in range(region.y + 1, region.bottom - 1):
            if cell_at(app, right, y) != "│":
                problems.append(f"{board.id}: line {y} has {cell_at(app, right, y)!r} at the right border")
    return problems


# ------------------------------------------------------------------ snapshots


def _dice_run_before(app: TabletrisApp) -> Any:
    async def run_before(pilot: Pilot[Any]) -> None:
        await settle(pilot, lambda: dice_ready(app))
        await pilot.press("space", "enter")
        await settle(pilot, lambda: dice_ready(app) and len(app.game.moves) >= 2)
        await pilot.press("up", "up", "up")  # a red ghost with its reason

    return run_before


@pytest.mark.parametrize("lang", ["cs", "zh_CN"])
def test_dice_screen_snapshot(snap_compare: Any, lang: str) -> None:
    app = make_app("dice", [("human", "Ann"), ("random", "Robo")], seed=7, lang=lang)
    assert snap_compare(app, terminal_size=(80, 24), run_before=_dice_run_before(app))


@pytest.mark.parametrize("lang", ["cs", "zh_CN"])
def test_tower_screen_snapshot(snap_compare: Any, lang: str) -> None:
    app = make_app("tower", [("human", "Ann"), ("random", "Robo")], seed=7, lang=lang)

    async def run_before(pilot: Pilot[Any]) -> None:
        await settle(pilot, lambda: getattr(app.screen, "phase", "") == "plan")

    assert snap_compare(app, terminal_size=(100, 30), run_before=run_before)


@pytest.mark.parametrize("lang", ["cs", "zh_CN"])
def test_new_game_screen_snapshot(snap_compare: Any, lang: str) -> None:
    with i18n.language(lang):
        app = TabletrisApp(Setup(seed=7), show_setup=True)  # the default seats' names are Czech/Chinese too
    assert app.language == lang
    assert snap_compare(app, terminal_size=(100, 30))


# ------------------------------------------------------------------ a Czech game, checked


@pytest.mark.asyncio
async def test_a_czech_dice_game_shows_no_english_and_keeps_the_board_aligned() -> None:
    """A short game against a bot: after every move (the bot's come from its thread) the screen has
    no English sentence of the tui catalog and the board's rows keep their width."""
    app = make_app("dice", [("human", "Ann"), ("random", "Robo")], {"height": 6}, seed=3, lang="cs")
    async with app.run_test(size=(100, 30)) as pilot:
        seen: set[str] = set()
        for _turn in range(40):
            await settle(pilot, lambda: dice_ready(app))
            assert english_on_screen(app) == []
            assert misaligned_boards(app) == []
            seen.update(screen_lines(app))
            if isinstance(app.screen, EndScreen):
                break
            assert isinstance(app.screen, DiceScreen)
            await pilot.press("space", "enter")
        assert isinstance(app.screen, EndScreen), "the game on a 6-row board should end in 40 turns"
        await pilot.pause()
        assert english_on_screen(app) == []
        text = "\n".join(seen | set(screen_lines(app)))
        assert "pokládá" in text  # the status line ("Ann pokládá T")
        assert "Konečné skóre" in text  # the end screen's breakdown
        assert "Otočit" in text  # the footer's key descriptions
        await pilot.press("question_mark")
        await pilot.pause()
        assert english_on_screen(app) == []
        assert "Klávesy" in "\n".join(screen_lines(app))


@pytest.mark.asyncio
async def test_the_bot_thread_callbacks_draw_in_the_app_language() -> None:
    """A bot decides in a worker thread; its callback must not fall back to English (an executor
    thread has none of the app's context variables)."""
    app = make_app("dice", [("random", "Robo"), ("human", "Ann")], seed=7, lang="zh_CN")
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot, lambda: dice_ready(app) and len(app.game.moves) >= 1)
        lines = "\n".join(screen_lines(app))
        assert "放置" in lines and "places" not in lines
        assert english_on_screen(app) == []
    assert i18n.current_language() == "en"  # the language was the app's run's, not the process's


@pytest.mark.asyncio
@pytest.mark.parametrize("lang", ["zh_CN", "cs"])
async def test_tower_boards_stay_aligned_with_wide_labels(lang: str) -> None:
    app = make_app("tower", [("human", "安娜"), ("random", "机器人")], seed=5, lang=lang)
    async with app.run_test(size=(110, 32)) as pilot:
        await settle(pilot, lambda: getattr(app.screen, "phase", "") == "plan")
        for _round in range(3):
            await pilot.press("enter")
            await settle(pilot, lambda: getattr(app.screen, "phase", "") == "plan" or isinstance(app.screen, EndScreen))
            assert misaligned_boards(app) == []
            assert english_on_screen(app) == []


# ------------------------------------------------------------------ the pieces


def test_the_app_takes_the_process_language_or_its_own() -> None:
    assert TabletrisApp().language == "en"
    with i18n.language("cs"):
        assert TabletrisApp().language == "cs"  # --lang / LANG set it for the process
    assert TabletrisApp(lang="zh-CN").language == "zh_CN"


def test_pad_counts_terminal_cells() -> None:
    assert pad("安娜", 6) == "安娜  " and cell_len(pad("安娜", 6)) == 6
    assert cell_len(pad("机器人机器人", 10)) == 10  # cropped by cells, not characters
    assert pad("Ann", 6, right=True) == "   Ann"


def test_styled_keeps_each_language_word_order() -> None:
    with i18n.language("zh_CN"):
        from tabletris.tui.texts import _

        text = styled(_("Remove {shape} of {owner} at {cells}"), shape=("L", "bold"), owner="Ann", cells="1,2")
    assert text.plain == "移除 Ann 在 1,2 的 L"
    assert [text.plain[s.start : s.end] for s in text.spans] == ["L"]


@pytest.mark.parametrize("lang", ["cs", "zh_CN"])
def test_every_footer_description_is_translated(lang: str) -> None:
    """Bindings are read at class creation, so their descriptions are marked N_ and translated where
    the footer reads them; a description missing from the catalog would stay English."""
    from tabletris.tui.help_screen import HelpScreen
    from tabletris.tui.new_game import NewGameScreen
    from tabletris.tui.replay_screen import ReplayScreen
    from tabletris.tui.tower_screen import TowerScreen
    from tabletris.tui.widgets.dialogs import (
        CurtainScreen,
        LeaveScreen,
        RevealScreen,
        RewardScreen,
        TokenScreen,
    )

    screens = [DiceScreen, TowerScreen, EndScreen, NewGameScreen, HelpScreen, ReplayScreen, CurtainScreen,
               RevealScreen, RewardScreen, TokenScreen, LeaveScreen, TabletrisApp]
    with (LOCALE_DIR / lang / "LC_MESSAGES" / "tui.po").open("rb") as f:
        catalog = read_po(f, locale=lang, domain="tui")
    untranslated = [
        f"{screen.__name__}: {b.description!r}"
        for screen in screens
        for b in screen.BINDINGS
        if isinstance(b, Binding)
        and re.search(r"[A-Za-z]", b.description)
        and not ((message := catalog.get(b.description)) is not None and message.string)
    ]
    assert untranslated == []


@pytest.mark.asyncio
async def test_the_palette_switches_language_by_starting_the_app_again() -> None:
    """The command palette offers the other languages while no game is in play; choosing one ends the
    app and ``relaunch`` gives the next, in that language, with default seat names in it too."""
    app = TabletrisApp(Setup(seed=7), show_setup=True)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        titles = [command.title for command in app.get_system_commands(app.screen)]
        assert "Čeština (language)" in titles and "简体中文 (language)" in titles
        app.action_switch_language("cs")
        await pilot.pause()
    following = app.relaunch()
    assert following is not None and following.language == "cs"
    assert [seat.name for seat in following.initial_setup.seats] == ["Hráč 1", "Náhodný 2"]
    async with following.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        assert "Nová hra" in "\n".join(screen_lines(following))
        titles = [command.title for command in following.get_system_commands(following.screen)]
        assert "English (jazyk)" in titles and not any(t.startswith("Čeština") for t in titles)


@pytest.mark.asyncio
async def test_no_language_switch_over_a_game_in_play() -> None:
    app = make_app("dice", [("human", "Ann"), ("random", "Robo")], seed=7)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot, lambda: dice_ready(app))
        assert not any("(language)" in command.title for command in app.get_system_commands(app.screen))
        app.action_switch_language("cs")
        await pilot.pause()
        assert app.is_running and app.relaunch() is None


@pytest.mark.asyncio
async def test_the_preset_explains_itself_in_the_players_language() -> None:
    from textual.widgets import Select

    with i18n.language("cs"):
        app = TabletrisApp(Setup(game="tower", seed=7), show_setup=True)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        assert app.screen.query_one("#preset", Select).tooltip == "Základní hra: jen karta 6 dokončených řad."
