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


def register(app: typer.Typer) -> None:
    @app.command()
    def replay(
        file: Annotated[Path, typer.Argument(help="A game record (record format v1, JSON).")],
        as_json: Annotated[bool, typer.Option("--json", help="Print the summary as JSON.")] = False,
        color: Annotated[
            bool, typer.Option("--color/--no-color", help="Colour the board (NO_COLOR=1 also turns colour off).")
        ] = True,
        tui: Annotated[bool, typer.Option("--tui", help="Step through the game in the full-screen viewer.")] = False,
    ) -> None:
        """Replay a game record: the final board and scores, or exit 1 with the rule it breaks."""
        if tui:
            from tabletris.tui.launch import launch_replay

            raise typer.Exit(launch_replay(file, color=color))
        try:
            game = records.replay(Path(file))
            summary = game.summary()
        except RecordError as e:
            typer.echo(f"error: {e}", err=True)
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
        state = "over" if summary["over"] else "in progress"
        console.print(Text(f"dice game, {summary['turn']} turns, {state}", style="bold"))
        console.print(scoreboard([p["name"] for p in players], [p["score"] for p in players], summary["winners"]))
    else:
        for p in players:
            flags = []
            if p.get("out"):
                flags.append("out")
            if p.get("held"):
                flags.append("hold used")
            console.print(Text(f"{p['name']}: {p['score']} points ({', '.join(flags) or 'in play'})", style="bold"))
            console.print(board_text(p["rows"], color=color))
            parts = [f"rows {p['lines']} x2", f"bonus {p['bonus']}"]
            parts += [f"{k} {v}" for k, v in p.get("achievements", {}).items()]
            console.print("  " + ", ".join(parts))
        state = "over" if summary["over"] else "in progress"
        console.print(Text(f"tower game, round {summary['round']}, {state}", style="bold"))
        console.print(scoreboard([p["name"] for p in players], [p["score"] for p in players], summary["winners"]))
    if summary["winners"]:
        console.print(Text("winner" + ("s" if len(summary["winners"]) > 1 else "") + ": " + ", ".join(summary["winners"]), style="bold green"))
