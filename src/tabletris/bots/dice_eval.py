"""Measuring dice-game options for bots: immediate points, board shape, and the next roll's outlook.

The greedy and expert bots share these measures so there is one piece of code per idea:
``immediate`` says what an option scores now and how clean the board it leaves is; ``outlook``
is the chance model of the next player's turn (each die face, ``*`` as the best shape, the supply
and the stone that must be taken when it is empty), answering "how many rows does the next player
complete with this roll, or is the game over because they cannot place?".
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from tabletris.bots.heuristics import (
    DEFAULT_WEIGHTS,
    Weights,
    features_of,
    max_rows_of,
    weights_tuple,
)
from tabletris.engine.board import (
    ACCESS_CODE,
    NATIVE_MAX_WIDTH,
    Board,
    complete_rows_of,
    native_module,
    shape_spec,
)
from tabletris.engine.dice import DiceAction, DiceGame
from tabletris.engine.shapes import OrientationMode, Shape


def rescores(game: DiceGame) -> bool:
    """Whether a row completed again scores again (``rescore_reopened`` or ``clear_rows``)."""
    return game.rules.rescore_reopened or bool(game.rules.clear_rows)


@dataclass(frozen=True, slots=True)
class Immediate:
    """What an option does at once: rows it scores, and the board-shape cost it leaves."""

    points: int
    cost: float


def _cleared(occupied: int, rows_mask: int, width: int, height: int) -> int:
    """``occupied`` with the rows in ``rows_mask`` removed and everything above moved down."""
    stride = width + 1
    row_bits = (1 << stride) - 1
    out = 0
    dst = 0
    for y in range(height):
        if rows_mask >> y & 1:
            continue
        out |= ((occupied >> (y * stride)) & row_bits) << (dst * stride)
        dst += 1
    return out


def immediate(game: DiceGame, option: DiceAction, weights: Weights = DEFAULT_WEIGHTS) -> Immediate:
    """Points and board cost of ``option`` for the player to move.

    Measured on the bitboard alone (the take's cells off, the placement's on): a legal option
    never overlaps, so this is the board ``play`` would make, with no stones pushed and popped.
    Under ``clear_rows: stones`` the stones in the completed rows are found on the real board,
    with the piece pushed and popped.
    """
    if game.rules.clear_rows == "stones":
        return _immediate_pushed(game, option, weights)
    board = game.board
    width, height = board.width, board.height
    occupied = board.occupied
    take = option.take
    if take is not None:
        occupied &= ~board.geometry.mask(take.cells)
    before = complete_rows_of(occupied, width, height)
    occupied |= board.placement_mask(option.placement)
    after = complete_rows_of(occupied, width, height)
    new = after & ~before
    scoring = new if rescores(game) else new & ~game.scored_rows
    if game.rules.clear_rows == "cells" and new:
        occupied = _cleared(occupied, new, width, height)
    cost = weights.cost(features_of(occupied, width, height))
    return Immediate(scoring.bit_count(), cost)


def immediate_all(
    game: DiceGame, options: list[DiceAction], weights: Weights = DEFAULT_WEIGHTS
) -> list[Immediate]:
    """``immediate`` of every option, in order: one call into the compiled core for the options
    that take no stone (all but the last turns of a game), ``immediate`` itself for the others,
    for ``clear_rows: stones`` and on the pure engine. The results are ``immediate``'s exactly
    (tests/test_native_eval.py): the core sums the weighted features in ``Weights.cost``'s order."""
    nat = native_module()
    board = game.board
    if nat is None or board.width > NATIVE_MAX_WIDTH or game.rules.clear_rows == "stones":
        return [immediate(game, o, weights) for o in options]
    plain = [i for i, o in enumerate(options) if o.take is None]
    masks = [board.placement_mask(options[i].placement) for i in plain]
    scored = 0 if rescores(game) else game.scored_rows
    measured = nat.immediate(
        board.occupied, board.width, board.height, masks, scored, game.rules.clear_rows == "cells",
        weights_tuple(weights),
    )
    result: list[Immediate | None] = [None] * len(options)
    for i, (points, cost) in zip(plain, measured, strict=True):
        result[i] = Immediate(points, cost)
    return [m if m is not None else immediate(game, options[i], weights) for i, m in enumerate(result)]


def _immediate_pushed(game: DiceGame, option: DiceAction, weights: Weights) -> Immediate:
    """``immediate`` by push/pop on the real board (whole stones leave under ``clear_rows: stones``)."""
    board = game.board
    take = option.take
    if take is not None:
        board.remove(take)
    try:
        before = board.complete_rows_mask()
        board.push(option.placement, game.to_move)
        try:
            after = board.complete_rows_mask()
            occupied = board.occupied
            new = after & ~before
            if new and game.rules.clear_rows == "stones":  # whole stones leave, nothing falls
                occupied &= ~_stones_in_rows(board, new)
        finally:
            board.pop()
    finally:
        if take is not None:
            board.add(take)
    new = after & ~before
    scoring = new if rescores(game) else new & ~game.scored_rows
    if game.rules.clear_rows == "cells" and new:
        occupied = _cleared(occupied, new, board.width, board.height)
    cost = weights.cost(features_of(occupied, board.width, board.height))
    return Immediate(scoring.bit_count(), cost)


def _stones_in_rows(board: Board, rows_mask: int) -> int:
    """The cells of every stone with a cell in the rows of ``rows_mask`` (``clear_rows: stones``)."""
    cells = 0
    seen: set[int] = set()
    for y in range(board.height):
        if rows_mask >> y & 1:
            for x in range(board.width):
                stone = board.stone_at((x, y))
                if stone is not None and stone.number not in seen:
                    seen.add(stone.number)
                    cells |= board.geometry.mask(stone.cells)
    return cells


@dataclass(frozen=True)
class Outlook:
    """The next player's roll, face by face: ``(probability, rows they can score or -1 if stuck)``."""

    faces: tuple[tuple[float, int], ...]

    @property
    def stuck_probability(self) -> float:
        return sum(p for p, r in self.faces if r < 0)

    @property
    def expected_rows(self) -> float:
        return sum(p * r for p, r in self.faces if r > 0)


def shape_outlook(game: DiceGame, shape: Shape, rows_mask: int) -> int:
    """The most rows the player to move can score with ``shape``, -1 if it cannot be placed.

    It honours the supply: with none of ``shape`` left, each stone the rules allow to be taken
    is lifted off in turn (which may open a placement, or reopen a row that will not score again).
    """
    board = game.board
    width, height = board.width, board.height
    rules = game.rules
    mode = rules.orientation_mode
    access = rules.access_mode
    best = -1
    for take in game.take_options(shape):
        occupied = board.occupied
        if take is not None:
            occupied &= ~board.geometry.mask(take.cells)
        rows = rows_mask & ~complete_rows_of(occupied, width, height)
        best = max(best, max_rows_of(occupied, width, height, shape, mode, access, rows))
    return best


def outlook(game: DiceGame) -> Outlook:
    """The chance model of the pending player's roll: every face of the die, equally likely."""
    board = game.board
    all_rows = (1 << board.height) - 1
    rows_mask = all_rows if rescores(game) else all_rows & ~game.scored_rows
    per_shape = _shape_outlooks(game, rows_mask)
    rules = game.rules
    faces = rules.die
    p = 1.0 / len(faces)
    result = []
    face_shapes = rules.face_shapes
    for face in faces:
        best = -1
        for shape in face_shapes[face]:
            best = max(best, per_shape[shape])
        result.append((p, best))
    return Outlook(tuple(result))


def _shape_outlooks(game: DiceGame, rows_mask: int) -> dict[Shape, int]:
    """``shape_outlook`` of every shape on the die: the shapes the supply has in one call into
    the compiled core (no stone to lift, so one board for all), the others one by one."""
    rules = game.rules
    nat = native_module()
    board = game.board
    if nat is None or board.width > NATIVE_MAX_WIDTH:
        return {shape: shape_outlook(game, shape, rows_mask) for shape in rules.shapes}
    free = tuple(s for s in rules.shapes if game.take_options(s) == [None])
    result: dict[Shape, int] = {}
    if free:
        values = nat.outlook_rows(
            board.occupied, board.width, board.height, ACCESS_CODE[rules.access_mode],
            _specs(free, rules.orientation_mode), rows_mask, 4,
        )
        result = dict(zip(free, values, strict=True))
    for shape in rules.shapes:
        if shape not in result:
            result[shape] = shape_outlook(game, shape, rows_mask)
    return result


@cache
def _specs(shapes: tuple[Shape, ...], mode: OrientationMode) -> tuple[bytes, ...]:
    return tuple(shape_spec(s, mode) for s in shapes)

