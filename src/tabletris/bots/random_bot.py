"""The ``random`` bot: any legal decision, uniformly over the enumerated options (of any game:
a game it has no method for is played from ``Game.legal_actions``)."""

from __future__ import annotations

from typing import Any

from tabletris.bots.base import Bot
from tabletris.bots.registry import register
from tabletris.engine.dice import DiceAction, DiceGame
from tabletris.engine.games import Game
from tabletris.engine.tower import TowerAction, TowerGame

MINO_CHANCE = 0.25
"""How often the bot drops some of its minos before the piece (so random games exercise minos)."""


@register("random")
class RandomBot(Bot):
    quick = True
    """A draw among the options the engine lists: the server lets it choose on its event loop
    (``BotPool.move``), where sending the seat's view to a worker process cost more than the draw."""

    def choose_any(self, view: Game) -> Any:
        """One of the view's seat's legal actions, uniformly."""
        seat = view.viewer
        actions = view.legal_actions(seat) if seat is not None else []
        if not actions:
            raise ValueError("no legal action for the viewing seat")
        return actions[self.rng.randrange(len(actions))]

    def choose_dice(self, game: DiceGame) -> DiceAction:
        count = game.turn_option_count()
        if not count:
            raise ValueError("no legal placement for the pending roll")
        # ``randrange(n)`` is the very draw ``choice`` makes from a list of n: the same games as
        # ``rng.choice(game.turn_options())``, without building hundreds of options per turn.
        return game.complete(game.turn_option(self.rng.randrange(count)))

    def choose_tower(self, view: TowerGame) -> TowerAction:
        """A uniformly random legal action for the viewing seat: a drop, or the hold if unused.

        Sometimes (``MINO_CHANCE``) it first drops a random number of its minos in random columns
        that still have room; if those minos leave no legal drop it plays without them.
        """
        seat = view.viewer
        if seat is None or seat < 0:
            raise ValueError("choose_tower needs a seat's view (TowerGame.view(seat))")
        tower = view.towers[seat]
        rng = self.rng
        minos: list[int] = []
        if tower.minos and rng.random() < MINO_CHANCE:
            heights = [tower.column_height(x) for x in range(tower.board.width)]
            for _ in range(rng.randint(1, tower.minos)):
                open_columns = [x for x, h in enumerate(heights) if h < tower.board.height]
                if not open_columns:
                    break
                column = rng.choice(open_columns)
                heights[column] += 1
                minos.append(column)
        drops = view.legal_drops(seat, minos) if minos else []
        if not drops:
            minos = []
            drops = view.legal_drops(seat)
        choices = len(drops) + (1 if view.can_hold(seat) else 0)
        if choices == 0:
            raise ValueError("no legal action: the engine holds or outs such a seat itself")
        pick = rng.randrange(choices)
        if pick == len(drops):
            return TowerAction.holding()
        return TowerAction.drop(drops[pick], minos)
