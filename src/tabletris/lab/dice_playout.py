"""The dice game's fast playout for the lab: a whole game in the dice kernel when every seat is a
bot the kernel plays exactly (``engine.fastdice``: the very same games, tests/test_fastdice*.py
and tests/test_fastexpert*.py). The dice spec names this module (``front_ends["lab"]``);
``tasks.run_game`` asks it and plays through the table otherwise.
"""

from __future__ import annotations

from collections.abc import Sequence

from tabletris.bots.base import Bot
from tabletris.engine.dice import DiceGame

MAX_DICE_TURNS = 100_000
"""A safety net: a dice game longer than this is a bug (the board is finite), not a long game."""


def kernel_policies(bots: Sequence[Bot]) -> list[str] | None:
    """The dice kernel's policy per seat when every seat is one it plays exactly (``random``;
    ``greedy`` at full strength, which never draws; ``expert`` at full strength, without a
    budget and with the default tuning, which never draws either), else None."""
    from tabletris.bots.expert import DiceParams, ExpertBot
    from tabletris.bots.greedy import GreedyBot, strength_of
    from tabletris.bots.random_bot import RandomBot

    policies = []
    for bot in bots:
        if type(bot) is RandomBot:
            policies.append("random")
        elif type(bot) is GreedyBot and strength_of(bot) >= 1.0:
            policies.append("greedy")
        elif (
            type(bot) is ExpertBot and strength_of(bot) >= 1.0 and bot.budget is None and bot.fast_path
            and bot.params == DiceParams()
        ):
            policies.append("expert")
        else:
            return None
    return policies


def _kernel_playout(dice: DiceGame, bots: Sequence[Bot], policies: list[str]) -> None:
    """``dice`` played on in the dice kernel by ``bots``, whose policies ``kernel_policies`` gave
    (greedy and expert with the default weights, the expert with its own tuning)."""
    from tabletris.bots.expert import ExpertBot
    from tabletris.bots.heuristics import DEFAULT_WEIGHTS, weights_tuple
    from tabletris.engine import fastdice

    rngs = [bot.rng if p == "random" else None for bot, p in zip(bots, policies, strict=True)]
    experts = [bot for bot in bots if isinstance(bot, ExpertBot)]
    expert = experts[0].kernel_params() if experts else None
    fastdice.playout(dice, policies, rngs, weights_tuple(DEFAULT_WEIGHTS), max_turns=MAX_DICE_TURNS, expert=expert)


def fast_playout(game: DiceGame, bots: Sequence[Bot]) -> bool:
    """Play ``game`` to its end in the dice kernel if it plays these rules and these bots
    (``kernel_policies``); False, with the game untouched, if it does not."""
    from tabletris.engine import fastdice

    policies = kernel_policies(bots) if fastdice.supports(game.rules) else None
    if policies is None:
        return False
    _kernel_playout(game, bots, policies)
    return True
