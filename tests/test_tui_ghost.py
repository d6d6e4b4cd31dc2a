"""The ghost piece without Textual: steering, turning and "why not here?" answered by the engine."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from tabletris.engine.dice import DiceGame
from tabletris.engine.errors import format_cells
from tabletris.engine.shapes import Orientation, Shape
from tabletris.engine.tower import TowerAction, TowerGame
from tabletris.table.positions import cells_text, for_people
from tabletris.tui.ghost import DiceGhost, TowerGhost

FORMS = [o for shape in Shape for o in shape.orientations("free")]


@given(st.sampled_from(FORMS), st.integers(-9, 9))
def test_rotated_is_a_quarter_turn_group_and_flipped_an_involution(form: Orientation, turns: int) -> None:
    assert form.rotated(turns).rotated(-turns) is form
    assert form.rotated(4) is form
    assert form.rotated(turns).shape is form.shape
    assert form.flipped().flipped() is form
    assert set(form.flipped().cells) == {(form.width - 1 - x, y) for x, y in form.cells}


def test_rotated_turns_clockwise() -> None:
    flat = Shape.I.orientations("rotate")[0]
    assert (flat.width, flat.height) == (4, 1)
    assert (flat.rotated(1).width, flat.rotated(1).height) == (1, 4)
    down = next(o for o in Shape.T.orientations("rotate") if set(o.cells) == {(0, 1), (1, 0), (1, 1), (2, 1)})
    assert set(down.rotated(1).cells) == {(1, 0), (1, 1), (1, 2), (0, 1)}  # the stem turned from down to left


def started(rules: dict[str, object] | None = None, seed: int = 7) -> DiceGhost:
    game = DiceGame(["Ann", "Bob"], rules or {}, seed=seed)
    game.roll()
    ghost = DiceGhost(game)
    ghost.start()
    return ghost


def test_dice_ghost_starts_legal_and_the_reason_is_the_engines() -> None:
    ghost = started()
    assert ghost.reason() is None and ghost.placement in ghost.legal()
    ghost.move(0, 5)  # up in the air: does not rest
    engine_words = ghost.game.placement_error(ghost.shape, ghost.cells, ghost.take)  # type: ignore[arg-type]
    assert engine_words is not None and format_cells(ghost.cells) in engine_words  # the engine quotes record cells
    assert ghost.reason() == engine_words.replace(format_cells(ghost.cells), cells_text(ghost.cells))  # shown from 1
    assert ghost.reason() is not None and "does not rest" in ghost.reason()  # type: ignore[operator]
    assert ghost.drop() is None and ghost.reason() is None  # space lets it fall back to a legal spot


def test_dice_ghost_stays_on_the_board_and_turns_in_place() -> None:
    ghost = started()
    for _ in range(30):
        ghost.move(-1, 0)
        ghost.move(0, -1)
    assert (ghost.gx, ghost.gy) == (0, 0)
    before = ghost.orient
    assert ghost.rotate(1) is None and ghost.rotate(-1) is None
    assert ghost.orient is before
    for _ in range(30):
        ghost.move(1, 1)
    assert ghost.orient is not None
    assert ghost.gx + ghost.orient.width <= ghost.game.board.width and ghost.gy + ghost.orient.height <= ghost.game.board.height


def test_flip_refused_under_rotate_rules_and_cycle_walks_every_legal_spot() -> None:
    ghost = started({"orientation": "rotate"})
    ghost.choose_shape(Shape.S)  # a chiral shape: its mirror image is a Z, not an S turned
    assert ghost.orient is not None
    mirrored = ghost.orient.flipped().at(ghost.gx, ghost.gy)
    assert ghost.flip() == for_people(ghost.game.placement_error(Shape.S, mirrored, ghost.take), mirrored)
    assert "mirrored (orientation rotate)" in ghost.flip()  # type: ignore[operator]
    ghost.start()
    seen = set()
    for _ in range(len(ghost.legal())):
        assert ghost.cycle_legal(1) is None and ghost.reason() is None
        seen.add((ghost.orient, ghost.gx, ghost.gy))
    assert len(seen) == len(ghost.legal())


def test_dice_ghost_action_is_what_the_engine_plays() -> None:
    ghost = started()
    move = ghost.game.act(ghost.action())
    assert move.place is not None and set(map(tuple, move.place)) == set(ghost.cells)


def test_click_on_the_legal_ghost_places_elsewhere_moves() -> None:
    ghost = started()
    assert ghost.click(ghost.cells[0]) == "place"
    far = (ghost.game.board.width - 1, 0)
    if far not in ghost.cells:
        assert ghost.click(far) == "move" and far in ghost.cells and ghost.reason() is None


def test_tower_ghost_minos_and_drop_reason_from_the_engine() -> None:
    game = TowerGame(["Ann", "Bob"], seed=3)
    ghost = TowerGhost(game, 0)
    ghost.reset()
    cells, reason = ghost.cells_and_reason()
    assert reason is None and cells
    game.towers[0].minos = 1
    assert ghost.toggle_mino() is None and ghost.mino_mode
    ghost.move(-9)
    assert ghost.gx == 0 and ghost.drop() is None and ghost.minos == [0] and not ghost.mino_mode
    assert ghost.toggle_mino() == "Ann has 1 mino, not 2"  # the engine's words
    assert ghost.planned_tower().board.stone_at((0, 0)) is not None
    assert ghost.unmino() == 0 and ghost.unmino() is None
    ghost.reset()
    action = ghost.drop()
    assert isinstance(action, TowerAction) and action.place is not None
    game.submit(0, action)


def test_tower_ghost_above_the_skyline_is_refused_in_the_engines_words() -> None:
    from tabletris.engine.errors import IllegalMove

    game = TowerGame(["Ann"], seed=1)
    tower = game.towers[0]
    for _ in range(tower.board.height):  # column 0 filled to the skyline with minos
        try:
            tower.board.push(tower.mino_placement(0))
        except IllegalMove:
            break
    ghost = TowerGhost(game, 0)
    ghost.reset()
    assert ghost.orient is not None
    reasons = []
    for column in range(game.rules.width - ghost.orient.width + 1):
        ghost.gx = column
        _, reason = ghost.cells_and_reason()
        assert reason == game.drop_error(0, ghost.orient, column)
        reasons.append(reason)
    assert reasons[0] is not None and "skyline" in reasons[0] and None in reasons
