"""``tabletris simulate GAME``: many bot games, a table of results, and optionally files and charts.

The work is ``tabletris.lab.simulate`` (seeded, identical for any ``--jobs``); this module only
parses options, shows a progress bar, prints the table and writes ``--out``.
"""

from __future__ import annotations

import csv
import json
import time
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn
from rich.table import Table

from tabletris.cli.examples import preset_list
from tabletris.cli.render import decimal, percent
from tabletris.i18n import N_, _, format_number, ngettext, translate
from tabletris.lab.simulate import (
    BACKENDS,
    SimConfig,
    SimulationResults,
    config_from,
    save_records,
    simulate,
)
from tabletris.lab.stats import summarize
from tabletris.table.saving import check_writable


def _fail(message: str) -> None:
    typer.echo(_("error: {error}").format(error=translate(message)), err=True)
    raise typer.Exit(2)


def print_summary(summary: dict[str, Any], console: Console) -> None:
    """Per preset, the seats (wins with a 95% Wilson interval, scores) and the game length; with
    ``--swap`` the positions and the first-seat advantage; with several presets, then, one table
    that compares them side by side."""
    swap = summary["config"]["swap"]
    for p in summary["presets"]:
        table = Table(title=ngettext(
            "{game} - preset {preset} - {count} game", "{game} - preset {preset} - {count} games", p["games"]
        ).format(game=summary["config"]["game"], preset=p["preset"], count=format_number(p["games"])))
        table.add_column(_("seat"))
        table.add_column(_("wins"), justify="right")
        table.add_column(_("win rate"), justify="right")
        table.add_column(_("95% CI"), justify="right")
        table.add_column(_("mean score"), justify="right")
        table.add_column(_("median"), justify="right")
        for s in p["seats"]:
            low, high = s["ci95"]
            table.add_row(
                s["seat"],
                format_number(s["wins"]),
                percent(s["win_rate"]),
                f"{percent(low)} - {percent(high)}",
                decimal(s["mean_score"]),
                format_number(s["median_score"]),
            )
        console.print(table)
        length = p["length"]
        lines = []
        if swap:
            positions = ", ".join(f"{row['position']}: {percent(row['win_rate'])}" for row in p["positions"])
            low, high = p["first_seat_advantage_ci95"]
            lines.append("  " + _("win rate by position: {positions}").format(positions=positions))
            lines.append("  " + _("first-seat advantage: {advantage} (95% CI {low} to {high})").format(
                advantage=percent(p["first_seat_advantage"], sign=True), low=percent(low, sign=True), high=percent(high, sign=True)
            ))
        lines.append("  " + _("game length: mean {mean}, median {median} (min {min}, max {max})").format(
            mean=decimal(length["mean"], 1), median=format_number(length["median"]),
            min=format_number(length["min"]), max=format_number(length["max"]),
        ))
        console.print("\n".join(lines))
    if len(summary["presets"]) > 1:
        console.print(comparison_table(summary))
    if not swap:
        console.print("  " + _("(--swap rotates the seats: then the first-seat advantage is measured too)"), style="dim")


def comparison_table(summary: dict[str, Any]) -> Table:
    """One row per preset, one column per measure, each with its 95% confidence interval."""
    swap = summary["config"]["swap"]
    table = Table(
        title=_("{game} - presets side by side (under each figure its 95% CI)").format(game=summary["config"]["game"]),
        show_lines=True,
    )
    table.add_column(_("preset"))
    table.add_column(_("games"), justify="right")
    for label in summary["config"]["seats"]:
        table.add_column(_("{bot}\nwin rate").format(bot=label), justify="right")
        table.add_column(_("{bot}\nmean score").format(bot=label), justify="right")
    table.add_column(_("game length\nmean"), justify="right")
    if swap:
        table.add_column(_("first-seat\nadvantage"), justify="right")
    for p in summary["presets"]:
        cells = [p["preset"], format_number(p["games"])]
        for s in p["seats"]:
            low, high = s["ci95"]
            cells.append(f"{percent(s['win_rate'])}\n{percent(low)} - {percent(high)}")
            low, high = s["score_ci95"]
            cells.append(f"{decimal(s['mean_score'])}\n{decimal(low)} - {decimal(high)}")
        low, high = p["length"]["ci95"]
        cells.append(f"{decimal(p['length']['mean'], 1)}\n{decimal(low, 1)} - {decimal(high, 1)}")
        if swap:
            low, high = p["first_seat_advantage_ci95"]
            cells.append(
                f"{percent(p['first_seat_advantage'], sign=True)}\n{percent(low, sign=True)} - {percent(high, sign=True)}"
            )
        table.add_row(*cells)
    return table


def check_out_dir(out: Path) -> None:
    """Refuse an ``--out`` folder that cannot be made or written: OSError naming the reason."""
    if out.exists() and not out.is_dir():
        raise OSError(f"{out} is a file, not a folder")
    check_writable(out / "results.json")


def write_outputs(run: SimulationResults, summary: dict[str, Any], out: Path, seconds: float) -> list[Path]:
    """``results.json``, ``games.csv``, the charts, and the records if they were kept."""
    from tabletris.lab.charts import write_charts

    out.mkdir(parents=True, exist_ok=True)
    doc = dict(summary)
    doc["seconds"] = seconds
    results_path = out / "results.json"
    results_path.write_text(json.dumps(doc, indent=2) + "\n", encoding="utf-8")
    labels = [s.label for s in run.config.seats]
    games_path = out / "games.csv"
    with games_path.open("w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f)
        writer.writerow(
            ["preset", "index", "seed", "length"]
            + [f"position {i}" for i in range(len(labels))]
            + [f"score {label}" for label in labels]
            + [f"win {label}" for label in labels]
        )
        for r in run.results:
            writer.writerow(
                [r.preset, r.index, r.seed, r.length]
                + [labels[b] for b in r.order]
                + list(r.scores)
                + [f"{w:g}" for w in r.wins]
            )
    paths = [results_path, games_path, *write_charts(run, summary, out)]
    if run.config.save_records:
        paths.extend(save_records(run, out))
    return paths


def run_simulation(
    config: SimConfig, backend: str, jobs: int, console: Console, address: str | None = None
) -> SimulationResults:
    total = config.games * len(config.presets)
    with Progress(
        TextColumn("[bold]simulating[/]"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeRemainingColumn(),
        console=console,
        transient=True,
    ) as progress:
        bar = progress.add_task("games", total=total)
        return simulate(config, backend, jobs, progress=lambda k: progress.advance(bar, k), address=address)


def register(app: typer.Typer) -> None:
    @app.command("simulate", help=N_("Play many games between bots and print win rates, scores and game lengths."))
    def simulate_command(
        game: Annotated[str, typer.Argument(help=N_("dice or tower"))] = "dice",
        seats: Annotated[str, typer.Option(help=N_("Comma-separated bots, e.g. expert,greedy or expert@0.5,random."))] = "expert,greedy",
        games: Annotated[int, typer.Option(help=N_("Games per preset."))] = 100,
        seed: Annotated[int, typer.Option(help=N_("Master seed: every game's seed derives from it."))] = 0,
        jobs: Annotated[int, typer.Option(help=N_("Worker processes (results do not depend on it)."))] = 1,
        preset: Annotated[
            list[str] | None,
            typer.Option("--preset", help=f"Rule preset ({preset_list()}); repeat to compare several."),
        ] = None,
        rules: Annotated[
            list[str] | None, typer.Option("--rules", help=N_("Rule option key=value or a JSON object; repeatable."))
        ] = None,
        swap: Annotated[bool, typer.Option("--swap", help=N_("Rotate seats so each bot plays each position equally."))] = False,
        out: Annotated[Path | None, typer.Option(help=N_("Write results.json, games.csv and PNG charts here."))] = None,
        save_records_: Annotated[
            bool, typer.Option("--save-records", help=N_("Keep every game's record in OUT/records/."))
        ] = False,
        backend: Annotated[str, typer.Option(help=f"How games run: {', '.join(BACKENDS)}.")] = "process",
        budget: Annotated[float | None, typer.Option(help=N_("Seconds per bot decision (a cap; unset = reproducible)."))] = None,
        address: Annotated[
            str | None, typer.Option(help=N_("Ray cluster for --backend ray (e.g. ray://host:10001); unset: local Ray."))
        ] = None,
    ) -> None:
        """Play many games between bots and print win rates, scores and game lengths."""
        from tabletris.table.seats import parse_rules

        if save_records_ and out is None:
            _fail("--save-records needs --out DIR")
        try:
            extra = parse_rules(rules, None)
            config = config_from(
                game, seats, games, seed, preset or ["standard"], extra, swap, save_records_, budget
            )
            if jobs < 1:
                raise ValueError(f"--jobs: {jobs}: at least 1")
            if backend not in BACKENDS:
                raise ValueError(f"--backend: {backend!r}: expected one of {', '.join(BACKENDS)}")
            if address is not None and backend != "ray":
                raise ValueError("--address only goes with --backend ray")
        except ValueError as e:
            _fail(str(e))
            return
        if out is not None:
            try:  # before the games, not after them: a bad path must not cost the run
                check_out_dir(out)
            except OSError as e:
                _fail(f"--out: {e}")
                return
            import tabletris.lab.charts  # noqa: F401  (the charts' extra, before the games too)
        console = Console()
        start = time.perf_counter()
        try:
            run = run_simulation(config, backend, jobs, console, address)
        except ValueError as e:  # Ray missing or unreachable
            _fail(str(e))
            return
        seconds = time.perf_counter() - start
        summary = summarize(run)
        print_summary(summary, console)
        total = len(run.results)
        console.print(ngettext(
            "{count} game in {seconds} s ({rate} games/s, --jobs {jobs})", "{count} games in {seconds} s ({rate} games/s, --jobs {jobs})", total
        ).format(count=format_number(total), seconds=decimal(seconds, 1), rate=decimal(total / seconds, 1), jobs=jobs))
        if out is not None:
            try:
                paths = write_outputs(run, summary, out, seconds)
            except OSError as e:  # checked before the run; the tables above are still printed
                _fail(f"--out: cannot write the results to {out}: {e}")
                return
            console.print(ngettext("wrote {count} file to {path}", "wrote {count} files to {path}", len(paths)).format(count=len(paths), path=out))
