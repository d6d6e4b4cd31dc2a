"""The print kit: solids, fit, counts from the engine, plates, the slicer's word and the command.

Game numbers (rows, supply, shapes, the long preset) are read from ``DiceRules`` here too, so a
test fails if the kit stops following the engine.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest
import trimesh
from hypothesis import given, settings
from hypothesis import strategies as st
from manifold3d import JoinType, Manifold
from typer.testing import CliRunner

from tabletris.cli.app import app
from tabletris.engine.dice import DiceRules
from tabletris.engine.shapes import Shape
from tabletris.kit import SIZES, Kit, KitError, kit_options, make_kit
from tabletris.kit.parts import (
    STANDARD_CENTRE_ROWS,
    BoardSection,
    Dimensions,
    _cells_section,
    board_part,
    board_sections,
    mesh_arrays,
    piece_cells,
    piece_solid,
)
from tabletris.kit.plates import BED_MARGIN
from tabletris.kit.slicer import arranges_on_bed, parse_gcode, parse_time, slice_plate

STANDARD = DiceRules()
LONG = DiceRules.preset_named("long")


@pytest.fixture(scope="module")
def mini() -> Kit:
    return make_kit(kit_options(size="mini", players=2, printer="a1-mini"))


@pytest.fixture(scope="module")
def medium() -> Kit:
    return make_kit(kit_options(size="medium", players=4, printer="a1-mini"))


def _assembled_board(kit: Kit) -> Manifold:
    """The board parts joined as on the table (each part moved back to its rows)."""
    solids = []
    for section in kit.sections:
        part = kit.part(section.key)
        ox, oy, oz = part.meta["origin_mm"]
        solids.append(part.solid.translate((ox, oy + section.first_row * kit.dims.cell, oz)))
    board = solids[0]
    for solid in solids[1:]:
        board = board + solid
    return board


def _play_area(kit: Kit) -> tuple[float, float]:
    """The frame's inner opening, measured on the mesh: the hole in a cut between ribs and frame top."""
    z = kit.dims.base + kit.dims.pocket + kit.dims.frame_rise / 2
    contours = [np.asarray(c) for c in _assembled_board(kit).slice(z).to_polygons()]
    assert len(contours) == 2, f"expected the frame's outer and inner edge, got {len(contours)} contours"
    inner = min(contours, key=lambda c: float(np.ptp(c[:, 0])))
    return float(np.ptp(inner[:, 0])), float(np.ptp(inner[:, 1]))


# ---------------------------------------------------------------------------- solids


@pytest.mark.parametrize("kit_name", ["mini", "medium"])
def test_every_part_is_a_closed_solid_with_volume(kit_name: str, request: pytest.FixtureRequest) -> None:
    kit: Kit = request.getfixturevalue(kit_name)
    assert {p.key for p in kit.parts} >= {"board-bottom", "board-centre", "board-top", "die", "box", "lid"}
    for part in kit.parts:
        verts, faces = mesh_arrays(part.solid)
        mesh = trimesh.Trimesh(verts, faces, process=False)
        assert mesh.is_watertight, part.key
        assert mesh.is_winding_consistent, part.key
        assert mesh.volume > 0, part.key
        assert mesh.volume == pytest.approx(part.solid.volume(), rel=1e-6)


@pytest.mark.parametrize("size", list(SIZES))
def test_board_play_area_is_ten_by_rows_cells_at_the_pitch(size: str) -> None:
    kit = make_kit(kit_options(size=size, printer="prusa-xl"))
    width, depth = _play_area(kit)
    assert width == pytest.approx(STANDARD.width * SIZES[size], abs=0.1)
    assert depth == pytest.approx(STANDARD.height * SIZES[size], abs=0.1)


def test_the_long_board_has_the_engines_rows_in_more_centre_parts() -> None:
    kit = make_kit(kit_options(size="mini", preset="long", printer="a1-mini"))
    assert kit.options.rows == LONG.height
    assert sum(s.rows for s in kit.sections) == LONG.height
    standard_centres = sum(1 for s in board_sections(STANDARD.height) if s.key == "board-centre")
    assert standard_centres == 1 and len(board_sections(STANDARD.height)) == 3
    assert kit.part("board-centre").count > standard_centres
    assert _play_area(kit)[1] == pytest.approx(LONG.height * SIZES["mini"], abs=0.1)


@given(rows=st.integers(min_value=4, max_value=100))
def test_any_height_the_engine_plays_is_split_into_parts_that_add_up(rows: int) -> None:
    DiceRules(height=rows)  # a height the engine plays
    sections = board_sections(rows)
    assert sum(s.rows for s in sections) == rows
    assert sections[0].frame_below and sections[-1].frame_above
    assert [s.first_row for s in sections] == [sum(t.rows for t in sections[:i]) for i in range(len(sections))]
    assert all(s.rows == STANDARD_CENTRE_ROWS for s in sections[1:-1])
    assert min(s.rows for s in sections) >= 2


@settings(max_examples=20, deadline=None)
@given(
    cell=st.floats(min_value=6.0, max_value=40.0),
    clearance=st.floats(min_value=0.05, max_value=1.0),
    shape=st.sampled_from(STANDARD.shapes),
)
def test_at_any_size_a_piece_sits_in_its_squares_and_moves_at_most_the_clearance(
    cell: float, clearance: float, shape: Shape
) -> None:
    opts = kit_options(cell=cell, clearance=clearance, printer="prusa-xl")
    dims = Dimensions(cell, clearance)
    board = board_part(opts, dims, BoardSection("board-bottom", "Board bottom", 0, 4, True, True))
    cells = piece_cells(shape)
    seated = piece_solid(cells, dims, upright=True).translate((0.0, 0.0, dims.base + 0.4))
    assert (board ^ seated).volume() == pytest.approx(0, abs=1e-6)
    for dx, dy in ((1, 0), (0, 1)):
        moved = seated.translate((dx * (clearance + 0.05), dy * (clearance + 0.05), 0.0))
        assert (board ^ moved).volume() > 0


def test_a_height_the_engine_refuses_is_refused_with_its_message() -> None:
    with pytest.raises(KitError, match=r"rules.height: 200 is out of range"):
        kit_options(height=200)


# ---------------------------------------------------------------------------- fit


@pytest.mark.parametrize("shape", list(STANDARD.shapes))
def test_piece_outline_is_its_squares_shrunk_by_the_clearance(shape: Shape, medium: Kit) -> None:
    dims, cells = medium.dims, piece_cells(shape)
    expected = _cells_section(cells, dims.cell).offset(-dims.clearance, JoinType.Miter)
    outline = piece_solid(cells, dims, upright=True).project()
    assert (outline - expected).area() == pytest.approx(0, abs=1e-3)
    assert (expected - outline).area() == pytest.approx(0, abs=1e-3)
    assert medium.part(f"piece-{shape.value}").volume_cm3 > 0


def test_a_piece_drops_into_its_squares_but_cannot_move_more_than_the_clearance(medium: Kit) -> None:
    dims = medium.dims
    board = _assembled_board(medium)
    cells = tuple((x + 3, y + 4) for x, y in piece_cells(Shape.T))  # inside, away from the frame
    seated = piece_solid(cells, dims, upright=True).translate((0.0, 0.0, dims.base + 0.4))
    assert (board ^ seated).volume() == pytest.approx(0, abs=1e-6)
    for dx, dy in ((1, 0), (-1, 0), (0, 1), (0, -1)):
        shift = dims.clearance + 0.05
        moved = seated.translate((dx * shift, dy * shift, 0.0))
        assert (board ^ moved).volume() > 0, (dx, dy)
    # A piece at the frame has the clearance to the frame too.
    edge = tuple((x, y) for x, y in piece_cells(Shape.I))
    at_edge = piece_solid(edge, dims, upright=True).translate((0.0, 0.0, dims.base + 0.4))
    assert (board ^ at_edge).volume() == pytest.approx(0, abs=1e-6)


# ---------------------------------------------------------------------------- counts


def test_pieces_per_colour_are_the_engines_supply_of_each_die_shape(medium: Kit) -> None:
    assert [p.meta["shape"] for p in medium.pieces] == [s.value for s in STANDARD.shapes]
    for piece in medium.pieces:
        assert piece.count == STANDARD.supply and piece.per_colour
        assert medium.total(piece) == STANDARD.supply * 4
    sets = [plate for plate in medium.plates if plate.key.startswith("colour-set")]
    assert all(plate.copies == 4 for plate in sets)
    on_plates: dict[str, int] = {}
    for plate in sets:
        for key, n in plate.part_counts.items():
            on_plates[key] = on_plates.get(key, 0) + n
    assert on_plates == {**{f"piece-{s.value}": STANDARD.supply for s in STANDARD.shapes}, "die": 1}


def test_supply_option_changes_the_pieces_per_colour() -> None:
    kit = make_kit(kit_options(size="mini", supply=3, players=2, printer="a1-mini"))
    assert {p.count for p in kit.pieces} == {3}


def test_die_shows_every_face_sunk_into_its_six_sides(mini: Kit) -> None:
    die = mini.part("die").solid
    side = mini.dims.die
    assert mini.part("die").meta["faces"] == list(STANDARD.die)
    centred = die.translate((-side / 2, -side / 2, -side / 2))
    for rotation in ((0, 0, 0), (90, 0, 0), (-90, 0, 0), (0, 90, 0), (0, -90, 0), (180, 0, 0)):
        turned = centred.rotate(rotation)
        near_face = turned.slice(side / 2 - 0.3).area()
        inside = turned.slice(side / 2 - 2.0).area()
        assert near_face < inside - 5.0, rotation  # the glyph is cut out of this face


def test_box_inside_is_computed_from_what_it_holds(medium: Kit) -> None:
    ix, iy, iz = medium.box_inner
    boards = [p for p in medium.parts if p.kind == "board"]
    assert all(p.size[0] <= ix and p.size[1] <= iy for p in boards)
    stack = sum(p.size[2] for p in boards)
    assert iz >= stack + medium.piece_layers * medium.part("piece-I").size[2]
    contents = sum(medium.total(p) * p.volume_cm3 for p in medium.parts if p.kind in ("board", "piece", "die"))
    assert ix * iy * iz / 1000 > contents
    box = medium.part("box")
    assert box.size[0] > ix and box.size[1] > iy and box.size[2] > iz


# ---------------------------------------------------------------------------- plates


@pytest.mark.parametrize("kit_name", ["mini", "medium"])
def test_mini_and_medium_plates_fit_a_180_bed(kit_name: str, request: pytest.FixtureRequest) -> None:
    kit: Kit = request.getfixturevalue(kit_name)
    for plate in kit.plates:
        for item in plate.placed:
            box = item.solid.bounding_box()
            assert box[0] >= BED_MARGIN - 1e-6 and box[1] >= BED_MARGIN - 1e-6
            assert box[3] <= 180 - BED_MARGIN + 1e-6 and box[4] <= 180 - BED_MARGIN + 1e-6
            assert box[2] == pytest.approx(0, abs=1e-6)
        for i, a in enumerate(plate.placed):  # no two parts overlap
            for b in plate.placed[i + 1 :]:
                assert (a.solid ^ b.solid).volume() == pytest.approx(0, abs=1e-6)
    placed = sum(len(p.placed) for p in kit.plates if p.copies == 1)
    assert placed == sum(p.count for p in kit.parts if not p.per_colour)


def test_big_does_not_fit_a_180_bed_and_says_which_part_and_by_how_much() -> None:
    with pytest.raises(KitError) as caught:
        make_kit(kit_options(size="big", printer="a1-mini"))
    message = str(caught.value)
    assert "Board centre (214.0 x 212.0 mm) is 40.0 mm too long" in message
    assert "A1 Mini" in message and "\n" not in message
    assert "--printer bambu-x1" in message  # the first bed in the table that holds every part
    make_kit(kit_options(size="big", printer="bambu-x1"))  # and a 256 mm bed holds it


# ---------------------------------------------------------------------------- slicer


def test_parse_gcode_reads_estimates_and_extrusion_extent() -> None:
    gcode = "\n".join(
        [
            "G1 X5 Y5",
            "G1 X10 Y7 E0.5",
            "G1 X170 Y12 E0.7 ; perimeter",
            "G1 X200 Y200",  # a travel move: not material
            "G1 E-0.8",
            "; filament used [mm] = 1234.5",
            "; filament used [cm3] = 2.97",
            "; filament used [g] = 3.68",
            "; estimated printing time (normal mode) = 1d 2h 3m 4s",
        ]
    )
    estimate = parse_gcode(gcode)
    assert estimate.extent_mm == (10.0, 7.0, 170.0, 12.0)
    assert estimate.filament_g == 3.68 and estimate.filament_mm == 1234.5
    assert estimate.time_s == 86400 + 2 * 3600 + 3 * 60 + 4
    assert parse_time("12m 5s") == 725


def test_prusaslicer_slices_a_colour_set_plate_on_the_small_bed(mini: Kit, tmp_path: Path) -> None:
    from tabletris.kit.build import write_kit

    summary = write_kit(mini, tmp_path, slice_plates=False, previews=False)
    plate = next(p for p in mini.plates if p.key.startswith("colour-set"))
    estimate = slice_plate(tmp_path / "plates" / f"{plate.key}.3mf", mini.options.printer)
    assert estimate.filament_g > 0 and estimate.time_s > 0
    x0, y0, x1, y1 = estimate.extent_mm
    assert 0 <= x0 < x1 <= 180 and 0 <= y0 < y1 <= 180
    loaded = trimesh.load(tmp_path / "plates" / f"{plate.key}.3mf")
    assert len(loaded.geometry) == len(plate.placed)
    assert summary["totals"]["plates"] == len(mini.plates)


def test_prusaslicer_itself_finds_no_room_for_a_big_board_part_on_a_180_bed(tmp_path: Path) -> None:
    kit = make_kit(kit_options(size="big", printer="bambu-x1"))
    path = tmp_path / "board-centre.stl"
    verts, faces = mesh_arrays(kit.part("board-centre").solid)
    trimesh.Trimesh(verts, faces).export(path)
    small = kit_options(printer="a1-mini").printer
    fits, said = arranges_on_bed(path, small)
    assert not fits and "could not fit" in said
    path = tmp_path / "die.stl"  # and the same call does find room for a part that fits
    verts, faces = mesh_arrays(kit.part("die").solid)
    trimesh.Trimesh(verts, faces).export(path)
    assert arranges_on_bed(path, small) == (True, "sliced")


# ---------------------------------------------------------------------------- command


def _one_line(output: str) -> str:
    return " ".join(re.sub(r"[│╭╮╰╯─]", " ", output).split())


@pytest.mark.parametrize(
    ("args", "option", "words"),
    [
        (["--players", "0"], "--players", "0 colour sets: the dice game takes 1 to 8 players"),
        (["--clearance", "-0.1"], "--clearance", "clearance: -0.1 mm is out of range"),
        (["--printer", "ender-9"], "--printer", "unknown printer 'ender-9'"),
        (["--size", "huge"], "--size", "unknown size 'huge'"),
        (["--preset", "longer"], "--preset", 'unknown preset "longer"'),
        (["--height", "200"], "--height", "rules.height: 200 is out of range (4-100)"),
        (["--supply", "0"], "--supply", "needs at least 1 piece of each shape"),
        (["--cell", "3"], "--cell", "cell: 3 mm is out of range"),
        (["--size", "big", "--printer", "a1-mini"], "--printer", "Board centre (214.0 x 212.0 mm) is 40.0 mm too long"),
    ],
)
def test_bad_options_get_one_clear_message_and_exit_2(args: list[str], option: str, words: str, tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["kit", *args, "--out", str(tmp_path / "kit"), "--no-slice", "--no-previews"])
    assert result.exit_code == 2, result.output
    text = _one_line(result.output)
    assert f"Invalid value for {option}" in text and words in text
    assert "Traceback" not in result.output
    assert not (tmp_path / "kit").exists()


def test_kit_command_writes_files_without_slicing(tmp_path: Path) -> None:
    result = CliRunner().invoke(
        app, ["kit", "--size", "mini", "--players", "2", "--printer", "a1-mini", "--out", str(tmp_path), "--no-slice", "--no-previews"]
    )
    assert result.exit_code == 0, result.output
    assert "57 parts (11 distinct)" in result.output
    doc = json.loads((tmp_path / "kit.json").read_text())
    assert doc["board"]["rows"] == STANDARD.height
    assert doc["kit"]["supply_per_shape_per_colour"] == STANDARD.supply
    assert {p["key"]: p["total"] for p in doc["parts"]}["piece-L"] == 2 * STANDARD.supply
    for part in doc["parts"]:
        assert trimesh.load(tmp_path / part["stl"]).is_watertight
    assert "What to print" in (tmp_path / "README.md").read_text()

