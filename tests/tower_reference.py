"""What the tests that pin the compiled tower core (games, bots, env) to the Python engine share:
one hypothesis strategy for tower rule sets and layouts, the reference game loop, and the
comparison of two games field by field."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from hypothesis import strategies as st

from tabletris.bots.base import Bot
from tabletris.bots.registry import make_bot
from tabletris.engine.achievements import ACHIEVEMENTS
from tabletris.engine.records import dumps, record_of
from tabletris.engine.shapes import TETROMINOES
from tabletris.engine.tower import TowerGame
from tabletris.table.driver import Table

CARD_IDS = list(ACHIEVEMENTS)


@st.composite
def tower_rules(draw: st.DrawFn, width: int = 10, height: int = 16) -> dict[str, Any]:
    """A rule set with every option drawn, at most ``width`` x ``height`` (small towers fill up,
    so they see outs, forced holds, complete rows and every card soon)."""
    start = draw(st.integers(0, 3))
    rules: dict[str, Any] = {
        "width": draw(st.integers(4, width)),
        "height": draw(st.integers(4, height)),
        "start_minos": start,
        "minos_in_box": draw(st.integers(4 * start, 4 * start + 20)),
        "seven_on_a_side": draw(st.sampled_from(["one-wall", "both-walls"])),
        "four_pairs": draw(st.sampled_from(["matching", "pairs"])),
    }
    if draw(st.booleans()):
        rules["achievements"] = None
        rules["draw_achievements"] = draw(st.integers(0, 4))
    else:
        rules["achievements"] = draw(st.lists(st.sampled_from(CARD_IDS), max_size=5, unique=True))
    return rules


@st.composite
def layouts(draw: st.DrawFn, width: int, height: int, players: int) -> list[Any] | None:
    """None (towers drawn by the game) or one custom layout per seat, icons anywhere."""
    if draw(st.booleans()):
        return None
    cells = [(x, y) for x in range(width) for y in range(height)]
    out = []
    for _ in range(players):
        picked = draw(st.lists(st.sampled_from(cells), max_size=min(30, len(cells)), unique=True))
        k = draw(st.integers(0, len(picked)))
        bonus = [{"cell": list(c), "shape": draw(st.sampled_from(TETROMINOES)).value} for c in picked[:k]]
        out.append({"bonus": bonus, "diamonds": [list(c) for c in picked[k:]]})
    return out


def make_bots(policies: Sequence[str], seed: int) -> list[Bot]:
    return [make_bot(p, seed=seed * 31 + i) for i, p in enumerate(policies)]


def play_python(game: TowerGame, bots: Sequence[Bot], rounds: int | None = None) -> None:
    """The reference: ``bots`` play ``game`` through the table (each sees its seat's view), for
    at most ``rounds`` rounds."""
    table = Table(game, list(bots))
    stop = None if rounds is None else len(game.rounds) + rounds
    while not game.over and (stop is None or len(game.rounds) < stop):
        table.play_bots(max_actions=1)


def game_state(game: TowerGame) -> dict[str, Any]:
    """Everything a tower game is, to compare the two engines' games field by field."""
    return {
        "record": dumps(record_of(game)),
        "scores": game.scores(),
        "winners": game.winners(),
        "supply": game.supply,
        "towers": [
            {
                "minos": t.minos,
                "held": t.held,
                "out": t.out,
                "bonus": t.bonus,
                "left": sorted(t.left),
                "right": sorted(t.right),
                "occupied": t.board.occupied,
                "stones": sorted((s.number, s.shape.value, s.cells, s.owner) for s in t.board.stones.values()),
                "stack": t.board._stack,
                "next_number": t.board._next_number,
                "touching": t.touching(),
                "rows": t.rows(),
            }
            for t in game.towers
        ],
        "cards": [c.to_dict() for c in game.achievements],
        "met_round": [c.met_round for c in game.achievements],
        "round": game.round,
        "drawn": game._drawn,
        "play": game.play_card,
        "next": game.next_card,
        "over": game.over,
        "pending": [game.pending(s) for s in range(game.player_count)],
        "forced": [game.forced(s) for s in range(game.player_count)],
        "waiting": game.waiting_for(),
        "rng": game.rng.getstate(),
    }


def assert_same_games(a: TowerGame, b: TowerGame, what: str) -> None:
    sa, sb = game_state(a), game_state(b)
    for key in sa:
        assert sa[key] == sb[key], f"{key} differs ({what})"
