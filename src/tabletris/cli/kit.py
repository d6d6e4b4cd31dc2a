"""``tabletris kit``: write the 3D-print kit of the dice game (the work is ``tabletris.kit``).

This module parses options, shows a Rich progress bar and prints a short table; every bad option
is one line naming it, with exit status 2 (Typer's ``BadParameter``).
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from tabletris.i18n import N_
from tabletris.kit.options import (
    DEFAULT_CLEARANCE,
    DEFAULT_PRINTER,
    PRINTERS,
    SIZES,
    KitError,
    kit_options,
)
from tabletris.kit.slicer import SlicerError, find_slicer


def kit(
    size: Annotated[str | None, typer.Option(help=f"Square size: {', '.join(f'{k} ({v:g} mm)' for k, v in SIZES.items())}.")] = None,
    cell: Annotated[float | None, typer.Option(help=N_("Square size in mm, instead of --size."))] = None,
    players: Annotated[int, typer.Option(help=N_("Colour sets to print (one per player)."))] = 4,
    height: Annotated[int | None, typer.Option(help=N_("Board rows (the engine's height option); more rows, more centre parts."))] = None,
    preset: Annotated[str | None, typer.Option(help=N_("Rules preset the board is for, e.g. long (30 rows)."))] = None,
    supply: Annotated[int | None, typer.Option(help=N_("Pieces of each shape per colour (default: the engine's supply rule)."))] = None,
    printer: Annotated[str, typer.Option(help=f"Printer bed: {', '.join(PRINTERS)} or WxD or WxDxH in mm.")] = DEFAULT_PRINTER,
    clearance: Annotated[float, typer.Option(help=N_("Fit tolerance per side in mm."))] = DEFAULT_CLEARANCE,
    out: Annotated[Path, typer.Option(help=N_("Folder to write the kit to."))] = Path("kit"),
    slice_plates: Annotated[
        bool | None,
        typer.Option("--slice/--no-slice", help=N_("Slice every plate with PrusaSlicer (default: when it is installed).")),
    ] = None,
    previews: Annotated[bool, typer.Option("--previews/--no-previews", help=N_("Render PNG previews."))] = True,
) -> None:
    """Write the 3D-printable dice game: board parts, pieces, die, box, plates and previews."""
    from tabletris.kit.build import make_kit, write_kit

    try:
        opts = kit_options(
            size=size,
            cell=cell,
            players=players,
            preset=preset,
            height=height,
            supply=supply,
            printer=printer,
            clearance=clearance,
        )
    except KitError as e:
        raise typer.BadParameter(str(e), param_hint=e.option) from None
    have_slicer = find_slicer() is not None
    if slice_plates and not have_slicer:
        raise typer.BadParameter("prusa-slicer is not installed (Debian: apt-get install prusa-slicer)", param_hint="--slice")
    do_slice = have_slicer if slice_plates is None else slice_plates
    console = Console(stderr=True)
    started = time.perf_counter()
    with Progress(
        TextColumn("{task.description:<34}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=console,
        transient=True,
    ) as bar:
        geometry = bar.add_task("geometry", total=None)
        files = bar.add_task("files", total=None, visible=False)

        def on_geometry(done: int, total: int, what: str) -> None:
            bar.update(geometry, completed=done, total=total, description=what)

        def on_files(done: int, total: int, what: str) -> None:
            bar.update(files, completed=done, total=total, description=what, visible=True)

        try:
            built = make_kit(opts, on_geometry)
            summary = write_kit(built, out, slice_plates=do_slice, previews=previews, progress=on_files)
        except KitError as e:
            raise typer.BadParameter(str(e), param_hint=e.option) from None
        except SlicerError as e:
            typer.echo(f"error: {e}", err=True)
            raise typer.Exit(1) from None
    seconds = time.perf_counter() - started
    table = Table(title=f"dice kit: {opts.size_label}, {opts.width} x {opts.rows}, {opts.players} colours, {opts.printer.label}")
    table.add_column("plate")
    table.add_column("print", justify="right")
    table.add_column("parts")
    if do_slice:
        table.add_column("filament", justify="right")
        table.add_column("time", justify="right")
    for doc in summary["plates"]:
        row = [doc["key"], f"x{doc['copies']}", ", ".join(f"{n} {k}" for k, n in doc["parts"].items())]
        if do_slice:
            row += [f"{doc['slicer']['filament_g']:.0f} g", doc["slicer"]["time"]]
        table.add_row(*row)
    Console().print(table)
    t = summary["totals"]
    line = f"{t['parts']} parts ({t['distinct_parts']} distinct) on {t['plates']} plates, {t['plate_prints']} prints"
    if do_slice:
        line += f"; {t['filament_g']:.0f} g filament, {t['print_time_s'] / 3600:.1f} h printing (PrusaSlicer)"
    else:
        line += "; not sliced (prusa-slicer not installed or --no-slice)"
    typer.echo(f"{line}\nwrote {out}/ (README.md, kit.json) in {seconds:.1f} s")


def register(app: typer.Typer) -> None:
    app.command("kit", help=N_("Write the 3D-printable dice game: board parts, pieces, die, box, plates and previews."))(kit)
