"""The lab's task model: what one simulated game is, and playing it.

The unit of work is ``run_game(task) -> GameResult``: a pure function of a small, picklable
``GameTask`` (game, rules, seats, seeds), so any backend can run it — the loop in
``lab/simulate.py``, a process pool, or a Ray cluster (``lab/ray_backend.py``) — and get the same
result. Every seed is derived from the run's seed, the preset and the game's index (never from the
order in which workers finish). Backends import this module; it imports no backend.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from tabletris.bots.base import Bot
from tabletris.bots.registry import make_bot
from tabletris.engine.errors import RulesError
from tabletris.engine.games import GAMES, spec
from tabletris.engine.records import record_of
from tabletris.table.driver import Table
from tabletris.table.seats import check_game, parse_strength

MAX_ACTIONS = 1_000_000
"""A safety net: a game longer than this is a bug (every game here ends), not a long game."""


@dataclass(frozen=True)
class SeatBot:
    """One entry of ``--seats``: a bot name and an optional strength, with its table label."""

    bot: str
    strength: float | None = None
    label: str = ""

    @classmethod
    def parse(cls, text: str) -> SeatBot:
        """``NAME`` or ``NAME@STRENGTH``; ValueError naming the item at fault."""
        name, _, level = text.strip().partition("@")
        name = name.strip()
        if not name:
            raise ValueError(f"--seats: {text!r} names no bot")
        strength = parse_strength(text.strip(), level) if level else None
        return cls(name, strength, text.strip())


def parse_seat_bots(items: Sequence[str] | str) -> tuple[SeatBot, ...]:
    """Seats from ``"expert,greedy@0.5"`` (or a list); labels made unique with ``#2``, ``#3``..."""
    if isinstance(items, str):
        items = items.split(",")
    seats = [SeatBot.parse(s) for s in items]
    if not seats:
        raise ValueError("--seats: at least one bot is needed")
    seen: dict[str, int] = {}
    out = []
    for s in seats:
        seen[s.label] = seen.get(s.label, 0) + 1
        label = s.label if seen[s.label] == 1 else f"{s.label}#{seen[s.label]}"
        out.append(SeatBot(s.bot, s.strength, label))
    return tuple(out)


@dataclass(frozen=True)
class SimConfig:
    """One simulation run: a game, its seats, how many games per preset, and the master seed."""

    game: str
    seats: tuple[SeatBot, ...]
    games: int
    seed: int = 0
    presets: tuple[str, ...] = ("standard",)
    rules: str = "{}"
    """Extra rule options on top of each preset, as a JSON object text (hashable, picklable)."""
    swap: bool = False
    """Rotate the seats game by game so each bot plays each position equally often."""
    save_records: bool = False
    budget: float | None = None

    def __post_init__(self) -> None:
        if self.game not in GAMES:
            raise ValueError(f"game: {self.game!r}: expected {' or '.join(GAMES)}")
        if self.games < 1:
            raise ValueError(f"--games: {self.games}: at least 1 game")
        if not self.presets:
            raise ValueError("--preset: at least one preset")
        if not self.seats:
            raise ValueError("--seats: at least one bot is needed")
        if self.budget is not None and not self.budget > 0:  # also refuses nan
            raise ValueError(f"--budget: {self.budget:g}: seconds per decision must be above 0")
        extra = json.loads(self.rules)
        if not isinstance(extra, dict):
            raise ValueError("--rules: expected a JSON object")

    def rules_for(self, preset: str) -> dict[str, Any]:
        rules: dict[str, Any] = {"preset": preset}
        rules.update(json.loads(self.rules))
        return rules

    def to_dict(self) -> dict[str, Any]:
        return {
            "game": self.game,
            "seats": [s.label for s in self.seats],
            "games": self.games,
            "seed": self.seed,
            "presets": list(self.presets),
            "rules": json.loads(self.rules),
            "swap": self.swap,
            "budget": self.budget,
        }


@dataclass(frozen=True)
class GameTask:
    """Everything one game needs; ``order[position]`` is the index in ``seats`` of the bot there."""

    game: str
    preset: str
    rules: str
    index: int
    seed: int
    seats: tuple[SeatBot, ...]
    order: tuple[int, ...]
    bot_seeds: tuple[int, ...]
    keep_record: bool = False
    budget: float | None = None


@dataclass(frozen=True)
class GameResult:
    """One finished game, seen per bot (``scores[bot]``) and per position (``order``)."""

    preset: str
    index: int
    seed: int
    order: tuple[int, ...]
    scores: tuple[int, ...]
    """Score of each bot, indexed like ``SimConfig.seats``."""
    wins: tuple[float, ...]
    """Each bot's share of the win: 1 for a sole winner, 1/k for a win shared by k."""
    length: int
    """Dice: turns played (the roll that ended the game included). Tower: rounds played."""
    starter: int
    """The position that moved first (dice); position 0 for the simultaneous tower game."""
    record: dict[str, Any] | None = field(default=None, compare=False)


def derive_seed(*parts: object) -> int:
    """A 32-bit seed from the run's seed and a game's coordinates, stable across processes.

    A hash, not ``hash()`` (salted per process) nor a shared generator (order-dependent).
    """
    text = ":".join(str(p) for p in parts)
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:4], "big")


def make_tasks(config: SimConfig) -> list[GameTask]:
    """The run's games in order: preset by preset, index by index.

    With ``swap``, game ``i`` rotates the seats by ``i mod n`` and uses the game seed of
    ``i // n``: the n rotations of one deal meet the same dice/deck, so the comparison between
    bots is paired and position effects cancel.
    """
    n = len(config.seats)
    tasks = []
    for preset in config.presets:
        for i in range(config.games):
            rotation = i % n if config.swap else 0
            deal = i // n if config.swap else i
            order = tuple((p + rotation) % n for p in range(n))
            tasks.append(
                GameTask(
                    config.game,
                    preset,
                    json.dumps(config.rules_for(preset), sort_keys=True),
                    i,
                    derive_seed(config.seed, preset, deal),
                    config.seats,
                    order,
                    tuple(derive_seed(config.seed, preset, i, "bot", p) for p in range(n)),
                    config.save_records,
                    config.budget,
                )
            )
    return tasks


def _bots(task: GameTask) -> list[Bot]:
    bots = []
    for position, bot_index in enumerate(task.order):
        spec = task.seats[bot_index]
        bots.append(make_bot(spec.bot, seed=task.bot_seeds[position], strength=spec.strength, budget=task.budget))
    return bots


def run_game(task: GameTask, kernel: bool = True) -> GameResult:
    """Play one game to its end; a pure function of ``task`` (the engine and bots are seeded).

    A game whose spec has a lab module (``front_ends["lab"]``: the dice kernel) is played there
    when that module can play these seats exactly (the very same games: the dice kernel's
    differential tests); otherwise, and with ``kernel=False``, through the table."""
    rules = json.loads(task.rules)
    names = [task.seats[b].label for b in task.order]
    bots = _bots(task)
    n = len(task.order)
    game_spec = spec(task.game)
    game = game_spec.new(names, rules, seed=task.seed)
    fast = kernel and game_spec.has_front_end("lab") and game_spec.front_end("lab").fast_playout(game, bots)
    if not fast:
        table = Table(game, bots)
        for _ in range(MAX_ACTIONS):
            if game.over:
                break
            table.play_bots(max_actions=1)
    if not game.over:  # pragma: no cover - every game here ends (a finite board, a finite deck)
        raise RuntimeError(f"{task.game} game {task.preset}/{task.index} did not end in {MAX_ACTIONS} actions")
    scores_by_pos = game.seat_scores()
    winners = game.winners()
    length = game.turns_played()
    starter = game.starting_seat()
    record = record_of(game) if task.keep_record else None
    scores = [0] * n
    wins = [0.0] * n
    for position, bot_index in enumerate(task.order):
        scores[bot_index] = scores_by_pos[position]
        if position in winners:
            wins[bot_index] = 1.0 / len(winners)
    return GameResult(
        task.preset, task.index, task.seed, task.order, tuple(scores), tuple(wins), length, starter, record
    )


def run_games(tasks: Sequence[GameTask]) -> list[GameResult]:
    """A batch of games in one call: what a worker process runs (fewer round trips)."""
    return [run_game(t) for t in tasks]


@dataclass
class SimulationResults:
    """A run's config and its games in task order (preset by preset, index by index)."""

    config: SimConfig
    results: list[GameResult]

    def for_preset(self, preset: str) -> list[GameResult]:
        return [r for r in self.results if r.preset == preset]


def config_from(
    game: str,
    seats: Sequence[str] | str,
    games: int,
    seed: int = 0,
    presets: Sequence[str] | None = None,
    rules: Mapping[str, Any] | None = None,
    swap: bool = False,
    save_records: bool = False,
    budget: float | None = None,
) -> SimConfig:
    """A ``SimConfig`` from plain values, rules checked against the engine before any game runs."""
    config = SimConfig(
        game,
        parse_seat_bots(seats),
        games,
        seed,
        tuple(presets or ("standard",)),
        json.dumps(dict(rules or {}), sort_keys=True),
        swap,
        save_records,
        budget,
    )
    for preset in config.presets:
        try:
            spec(game).rules(config.rules_for(preset))
        except RulesError as e:
            raise ValueError(f"--preset {preset}: {e}") from None
    limit = spec(game).max_players
    if len(config.seats) > limit:
        raise ValueError(f"--seats: the {game} game takes 1 to {limit} players, got {len(config.seats)}")
    for s in config.seats:
        make_bot(s.bot, strength=s.strength)  # ValueError naming the known bots
    check_game([s.bot for s in config.seats], game)
    return config
