"""The ``random`` bot: any legal decision, uniformly over the enumerated options."""

from __future__ import annotations

from tabletris.bots.base import Bot, DiceDecision, register
from tabletris.engine.dice import DiceGame


@register("random")
class RandomBot(Bot):
    def choose_dice(self, game: DiceGame) -> DiceDecision:
        options = game.turn_options()
        if not options:
            raise ValueError("no legal placement for the pending roll")
        o = self.rng.choice(options)
        rewards = None
        if game.rules.row_reward == "choose":
            rewards = tuple(
                "point" for _ in game.scoring_rows_after(o.placement, o.take)
            )
        return DiceDecision(o.shape, o.placement, o.take, rewards)
