"""The tower game's fast playout for the lab: a whole game in the compiled tower core when every
seat is a bot the core plays exactly (``engine.fasttower``: the very same games,
tests/test_fasttower*.py). The tower spec names this module (``front_ends["lab"]``);
``tasks.run_game`` asks it and plays through the table otherwise.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tabletris.bots.base import Bot
from tabletris.engine.tower import TowerGame

MAX_TOWER_ROUNDS = 1_000
"""A safety net: a tower game longer than this is a bug (the deck has 27 cards), not a long game."""


def core_seats(bots: Sequence[Bot]) -> tuple[list[str], list[Any]] | None:
    """The core's policy and params per seat when every seat is one it plays exactly (``random``;
    ``greedy`` at full strength, which never draws; ``expert`` at full strength without a budget,
    which never draws either: its tuning is its own ``tower_core_params``), else None."""
    from tabletris.bots import tower_eval as te
    from tabletris.bots.expert import ExpertBot
    from tabletris.bots.greedy import GreedyBot, strength_of
    from tabletris.bots.random_bot import RandomBot

    policies: list[str] = []
    params: list[Any] = []
    for bot in bots:
        if type(bot) is RandomBot:
            policies.append("random")
            params.append(None)
        elif type(bot) is GreedyBot and strength_of(bot) >= 1.0 and bot.fast_path:
            policies.append("greedy")
            params.append(te.core_params())
        elif type(bot) is ExpertBot and strength_of(bot) >= 1.0 and bot.budget is None and bot.fast_path:
            policies.append("expert")
            params.append(bot.tower_core_params())
        else:
            return None
    return policies, params


def fast_playout(game: TowerGame, bots: Sequence[Bot]) -> bool:
    """Play ``game`` to its end in the tower core if it plays these rules and these bots
    (``core_seats``); False, with the game untouched, if it does not."""
    from tabletris.engine import fasttower

    seats = core_seats(bots) if fasttower.supports(game.rules) and game.reveals_deck else None
    if seats is None:
        return False
    policies, params = seats
    rngs = [bot.rng if p == "random" else None for bot, p in zip(bots, policies, strict=True)]
    fasttower.playout(game, policies, rngs, params, max_rounds=MAX_TOWER_ROUNDS)
    return True
