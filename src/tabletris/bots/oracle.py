"""The ``oracle`` bot (tower game only): beam search that sees the whole deck.

It is not a fair player: it is handed the real game (``sees_deck``), reads every card still to
come, and plans its whole remaining game with a beam search over the same actions and values as
the ``expert``. It exists as an upper bound: how much of the attainable score the ``expert``,
which sees only PLAY, NEXT and the counts of unseen cards, actually gets.

The plan is followed as long as the tower is where the plan expects (always, solo); when it is
not (minos lost to a short supply, a card taken first by another seat) it plans again.
Handed only a view (or a dice game) it has nothing to see and plays as the ``expert``.

``strength`` (0-1, default 1) scales the beam: 8 + 56*strength towers kept per card.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from tabletris.bots import tower_eval as te
from tabletris.bots.base import Bot
from tabletris.bots.greedy import strength_of
from tabletris.bots.registry import register
from tabletris.engine import fasttower
from tabletris.engine.dice import DiceAction, DiceGame
from tabletris.engine.texts import N_
from tabletris.engine.tower import TowerAction, TowerGame

if TYPE_CHECKING:
    from tabletris.bots.expert import ExpertBot


@dataclass
class _Step:
    """One planned round: the action, and the tower it should start from (occupied, minos)."""

    action: TowerAction
    occupied: int
    minos: int


@register("oracle")
class OracleBot(Bot):
    """Beam search over the known deck (tower game); refuses the dice game, whose die is chance."""

    sees_deck = True
    games_reason = N_("it sees the deck, and the dice game has none (it would play as the expert)")

    def __init__(self, seed: int | None = None, strength: float | None = None, budget: float | None = None) -> None:
        super().__init__(seed, strength, budget)
        self._plan: list[_Step] = []
        self._plan_round = 0

    def beam_width(self) -> int:
        return 8 + round(56 * strength_of(self))

    def choose_dice(self, game: DiceGame) -> DiceAction:
        """The dice game has no deck to see: the oracle plays it as the expert does."""
        return self._fallback().choose_dice(game)

    def choose_tower(self, view: TowerGame) -> TowerAction:
        """The plan's next step, from a view that reveals the deck (``seat_view(seat,
        reveal=True)``: the table hands it one, as ``sees_deck`` asks). Given only a seat's
        ordinary view it cannot see the deck either, so it plays as the expert does rather than
        fail."""
        if not view.reveals_deck:
            return self._fallback().choose_tower(view)
        seat = view.viewer
        assert seat is not None and seat >= 0
        return self._follow(view, seat)

    def _fallback(self) -> ExpertBot:
        from tabletris.bots.expert import ExpertBot

        return ExpertBot(seed=self.rng.getrandbits(32), strength=self.strength, budget=self.budget)

    def _follow(self, game: TowerGame, seat: int) -> TowerAction:
        tower = game.towers[seat]
        k = game.round - self._plan_round
        if 0 <= k < len(self._plan):
            step = self._plan[k]
            if step.occupied == tower.board.occupied and step.minos == tower.minos:
                return step.action
        self._plan = self.plan(game, seat)
        self._plan_round = game.round
        return self._plan[0].action

    fast_path = True
    """Whether a full-strength plan without a budget is made in the compiled tower core
    (``engine.fasttower.oracle_plan``: the same plan, tests/test_fasttower_oracle.py); False plans
    with this module's Python, the reference."""

    def plan(self, game: TowerGame, seat: int) -> list[_Step]:
        """The best line found through every remaining card (PLAY first), as steps."""
        if self.fast_path:
            actions = fasttower.oracle_plan(game, seat, te.core_params(), self.beam_width())
            if actions is not None:
                return self._steps(game, seat, actions)
        return self.python_plan(game, seat)

    def _steps(self, game: TowerGame, seat: int, actions: list[TowerAction]) -> list[_Step]:
        """The core's plan as steps: each action with the tower it should start from, the towers
        worked out along the line by ``tower_eval.advance`` as the Python plan does."""
        tower = game.towers[seat]
        if not actions:
            return [_Step(TowerAction.holding(), tower.board.occupied, tower.minos)]
        ctx = te.Context.of(game, seat)
        upcoming = game.deck[game.round - 1 :]
        node = te.root(tower)
        steps = []
        for depth, (shape, action) in enumerate(zip(upcoming, actions, strict=False)):
            steps.append(_Step(action, node.tower.board.occupied, node.tower.minos))
            node = te.advance(node, shape, action, ctx, min(depth, 3))
        return steps

    def python_plan(self, game: TowerGame, seat: int) -> list[_Step]:
        """``plan`` in Python: the reference the core's plan is held to."""
        deck = game.deck  # the real order: the oracle's view reveals it
        upcoming = deck[game.round - 1 :]
        ctx = te.Context.of(game, seat)
        width = self.beam_width()
        beam: list[tuple[float, te.Node, list[_Step]]] = [(0.0, te.root(game.towers[seat]), [])]
        for depth, shape in enumerate(upcoming):
            after = len(upcoming) - depth - 1
            seen: dict[tuple[int, int, bool, frozenset[str]], tuple[float, te.Node, list[_Step]]] = {}
            for v0, node, steps in beam:
                t = node.tower
                if t.out:
                    key = (t.board.occupied, -1, True, node.achieved)
                    seen.setdefault(key, (v0, node, steps))
                    continue
                options = te.actions(t, shape, minos=True)
                if not options:  # out: the tower freezes with its score
                    frozen = te.Node(t, node.achieved, node.card_points, node.minos_used)
                    frozen.tower = t.copy()
                    frozen.tower.out = True
                    key = (t.board.occupied, -1, True, node.achieved)
                    v = te.value(frozen, ctx, 0)
                    if key not in seen or seen[key][0] < v:
                        seen[key] = (v, frozen, steps)
                    continue
                for action in options:
                    child = te.advance(node, shape, action, ctx, min(depth, 3))
                    v = te.value(child, ctx, after)
                    ct = child.tower
                    key = (ct.board.occupied, ct.minos, ct.hold_used, child.achieved)
                    if key in seen and seen[key][0] >= v:
                        continue
                    seen[key] = (v, child, [*steps, _Step(action, t.board.occupied, t.minos)])
            beam = sorted(seen.values(), key=lambda e: -e[0])[:width]
        best = max(beam, key=lambda e: e[1].points)
        if not best[2]:
            return [_Step(TowerAction.holding(), game.towers[seat].board.occupied, game.towers[seat].minos)]
        return best[2]
