"""The one interface every bot plays through (the registry that finds bots by name is
``bots/registry.py``; the driver that asks them is ``table/driver.py``).

A bot sees only what its seat is entitled to: in the dice game a copy of the game whose random
generator is replaced (so no bot can peek at future rolls), in the tower game the seat's view
(never the deck order, never another seat's pending action). It returns a legal decision; the
engine checks it like any other move.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from tabletris.engine.games import Game, spec_of


class Bot:
    """A player program. ``strength`` (0-1 or bot-specific) and ``budget`` (seconds) are hints.

    ``choose(view)`` is the one entry point every front end calls. A bot plays a game by having
    a ``choose_<game>`` method (``choose_dice``, ``choose_tower``): the per-game logic stays in
    the bot, and ``choose`` finds it by the view's game. A bot that plays any game from its legal
    actions alone overrides ``choose_any``.
    """

    name = "bot"
    quick = False
    """The bot decides in well under a millisecond (a draw among the listed options): the server
    runs it on its event loop instead of a worker process (``BotPool.move``)."""

    def __init__(self, seed: int | None = None, strength: float | None = None, budget: float | None = None) -> None:
        self.rng = random.Random(seed)
        self.strength = strength
        self.budget = budget

    def choose(self, view: Game) -> Any:
        """The decision of ``view``'s seat (``Game.seat_view``) for the game's pending choice."""
        play = self.player_for(spec_of(view).name)
        if play is None:
            raise NotImplementedError(f"the {self.name} bot does not play the {spec_of(view).name} game")
        return play(view)

    def player_for(self, game: str) -> Callable[[Any], Any] | None:
        """The method that plays ``game`` (its ``choose_<game>``, else ``choose_any`` when the bot
        has one), or None when the bot does not play it."""
        method = getattr(self, f"choose_{game}", None)
        if method is not None:
            return method
        if type(self).choose_any is not Bot.choose_any:
            return self.choose_any
        return None

    @classmethod
    def plays(cls, game: str) -> bool:
        """Whether this kind of bot has a way to play ``game`` (a spec offers only such bots)."""
        return hasattr(cls, f"choose_{game}") or cls.choose_any is not Bot.choose_any

    def choose_any(self, view: Game) -> Any:
        """A decision from ``view.legal_actions`` alone, for a game this bot has no method for."""
        raise NotImplementedError(f"the {self.name} bot has no way to play a game it does not know")

    games_reason = ""
    """Why the bot does not play the games whose specs leave it out, for that refusal."""

    sees_deck = False
    """True only for measuring bots (``oracle``) that are handed the hidden order (``reveal``)."""
