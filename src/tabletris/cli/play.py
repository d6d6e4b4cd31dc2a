"""``tabletris play GAME``: the full-screen app when the terminal allows, else the line mode."""

from __future__ import annotations

import dataclasses
import sys
from pathlib import Path
from typing import Annotated

import typer

from tabletris.cli.examples import preset_list
from tabletris.cli.render import color_wanted
from tabletris.engine.games import GAME_NAMES, GAMES
from tabletris.i18n import N_, _, translate
from tabletris.table.saving import check_writable
from tabletris.table.seats import check_game, parse_rules, parse_seats


def _fail(message: str) -> None:
    typer.echo(_("error: {error}").format(error=translate(message)), err=True)
    raise typer.Exit(2)


def register(app: typer.Typer) -> None:
    @app.command(help=N_("Play a game at this terminal against people (hot-seat) and bots."))
    def play(
        game: Annotated[
            str | None, typer.Argument(help=N_("dice or tower; without it the app opens on the new-game screen"))
        ] = None,
        seats: Annotated[
            str,
            typer.Option(help=N_("Comma-separated seats: human, human=Ann, random, expert@0.8=Robo ...")),
        ] = "human,random",
        seed: Annotated[int | None, typer.Option(help=N_("Seed for the die or the deck."))] = None,
        preset: Annotated[str | None, typer.Option(help=f"Named rule set ({preset_list()}).")] = None,
        rules: Annotated[
            list[str] | None, typer.Option("--rules", help=N_("Rule option as key=value or a JSON object; repeatable."))
        ] = None,
        save: Annotated[Path | None, typer.Option(help=N_("Write the game record here when the game ends."))] = None,
        plain: Annotated[bool, typer.Option("--plain", help=N_("Line-based mode instead of the full-screen app."))] = False,
        color: Annotated[
            bool, typer.Option("--color/--no-color", help=N_("Colour the board (NO_COLOR=1 also turns colour off)."))
        ] = True,
        towers: Annotated[
            str | None,
            typer.Option(help=N_("Tower game: each seat's tower and bottom end, e.g. 2b,1a,- (- or nothing: a free one at random).")),
        ] = None,
        tutorial: Annotated[
            bool, typer.Option("--tutorial", help=N_("The game's guided first game, in the full-screen app."))
        ] = False,
    ) -> None:
        """Play a game at this terminal against people (hot-seat) and bots."""
        color = color_wanted(color)
        interactive = sys.stdin.isatty() and sys.stdout.isatty()
        if game is None and not tutorial and not plain and interactive and _tui_available():
            from tabletris.tui.launch import launch_setup

            raise typer.Exit(launch_setup(color=color))
        game = game or GAME_NAMES[0]
        if game not in GAMES:
            names = list(GAMES)
            _fail(_("unknown game {name!r}: expected {games} or {last}").format(name=game, games=", ".join(names[:-1]), last=names[-1]))
        if tutorial:
            if plain or not interactive or not _tui_available():
                _fail(_("--tutorial is played in the full-screen app: run it at a terminal, without --plain"))
            from tabletris.tui.launch import launch_tutorial

            raise typer.Exit(launch_tutorial(game, color=color))
        try:
            seat_specs = parse_seats(seats, max_seats=GAMES[game].max_players, person=_("Player {number}"))
            check_game([s.kind for s in seat_specs], game)
            rules_obj = parse_rules(rules, preset)
        except ValueError as e:
            _fail(translate(e))
            return
        chosen = _parse_towers(towers)
        if chosen is not None:  # a rules option (the tower game's), given its own flag
            if "towers" not in {f.name for f in dataclasses.fields(GAMES[game].rules_cls)}:
                _fail(_("--towers is for the tower game"))
            rules_obj = {**rules_obj, "towers": chosen}
        if save is not None:
            try:  # before the game, not after it: a bad path must not cost a played game
                check_writable(save)
            except OSError as e:
                _fail(f"--save: {e}")
                return
        if not plain and interactive and _tui_available():
            from tabletris.tui.launch import launch

            raise typer.Exit(launch(game, seat_specs, rules_obj, seed, save, color=color))
        try:
            line_mode = GAMES[game].front_end("line")
        except LookupError:
            _fail(_("the {game} game has no line mode: play it in the full-screen app").format(game=game))
            return
        raise typer.Exit(line_mode.play(seat_specs, rules_obj, seed, save, color=color))


def _parse_towers(text: str | None) -> list[str | None] | None:
    """``2b,1a,-`` as the engine's ``towers`` (None: the seat takes a free tower at random); the
    engine checks the names and that no two seats share a tower."""
    if text is None:
        return None
    return [None if t.strip() in ("", "-", "random") else t.strip() for t in text.split(",")]


def _tui_available() -> bool:
    try:
        import tabletris.tui.launch  # noqa: F401
    except ModuleNotFoundError:
        return False
    return True
