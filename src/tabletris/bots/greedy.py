"""The ``greedy`` bot: the best immediate score, ties broken by the board-shape heuristic.

It looks at nothing beyond the move it makes: the rows the option scores now (dice) or the points
the drop earns now (tower), then the cleanest board. It is the baseline the ``expert`` must beat.
Its point tokens (``tokens_from_supply``) are the rules' default, filled in by
``DiceGame.complete``: the shape with the most stones left.

``strength`` (0-1, default 1): the chance of playing the bot's own choice; otherwise it plays a
uniformly random legal option. 0 is the ``random`` bot, 1 is pure greedy.
"""

from __future__ import annotations

from typing import Any

from tabletris.bots.base import Bot
from tabletris.bots.dice_eval import immediate_all
from tabletris.bots.registry import register
from tabletris.engine import fasttower
from tabletris.engine.dice import DiceAction, DiceGame
from tabletris.engine.tower import TowerAction, TowerGame


def strength_of(bot: Bot) -> float:
    """The bot's strength clamped to 0-1 (None means full strength)."""
    s = 1.0 if bot.strength is None else float(bot.strength)
    return min(1.0, max(0.0, s))


def plays_random(bot: Bot) -> bool:
    """Whether this decision is a random one, drawn from the bot's own seeded generator."""
    s = strength_of(bot)
    return s < 1.0 and bot.rng.random() >= s


def decision_for(game: DiceGame, option: DiceAction, rewards: tuple[Any, ...] | None = None) -> DiceAction:
    """A ``DiceAction`` for ``option``; under ``row_reward: choose`` every row is taken as a point
    unless ``rewards`` says otherwise."""
    return game.complete(DiceAction(option.shape, option.placement, option.take, rewards))


def legal_options(game: DiceGame) -> list[DiceAction]:
    options = game.turn_options()
    if not options:
        raise ValueError("no legal placement for the pending roll: the game should have ended")
    return options


@register("greedy")
class GreedyBot(Bot):
    """Most rows now; among equals, the lowest board-shape cost; among those, the first found."""

    fast_path = True
    """Whether a full-strength tower decision is made in the compiled tower core
    (``engine.fasttower.decision``: the same decision, tests/test_fasttower.py) when it plays the
    rules; False runs this module's Python, the reference."""

    def choose_dice(self, game: DiceGame) -> DiceAction:
        options = legal_options(game)
        if plays_random(self):
            return decision_for(game, self.rng.choice(options))
        best = options[0]
        best_key = (-1, 0.0)
        for option, m in zip(options, immediate_all(game, options), strict=True):
            key = (m.points, -m.cost)
            if key > best_key:
                best, best_key = option, key
        return decision_for(game, best)

    def choose_tower(self, view: TowerGame) -> TowerAction:
        """Most points now (rows, bonus icons, achievement cards); then the best-shaped tower.

        The hold is never chosen (it scores nothing now): when no drop exists the engine holds.
        """
        from tabletris.bots import tower_eval as te

        seat = seat_of(view)
        if self.fast_path and strength_of(self) >= 1.0:
            fast = fasttower.decision(view, seat, "greedy", te.core_params())
            if fast is not None:
                return fast
        tower = view.towers[seat]
        shape = view.play_card
        assert shape is not None
        options = [a for a in te.actions(tower, shape) if not a.hold]
        if not options:
            return TowerAction.holding()
        if plays_random(self):
            return self.rng.choice(options)
        ctx = te.Context.of(view, seat)
        start = te.root(tower)
        best = options[0]
        best_key = (float("-inf"), float("-inf"))
        for action in options:
            node = te.advance(start, shape, action, ctx, 0)
            key = (node.points - start.points, te.value(node, ctx, view.deck_left))
            if key > best_key:
                best, best_key = action, key
        return best


def seat_of(view: TowerGame) -> int:
    """The seat a tower view belongs to; ValueError for a spectator's view or a whole game."""
    seat = view.viewer
    if seat is None or seat < 0:
        raise ValueError("choose_tower needs a seat's view (TowerGame.view(seat))")
    return seat
