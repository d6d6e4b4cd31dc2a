"""Measuring dice-game options for bots: immediate points, board shape, and the next roll's outlook.

The greedy and expert bots share these measures so there is one piece of code per idea:
``immediate`` says what an option scores now and how clean the board it leaves is; ``outlook``
is the chance model of the next player's turn (each die face, ``*`` as the best shape, the supply
and the stone that must be taken when it is empty), answering "how many rows does the next player
complete with this roll, or is the game over because they cannot place?".
"""

from __future__ import annotations

from dataclasses import dataclass

from tabletris.bots.heuristics import (
    DEFAULT_WEIGHTS,
    Weights,
    features_of,
    gap_rows,
    max_rows_completed,
)
from tabletris.engine.board import Board
from tabletris.engine.dice import CHOICE, DiceAction, DiceGame
from tabletris.engine.shapes import Shape


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
    """Points and board cost of ``option`` for the player to move, by push/pop on the real board."""
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
    rules = game.rules
    mode = rules.orientation_mode
    access = rules.access_mode
    best = -1
    for take in game.take_options(shape):
        if take is not None:
            board.remove(take)
        try:
            rows = gap_rows(board, rows_mask & ~board.complete_rows_mask())
            best = max(best, max_rows_completed(board, shape, mode, access, rows))
        finally:
            if take is not None:
                board.add(take)
    return best


def outlook(game: DiceGame) -> Outlook:
    """The chance model of the pending player's roll: every face of the die, equally likely."""
    board = game.board
    all_rows = (1 << board.height) - 1
    rows_mask = all_rows if rescores(game) else all_rows & ~game.scored_rows
    per_shape: dict[Shape, int] = {}
    faces = game.rules.die
    p = 1.0 / len(faces)
    result = []
    for face in faces:
        shapes = game.rules.shapes if face == CHOICE else (Shape(face),)
        best = -1
        for shape in shapes:
            if shape not in per_shape:
                per_shape[shape] = shape_outlook(game, shape, rows_mask)
            best = max(best, per_shape[shape])
        result.append((p, best))
    return Outlook(tuple(result))

