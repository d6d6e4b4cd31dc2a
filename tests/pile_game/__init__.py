"""The pile game's spec: the one thing a new game adds to the shared code's view (``register``)."""

from __future__ import annotations

from typing import Any

from pile_game.engine import PRESETS, RULE_HELP, PileGame, PileRules, replay_record, write_record
from tabletris.engine.games import GAMES, GameSpec, register, unregister

PARAGRAPHS = (
    "## The pile game",
    "A pile of stones. Roll the die, take 1 to the roll; who takes the last stone wins.",
)

SPEC = GameSpec(
    name="pile",
    title="Pile",
    label="pile",
    game_cls=PileGame,
    rules_cls=PileRules,
    presets=PRESETS,
    rule_help=RULE_HELP,
    min_players=2,
    max_players=2,
    simultaneous=False,
    rematch_changes=lambda last: {},
    rules_paragraphs=PARAGRAPHS,
    write_record=write_record,
    replay_record=replay_record,
    record_lists=("moves",),
    bots=("random",),
    front_ends={"server": "pile_game.server", "env": "pile_game.env"},
)


def install() -> Any:
    """Register the pile game (idempotent); the spec."""
    if GAMES.get("pile") is not SPEC:
        register(SPEC)
    return SPEC


def uninstall() -> None:
    unregister("pile")

