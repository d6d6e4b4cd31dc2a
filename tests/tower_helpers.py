"""Helpers for the tower-game tests: decks with a chosen start, empty layouts, drawn positions.

Positions are drawn as pictures (``tests/helpers.py``'s ``board_from_rows``: top row first, ``#`` a
filler cell, letters tetrominoes) and put into a tower before the round that matters, the way a
table would set up a puzzle. Filler cells are single-cell stones of shape M with no owner: they
fill rows but never count for bonus icons, wall touches or tetromino achievements.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from helpers import board_from_rows
from tabletris.engine.shapes import TETROMINOES, Shape, shape_of
from tabletris.engine.tower import TowerAction, TowerGame

EMPTY_LAYOUT: dict[str, Any] = {"bonus": [], "diamonds": []}


def deck_starting(prefix: str) -> list[str]:
    """A legal 27-card deck (at most 4 per shape) whose first cards are ``prefix``."""
    cards = list(prefix)
    counts = {s.value: cards.count(s.value) for s in TETROMINOES}
    assert all(k <= 4 for k in counts.values()), prefix
    for shape in TETROMINOES * 4:
        if len(cards) == 27:
            break
        if counts[shape.value] < 4:
            cards.append(shape.value)
            counts[shape.value] += 1
    return cards


def game_with(
    prefix: str,
    players: int = 1,
    rules: dict[str, Any] | None = None,
    towers: Sequence[Any] | None = None,
) -> TowerGame:
    """A game with a chosen deck start and, by default, icon-free layouts."""
    names = ["Ann", "Bob", "Cy", "Dee"][:players]
    return TowerGame(
        names,
        rules,
        seed=1,
        towers=list(towers) if towers is not None else [EMPTY_LAYOUT] * players,
        deck=deck_starting(prefix),
    )


def fill(game: TowerGame, seat: int, rows: Sequence[str]) -> None:
    """Put a drawn picture (8 wide, bottom line = row 0) into ``seat``'s tower."""
    tower = game.towers[seat]
    picture = list(rows)
    height = tower.board.height
    padded = ["." * tower.board.width] * (height - len(picture)) + picture
    for stone in sorted(board_from_rows(padded).stones.values(), key=lambda s: s.number):
        if stone.shape.is_tetromino and shape_of(stone.cells) is not stone.shape:
            raise ValueError(f"fill: the {stone.shape.value} drawn at {sorted(stone.cells)} is not that shape")
        tower.board.new_stone(stone.shape, stone.cells, None)


def drop(cells: Sequence[tuple[int, int]], minos: Sequence[int] = ()) -> TowerAction:
    return TowerAction.drop([list(c) for c in cells], minos)


def find_drop(game: TowerGame, seat: int, cells: set[tuple[int, int]], minos: Sequence[int] = ()) -> TowerAction:
    """The drop with exactly ``cells`` among the legal ones (fails loudly if it is not legal)."""
    for p in game.legal_drops(seat, minos):
        if set(p.cells) == cells:
            return TowerAction.drop(p, minos)
    raise AssertionError(f"no legal drop at {sorted(cells)}")


def others_play(game: TowerGame, *skip: int) -> None:
    """Seats still waiting, except ``skip``, play their first legal drop (a bystander's move)."""
    for seat in game.waiting_for():
        if seat not in skip:
            game.submit(seat, TowerAction.drop(game.legal_drops(seat)[0]))


__all__ = ["EMPTY_LAYOUT", "Shape", "deck_starting", "drop", "fill", "find_drop", "game_with", "others_play"]
