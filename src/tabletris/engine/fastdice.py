"""Whole dice turns in compiled code: random, greedy and expert playouts from any position (issue 19).

``DiceGame`` (engine/dice.py) is the reference and stays the only implementation the front ends
use. The compiled core's dice kernel (``engine/_dice_kernel.c``) is a second copy of one turn's rules,
accepted because ``tests/test_fastdice.py`` plays thousands of whole games on both from the same
seeds and checks that records, scores, supply, board, tokens and the generators' states agree
exactly. It draws from CPython's own Mersenne Twister (loaded from and stored back to the game's
and the bots' ``random.Random``), so a game played here continues exactly as Python would play it.

``playout(game, policies, rngs, weights)`` plays from ``game``'s position to the end (or for
``max_turns`` turns) and writes the result back into ``game``: its board object, scores, supply,
tokens, moves and generator, as ``play`` would have left them. Seats play ``random``
(``RandomBot.choose_dice``: ``rng.randrange`` over the turn's options) or ``greedy``
(``GreedyBot.choose_dice`` at full strength with the ``weights`` given in ``Weights.cost``
order) or ``expert`` (``ExpertBot.choose_dice`` at full strength: ``bots/_dice_expert.c``, checked
against the Python expert decision for decision by tests/test_fastexpert*.py; one decision alone
is ``expert_decision``). ``supports(rules)`` says whether the kernel plays a rule set; what it does not play
(``row_reward: choose``, boards wider than 63, the pure engine) stays with the Python engine.
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Sequence
from functools import lru_cache
from typing import Any

from tabletris.engine.board import (
    ACCESS_CODE,
    NATIVE_MAX_WIDTH,
    Board,
    Placement,
    Stone,
    native_module,
    shape_spec,
)
from tabletris.engine.dice import CHOICE, MAX_PLAYERS, DiceAction, DiceGame, DiceMove, DiceRules
from tabletris.engine.shapes import Shape

POLICIES = ("random", "greedy", "expert")
"""The seat policies the kernel plays, by their bots' registry names."""

MAX_FACES = 64
"""The most faces the kernel's die has (``DK_FACES`` in ``_dice_kernel.c``)."""

KERNEL_INT_MAX = 2**31 - 1
"""The largest int the kernel holds (its counts and the target are C ints: ``INT_MAX``)."""

KERNEL_MAX_COUNT = KERNEL_INT_MAX // 8
"""The most a count of a game (supply, score, turn) may be in the kernel (``DK_MAX_COUNT``): a
turn adds at most 4 to a count, so from there none overflows; the kernel stops at this turn."""

KERNEL_READS = frozenset({
    "preset",  # a name only: build_options has put its values into the other fields
    "width", "height", "die", "orientation", "access", "clear_rows", "target",  # kernel_rules
    "stuck_penalty", "rescore_reopened", "take", "must_close",  # kernel_rules' flags
    "unlimited_supply", "tokens_from_supply",  # the flags' limited_supply and takes_tokens
    "supply", "first_player",  # fresh_state (kernel_state: the game's supply and seat)
    "garbage",  # placed by the Python engine before the kernel starts (fresh_state: None)
    "row_reward",  # only "point" (unsupported refuses "choose")
})
"""The ``DiceRules`` fields the kernel plays by. ``unsupported`` refuses rules with any other
field, so an option added to ``DiceRules`` stays with the Python engine (which plays it) until
the kernel reads it and it is added here: never silently ignored by the kernel."""

POLICY_CODE = {"random": 0, "greedy": 1, "expert": 2}
"""Each policy's code (``POLICY_*`` in ``_dice_kernel.c``)."""
CLEAR_CODE = {False: 0, "cells": 1, "stones": 2}
"""Each ``clear_rows`` value's code (``CLEAR_*``)."""
FLAG_LIMITED, FLAG_TOKENS, FLAG_TAKE_ANY, FLAG_MUST_CLOSE, FLAG_STUCK_PENALTY, FLAG_RESCORE = 1, 2, 4, 8, 16, 32
"""The bits of the rules' flags (``F_*``)."""


_UNREAD: dict[type[DiceRules], tuple[str, ...]] = {}


def _unread_fields(cls: type[DiceRules]) -> tuple[str, ...]:
    """The fields of ``cls`` the kernel does not read, worked out once per class (``supports``
    is asked on every expert decision)."""
    unread = _UNREAD.get(cls)
    if unread is None:
        unread = _UNREAD[cls] = tuple(f.name for f in dataclasses.fields(cls) if f.name not in KERNEL_READS)
    return unread


def unsupported(rules: DiceRules) -> str | None:
    """Why the kernel cannot play ``rules`` (the Python engine then plays them), or None."""
    nat = native_module()
    if nat is None or not hasattr(nat, "dice_playout"):
        return "the compiled core is not in use"
    unread = _unread_fields(type(rules))
    if unread:
        return f"rules.{unread[0]}: an option the dice kernel does not read (fastdice.KERNEL_READS)"
    if rules.row_reward != "point":
        return "row_reward: choose (the removal reward is a decision the kernel does not make)"
    if rules.width > NATIVE_MAX_WIDTH:
        return f"boards wider than {NATIVE_MAX_WIDTH}"
    if len(rules.die) > MAX_FACES:
        return f"dice with more than {MAX_FACES} faces"
    if rules.supply > KERNEL_MAX_COUNT // MAX_PLAYERS:
        return (f"rules.supply: {rules.supply} is more than the kernel counts "
                f"({KERNEL_MAX_COUNT // MAX_PLAYERS} stones of a shape per player)")
    if rules.target > KERNEL_INT_MAX:
        return f"rules.target: {rules.target} is more than the kernel counts ({KERNEL_INT_MAX})"
    return None


def supports(rules: DiceRules) -> bool:
    return unsupported(rules) is None


def _flags(rules: DiceRules) -> int:
    return (
        (FLAG_LIMITED if rules.limited_supply else 0)
        | (FLAG_TOKENS if rules.takes_tokens else 0)
        | (FLAG_TAKE_ANY if rules.take == "any" else 0)
        | (FLAG_MUST_CLOSE if rules.must_close else 0)
        | (FLAG_STUCK_PENALTY if rules.stuck_penalty else 0)
        | (FLAG_RESCORE if rules.rescore_reopened else 0)
    )


def kernel_rules(rules: DiceRules, players: int, weights: Sequence[float]) -> tuple[Any, ...]:
    """The rules as the kernel reads them (see ``dk_load_rules`` in ``_dice_kernel.c``)."""
    shapes = rules.shapes
    mode = rules.orientation_mode
    die = bytes(255 if face == CHOICE else shapes.index(Shape(face)) for face in rules.die)
    return (
        rules.width,
        rules.height,
        ACCESS_CODE[rules.access_mode],
        tuple(shape_spec(s, mode) for s in shapes),
        die,
        _flags(rules),
        CLEAR_CODE[rules.clear_rows],
        rules.target,
        players,
        tuple(float(w) for w in weights),
    )


def kernel_state(game: DiceGame, with_rng: bool = True) -> tuple[Any, ...]:
    """``game``'s position as the kernel reads it (see ``dk_load_state``); without ``with_rng``
    the generator is left out (seed 0 instead: a decision draws nothing, and a view's
    generator is not the game's anyway)."""
    shapes = game.rules.shapes
    stones = []
    for stone in sorted(game.board.stones.values(), key=lambda s: s.number):
        cells = bytes(v for cell in stone.cells for v in cell)
        stones.append((shapes.index(stone.shape), -1 if stone.owner is None else stone.owner, stone.number, cells))
    return (
        stones,
        game.board._next_number,
        tuple(game.supply.get(s, 0) for s in shapes),
        tuple(game.scores),
        tuple(game.rows_completed),
        game.scored_rows,
        game.turn,
        game.to_move,
        -1 if game.roll_face is None else game.rules.die.index(game.roll_face),
        int(game.over),
        -1 if game.stuck is None else game.stuck,
        game.rng.getstate()[1] if with_rng else 0,
    )


def fresh_state(rules: DiceRules, players: int, seed: int) -> tuple[Any, ...] | None:
    """``kernel_state`` of ``DiceGame(players, rules, seed=seed)`` before its first roll, without
    building the game (the kernel seeds its generator as ``random.Random(seed)`` does, for
    0 <= seed < 2**32); None when the rules place garbage (drawn by the Python engine)."""
    if rules.garbage:
        return None
    shapes = rules.shapes
    return (
        [], 1, (rules.supply * players,) * len(shapes), (0,) * players, (0,) * players, 0, 0,
        rules.first_player, -1, 0, -1, seed,
    )


def playout(
    game: DiceGame,
    policies: Sequence[str],
    rngs: Sequence[random.Random | None],
    weights: Sequence[float],
    max_turns: int | None = None,
    expert: Sequence[float] | None = None,
) -> list[DiceMove]:
    """Play ``game`` on in the kernel until it is over (or ``max_turns`` turns, a stuck roll
    counting as one); the moves made, which ``game`` now holds as if ``play`` had made them.

    ``policies[seat]`` is ``random``, ``greedy`` or ``expert``; ``rngs[seat]`` the random seat's
    bot generator (drawn from and left where Python's bot would leave it; None for the others).
    An ``expert`` seat plays ``ExpertBot.choose_dice`` at full strength with the params
    ``expert`` (``expert_params``; the expert's weights are ``weights``, shared with greedy).
    ValueError when the kernel does not play these rules (``unsupported``) or the game is in
    the middle of a lookahead (``push`` without ``pop``)."""
    why = unsupported(game.rules)
    if why is not None:
        raise ValueError(f"the dice kernel does not play this game: {why}")
    if game._undo:
        raise ValueError("the dice kernel plays from a position, not inside a push/pop lookahead")
    n = game.player_count
    if len(policies) != n or len(rngs) != n:
        raise ValueError(f"one policy and one generator per seat: {n} seats")
    codes = []
    for seat, name in enumerate(policies):
        if name not in POLICY_CODE:
            raise ValueError(f"policies[{seat}]: {name!r}: expected one of {', '.join(POLICIES)}")
        if name == "random" and rngs[seat] is None:
            raise ValueError(f"policies[{seat}]: a random seat needs its bot's generator")
        if name == "expert" and expert is None:
            raise ValueError(f"policies[{seat}]: an expert seat needs the expert's params")
        codes.append(POLICY_CODE[name])
    bot_states = tuple(
        r.getstate()[1] if r is not None and name == "random" else None for r, name in zip(rngs, policies, strict=True)
    )
    nat = native_module()
    assert nat is not None
    rules = kernel_rules(game.rules, n, weights)
    limit = (1 << 62) if max_turns is None else max_turns
    extra = () if expert is None else (_params(expert),)
    raw_moves, state, bot_after = nat.dice_playout(rules, kernel_state(game), bytes(codes), bot_states, limit, *extra)
    for r, name, after in zip(rngs, policies, bot_after, strict=True):
        if r is not None and name == "random":
            version, _, gauss = r.getstate()
            r.setstate((version, after, gauss))
    return write_back(game, raw_moves, state)


def expert_params(win_bonus: float, threat: float, shape: float, starve: float, width: int) -> tuple[float, ...]:
    """The expert's tuning as the kernel reads it (``bots.expert.DiceParams`` and its width)."""
    return (float(win_bonus), float(threat), float(shape), float(starve), float(width))


def _params(expert: Sequence[float]) -> tuple[float, float, float, float, int]:
    if len(expert) != 5 or int(expert[4]) < 1:
        raise ValueError("expert params: expected (win_bonus, threat, shape, starve, width >= 1)")
    return (float(expert[0]), float(expert[1]), float(expert[2]), float(expert[3]), int(expert[4]))


def expert_decision(game: DiceGame, expert: Sequence[float], weights: Sequence[float]) -> DiceAction | None:
    """``ExpertBot.choose_dice`` at full strength for the roll showing in ``game``, made in the
    kernel in one call (``bots/_dice_expert.c``; tests/test_fastexpert*.py check it is the Python
    expert's decision): the option, completed as the Python expert completes it (its tokens
    chosen when points take them). None when the kernel does not play these rules, no roll
    shows, the game is over or the roll has no option: the Python expert then decides (or says
    why it cannot)."""
    rules = game.rules
    if game.roll_face is None or game.over or not supports(rules):
        return None
    nat = native_module()
    assert nat is not None
    got = nat.expert_decide(
        _rules_for(rules, game.player_count, tuple(weights)), kernel_state(game, with_rng=False), _params(expert)
    )
    if got is None:
        return None
    shape_index, take, orient, x, y, tokens = got
    shapes = rules.shapes
    shape = shapes[shape_index]
    placement = Placement(shape, shape.orientations(rules.orientation_mode)[orient], x, y)
    stone = None if take < 0 else game.board.stones[take]
    chosen = tuple(shapes[t] for t in tokens) if rules.takes_tokens else None
    return DiceAction(shape, placement, stone, None, chosen)


def _rules_for(rules: DiceRules, players: int, weights: tuple[float, ...]) -> tuple[Any, ...]:
    """``kernel_rules``, cached: one decision is ~0.2 ms and the tuple costs ~10 us to build.
    Rules holding a list (garbage given as cells) cannot be a cache key: built each time."""
    try:
        hash(rules)
    except TypeError:
        return kernel_rules(rules, players, weights)
    return _rules_cached(rules, players, weights)


@lru_cache(maxsize=64)
def _rules_cached(rules: DiceRules, players: int, weights: tuple[float, ...]) -> tuple[Any, ...]:
    return kernel_rules(rules, players, weights)


def write_back(game: DiceGame, raw_moves: Sequence[Any], state: Sequence[Any]) -> list[DiceMove]:
    """Put the kernel's position and moves into ``game``, as ``play`` leaves them."""
    rules = game.rules
    shapes = rules.shapes
    mode = rules.orientation_mode
    stones, next_number, supply, scores, done, scored, turn, to_move, roll, over, stuck, rng = state
    first_new = game.board._next_number
    moves = []
    for player, face_index, shape_index, orient, x, y, take, tokens in raw_moves:
        face = rules.die[face_index]
        if shape_index < 0:
            moves.append(DiceMove(player, face))
            continue
        shape = shapes[shape_index]
        moves.append(DiceMove(
            player,
            face,
            shape if face == CHOICE else None,
            None if take is None else tuple((take[i], take[i + 1]) for i in range(0, len(take), 2)),
            shape.orientations(mode)[orient].at(x, y),
            None,
            tuple(shapes[t] for t in tokens) or None,
        ))
        if tokens:
            game.tokens[player].extend(shapes[t] for t in tokens)
    board: Board = game.board
    board.occupied = 0
    board.stones = {}
    board._grid = [None] * len(board._grid)
    for shape_index, owner, number, cells in stones:
        board.add(Stone(
            shapes[shape_index],
            tuple((cells[i], cells[i + 1]) for i in range(0, len(cells), 2)),
            None if owner < 0 else owner,
            number,
        ))
    board._next_number = next_number
    board._stack = [k for k in [*board._stack, *range(first_new, next_number)] if k in board.stones]
    game.supply = {s: supply[i] for i, s in enumerate(shapes)}
    game.scores = list(scores)
    game.rows_completed = list(done)
    game.scored_rows = scored
    game.turn = turn
    game.to_move = to_move
    game.roll_face = None if roll < 0 else rules.die[roll]
    game.over = bool(over)
    game.stuck = None if stuck < 0 else stuck
    version, _, gauss = game.rng.getstate()
    game.rng.setstate((version, rng, gauss))
    game.moves.extend(moves)
    game._cache = {}
    game._duty = {}
    return moves
