"""The ``expert`` bot: lookahead over the real chance model of each game.

Dice game: every legal option is measured at once (rows scored, board shape); the most promising
ones are then played on a copy of the view, and the next player's roll is looked at face by face
(``*`` as their best shape, the supply and the stone they must take when it is empty): how many
rows they could score with it, or whether they cannot place and the game ends there, with whom
ahead. The value of an option is the expected score difference after that roll, with a bonus for
the game ending while ahead, minus the board-shape cost. Under ``row_reward: choose`` each scored
row is weighed as a point against removing each opponent stone; a removal wins when it takes away
more of the next player's rows than the point is worth. With ``tokens_from_supply`` each point's
token is chosen to starve the next player: the shape whose stones leaving the supply hurt them
most (the lookahead sees a shape run out, and the rows they could score with a scarce shape
weigh in), not simply the most plentiful one.

Tower game: every action (each drop, each drop after a mino, the hold) is played on a copy of
the seat's tower through the engine; the best few are extended by the NEXT card (known to all),
and the best of those by a third card weighed by card counting (the shapes not seen yet, each as
likely as its count); NEXT's replies include the drops after a mino too.
Values are points won on the way (rows, bonus icons, achievement cards in play, discounted when
other seats still race for them) plus the worth of the tower (holes, bumpiness, wells, height
near the skyline, minos in hand, an unused hold, progress towards the cards in play), with the
expert's own weights (``tower_eval.EXPERT_TOWER_WEIGHTS``, tuned on whole games).

``strength`` (0-1, default 1): the chance of playing the bot's own choice (otherwise a uniformly
random legal option), and the lookahead width: dice, 4 + 28*strength options looked at in
depth; tower, 2 + 10*strength actions extended by NEXT and round(4*strength) by a third card.
``budget`` (seconds): a safety cap on one decision; left unset, decisions do not depend on the
clock, so simulations are reproducible.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from typing import Any

from tabletris.bots import tower_eval as te
from tabletris.bots.base import Bot
from tabletris.bots.dice_eval import immediate_all, outlook, rescores, shape_outlook
from tabletris.bots.greedy import decision_for, legal_options, plays_random, seat_of, strength_of
from tabletris.bots.heuristics import DEFAULT_WEIGHTS, Weights, board_cost, weights_tuple
from tabletris.bots.registry import register
from tabletris.engine import fastdice, fasttower
from tabletris.engine.dice import DiceAction, DiceGame
from tabletris.engine.errors import IllegalMove
from tabletris.engine.shapes import Shape
from tabletris.engine.tower import TowerAction, TowerGame


@dataclass(frozen=True)
class DiceParams:
    """The expert's dice tuning: all values in points of score."""

    win_bonus: float = 4.0
    """Worth of the game ending with this player ahead (the goal is winning, not points)."""
    threat: float = 1.0
    """Weight of the rows the next player can score with their roll."""
    shape: float = 0.5
    """Weight of the board-shape cost after the option."""
    weights: Weights = DEFAULT_WEIGHTS
    starve: float = 0.3
    """Weight of a token shape's use to the next player (rows they could score with it), divided
    by the stones of it left after the token: starving a scarce shape they need."""


def _final_value(scores: list[int], me: int, params: DiceParams) -> float:
    others = [s for i, s in enumerate(scores) if i != me]
    if not others:
        return float(scores[me])
    best_other = max(others)
    diff = scores[me] - best_other
    if diff > 0:
        return diff + params.win_bonus
    if diff == 0:
        return diff + params.win_bonus / 2
    return diff - params.win_bonus


def _diff(scores: list[int], me: int) -> float:
    others = [s for i, s in enumerate(scores) if i != me]
    return float(scores[me] - max(others)) if others else float(scores[me])


def position_value(game: DiceGame, me: int, params: DiceParams) -> float:
    """Expected value for ``me`` of a position where the next roll is pending."""
    if game.over:
        return _final_value(game.scores, me, params)
    look = outlook(game)
    q = game.to_move
    rules = game.rules
    total = 0.0
    for p, rows in look.faces:
        scores = list(game.scores)
        if rows < 0:
            if rules.stuck_penalty:
                scores[q] -= 1
            total += p * _final_value(scores, me, params)
            continue
        if q == me:
            scores[q] += rows
            total += p * _diff(scores, me)
            continue
        scores[q] += rows
        if rules.clear_rows and scores[q] >= rules.target:
            total += p * _final_value(scores, me, params)
            continue
        total += p * (_diff(game.scores, me) - params.threat * rows)
    return total - params.shape * board_cost(game.board, params.weights)


@register("expert")
class ExpertBot(Bot):
    """Two-ply expectimax over the die for the dice game (see the module docstring)."""

    params = DiceParams()

    def width(self) -> int:
        return 4 + round(28 * strength_of(self))

    fast_path = True
    """Whether a full-strength decision without a budget is made in compiled code when it plays
    the rules: the dice kernel (``engine.fastdice.expert_decision``: the same decision,
    tests/test_fastexpert*.py) or the tower core (``engine.fasttower.decision``:
    tests/test_fasttower*.py); False runs this module's Python, the reference (the tests and the
    bench set it). The kernel reads ``params`` and ``width()``, the tower core
    ``tower_core_params()``; a subclass that changes the decision's steps themselves must set it
    False."""

    def kernel_params(self) -> tuple[float, ...]:
        """This bot's tuning and lookahead width as the kernel reads them."""
        p = self.params
        return fastdice.expert_params(p.win_bonus, p.threat, p.shape, p.starve, self.width())

    def choose_dice(self, game: DiceGame) -> DiceAction:
        if self.fast_path and self.budget is None and strength_of(self) >= 1.0:
            fast = fastdice.expert_decision(game, self.kernel_params(), weights_tuple(self.params.weights))
            if fast is not None:
                return fast
        options = legal_options(game)
        if plays_random(self):
            return decision_for(game, self.rng.choice(options))
        if len(options) == 1:
            return self._with_tokens(game, game.complete(self._with_rewards(game, options[0])[0]))
        start = time.perf_counter()
        params = self.params
        ranked = []
        for i, (option, m) in enumerate(zip(options, immediate_all(game, options, params.weights), strict=True)):
            ranked.append((m.points - params.shape * m.cost, i, option))
        ranked.sort(key=lambda t: (-t[0], t[1]))
        best: DiceAction | None = None
        best_value = float("-inf")
        for _, _, option in ranked[: self.width()]:
            decision, value = self._with_rewards(game, option)
            if value > best_value:
                best, best_value = decision, value
            if self.budget is not None and time.perf_counter() - start > 0.8 * self.budget:
                break
        assert best is not None
        # Completed once, for the option chosen: ``complete`` plays the action on a view to find
        # its tokens, as costly as weighing the option itself.
        return self._with_tokens(game, game.complete(best))

    def _with_tokens(self, game: DiceGame, decision: DiceAction) -> DiceAction:
        """``decision`` with its point tokens chosen one by one (``tokens_from_supply``)."""
        if not game.rules.takes_tokens:
            return decision
        tokens = list(game.complete(decision).tokens or ())
        if not tokens:
            return decision
        me = game.to_move
        params = self.params
        with _pushed(game, decision, decision.rewards):
            rows_mask = (1 << game.board.height) - 1
            if not rescores(game):
                rows_mask &= ~game.scored_rows
            need = {s: max(0, shape_outlook(game, s, rows_mask)) for s in game.rules.shapes}
        for k in range(len(tokens)):
            best_value = float("-inf")
            # The default first: another shape must be strictly better (no choice without purpose).
            default = tokens[k]
            for shape in (default, *(s for s in game.rules.shapes if s is not default)):
                trial = (*tokens[:k], shape, *tokens[k + 1 :])
                try:
                    with _pushed(game, decision, decision.rewards, trial):
                        value = position_value(game, me, params) + params.starve * need[shape] / (
                            1 + game.supply.get(shape, 0)
                        )
                except IllegalMove:  # no stone of that shape left for this token
                    continue
                if value > best_value:
                    best_value, tokens[k] = value, shape
        return replace(decision, tokens=tuple(tokens))

    tower_weights: te.TowerWeights = te.EXPERT_TOWER_WEIGHTS
    """The worth of a tower's features to the expert (``tower_eval.EXPERT_TOWER_WEIGHTS``: tuned
    for it; greedy keeps ``DEFAULT_TOWER_WEIGHTS``)."""
    next_minos = True
    """Whether NEXT's replies include the drops after one mino (the minos in hand after the first
    action), as the first action's do."""
    third_minos = False
    """Whether the third card's replies include them too: off, for speed (on, the solo mean score
    rises by about 0.1 for twice the decision time; docs/strength.md)."""

    def tower_widths(self) -> tuple[int, int]:
        """Actions extended by NEXT, and of those by a third card (module docstring)."""
        s = strength_of(self)
        return 2 + round(10 * s), round(4 * s)

    def tower_core_params(self) -> tuple[Any, ...]:
        """This bot's tower weights and lookahead as the compiled tower core reads them."""
        return te.core_params(self.tower_weights, *self.tower_widths(), self.next_minos, self.third_minos)

    def choose_tower(self, view: TowerGame) -> TowerAction:
        seat = seat_of(view)
        if self.fast_path and self.budget is None and strength_of(self) >= 1.0:
            fast = fasttower.decision(view, seat, "expert", self.tower_core_params())
            if fast is not None:
                return fast
        tower = view.towers[seat]
        shape = view.play_card
        assert shape is not None
        ctx = te.Context.of(view, seat)
        options = te.actions(tower, shape)
        if not options:
            return TowerAction.holding()
        if len(options) == 1:
            return options[0]
        if plays_random(self):
            return self.rng.choice(options)
        start = time.perf_counter()
        width1, width2 = self.tower_widths()
        w = self.tower_weights
        after1 = view.deck_left
        base = te.root(tower)
        first = []
        for i, action in enumerate(options):
            node = te.advance(base, shape, action, ctx, 0, w)
            first.append((te.value(node, ctx, after1, w), i, action, node))
        first.sort(key=lambda t: (-t[0], t[1]))
        nxt = view.next_card
        if nxt is None:
            return first[0][2]
        second = []
        for v1, i, action, node in first[:width1]:
            best_v, best_node = v1 - 100.0, None  # no legal drop for NEXT: nearly out
            for a2 in te.actions(node.tower, nxt, minos=self.next_minos):
                n2 = te.advance(node, nxt, a2, ctx, 1, w)
                v2 = te.value(n2, ctx, after1 - 1, w)
                if v2 > best_v:
                    best_v, best_node = v2, n2
            second.append((best_v, i, action, best_node))
            if self.budget is not None and time.perf_counter() - start > 0.5 * self.budget:
                break
        second.sort(key=lambda t: (-t[0], t[1]))
        if width2 and after1 - 1 > 0:
            odds = te.shape_odds(ctx.unseen)
            third = []
            for v2, i, action, node2 in second[:width2]:
                if node2 is None:
                    third.append((v2, i, action))
                    continue
                third.append((self._expected_third(node2, odds, ctx, after1 - 2), i, action))
                if self.budget is not None and time.perf_counter() - start > 0.8 * self.budget:
                    break
            third.sort(key=lambda t: (-t[0], t[1]))
            return third[0][2]
        return second[0][2]

    def _expected_third(
        self, node: te.Node, odds: list[tuple[Shape, float]], ctx: te.Context, cards_after: int
    ) -> float:
        """The value of ``node`` once a card drawn by card counting is played as well as possible."""
        total = 0.0
        w = self.tower_weights
        for shape, p in odds:
            best = te.value(node, ctx, cards_after, w) - 100.0
            for a3 in te.actions(node.tower, shape, minos=self.third_minos):
                v = te.value(te.advance(node, shape, a3, ctx, 2, w), ctx, cards_after, w)
                if v > best:
                    best = v
            total += p * best
        return total

    def _with_rewards(self, game: DiceGame, option: DiceAction) -> tuple[DiceAction, float]:
        """The decision for ``option`` with its best rewards (not yet ``complete``d), and its value."""
        me = game.to_move
        params = self.params
        if game.rules.row_reward != "choose":
            with _pushed(game, option, None):
                return _bare(option), position_value(game, me, params)
        count = len(game.scoring_rows_after(option.placement, option.take))
        rewards: list[Any] = ["point"] * count
        with _pushed(game, option, tuple(rewards)):
            value = position_value(game, me, params)
        for k in range(count):
            # Each reward in turn: keep the point, or remove the opponent stone that hurts most.
            best_k: Any = "point"
            for stone in _removable_after(game, option):
                trial = rewards[:k] + [{"remove": [list(c) for c in stone]}] + rewards[k + 1 :]
                try:
                    with _pushed(game, option, tuple(trial)):
                        v = position_value(game, me, params)
                except IllegalMove:  # a stone an earlier removal already took: not a choice
                    continue
                if v > value:
                    value, best_k = v, trial[k]
            rewards[k] = best_k
        return _bare(option, tuple(rewards)), value


def _bare(option: DiceAction, rewards: tuple[Any, ...] | None = None) -> DiceAction:
    """``option`` with ``rewards``, before ``DiceGame.complete`` (what ``decision_for`` completes)."""
    return DiceAction(option.shape, option.placement, option.take, rewards)


@contextmanager
def _pushed(
    game: DiceGame,
    option: DiceAction,
    rewards: tuple[Any, ...] | None,
    tokens: tuple[Shape, ...] | None = None,
) -> Iterator[DiceGame]:
    """``game`` (the bot's own view) with ``option`` played on it, taken back after the block:
    the engine's ``push``/``pop``, no copy of the game per option. ``IllegalMove`` as ``play``."""
    game.push(option.placement, option.shape, option.take, rewards, tokens)
    try:
        yield game
    finally:
        game.pop()


def _removable_after(game: DiceGame, option: DiceAction) -> list[tuple[tuple[int, int], ...]]:
    """Cells of each stone a ``choose`` reward could remove once ``option`` is on the board: the
    rewards are settled before any row is cleared, so these are the cells before the fall. The
    placed piece is the mover's own (never removable); a taken stone is off the board."""
    taken = None if option.take is None else option.take.number
    return [s.cells for s in game.rewardable_stones() if s.number != taken]
