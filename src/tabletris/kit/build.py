"""The whole kit: parts, box, plates, files, previews, slicing, ``kit.json`` and the maker's README.

``make_kit`` is pure geometry (no files), so tests can check the solids quickly; ``write_kit``
exports, renders and slices. Both report each step to an optional ``progress(done, total, what)``
callback, which the command line shows as a Rich progress bar.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import rectpack
import trimesh
from manifold3d import Manifold

from tabletris.engine.dice import DiceAction, DiceGame
from tabletris.engine.shapes import Cell, Shape
from tabletris.i18n import N_, _, format_number, ngettext
from tabletris.kit.options import KitOptions
from tabletris.kit.parts import (
    BoardSection,
    Dimensions,
    Part,
    board_part,
    board_sections,
    box_solids,
    die_solid,
    mesh_arrays,
    piece_cells,
    piece_solid,
)
from tabletris.kit.plates import Plate, check_fits, pack

Progress = Callable[[int, int, str], None]

SET_COLOURS: tuple[tuple[str, str], ...] = (
    (N_("red"), "#d64541"),
    (N_("blue"), "#3a7bd5"),
    (N_("yellow"), "#f2c230"),
    (N_("green"), "#3fa34d"),
    (N_("orange"), "#f08a24"),
    (N_("purple"), "#8e5bb5"),
    (N_("white"), "#f2f2f2"),
    (N_("black"), "#3a3a3a"),
)
"""Suggested filament colours for the colour sets, one per player, in this order."""
BOARD_COLOUR = (N_("light grey"), "#bfc4c9")
BOX_SLACK = 1.0
"""Free space (mm) around the box's contents on each side and above them."""


@dataclass
class Kit:
    """Every distinct part, the board's split, the box's inside and the plates."""

    options: KitOptions
    dims: Dimensions
    sections: list[BoardSection]
    parts: list[Part]
    box_inner: tuple[float, float, float]
    piece_layers: int
    plates: list[Plate] = field(default_factory=list)

    def part(self, key: str) -> Part:
        return next(p for p in self.parts if p.key == key)

    @property
    def pieces(self) -> list[Part]:
        return [p for p in self.parts if p.kind == "piece"]

    def total(self, part: Part) -> int:
        """How many of ``part`` the whole kit has (a colour set's parts once per colour)."""
        return part.count * (self.options.players if part.per_colour else 1)


def _nothing(done: int, total: int, what: str) -> None:
    return None


def box_inside(
    opts: KitOptions, dims: Dimensions, boards: list[Part], set_parts: list[Part]
) -> tuple[tuple[float, float, float], int]:
    """The box's inside, from its contents: the board parts stacked, then layers of pieces and dice.

    The footprint is the largest board part's; rectpack lays every colour set's pieces and dice
    into layers of that footprint, and each layer is as tall as its tallest item.
    """
    ix = max(p.size[0] for p in boards) + 2 * BOX_SLACK
    iy = max(p.size[1] for p in boards) + 2 * BOX_SLACK
    stack = sum(p.size[2] for p in boards)
    packer = rectpack.newPacker(rotation=True)
    items: list[Part] = []
    for part in set_parts:
        for _copy in range(part.count * opts.players):
            w, d, _height = part.size
            packer.add_rect(int(round((w + 1) * 100)), int(round((d + 1) * 100)), rid=len(items))
            items.append(part)
    packer.add_bin(int(ix * 100), int(iy * 100), count=float("inf"))
    packer.pack()
    layer_height: dict[int, float] = {}
    for b, *_rest, rid in packer.rect_list():
        layer_height[b] = max(layer_height.get(b, 0.0), items[rid].size[2])
    return (ix, iy, stack + sum(layer_height.values()) + BOX_SLACK), len(layer_height)


def make_kit(opts: KitOptions, progress: Progress = _nothing) -> Kit:
    """Every part of the kit as solids, and the plates they print on."""
    dims = Dimensions(opts.cell, opts.clearance)
    sections = board_sections(opts.rows)
    distinct: dict[str, BoardSection] = {}
    for s in sections:
        distinct.setdefault(s.key, s)
    steps = len(distinct) + len(opts.shapes) + 3
    done = 0

    def step(what: str) -> None:
        nonlocal done
        progress(done, steps, what)
        done += 1

    boards: list[Part] = []
    for key, section in distinct.items():
        step(f"board part: {section.title}")
        count = sum(1 for s in sections if s.key == key)
        solid = board_part(opts, dims, section)
        lo = np.asarray(solid.bounding_box())[:3]
        boards.append(
            Part(
                key,
                section.title,
                "board",
                solid.translate(tuple(-float(v) for v in lo)),
                count,
                meta={"rows": section.rows, "origin_mm": [float(v) for v in lo]},
            )
        )
    set_parts: list[Part] = []
    for shape in opts.shapes:
        step(f"pieces: {shape.value}")
        cells = piece_cells(shape)
        set_parts.append(
            Part(
                f"piece-{shape.value}",
                f"Piece {shape.value}",
                "piece",
                piece_solid(cells, dims),
                opts.supply,
                per_colour=True,
                meta={"shape": shape.value, "cells": [list(c) for c in cells]},
            )
        )
    step("die")
    set_parts.append(
        Part("die", "Die", "die", die_solid(opts.die_faces, dims), 1, True, meta={"faces": list(opts.die_faces)})
    )
    step("box and lid")
    inner, layers = box_inside(opts, dims, boards, set_parts)
    box, lid = box_solids(dims, inner)
    extras = [
        Part("box", "Box", "box", box, 1, meta={"inner_mm": [round(v, 2) for v in inner]}),
        Part("lid", "Lid", "box", lid, 1),
    ]
    parts = boards + set_parts + extras
    step("plates")
    check_fits(parts, opts.printer)
    plates = pack(
        [(p, p.count) for p in boards + extras],
        opts.printer,
        "board-and-box",
        N_("Board and box"),
        1,
        BOARD_COLOUR[0],
    )
    plates += pack(
        [(p, p.count) for p in set_parts],
        opts.printer,
        "colour-set",
        N_("Colour set"),
        opts.players,
        N_("one colour per copy"),
    )
    progress(steps, steps, "geometry done")
    return Kit(opts, dims, sections, parts, inner, layers, plates)


# ---------------------------------------------------------------------------- assembled game


def demo_stones(opts: KitOptions, turns: int = 16, seed: int = 3) -> list[tuple[Shape, tuple[Cell, ...], int]]:
    """A few turns of a real game by the engine (each piece at its lowest legal place), so the
    assembled picture shows a position the rules allow."""
    game = DiceGame([f"P{i + 1}" for i in range(max(2, min(opts.players, 4)))], opts.rules, seed=seed)
    stones = []
    for _turn in range(turns):
        if game.over:
            break
        game.roll()
        if game.over:
            break
        shape = game.shapes_for_roll()[0]
        placements = game.legal_placements(shape)
        best = min(placements, key=lambda p: (min(y for _, y in p.cells), p.x))
        stones.append((shape, best.cells, game.to_move))
        game.act(DiceAction(shape, best))
    return stones


def assembled(kit: Kit) -> list[tuple[Manifold, str]]:
    """The board joined, some pieces in play and a die per colour, as they sit on the table."""
    dims, opts = kit.dims, kit.options
    solids: list[tuple[Manifold, str]] = []
    for section in kit.sections:
        part = kit.part(section.key)
        ox, oy, oz = part.meta["origin_mm"]
        solids.append((part.solid.translate((ox, oy + section.first_row * dims.cell, oz)), BOARD_COLOUR[1]))
    seat_z = dims.base + 0.4
    for _shape, cells, seat in demo_stones(opts):
        colour = SET_COLOURS[seat % len(SET_COLOURS)][1]
        solids.append((piece_solid(cells, dims, upright=True).translate((0.0, 0.0, seat_z)), colour))
    die = kit.part("die").solid
    for n in range(min(opts.players, 4)):
        x = opts.width * dims.cell + dims.frame + 8.0 + (dims.die + 4) * (n % 2)
        y = (dims.die + 4) * (n // 2)
        solids.append((die.translate((x, y, 0.0)), SET_COLOURS[n % len(SET_COLOURS)][1]))
    return solids


# ---------------------------------------------------------------------------- files


def _trimesh(solid: Manifold) -> trimesh.Trimesh:
    verts, faces = mesh_arrays(solid)
    return trimesh.Trimesh(vertices=verts, faces=faces, process=False)


def write_kit(
    kit: Kit,
    out: Path,
    *,
    slice_plates: bool = True,
    previews: bool = True,
    progress: Progress = _nothing,
) -> dict[str, Any]:
    """STL per part, 3MF per plate, previews, slicer estimates, ``kit.json`` and ``README.md``."""
    from tabletris.kit.slicer import slice_plate

    started = time.perf_counter()
    opts = kit.options
    out.mkdir(parents=True, exist_ok=True)
    (out / "stl").mkdir(exist_ok=True)
    (out / "plates").mkdir(exist_ok=True)
    steps = len(kit.parts) + len(kit.plates) * (2 if slice_plates else 1)
    steps += len(kit.parts) + 1 + len(kit.plates) if previews else 0
    done = 0

    def step(what: str) -> None:
        nonlocal done
        progress(done, steps, what)
        done += 1

    part_docs = []
    for part in kit.parts:
        step(f"STL: {part.title}")
        path = out / "stl" / f"{part.key}.stl"
        _trimesh(part.solid).export(path)
        w, d, h = part.size
        part_docs.append(
            {
                "key": part.key,
                "title": part.title,
                "kind": part.kind,
                "per_colour_set": part.per_colour,
                "count": part.count,
                "total": kit.total(part),
                "size_mm": [round(w, 2), round(d, 2), round(h, 2)],
                "volume_cm3": round(part.volume_cm3, 3),
                "stl": f"stl/{part.key}.stl",
                **({k: v for k, v in part.meta.items() if k != "origin_mm"}),
            }
        )
    plate_docs = []
    for plate in kit.plates:
        step(f"3MF: {plate.title}")
        path = out / "plates" / f"{plate.key}.3mf"
        scene = trimesh.Scene()
        for n, item in enumerate(plate.placed):
            name = f"{item.part.key}-{n + 1}"
            scene.add_geometry(_trimesh(item.solid), geom_name=name, node_name=name)
        path.write_bytes(trimesh.exchange.threemf.export_3MF(scene))
        doc: dict[str, Any] = {
            "key": plate.key,
            "title": plate.title,
            "file": f"plates/{plate.key}.3mf",
            "copies": plate.copies,
            "colour": plate.colour,
            "parts": plate.part_counts,
        }
        if slice_plates:
            step(f"slicing: {plate.title}")
            doc["slicer"] = slice_plate(path, opts.printer).to_dict()
        plate_docs.append(doc)
    preview_files: list[str] = []
    if previews:
        preview_files = _write_previews(kit, out / "previews", step)
    totals: dict[str, Any] = {
        "distinct_parts": len(kit.parts),
        "parts": sum(kit.total(p) for p in kit.parts),
        "plates": len(kit.plates),
        "plate_prints": sum(p.copies for p in kit.plates),
    }
    if slice_plates:
        totals["filament_g"] = round(sum(d["slicer"]["filament_g"] * d["copies"] for d in plate_docs), 2)
        totals["filament_cm3"] = round(sum(d["slicer"]["filament_cm3"] * d["copies"] for d in plate_docs), 2)
        totals["print_time_s"] = sum(d["slicer"]["time_s"] * d["copies"] for d in plate_docs)
    dims = kit.dims
    summary: dict[str, Any] = {
        "kit": opts.summary(),
        "board": {
            "columns": opts.width,
            "rows": opts.rows,
            "play_area_mm": [opts.width * dims.cell, opts.rows * dims.cell],
            "parts": [{"key": s.key, "first_row": s.first_row, "rows": s.rows} for s in kit.sections],
        },
        "fit": {
            "cell_mm": dims.cell,
            "clearance_mm": dims.clearance,
            "pocket_mm": round(dims.pocket_side, 3),
            "foot_mm": round(dims.foot_side, 3),
            "rib_mm": round(dims.rib, 3),
        },
        "box": {"inner_mm": [round(v, 2) for v in kit.box_inner], "piece_layers": kit.piece_layers},
        "parts": part_docs,
        "plates": plate_docs,
        "totals": totals,
        "previews": preview_files,
        "slicer_settings": "PrusaSlicer: PLA 1.75 mm (1.24 g/cm3), 0.4 mm nozzle, 0.2 mm layers, 15% infill, 2 perimeters",
    }
    summary["build_seconds"] = round(time.perf_counter() - started, 2)
    (out / "kit.json").write_text(json.dumps(summary, indent=2) + "\n", encoding="utf-8")
    (out / "README.md").write_text(maker_readme(kit, summary), encoding="utf-8")
    progress(steps, steps, "done")
    return summary


def _write_previews(kit: Kit, folder: Path, step: Callable[[str], None]) -> list[str]:
    from tabletris.kit.preview import render, shaded

    files = []
    for part in kit.parts:
        step(f"preview: {part.title}")
        colour = SET_COLOURS[0][1] if part.per_colour else BOARD_COLOUR[1]
        path = render([shaded(part.solid, colour)], folder / f"{part.key}.png", part.title)
        files.append(f"previews/{path.name}")
    step("preview: the assembled game")
    scene = [shaded(solid, colour) for solid, colour in assembled(kit)]
    path = render(
        scene,
        folder / "assembled.png",
        f"tabletris dice, {kit.options.size_label}: {kit.options.width} x {kit.options.rows}",
        elev=50,
        azim=-75,
        size=(7.0, 7.0),
    )
    files.append(f"previews/{path.name}")
    bed = kit.options.printer
    for plate in kit.plates:
        step(f"preview: plate {plate.title}")
        colour = SET_COLOURS[0][1] if plate.copies > 1 else BOARD_COLOUR[1]
        sheet = Manifold.cube((bed.width, bed.depth, 0.6)).translate((0.0, 0.0, -0.6))
        path = render(
            [shaded(sheet, "#2f3640"), *(shaded(item.solid, colour) for item in plate.placed)],
            folder / f"plate-{plate.key}.png",
            f"{plate.title} on the {bed.name} bed" + (f", x{plate.copies}" if plate.copies > 1 else ""),
            elev=60,
            azim=-90,
        )
        files.append(f"previews/{path.name}")
    return files


def _duration(seconds: int) -> str:
    h, m = divmod(seconds // 60, 60)
    if h:
        return _("{hours} h {minutes} min").format(hours=h, minutes=f"{m:02d}")
    return _("{minutes} min").format(minutes=m)


def _title(title: str) -> str:
    """A plate's title in the reader's language: ``Colour set 2/3`` keeps its number."""
    base, _sep, number = title.rpartition(" ")
    if base and re.fullmatch(r"\d+/\d+", number):
        return f"{_(base)} {number}"
    return _(title)


def maker_readme(kit: Kit, summary: dict[str, Any]) -> str:
    """The page for the person at the printer: what to print, how often, in which colour, and how
    the parts go together; in the language ``tabletris --lang`` chose (``kit.json`` stays English)."""
    opts, dims = kit.options, kit.dims
    lines = [
        "# " + _("tabletris dice game: print kit ({size}, {cell} mm squares)").format(size=opts.size_label, cell=format_number(dims.cell)),
        "",
        ngettext(
            "A board of {width} x {rows} squares in {parts} parts, {players} colour set of pieces with a die, "
            "and a box with a lid. Printer: {printer}.",
            "A board of {width} x {rows} squares in {parts} parts, {players} colour sets of pieces with a die each, "
            "and a box with a lid. Printer: {printer}.",
            opts.players,
        ).format(width=opts.width, rows=opts.rows, parts=len(kit.sections), players=opts.players, printer=opts.printer.label),
        "",
        "![" + _("The assembled game") + "](previews/assembled.png)" if summary["previews"] else "",
        "",
        "## " + _("What to print"),
        "",
        "| " + " | ".join([_("plate"), _("file"), _("print"), _("colour"), _("holds")]) + " |",
        "| --- | --- | --- | --- | --- |",
    ]
    for doc in summary["plates"]:
        holds = ", ".join(f"{n} x {k}" for k, n in doc["parts"].items())
        times = _("once") if doc["copies"] == 1 else ngettext("{count} time", "{count} times", doc["copies"]).format(count=doc["copies"])
        lines.append(f"| {_title(doc['title'])} | `{doc['file']}` | {times} | {_(doc['colour'])} | {holds} |")
    colours = ", ".join(_(name) for name, _hex in SET_COLOURS[: opts.players])
    lines += [
        "",
        ngettext(
            "Print the colour set once in each of {count} colour (for example {colours}). "
            "No multi-material unit is needed: every plate is one colour.",
            "Print the colour set once in each of {count} colours (for example {colours}). "
            "No multi-material unit is needed: every plate is one colour.",
            opts.players,
        ).format(count=opts.players, colours=colours),
        "",
    ]
    if "filament_g" in summary["totals"]:
        lines += [_("PrusaSlicer's estimates (PLA, 0.4 mm nozzle, 0.2 mm layers, 15% infill):"), ""]
        lines += ["| " + " | ".join([_("plate"), _("filament"), _("time, each copy")]) + " |", "| --- | --- | --- |"]
        for doc in summary["plates"]:
            s = doc["slicer"]
            lines.append(f"| {_title(doc['title'])} | {s['filament_g']:.0f} g ({s['filament_mm'] / 1000:.1f} m) | {s['time']} |")
        t = summary["totals"]
        lines += [
            "",
            _("The whole kit: {grams} g of filament, {time} of printing.").format(
                grams=f"{t['filament_g']:.0f}", time=_duration(t["print_time_s"])
            ),
            "",
        ]
    lines += [
        _("Single parts are in `stl/` (one file per distinct part, flat side down) if you arrange your own plates."),
        "",
        "## " + _("Settings"),
        "",
        "- " + _("0.2 mm layers, 2 perimeters, 15% infill, no supports: every part prints flat side down."),
        "- " + _("Pieces print upside down (their feet point up); the die prints on any face."),
        "- " + _(
            "The fit has {clearance} mm of clearance per side. If pieces stick, rebuild with "
            "`--clearance 0.35`; if they rattle, with `--clearance 0.15`."
        ).format(clearance=format_number(dims.clearance)),
        "",
        "## " + _("Assembly"),
        "",
        "1. " + _(
            "Lay the board parts in a row: {parts} (the bottom part has the closed end without tabs at its front)."
        ).format(parts=" - ".join(_(s.title).lower() for s in kit.sections)),
        "2. " + _(
            "Each part but the top has two dovetail tabs at its upper edge, at table level. Lower "
            "the next part onto them, so they sit in the slots under its lower edge; the frame and the "
            "grid line up when the joint is home."
        ),
        "3. " + _(
            "Each player takes the die of their colour. All pieces go in the box, which is the tray "
            "during the game; a piece may be of any colour when it is played."
        ),
        "4. " + _(
            "After the game the board parts stack flat in the box (inside {width} x {depth} x {height} mm) "
            "under the pieces, and the lid closes it."
        ).format(width=f"{kit.box_inner[0]:.0f}", depth=f"{kit.box_inner[1]:.0f}", height=f"{kit.box_inner[2]:.0f}"),
        "",
        "## " + _("The game"),
        "",
        (
            _("The digital table plays the same rules: `tabletris play dice` or `tabletris serve`.")
            if opts.rows == 20
            else _(
                "The digital table plays the same rules: `tabletris play dice` with `--rules height={rows}` "
                "or `tabletris serve`."
            ).format(rows=opts.rows)
        ),
        _(
            "Die faces: {faces} (`*`: name any shape). A J or Z is an L or S turned over. "
            "The supply is {supply} pieces of each shape per player."
        ).format(faces=" ".join(opts.die_faces), supply=opts.supply),
        "",
    ]
    return "\n".join(lines)
