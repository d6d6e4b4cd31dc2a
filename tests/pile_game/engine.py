"""The pile game: a third game that lives only in the test suite, to prove that a game is its spec.

Two players and a pile of stones. Each turn the die is rolled (chance) and the player to move
takes 1 to the rolled number of stones (never more than are left); who takes the last stone wins.
A few moves, a chance element, legal actions that change with the roll: enough to exercise every
shared layer (table, records, replay, lab, server, envs) without naming the game anywhere there.

The engine answers ``tabletris.engine.games.Game`` exactly as the dice and tower engines do.
"""

from __future__ import annotations

import random
import secrets
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from tabletris.engine.errors import IllegalMove, RecordError, RulesError
from tabletris.engine.options import build_options, options_to_spec
from tabletris.engine.record_format import FORMAT, fail, is_int

PRESETS: dict[str, dict[str, Any]] = {"standard": {}, "long": {"stones": 15}}
RULE_HELP = {"stones": "Stones on the pile at the start.", "die": "The die's highest face: a turn takes 1 to the roll."}


@dataclass(frozen=True)
class PileRules:
    preset: str = "standard"
    stones: int = 9
    die: int = 3

    def __post_init__(self) -> None:
        if not 1 <= self.stones <= 99:
            raise RulesError(f"rules.stones: {self.stones} is out of range (1-99)")
        if not 1 <= self.die <= 6:
            raise RulesError(f"rules.die: {self.die} is out of range (1-6)")

    @classmethod
    def from_dict(cls, raw: Mapping[str, Any] | None = None) -> PileRules:
        return build_options(cls, PRESETS, raw)


@dataclass(frozen=True)
class Take:
    """A player's action: how many stones they take."""

    count: int


class PileGame:
    def __init__(self, players: Sequence[str], rules: PileRules | Mapping[str, Any] | None = None, seed: int | None = None) -> None:
        if len(players) != 2:
            raise RulesError(f"players: the pile game takes 2 players, got {len(players)}")
        self.players = list(players)
        self.rules = rules if isinstance(rules, PileRules) else PileRules.from_dict(rules)
        self.rules_spec = options_to_spec(self.rules, PRESETS)
        self.seed = seed if seed is not None else secrets.randbits(32)
        self.rng: random.Random | None = random.Random(self.seed)
        self.left = self.rules.stones
        self.to_move = 0
        self.roll_face: int | None = None
        self.moves: list[dict[str, Any]] = []
        self.over = False
        self.winner: int | None = None
        self.viewer: int | None = None

    def roll(self, face: int | None = None) -> int:
        if self.over or self.roll_face is not None:
            raise IllegalMove("the die is already rolled" if not self.over else "the game is over")
        if self.rng is None:  # a view: its die knows nothing of the game's
            self.rng = random.Random()
        drawn = self.rng.randint(1, self.rules.die)
        self.roll_face = drawn if face is None else face
        return self.roll_face

    # ---------------------------------------------------------------- protocol
    def to_act(self) -> list[int]:
        return [] if self.over or self.roll_face is None else [self.to_move]

    def advance(self) -> list[dict[str, Any]]:
        if not self.over and self.roll_face is None:
            self.roll()
        return []

    def check_can_act(self, seat: int) -> None:
        if self.over:
            raise IllegalMove("the game is over")
        if seat != self.to_move:
            raise IllegalMove(f"it is {self.players[self.to_move]}'s turn, not seat {seat}'s")

    def legal_actions(self, seat: int) -> list[Take]:
        if seat not in self.to_act():
            return []
        assert self.roll_face is not None
        return [Take(n) for n in range(1, min(self.roll_face, self.left) + 1)]

    def complete(self, action: Take) -> Take:
        return action

    def apply(self, seat: int, action: Take) -> list[dict[str, Any]]:
        if not isinstance(action, Take):
            raise TypeError(f"a pile action is a Take, got {type(action).__name__}")
        self.check_can_act(seat)
        self.advance()
        if action not in self.legal_actions(seat):
            raise IllegalMove(f"take {action.count}: the die shows {self.roll_face} and {self.left} stones are left")
        move = {"player": seat, "roll": self.roll_face, "take": action.count}
        self.left -= action.count
        self.moves.append(move)
        self.roll_face = None
        if self.left == 0:
            self.over = True
            self.winner = seat
        else:
            self.to_move = 1 - seat
        return [dict(move)]

    def seat_view(self, seat: int | None, reveal: bool = False) -> PileGame:
        other = PileGame.__new__(PileGame)
        other.__dict__.update(self.__dict__)
        other.moves = [dict(m) for m in self.moves]
        other.rng = None
        other.seed = 0
        other.viewer = seat
        return other

    def seat_scores(self) -> list[int]:
        return [1 if self.winner == i else 0 for i in range(2)]

    def winners(self) -> list[int]:
        return [] if self.winner is None else [self.winner]

    def turn_key(self) -> int:
        return len(self.moves)

    def turns_played(self) -> int:
        return len(self.moves)

    def starting_seat(self) -> int:
        return 0

    def summary(self) -> dict[str, Any]:
        return {
            "game": "pile",
            "over": self.over,
            "turn": len(self.moves),
            "players": [{"name": n, "score": s} for n, s in zip(self.players, self.seat_scores(), strict=True)],
            "winners": [self.players[i] for i in self.winners()],
            "left": self.left,
        }


# -------------------------------------------------------------------- records


def write_record(game: PileGame) -> dict[str, Any]:
    return {"format": FORMAT, "game": "pile", "players": list(game.players), "rules": game.rules_spec, "seed": game.seed,
            "moves": [dict(m) for m in game.moves]}


def replay_record(doc: Mapping[str, Any]) -> PileGame:
    for key in doc:
        if key not in ("format", "game", "players", "rules", "seed", "moves"):
            raise fail(key, "unknown key for a pile record")
    moves = doc.get("moves", [])
    if not isinstance(moves, list):
        raise fail("moves", "expected a list of turns")
    try:
        game = PileGame(doc["players"], doc.get("rules"), seed=doc.get("seed"))
    except RulesError as e:
        raise RecordError(str(e)) from None
    for number, move in enumerate(moves, 1):
        if not isinstance(move, dict) or not all(is_int(move.get(k)) for k in ("roll", "take")):
            raise fail(f"moves[{number - 1}]", "expected {\"player\", \"roll\", \"take\"}")
        try:
            game.roll(move["roll"])
            game.apply(game.to_move, Take(move["take"]))
        except IllegalMove as e:
            raise RecordError(f"move {number}: {e}") from None
    return game
