"""The Textual application: one app, a screen per stage (setup, game, end, replay, help)."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

from textual.app import App
from textual.binding import Binding
from textual.screen import Screen

from tabletris.engine.dice import DiceGame, next_starter
from tabletris.engine.errors import IllegalMove, RecordError
from tabletris.engine.options import RulesError
from tabletris.tui.setup import (
    Setup,
    load_last_setup,
    make_bots,
    new_game,
    rules_model,
    save_last_setup,
)


class TabletrisApp(App[None]):
    """The digital table at the terminal.

    ``roll_frames`` and ``bot_pause`` set how long the die tumbles and how long a bot's piece is
    shown before it lands; tests set them low so whole games run in a fraction of a second.
    """

    CSS_PATH = "tabletris.tcss"
    TITLE = "tabletris"
    BINDINGS = [Binding("ctrl+q", "quit", "Quit", show=False)]

    def __init__(
        self,
        setup: Setup | None = None,
        *,
        replay: Path | None = None,
        show_setup: bool = False,
        roll_frames: int = 8,
        bot_pause: float = 0.5,
    ) -> None:
        super().__init__()
        self.initial_setup = setup
        self.replay_path = replay
        self.show_setup = show_setup or (setup is None and replay is None)
        self.roll_frames = roll_frames
        self.bot_pause = bot_pause
        self.game: Any = None
        self.setup: Setup | None = setup

    def on_mount(self) -> None:
        if self.replay_path is not None:
            from tabletris.tui.replay_screen import ReplayScreen

            try:
                screen: Screen[Any] = ReplayScreen.from_path(self.replay_path)
            except RecordError as e:
                self.exit(message=f"error: {e}")
                return
            self.push_screen(screen)
            return
        if self.show_setup or self.initial_setup is None:
            self.action_new_game()
            return
        self.start_game(self.initial_setup)

    # ------------------------------------------------------------ stages

    def _show(self, screen: Screen[Any]) -> None:
        """Make ``screen`` the one main screen (the stack never grows game after game)."""
        while len(self.screen_stack) > 2:
            self.pop_screen()
        if len(self.screen_stack) > 1:
            self.switch_screen(screen)
        else:
            self.push_screen(screen)

    def start_game(self, setup: Setup) -> bool:
        """Start the game ``setup`` describes; False (and a notice) if the engine refuses it."""
        try:
            game = new_game(setup)
            bots = make_bots(setup, game.seed)
        except (RulesError, IllegalMove, ValueError) as e:
            self.notify(str(e), title="Cannot start this game", severity="error", timeout=8)
            if not isinstance(self.screen, _setup_screen_type()):
                self.action_new_game(setup)
            return False
        self.setup = setup
        self.game = game
        save_last_setup(setup)
        if setup.game == "dice":
            from tabletris.tui.dice_screen import DiceScreen

            self._show(DiceScreen(setup, game, bots))
        else:
            from tabletris.tui.tower_screen import TowerScreen

            self._show(TowerScreen(setup, game, bots))
        return True

    def show_end(self, setup: Setup, game: Any) -> None:
        from tabletris.tui.end_screen import EndScreen

        if game is self.game and isinstance(self.screen, EndScreen):
            return
        self._show(EndScreen(setup, game))

    def rematch(self, setup: Setup) -> None:
        """The same table again; a seeded game's rematch takes the next seed, so it differs.

        In the dice game the loser of the game just played starts (the engine's match rule).
        """
        seed = None if setup.seed is None else setup.seed + 1
        rules = dict(setup.rules)
        if isinstance(self.game, DiceGame) and self.game.over:
            rules["first_player"] = next_starter(self.game)
        self.start_game(dataclasses.replace(setup, seed=seed, rules=rules))

    def action_new_game(self, setup: Setup | None = None) -> None:
        from tabletris.tui.new_game import NewGameScreen

        if isinstance(self.screen, NewGameScreen):
            return
        base = setup or self.setup or load_last_setup() or Setup()
        if self.game is not None and not self.game.over:
            self.push_screen(NewGameScreen(base))  # escape goes back to the game in progress
        else:
            self._show(NewGameScreen(base))

    def action_help(self) -> None:
        from tabletris.tui.help_screen import HelpScreen

        if isinstance(self.screen, HelpScreen):
            return
        game_name = "dice"
        rules = None
        help_texts: dict[str, str] = {}
        if self.game is not None:
            game_name = "dice" if hasattr(self.game, "roll_face") else "tower"
            rules = self.game.rules
        elif self.setup is not None:
            game_name = self.setup.game
        try:
            help_texts = dict(rules_model(game_name)[2])
        except RulesError:
            help_texts = {}
        self.push_screen(HelpScreen(game_name, rules, help_texts))


def _setup_screen_type() -> type[Screen[Any]]:
    from tabletris.tui.new_game import NewGameScreen

    return NewGameScreen
