"""Test helpers shared by the engine and dice tests.

They are written independently of the engine's bitboard code on purpose: a reference that shared
the engine's tricks would share its bugs. Boards are drawn as pictures (top row first, as
``Board.rows()`` prints them), reachability is a plain breadth-first search over positions, and
random games are driven through the public ``DiceGame`` API only.
"""

from __future__ import annotations

import random
from collections import deque
from collections.abc import Iterable, Sequence
from typing import Any

import pytest

from tabletris.engine.board import Board, Stone
from tabletris.engine.dice import CHOICE, DiceGame
from tabletris.engine.errors import IllegalMove
from tabletris.engine.records import record_of
from tabletris.engine.shapes import Cell, Orientation

EMPTY = "."
FILLED = "#"


board_from_rows = Board.from_rows
"""Boards drawn as pictures; the engine's own ``Board.from_rows`` (it began here)."""


def filled_cells(board: Board) -> set[Cell]:
    """The filled cells, read cell by cell through the public per-cell query."""
    return {
        (x, y) for x in range(board.width) for y in range(board.height) if board.is_filled((x, y))
    }


def rests(cells: Iterable[Cell], filled: set[Cell]) -> bool:
    """rules.md 'Resting': some cell on row 0 or directly above a filled cell."""
    return any(y == 0 or (x, y - 1) in filled for x, y in cells)


def reference_positions(
    width: int, height: int, filled: set[Cell], orientation: Orientation, access: str
) -> set[tuple[int, int]]:
    """Legal anchors (lower-left of the bounding box) of ``orientation``, by the plain rules.

    Positions live in the board plus open air above it; a piece enters wholly above the top
    edge. ``drop`` falls straight down from there, ``slide`` moves one cell left, right or down
    at a time through empty cells (breadth-first search), ``free`` is every resting fit.
    """
    top = height + 4  # enough open air above the board for the tallest piece

    def fits(x: int, y: int) -> bool:
        for dx, dy in orientation.cells:
            cx, cy = x + dx, y + dy
            if not (0 <= cx < width and 0 <= cy < top) or (cx, cy) in filled:
                return False
        return True

    def on_board(x: int, y: int) -> bool:
        return y + orientation.height <= height

    result: set[tuple[int, int]] = set()
    if access == "free":
        for x in range(width):
            for y in range(height):
                if fits(x, y) and on_board(x, y) and rests(orientation.at(x, y), filled):
                    result.add((x, y))
        return result
    starts = [(x, height) for x in range(width) if fits(x, height)]
    if access == "drop":
        for x, y in starts:
            while y > 0 and fits(x, y - 1):
                y -= 1
            if on_board(x, y):
                result.add((x, y))
        return result
    assert access == "slide", access
    seen = set(starts)
    queue = deque(starts)
    while queue:
        x, y = queue.popleft()
        for nx, ny in ((x - 1, y), (x + 1, y), (x, y - 1)):
            if (nx, ny) not in seen and fits(nx, ny):
                seen.add((nx, ny))
                queue.append((nx, ny))
    return {(x, y) for x, y in seen if on_board(x, y) and rests(orientation.at(x, y), filled)}


def play_random_turn(game: DiceGame, rng: random.Random, low: bool = False) -> bool:
    """Roll and play one random legal option; False once the game is over.

    ``low`` picks among the options that keep the stack lowest, which fills and completes rows
    (and empties the supply, so takes happen); otherwise the choice is uniform, which leaves holes
    and ends games early.
    """
    if game.over:
        return False
    game.roll()
    if game.over:
        return False
    options = game.turn_options()
    assert options, "a roll that did not end the game must have a legal option"
    if low:
        best = min(max(y for _, y in o.placement.cells) for o in options)
        options = [o for o in options if max(y for _, y in o.placement.cells) == best]
    option = rng.choice(options)
    rewards: list[object] | None = None
    if game.rules.row_reward == "choose":
        rows = game.scoring_rows_after(option.placement, option.take)
        taken = option.take.number if option.take else None
        # Stones of other players, still there after the take; cleared rows would move them.
        targets = [s for s in game.rewardable_stones() if s.number != taken]
        rewards = []
        for _ in rows:
            if targets and not game.rules.clear_rows and rng.random() < 0.5:
                victim = targets.pop(rng.randrange(len(targets)))
                rewards.append({"remove": [list(c) for c in victim.cells]})
            else:
                rewards.append("point")
    game.play(
        option.placement,
        shape=option.shape if game.roll_face == CHOICE else None,
        take=option.take,
        rewards=rewards,
    )
    return True


def play_random_game(
    game: DiceGame, rng: random.Random, max_turns: int = 400, low: bool = False
) -> DiceGame:
    """Random legal turns until the game ends (or ``max_turns``)."""
    for _ in range(max_turns):
        if not play_random_turn(game, rng, low):
            break
    return game


def stone_cells(stones: Iterable[Stone]) -> list[list[Cell]]:
    """Stones as sorted cell lists, for order-free comparisons."""
    return sorted(sorted(s.cells) for s in stones)


def garbage_from_rows(rows: Sequence[str]) -> list[dict[str, object]]:
    """A picture turned into the ``garbage`` rule's list of stones, to set up a dice position.

    Listed garbage is how a record sets up a board before the game (rules.md house rule
    ``garbage``), so tests build positions the way a table would, not by poking at the state.
    """
    board = board_from_rows(rows)
    return [
        {"shape": s.shape.value, "cells": [list(c) for c in s.cells]}
        for s in sorted(board.stones.values(), key=lambda s: s.number)
    ]


def state_of(game: DiceGame) -> dict[str, object]:
    """Everything observable about a dice game, for exact before/after comparisons."""
    return {
        "summary": game.summary(),
        "board": game.board.copy(),
        "stones": dict(game.board.stones),
        "supply": dict(game.supply),
        "scores": list(game.scores),
        "rows_completed": list(game.rows_completed),
        "to_move": game.to_move,
        "roll_face": game.roll_face,
        "over": game.over,
        "turn": game.turn,
        "moves": list(game.moves),
        "rng": game.rng.getstate(),
        "record": record_of(game),
    }


def play_dice_turn(game: Any, bot: Any) -> None:
    """One dice turn for the player to move, played by ``bot`` through the table driver."""
    from tabletris.table.driver import Table

    Table(game, {game.to_move: bot}).play_bots(max_actions=1)


def play_tower_round(game: Any, bots: Any) -> None:
    """Every bot seat still to act this round submits, through the table driver."""
    from tabletris.table.driver import Table

    table = Table(game, bots)
    for seat in table.bots_to_act():
        table.play_bot(seat)


# ------------------------------------------------------- dice rule tests

ROW0 = [[0, 0], [1, 0], [2, 0], [3, 0]]
ROW1 = [[0, 1], [1, 1], [2, 1], [3, 1]]
O_LEFT = [[0, 0], [1, 0], [0, 1], [1, 1]]
O_RIGHT = [[2, 0], [3, 0], [2, 1], [3, 1]]


def narrow(players: int = 2, **rules: Any) -> DiceGame:
    """A 4-wide board: one I fills a row, two Os fill two rows."""
    spec: dict[str, Any] = {"width": 4, "height": 6, **rules}
    return DiceGame(["Ann", "Bob", "Cid", "Dee"][:players], spec, seed=1)


def turn(game: DiceGame, face: str, place: Any, **kwargs: Any) -> None:
    game.roll(face)
    assert not game.over, f"{face} should be placeable"
    game.play(place, **kwargs)


def assert_rejected(game: DiceGame, match: str, place: Any, **kwargs: Any) -> None:
    """The play is an IllegalMove with ``match`` in its text, and nothing in the game changed."""
    before = state_of(game)
    with pytest.raises(IllegalMove, match=match):
        game.play(place, **kwargs)
    assert state_of(game) == before
