"""``tabletris leaderboard GAME``: every pair of bots head to head, rated with openskill.

The work is ``tabletris.lab.leaderboard``; this module parses options, prints the table and
writes ``--out`` (``leaderboard.json``, ``leaderboard.md`` and ``leaderboard.png``).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

from tabletris.cli.render import decimal, percent
from tabletris.i18n import N_, _, format_number, translate
from tabletris.lab.leaderboard import DEFAULT_BOTS, Leaderboard, run_leaderboard, write_chart


def print_board(board: Leaderboard, console: Console) -> None:
    table = Table(title=_("{game} leaderboard (openskill, ranked by mu - 3 sigma)").format(game=board.game))
    for name, justify in [(_("rank"), "right"), (_("bot"), "left"), (_("ordinal"), "right"), ("mu", "right"),
                          ("sigma", "right"), (_("games"), "right"), (_("win rate"), "right"), (_("95% CI"), "right")]:
        table.add_column(name, justify=justify)  # type: ignore[arg-type]
    for i, e in enumerate(board.entries, 1):
        table.add_row(str(i), e.bot, decimal(e.ordinal), decimal(e.mu), decimal(e.sigma), format_number(e.games),
                      percent(e.win_rate), f"{percent(e.ci95[0])} - {percent(e.ci95[1])}")
    console.print(table)
    for bot, reason in board.left_out.items():
        console.print(_("left out: {bot}: {reason}").format(bot=bot, reason=translate(reason)))



def register(app: typer.Typer) -> None:
    @app.command(
        "leaderboard",
        help=N_(
            "Rate bots against each other (random, greedy, expert, oracle, mcts, ext:...) with openskill.\n\n"
            "Example: tabletris leaderboard dice --games 40 --out lb/"
        ),
    )
    def leaderboard_command(
        game: Annotated[str, typer.Argument(help=N_("dice or tower"))] = "dice",
        bots: Annotated[
            str, typer.Option(help=N_("Comma-separated bots (NAME or NAME@STRENGTH, ext:... too)."))
        ] = ",".join(DEFAULT_BOTS),
        games: Annotated[int, typer.Option(help=N_("Games per pairing (seats swapped each game)."))] = 20,
        seed: Annotated[int, typer.Option(help=N_("Master seed: every game's seed derives from it."))] = 0,
        preset: Annotated[str, typer.Option(help=N_("Rule preset."))] = "standard",
        jobs: Annotated[int, typer.Option(help=N_("Worker processes (results do not depend on it)."))] = 1,
        out: Annotated[Path | None, typer.Option(help=N_("Write leaderboard.json, .md and .png here."))] = None,
    ) -> None:
        """Rate bots against each other (random, greedy, expert, oracle, mcts, ext:...) with openskill.

        Example: tabletris leaderboard dice --games 40 --out lb/
        """
        try:
            board = run_leaderboard(game, [b for b in bots.split(",") if b.strip()], games, seed, preset, jobs)
        except ValueError as e:
            typer.echo(_("error: {error}").format(error=translate(e)), err=True)
            raise typer.Exit(2) from None
        print_board(board, Console())
        if out is not None:
            out.mkdir(parents=True, exist_ok=True)
            (out / "leaderboard.json").write_text(json.dumps(board.to_dict(), indent=2) + "\n", encoding="utf-8")
            (out / "leaderboard.md").write_text(board.markdown() + "\n", encoding="utf-8")
            write_chart(board, out / "leaderboard.png")
            typer.echo(_("wrote {path}, leaderboard.md, leaderboard.png").format(path=out / "leaderboard.json"))
