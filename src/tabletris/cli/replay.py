"""``tabletris replay FILE [--json]``: replay a record through the engine and summarise it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.text import Text

from tabletris.cli.render import color_wanted, scoreboard
from tabletris.engine import records
from tabletris.engine.errors import RecordError
from tabletris.engine.games import GAMES
from tabletris.i18n import N_, _, ngettext, translate


def register(app: typer.Typer) -> None:
    @app.command(help=N_("Replay a game record: the final board and scores, or exit 1 with the rule it breaks."))
    def replay(
        file: Annotated[Path, typer.Argument(help=N_("A game record (record format v1, JSON)."))],
        as_json: Annotated[bool, typer.Option("--json", help=N_("Print the summary as JSON."))] = False,
        color: Annotated[
            bool, typer.Option("--color/--no-color", help=N_("Colour the board (NO_COLOR=1 also turns colour off)."))
        ] = True,
        tui: Annotated[bool, typer.Option("--tui", help=N_("Step through the game in the full-screen viewer."))] = False,
    ) -> None:
        """Replay a game record: the final board and scores, or exit 1 with the rule it breaks."""
        if tui:
            from tabletris.tui.launch import launch_replay

            raise typer.Exit(launch_replay(file, color=color))
        try:
            game = records.replay(Path(file))
            summary = game.summary()
        except RecordError as e:
            typer.echo(_("error: {error}").format(error=translate(e)), err=True)
            raise typer.Exit(1) from None
        if as_json:
            typer.echo(json.dumps(summary))
            return
        color = color_wanted(color)
        console = Console(no_color=not color, highlight=False)
        print_summary(console, summary, color=color)


def print_summary(console: Console, summary: dict[str, Any], color: bool = True) -> None:
    """A readable final position and scoreboard from a replay summary: the game's line mode draws
    its position (``show_summary``); a game without one gets the scoreboard alone."""
    players = summary["players"]
    game_spec = GAMES.get(summary["game"])
    line_mode = game_spec.front_end("line") if game_spec is not None and game_spec.has_front_end("line") else None
    show = getattr(line_mode, "show_summary", None)
    if show is not None:
        show(console, summary, color=color)
    console.print(scoreboard([p["name"] for p in players], [p["score"] for p in players], summary["winners"]))
    if summary["winners"]:
        winners = summary["winners"]
        console.print(Text(
            ngettext("winner: {names}", "winners: {names}", len(winners)).format(names=", ".join(winners)), style="bold green"
        ))
