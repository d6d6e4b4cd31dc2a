"""The one interface every bot plays through (the registry that finds bots by name is
``bots/registry.py``; the driver that asks them is ``table/driver.py``).

A bot sees only what its seat is entitled to: in the dice game a copy of the game whose random
generator is replaced (so no bot can peek at future rolls), in the tower game the seat's view
(never the deck order, never another seat's pending action). It returns a legal decision; the
engine checks it like any other move.
"""

from __future__ import annotations

import random
from abc import ABC, abstractmethod
from typing import Any

from tabletris.engine.dice import DiceAction, DiceGame


class Bot(ABC):
    """A player program. ``strength`` (0-1 or bot-specific) and ``budget`` (seconds) are hints."""

    name = "bot"

    def __init__(self, seed: int | None = None, strength: float | None = None, budget: float | None = None) -> None:
        self.rng = random.Random(seed)
        self.strength = strength
        self.budget = budget

    @abstractmethod
    def choose_dice(self, game: DiceGame) -> DiceAction:
        """The decision for the pending roll of ``game`` (a view: its generator is not the game's)."""

    def choose_tower(self, view: Any) -> Any:
        """The action for this round of the tower game, from the seat's view."""
        raise NotImplementedError(f"the {self.name} bot does not play the tower game")

    games: tuple[str, ...] = ("dice", "tower")
    """The games this bot really plays; front ends refuse a seat for any other game."""
    games_reason = ""
    """Why the bot does not play the games missing from ``games``, for that refusal."""

    sees_deck = False
    """True only for measuring bots (``oracle``) that are handed the whole game, deck included."""

    def choose_tower_omniscient(self, game: Any, seat: int) -> Any:
        """The action for ``seat`` knowing the whole deck; only bots with ``sees_deck`` have one."""
        raise NotImplementedError(f"the {self.name} bot plays from a view, not from the whole game")
