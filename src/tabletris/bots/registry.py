"""Finding bots by name: the built-in bots, and ``ext:COMMAND`` for an outside program.

The registry is the policy (which bots exist, what replaces a failing outside program);
``bots/base.py`` is only the interface and ``bots/external.py`` only the protocol, so neither
imports this module.
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Callable

from tabletris.bots.base import Bot
from tabletris.bots.external import FORFEIT, PREFIX, ExternalBot
from tabletris.engine.games import GAMES, spec
from tabletris.engine.texts import N_, Message

BOTS: dict[str, type[Bot]] = {}

BUILTIN_BOT_MODULES = (
    "tabletris.bots.random_bot",
    "tabletris.bots.greedy",
    "tabletris.bots.expert",
    "tabletris.bots.oracle",
    "tabletris.bots.mcts",
)


def register(name: str) -> Callable[[type[Bot]], type[Bot]]:
    """Class decorator: the bot is found by ``make_bot(name)`` and its ``name`` is set."""

    def deco(cls: type[Bot]) -> type[Bot]:
        cls.name = name
        BOTS[name] = cls
        return cls

    return deco


def _load_builtin_bots() -> None:
    for module in BUILTIN_BOT_MODULES:  # each module registers its bots when imported
        importlib.import_module(module)


def make_bot(name: str, seed: int | None = None, strength: float | None = None, budget: float | None = None) -> Bot:
    """A bot by registry name, or ``ext:COMMAND``; ValueError naming the known bots otherwise.

    An outside program's fallback is ``TABLETRIS_EXT_FALLBACK`` (a bot name, or ``forfeit``),
    ``random`` by default; an unknown fallback fails here, not mid-game.
    """
    if name.startswith(PREFIX):
        fallback_name = os.environ.get("TABLETRIS_EXT_FALLBACK", "random")
        fallback: Callable[[], Bot] | None = None
        if fallback_name != FORFEIT:
            make_bot(fallback_name)

            def fallback() -> Bot:
                return make_bot(fallback_name, seed=seed, strength=strength, budget=budget)

        return ExternalBot(name[len(PREFIX) :], seed=seed, strength=strength, budget=budget, fallback=fallback)
    _load_builtin_bots()
    try:
        factory = BOTS[name]
    except KeyError:
        raise ValueError(f"unknown bot {name!r}: expected one of {', '.join(sorted(BOTS))}") from None
    return factory(seed=seed, strength=strength, budget=budget)


def bot_refusal(name: str, game: str) -> str | None:
    """Why the bot ``name`` may not take a seat in ``game``, or None if the game offers it: the
    game's spec says which bots it offers (``GameSpec.bots``), and nothing else does. The reason
    is a catalog message (English; a front end shows it in the player's language)."""
    offered = spec(game)
    if offered.offers(name):
        return None
    if name.startswith(PREFIX):
        return Message(N_("the {game} game takes no outside programs"), game=game)
    _load_builtin_bots()
    factory = BOTS.get(name)
    if factory is None:
        return None  # make_bot names the known bots
    games = " and ".join(s.name for s in GAMES.values() if s.offers(name))
    if not games:
        return Message(N_("the {bot} bot plays no game"), bot=name)
    reason = factory.games_reason
    if reason:  # a catalog message of its own (``N_``), translated apart
        return Message(N_("the {bot} bot plays only the {games} game: {reason}"), bot=name, games=games, reason=Message(reason))
    return Message(N_("the {bot} bot plays only the {games} game"), bot=name, games=games)


def bots_for(game: str) -> list[str]:
    """The built-in bots ``game`` offers, in its spec's order (forms list these)."""
    _load_builtin_bots()
    return [name for name in spec(game).bots if name in BOTS]


def bot_names() -> list[str]:
    _load_builtin_bots()
    return sorted(BOTS)
