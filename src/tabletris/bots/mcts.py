"""The ``mcts`` bot (dice game): open-loop UCT search with random rollouts, on the engine itself.

Why here and not OpenSpiel's ``MCTSBot``: bots sit below the AI interfaces (the layer contract),
and the lab runs bots in worker processes that must not need OpenSpiel. OpenSpiel's own stock
``MCTSBot`` runs on ``python_tabletris_dice`` too (``envs.openspiel_games``, terminal rewards);
this is the same algorithm written against ``DiceGame`` so it can sit in the leaderboard.

Open loop: a tree node is a sequence of decisions, not a position, because every turn starts
with a roll. Each simulation copies the view (whose generator is blind: it knows nothing of the
real game's rolls), rolls the die afresh at every turn, walks the tree by UCB1 among the
decisions legal under the rolls it drew, expands one node, then plays random decisions for at
most ``ROLLOUT_TURNS`` turns. A finished game is worth +1/0/-1 for a sole win/shared win/loss
(the engine's ``winners()``), an unfinished one (or any game of one player) the score margin
squashed into (-1, 1). Every
seat is searched for by its own value (max^n backup).

``strength`` (0-1, default 0.5) sets the simulations per decision: ``20 + 380 * strength``.
The search is seeded from the bot's generator, so a seeded bot plays the same game again.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, field

from tabletris.bots.base import Bot
from tabletris.bots.greedy import strength_of
from tabletris.bots.registry import register
from tabletris.engine.dice import DiceAction, DiceGame
from tabletris.engine.texts import N_
from tabletris.engine.tower import TowerAction, TowerGame

ROLLOUT_TURNS = 12
UCB_C = 1.4
MARGIN_SCALE = 4.0
"""Score margin (points) that counts as about three quarters of a win in a cut-off rollout."""

Key = tuple[str, tuple[tuple[int, int], ...], int]


def action_key(action: DiceAction) -> Key:
    """A decision's identity across positions: shape, cells and the stone taken."""
    return (action.shape.value, action.placement.cells, -1 if action.take is None else action.take.number)


@dataclass
class _Node:
    visits: int = 0
    value: float = 0.0
    """Sum of the values, for the seat that chose the decision leading here."""
    children: dict[Key, _Node] = field(default_factory=dict)


def value_for(game: DiceGame, seat: int) -> float:
    """+1/0/-1 for a finished game, else the squashed margin; alone at the table (where every
    game is a win) always the squashed score."""
    if game.over and len(game.players) > 1:
        winners = game.winners()
        if seat not in winners:
            return -1.0
        return 1.0 if len(winners) == 1 else 0.0
    others = [s for i, s in enumerate(game.scores) if i != seat]
    margin = game.scores[seat] - (max(others) if others else 0)
    return math.tanh(margin / MARGIN_SCALE)


@register("mcts")
class MCTSBot(Bot):
    """Open-loop UCT for the dice game (see the module docstring)."""

    games_reason = N_("the tower game's hidden deck needs information-set search (OpenSpiel's ISMCTSBot)")

    def simulations(self) -> int:
        return int(20 + 380 * strength_of(self) if self.strength is not None else 20 + 380 * 0.5)

    def choose_dice(self, game: DiceGame) -> DiceAction:
        options = game.turn_options()
        if not options:
            raise ValueError("no legal placement for the pending roll")
        if len(options) == 1:
            return game.complete(options[0])
        root = _Node()
        rng = random.Random(self.rng.getrandbits(64))
        by_key = {action_key(a): a for a in options}
        for _ in range(self.simulations()):
            self._simulate(game.view(), root, rng, first=options)
        best = max(root.children.items(), key=lambda kv: (kv[1].visits, kv[1].value))[0]
        return game.complete(by_key[best])

    def _simulate(self, game: DiceGame, root: _Node, rng: random.Random, first: list[DiceAction]) -> None:
        path: list[tuple[_Node, int]] = []
        node = root
        options = first
        game.rng = rng  # the copy's die: blind to the real game's rolls, seeded by this search
        while True:
            seat = game.to_move
            keys = [action_key(a) for a in options]
            untried = [i for i, k in enumerate(keys) if k not in node.children]
            if untried:
                i = rng.choice(untried)
                child = node.children[keys[i]] = _Node()
                game.act(options[i])
                path.append((child, seat))
                break
            total = math.log(max(1, node.visits))
            i = max(
                range(len(keys)),
                key=lambda j: node.children[keys[j]].value / node.children[keys[j]].visits
                + UCB_C * math.sqrt(total / node.children[keys[j]].visits),
            )
            node = node.children[keys[i]]
            game.act(options[i])
            path.append((node, seat))
            if game.over:
                break
            game.roll()
            if game.over:
                break
            options = game.turn_options()
        for _ in range(ROLLOUT_TURNS):
            if game.over:
                break
            if game.roll_face is None:
                game.roll()
                continue
            game.act(rng.choice(game.turn_options()))
        root.visits += 1
        values = {seat: value_for(game, seat) for seat in range(len(game.players))}
        for n, seat in path:
            n.visits += 1
            n.value += values[seat]

    def choose_tower(self, view: TowerGame) -> TowerAction:
        raise NotImplementedError(f"the mcts bot does not play the tower game: {self.games_reason}")
