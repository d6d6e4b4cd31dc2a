"""The one interface every bot plays through, and the registry that finds bots by name.

A bot sees only what its seat is entitled to: in the dice game a copy of the game whose random
generator is replaced (so no bot can peek at future rolls), in the tower game the seat's view
(never the deck order, never another seat's pending action). It returns a legal decision; the
engine checks it like any other move.
"""

from __future__ import annotations

import random
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from tabletris.engine.board import Placement, Stone
from tabletris.engine.dice import DiceGame
from tabletris.engine.shapes import Shape


@dataclass(frozen=True)
class DiceDecision:
    """What a player decides once the die is rolled: shape, stone to take, placement, rewards."""

    shape: Shape
    placement: Placement
    take: Stone | None = None
    rewards: tuple[Any, ...] | None = None


class Bot(ABC):
    """A player program. ``strength`` (0-1 or bot-specific) and ``budget`` (seconds) are hints."""

    name = "bot"

    def __init__(self, seed: int | None = None, strength: float | None = None, budget: float | None = None) -> None:
        self.rng = random.Random(seed)
        self.strength = strength
        self.budget = budget

    @abstractmethod
    def choose_dice(self, game: DiceGame) -> DiceDecision:
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


BOTS: dict[str, Callable[..., Bot]] = {}


def register(name: str) -> Callable[[type[Bot]], type[Bot]]:
    def deco(cls: type[Bot]) -> type[Bot]:
        cls.name = name
        BOTS[name] = cls
        return cls

    return deco


def make_bot(name: str, seed: int | None = None, strength: float | None = None, budget: float | None = None) -> Bot:
    """A bot by registry name; ValueError naming the known bots otherwise."""
    if name.startswith("ext:"):  # an outside program over JSON lines (bots/external.py)
        from tabletris.bots.external import external_bot

        return external_bot(name, seed=seed, strength=strength, budget=budget)
    _load_builtin_bots()
    try:
        factory = BOTS[name]
    except KeyError:
        raise ValueError(f"unknown bot {name!r}: expected one of {', '.join(sorted(BOTS))}") from None
    return factory(seed=seed, strength=strength, budget=budget)


def bot_refusal(name: str, game: str) -> str | None:
    """Why the bot ``name`` should not take a seat in ``game``, or None if it plays it."""
    if name.startswith("ext:"):
        return None
    _load_builtin_bots()
    factory = BOTS.get(name)
    games: tuple[str, ...] = getattr(factory, "games", ("dice", "tower"))
    if factory is None or game in games:
        return None
    reason: str = getattr(factory, "games_reason", "")
    return f"the {name} bot plays only the {' and '.join(games)} game" + (f": {reason}" if reason else "")


def bot_names() -> list[str]:
    _load_builtin_bots()
    return sorted(BOTS)


def _load_builtin_bots() -> None:
    # Each module registers its bots when imported.
    import importlib

    for module in BUILTIN_BOT_MODULES:
        importlib.import_module(module)


BUILTIN_BOT_MODULES = (
    "tabletris.bots.random_bot",
    "tabletris.bots.greedy",
    "tabletris.bots.expert",
    "tabletris.bots.oracle",
)


def decide_dice_reward_points(game: DiceGame, decision: DiceDecision) -> DiceDecision:
    """Fill in all-point rewards under ``row_reward: choose`` for bots that do not choose."""
    if game.rules.row_reward != "choose" or decision.rewards is not None:
        return decision
    rows = game.scoring_rows_after(decision.placement, decision.take)
    return DiceDecision(decision.shape, decision.placement, decision.take, ("point",) * len(rows))


def play_dice_turn(game: DiceGame, bot: Bot) -> None:
    """Roll for the player to move and let ``bot`` decide; the game may end on the roll."""
    if game.roll_face is None:
        game.roll()
    if game.over:
        return
    decision = decide_dice_reward_points(game, bot.choose_dice(game.view()))
    game.play(decision.placement, decision.shape, decision.take, decision.rewards)


def play_tower_round(game: Any, bots: Sequence[Bot | None]) -> None:
    """Let every bot seat that still has to act submit its action for the round in PLAY.

    Each bot gets ``game.view(seat)``: the public state and nothing of the deck below NEXT or of
    another seat's pending action. A bot whose ``sees_deck`` is true (the ``oracle``, an upper
    bound for measurements only) is given the game itself, read-only. ``None`` seats (people)
    are skipped. The round resolves inside the engine when the last seat has submitted.
    """
    for seat in list(game.waiting_for()):
        bot = bots[seat]
        if bot is None:
            continue
        action = bot.choose_tower_omniscient(game, seat) if bot.sees_deck else bot.choose_tower(game.view(seat))
        game.submit(seat, action)
