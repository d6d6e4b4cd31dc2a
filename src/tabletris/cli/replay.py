"""``tabletris replay FILE [--json]``: replay a record through the engine and summarise it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.text import Text

from tabletris.cli.render import board_text, color_wanted, scoreboard
from tabletris.engine import records
from tabletris.engine.errors import RecordError
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
    """A readable board (or towers) and scoreboard from a replay summary."""
    players = summary["players"]
    if summary["game"] == "dice":
        console.print(board_text(summary["rows"], color=color))
        state = _("over") if summary["over"] else _("in progress")
        console.print(Text(
            ngettext("dice game, {count} turn, {state}", "dice game, {count} turns, {state}", summary["turn"]).format(
                count=summary["turn"], state=state
            ),
            style="bold",
        ))
        console.print(scoreboard([p["name"] for p in players], [p["score"] for p in players], summary["winners"]))
    else:
        for p in players:
            flags = []
            if p.get("out"):
                flags.append(_("out"))
            if p.get("held"):
                flags.append(_("hold used"))
            console.print(Text(
                ngettext("{name}: {count} point ({flags})", "{name}: {count} points ({flags})", p["score"]).format(
                    name=p["name"], count=p["score"], flags=", ".join(flags) or _("in play")
                ),
                style="bold",
            ))
            console.print(board_text(p["rows"], color=color))
            parts = [_("rows {count} x2").format(count=p["lines"]), _("bonus {count}").format(count=p["bonus"])]
            parts += [f"{k} {v}" for k, v in p.get("achievements", {}).items()]
            console.print("  " + ", ".join(parts))
        state = _("over") if summary["over"] else _("in progress")
        console.print(Text(_("tower game, round {number}, {state}").format(number=summary["round"], state=state), style="bold"))
        console.print(scoreboard([p["name"] for p in players], [p["score"] for p in players], summary["winners"]))
    if summary["winners"]:
        winners = summary["winners"]
        console.print(Text(
            ngettext("winner: {names}", "winners: {names}", len(winners)).format(names=", ".join(winners)), style="bold green"
        ))
