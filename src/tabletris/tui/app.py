"""The Textual application: one app, a screen per stage (setup, game, end, replay, help)."""

from __future__ import annotations

import dataclasses
from collections.abc import AsyncGenerator, Callable, Iterable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from textual import on
from textual.app import App, SystemCommand
from textual.binding import Binding
from textual.filter import Monochrome
from textual.pilot import Pilot
from textual.screen import Screen

from tabletris.engine.errors import IllegalMove, RecordError, RulesError
from tabletris.engine.games import spec_of
from tabletris.engine.options import options_to_dict
from tabletris.engine.records import record_of
from tabletris.i18n import LANGUAGE_NAMES, LANGUAGES, current_language, language, parse_language
from tabletris.table.driver import Table
from tabletris.table.saving import save_record
from tabletris.tui import palette
from tabletris.tui.game_screen import GameScreen
from tabletris.tui.game_ui import game_label, ui_of, ui_of_game
from tabletris.tui.setup import (
    DEFAULT_GAME,
    GAMES,
    Setup,
    default_seat_name,
    load_last_setup,
    new_table,
    rules_model,
    save_last_setup,
)
from tabletris.tui.texts import N_, _, engine_text
from tabletris.tui.tutorial import tutorial_of

KEY_WORDS = (N_("space"), N_("backspace"), N_("enter"))
"""Keys the footer names by a word (Textual's names), translated like the descriptions."""


def default_record_path(game: Any) -> Path:
    """Where a record goes when no ``--save`` path was given: the current directory."""
    return Path.cwd() / f"tabletris-{spec_of(game).name}-{game.seed}.json"


class TabletrisApp(App[None]):
    """The digital table at the terminal.

    ``roll_frames`` and ``bot_pause`` set how long the die tumbles and how long a bot's piece is
    shown before it lands; tests set them low so whole games run in a fraction of a second.
    ``no_color`` draws in monochrome (``--no-color``; Textual already honours ``NO_COLOR``).

    ``lang`` is the player's language (default: the one ``--lang``/``LANG`` chose for the process,
    ``tabletris.i18n.current_language()``). ``_()`` reads a context variable: the app sets it for
    its own run, and for callbacks from its bot threads (an executor thread starts with none).
    """

    CSS_PATH = "tabletris.tcss"
    TITLE = "tabletris"
    BINDINGS = [Binding("ctrl+q", "quit", N_("Quit"), show=False)]

    def __init__(
        self,
        setup: Setup | None = None,
        *,
        replay: Path | None = None,
        show_setup: bool = False,
        roll_frames: int = 8,
        bot_pause: float = 0.5,
        no_color: bool = False,
        lang: str | None = None,
        tutorial: str | None = None,
    ) -> None:
        super().__init__()
        self.language = parse_language(lang) if lang else current_language()
        """The player's language (``en``, ``cs``, ``zh_CN``) for every screen of this app."""
        self.monochrome = no_color
        if no_color and not self.no_color:
            self.no_color = True
            self._filters.append(Monochrome())
        self.initial_setup = setup
        self.replay_path = replay
        self.tutorial = tutorial
        """A game whose guided first game the app opens on (``tabletris play GAME --tutorial``)."""
        self.show_setup = show_setup or (setup is None and replay is None and tutorial is None)
        self.roll_frames = roll_frames
        self.bot_pause = bot_pause
        self.game: Any = None
        self.setup: Setup | None = setup
        self.too_small: str | None = None
        """The warning shown while the terminal is smaller than the game's board needs."""
        self.in_tutorial = False
        """Whether the game in play (or just ended) is a guided first game: the next new game
        starts from the player's own last setup, not from the tutorial's."""
        self.switch_to: str | None = None
        """A language the player chose in the palette: the app ends and ``relaunch`` starts it again in it."""
        self.saved: dict[int, tuple[dict[str, Any], Path]] = {}
        """Per game (by id): the record last written and where, so one state is written once."""

    # ------------------------------------------------------------ the player's language

    async def run_async(self, **kwargs: Any) -> None:
        """Run in the app's language: every task the app starts copies the context set here."""
        with language(self.language):
            return await super().run_async(**kwargs)

    @asynccontextmanager
    async def run_test(self, **kwargs: Any) -> AsyncGenerator[Pilot[None], None]:
        """Tests run the app in its language too (``TabletrisApp(lang="cs").run_test()``)."""
        with language(self.language):
            async with super().run_test(**kwargs) as pilot:
                yield pilot

    def call_from_thread(self, callback: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        """A bot thread's callback runs in the context the thread had, and an executor thread has
        none of the app's: give it the app's language, or its drawing would be English."""
        with language(self.language):
            return super().call_from_thread(callback, *args, **kwargs)

    def get_key_display(self, binding: Binding) -> str:
        """A key's name in the footer in the player's language where it is a word ("space")."""
        shown = super().get_key_display(binding)
        return _(shown) if shown in KEY_WORDS else shown

    def on_mount(self) -> None:
        palette.follow_theme(self.theme_variables)
        self.theme_changed_signal.subscribe(self, self._theme_changed)
        if self.replay_path is not None:
            from tabletris.tui.replay_screen import ReplayScreen

            try:
                screen: Screen[Any] = ReplayScreen.from_path(self.replay_path)
            except RecordError as e:
                self.exit(message=_("error: {error}").format(error=engine_text(e)))
                return
            self.push_screen(screen)
            return
        if self.tutorial is not None and self.start_tutorial(self.tutorial):
            return
        if self.show_setup or self.initial_setup is None:
            self.action_new_game()
            return
        self.start_game(self.initial_setup)

    def _theme_changed(self, _theme: object) -> None:
        """Redraw in the new theme's accents (drawings are Rich text made with the old ones)."""
        from tabletris.tui.end_screen import EndScreen

        palette.follow_theme(self.theme_variables)
        for screen in self.screen_stack:
            redraw = getattr(screen, "refresh_all", None) or getattr(screen, "show_position", None)
            if redraw is not None:
                redraw()
            elif isinstance(screen, EndScreen) and screen.is_mounted:
                screen.refresh(recompose=True)

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
        from tabletris.tui.new_game import NewGameScreen

        try:
            table = new_table(setup)
        except (RulesError, IllegalMove, ValueError) as e:
            self.notify(engine_text(e), title=_("Cannot start this game"), severity="error", timeout=8)
            if not isinstance(self.screen, NewGameScreen):
                self.action_new_game(setup)
            return False
        self.setup = setup
        self.in_tutorial = False
        self.game = table.game
        save_last_setup(setup)
        self._show(ui_of(setup.game).screen(setup, table))
        self.call_after_refresh(self.check_size)
        return True

    def start_tutorial(self, game: str) -> bool:
        """Start ``game``'s guided first game (its ``GameUI.tutorial``); False (and a notice) when
        it has none. It is not remembered as the last setup: the next new game starts from yours."""
        tutorial = tutorial_of(ui_of(game))
        if tutorial is None:
            self.notify(_("This game has no guided first game yet."), severity="warning")
            return False
        setup = tutorial.setup()
        table = Table(tutorial.new_game(setup))  # the script's game: its set-up (a deck) too
        self.setup = setup
        self.in_tutorial = True
        self.game = table.game
        self._show(tutorial.screen(setup, table, tutorial))
        self.call_after_refresh(self.check_size)
        return True

    @on(GameScreen.Ended)
    def game_ended(self, message: GameScreen.Ended) -> None:
        self.show_end(message.setup, message.game)

    def show_end(self, setup: Setup, game: Any) -> None:
        from tabletris.tui.end_screen import EndScreen

        if game is self.game and isinstance(self.screen, EndScreen):
            return
        self._show(EndScreen(setup, game, save=self.save_game, rematch=self.rematch))

    def rematch(self, setup: Setup) -> None:
        """The same table again by the game's rematch rule (dice: the loser starts); a seeded
        game's rematch takes the next seed, so it differs."""
        if self.in_tutorial and self.start_tutorial(setup.game):  # the guided game again, as it was
            return
        seed = None if setup.seed is None else setup.seed + 1
        rules = dict(setup.rules)
        game = self.game
        if game is not None and game.over:
            before = options_to_dict(game.rules)
            after = options_to_dict(spec_of(game).next_rules(game, game.rules))
            rules.update({k: v for k, v in after.items() if k != "preset" and v != before.get(k)})
        self.start_game(dataclasses.replace(setup, seed=seed, rules=rules))

    def needed_size(self) -> tuple[int, int] | None:
        """Columns and lines the game in play needs to be seen whole (its ``GameUI.needed_size``:
        its boards beside the side panel, and the footer)."""
        if self.game is None:
            return None
        return ui_of_game(self.game).needed_size(self.game)

    def check_size(self) -> None:
        """Say so, clearly, when the terminal cannot show the whole board (it would be cut)."""
        need = self.needed_size()
        have = self.size
        if need is None or (have.width >= need[0] and have.height >= need[1]):
            self.too_small = None
            return
        message = _(
            "The terminal is {have_w}×{have_h}; this board needs at least {need_w}×{need_h}. "
            "Enlarge the window or use a smaller font, or the board is cut."
        ).format(have_w=have.width, have_h=have.height, need_w=need[0], need_h=need[1])
        if message != self.too_small:
            self.too_small = message
            self.notify(message, title=_("Terminal too small"), severity="warning", timeout=10)

    def on_resize(self) -> None:
        self.check_size()

    # ------------------------------------------------------------ saving and leaving

    @property
    def in_progress(self) -> bool:
        return self.game is not None and not self.game.over

    def save_game(self, path: Path | None = None) -> tuple[Path, bool]:
        """Write the current game's record: to ``path``, else ``--save``'s, else a default name;
        never over another file (``table.saving`` numbers it). Returns the path and whether it
        was written now (False: this very state was saved there already). OSError passes up."""
        game = self.game
        doc = record_of(game)
        last = self.saved.get(id(game))
        if last is not None and last[0] == doc:
            return last[1], False
        target = path or (self.setup.save if self.setup is not None else None) or default_record_path(game)
        written = save_record(doc, target)
        self.saved[id(game)] = (doc, written)
        return written, True

    def save_on_exit(self) -> Path | None:
        """On any way out (quit, ctrl+q, a crash): with ``--save``, the game's record is written
        unless this state was saved already. The path written, or None."""
        if self.game is None or self.setup is None or self.setup.save is None:
            return None
        if not self.game.turns_played():
            return None  # nothing was played: no record to keep
        path, written = self.save_game()
        return path if written else None

    def action_leave_game(self, then: str) -> None:
        """``q`` and ``n`` in a game: ask first while it is in progress; leaving saves with ``--save``."""
        if not self.in_progress:
            self._leave(then, "leave")
            return
        from tabletris.tui.widgets.dialogs import LeaveScreen

        doing = _("Quit tabletris?") if then == "quit" else _("Leave for a new game?")
        save = self.setup.save if self.setup is not None else None
        self.push_screen(LeaveScreen(doing, save), lambda choice: self._leave(then, choice))

    def _leave(self, then: str, choice: str | None) -> None:
        if choice is None:
            return
        if choice == "save" or (self.in_progress and self.setup is not None and self.setup.save is not None):
            try:
                path, _written = self.save_game()
            except OSError as e:
                self.notify(_("Could not save the record: {error}").format(error=e), severity="error", timeout=10)
                return
            self.notify(_("Record saved to {path}").format(path=path))
        if then == "quit":
            self.exit()
        else:
            self.action_new_game()

    # ------------------------------------------------------------ other screens

    def action_new_game(self, setup: Setup | None = None) -> None:
        from tabletris.tui.new_game import NewGameScreen

        if isinstance(self.screen, NewGameScreen):
            return
        base = setup or (None if self.in_tutorial else self.setup) or load_last_setup() or Setup()
        if self.in_progress:
            self.push_screen(NewGameScreen(base, start=self.start_game))  # escape goes back to the game in progress
        else:
            self._show(NewGameScreen(base, start=self.start_game))

    def action_help(self) -> None:
        from tabletris.tui.help_screen import HelpScreen

        if isinstance(self.screen, HelpScreen):
            return
        from tabletris.tui.replay_screen import ReplayScreen

        screen = self.screen
        if isinstance(screen, ReplayScreen):  # the replay's own keys, and the record's rules
            game_name, rules = screen.kind, screen.final.rules
        elif self.game is not None:
            game_name, rules = spec_of(self.game).name, self.game.rules
        else:
            game_name, rules = (self.setup.game if self.setup is not None else DEFAULT_GAME), None
        try:
            help_texts = dict(rules_model(game_name)[2])
        except RulesError:
            help_texts = {}
        self.push_screen(HelpScreen(game_name, rules, help_texts, replay=isinstance(screen, ReplayScreen)))

    def get_system_commands(self, screen: Screen[Any]) -> Iterable[SystemCommand]:
        """The command palette (ctrl+p): the app's own commands first, then Textual's."""
        yield SystemCommand(_("New game"), _("Set up and start a new game"), lambda: self.action_leave_game("new"))
        if self.game is not None:
            yield SystemCommand(_("Save record"), _("Write this game's record (never over another file)"), self.action_save)
        if not self.in_progress:
            for name in GAMES:
                if ui_of(name).tutorial:
                    yield SystemCommand(
                        _("Tutorial: {game}").format(game=game_label(name)),
                        _("A guided first game: each step says what to do"),
                        lambda name=name: self.start_tutorial(name),
                    )
        yield SystemCommand(_("Rules and keys"), _("The rules of this game, its options and the keys"), self.action_help)
        yield SystemCommand(_("Replay a record"), _("Open the last record saved in the replay viewer"), self.action_replay_last)
        if not self.in_progress:  # the app starts again in the language: never over a game in play
            word = _("language")
            for lang in LANGUAGES:
                if lang != self.language:
                    yield SystemCommand(
                        f"{LANGUAGE_NAMES[lang]} ({word})",
                        _("Show the app in this language (it starts again on the new-game screen)"),
                        lambda lang=lang: self.action_switch_language(lang),
                    )
        yield from super().get_system_commands(screen)  # Textual's own, its theme picker among them

    def action_switch_language(self, lang: str) -> None:
        """Every text of a running app was drawn, and every task started, in its language: the clean
        way to another is a new app, so this one ends and ``launch.run_app`` starts the next."""
        if self.in_progress:
            return
        self.switch_to = parse_language(lang)
        self.exit()

    def relaunch(self) -> TabletrisApp | None:
        """The app to run next in the language the player switched to, on the new-game screen with
        this setup (seat names still the old language's defaults take the new language's); None
        when the player did not switch."""
        if self.switch_to is None:
            return None
        setup = self.setup or load_last_setup() or Setup()
        with language(self.language):
            old = [default_seat_name(seat.kind, i + 1) for i, seat in enumerate(setup.seats)]
        with language(self.switch_to):
            seats = [
                dataclasses.replace(seat, name=default_seat_name(seat.kind, i + 1)) if seat.name == old[i] else seat
                for i, seat in enumerate(setup.seats)
            ]
        return TabletrisApp(
            dataclasses.replace(setup, seats=seats),
            show_setup=True,
            roll_frames=self.roll_frames,
            bot_pause=self.bot_pause,
            no_color=self.monochrome,
            lang=self.switch_to,
        )

    def action_save(self) -> None:
        try:
            path, written = self.save_game()
        except OSError as e:
            self.notify(_("Could not save the record: {error}").format(error=e), severity="error", timeout=10)
            return
        saved = _("Record saved to {path}") if written else _("Already saved to {path}")
        self.notify(saved.format(path=path))

    def action_replay_last(self) -> None:
        from tabletris.tui.replay_screen import ReplayScreen

        saved = list(self.saved.values())
        if not saved:
            self.notify(_("No record saved in this session yet: save one first (s or the palette)."), severity="warning")
            return
        self.push_screen(ReplayScreen.from_path(saved[-1][1]))
