"""Screenshots of the terminal app in Czech and Chinese: ``python docs/screenshots/tui_screenshots.py``.

Writes ``docs/screenshots/tui_<screen>_<lang>.svg`` (Textual's own SVG export) for the dice and tower
games in play, their end screens, the new-game form and the help screen. Seeds are fixed, bots
play without pauses, so every run draws the same screens.
"""

from __future__ import annotations

import asyncio
import contextlib
import html
import os
import re
import sys
import tempfile
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from rich.cells import cell_len
from textual.pilot import Pilot
from textual.worker import WorkerCancelled

from tabletris import i18n
from tabletris.table.seats import SeatSpec
from tabletris.tui.app import TabletrisApp
from tabletris.tui.dice_screen import DiceScreen
from tabletris.tui.end_screen import EndScreen
from tabletris.tui.setup import Setup

HERE = Path(__file__).resolve().parent
NAMES = {"cs": ("Anna", "Robot"), "zh_CN": ("安娜", "机器人")}


TEXT_RUN = re.compile(r'(<text [^>]*textLength=")([0-9.]+)("[^>]*>)([^<]*)(</text>)')


def wide_runs_fixed(svg: str) -> str:
    """Rich's SVG export places each run by terminal cells but stretches it to ``len(text)`` cells
    (Textualize/rich#2742), which squeezes every Chinese glyph into half its width; the run's
    length is set back to its width in cells. The terminal itself is not affected."""

    def fix(match: re.Match[str]) -> str:
        text = html.unescape(match.group(4))
        length = float(match.group(2))
        if not text or cell_len(text) == len(text):
            return match.group(0)
        return f"{match.group(1)}{length / len(text) * cell_len(text):g}{match.group(3)}{match.group(4)}{match.group(5)}"

    return TEXT_RUN.sub(fix, svg)


async def until(pilot: Pilot[Any], ready: Callable[[], bool]) -> None:
    for _step in range(600):
        await pilot.pause()
        if ready():
            return
        with contextlib.suppress(WorkerCancelled):
            await pilot.app.workers.wait_for_complete()
        await pilot.pause(0.005)
    raise RuntimeError(f"never ready: {pilot.app.screen!r}")


def game_app(game: str, lang: str, seats: list[tuple[str, str]], rules: dict[str, Any], seed: int) -> TabletrisApp:
    setup = Setup(game, [SeatSpec(kind, name) for kind, name in seats], rules, seed)
    return TabletrisApp(setup, roll_frames=0, bot_pause=0.0, lang=lang)


async def shoot(app: TabletrisApp, size: tuple[int, int], name: str, steps: Callable[[Pilot[Any]], Awaitable[None]]) -> None:
    async with app.run_test(size=size) as pilot:
        await steps(pilot)
        await pilot.pause()
        path = HERE / f"{name}.svg"
        path.write_text(wide_runs_fixed(app.export_screenshot(title=f"tabletris — {name}")), encoding="utf-8")
        print(path.relative_to(HERE.parent.parent))


async def main() -> None:
    for lang in ("cs", "zh_CN"):
        me, bot = NAMES[lang]

        dice = game_app("dice", lang, [("human", me), ("random", bot)], {}, 7)

        async def dice_steps(pilot: Pilot[Any], app: TabletrisApp = dice) -> None:
            def placing() -> bool:
                return isinstance(app.screen, DiceScreen) and app.screen.phase == "place"

            for _turn in range(3):
                await until(pilot, placing)
                await pilot.press("space", "enter")
            await until(pilot, placing)
            await pilot.press("up", "up", "up")  # a red ghost and the engine's reason, translated

        await shoot(dice, (100, 30), f"tui_dice_{lang}", dice_steps)

        dice_end = game_app("dice", lang, [("random", me), ("random", bot)], {"height": 8}, 3)

        async def dice_end_steps(pilot: Pilot[Any], app: TabletrisApp = dice_end) -> None:
            await until(pilot, lambda: isinstance(app.screen, EndScreen))

        await shoot(dice_end, (100, 30), f"tui_dice_end_{lang}", dice_end_steps)

        tower = game_app("tower", lang, [("human", me), ("random", bot)], {"preset": "advanced"}, 5)

        async def tower_steps(pilot: Pilot[Any], app: TabletrisApp = tower) -> None:
            for _round in range(4):
                await until(pilot, lambda: getattr(app.screen, "phase", "") == "plan")
                await pilot.press("enter")
            await until(pilot, lambda: getattr(app.screen, "phase", "") == "plan")

        await shoot(tower, (110, 32), f"tui_tower_{lang}", tower_steps)

        tower_end = game_app("tower", lang, [("random", me), ("random", bot), ("random", "Cleo")], {"preset": "advanced"}, 5)

        async def tower_end_steps(pilot: Pilot[Any], app: TabletrisApp = tower_end) -> None:
            await until(pilot, lambda: isinstance(app.screen, EndScreen))

        await shoot(tower_end, (120, 40), f"tui_tower_end_{lang}", tower_end_steps)

        with i18n.language(lang):
            form = TabletrisApp(Setup(game="tower", seed=7), show_setup=True)

        async def form_steps(pilot: Pilot[Any]) -> None:
            await pilot.pause()

        await shoot(form, (110, 32), f"tui_new_game_{lang}", form_steps)

        help_app = game_app("tower", lang, [("human", me), ("random", bot)], {}, 5)

        async def help_steps(pilot: Pilot[Any], app: TabletrisApp = help_app) -> None:
            await until(pilot, lambda: getattr(app.screen, "phase", "") == "plan")
            await pilot.press("question_mark")
            await pilot.pause()

        await shoot(help_app, (100, 30), f"tui_help_{lang}", help_steps)


if __name__ == "__main__":
    with tempfile.TemporaryDirectory() as config:  # the last setup is remembered: not in the user's config
        os.environ["XDG_CONFIG_HOME"] = config
        os.chdir(config)
        asyncio.run(main())
    sys.exit(0)
