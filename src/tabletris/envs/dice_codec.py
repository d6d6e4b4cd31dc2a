"""The dice game as fixed-size numbers: one discrete action space and one observation vector.

Every AI interface (PettingZoo, Gymnasium, OpenSpiel) speaks the same encoding, so an agent
trained through one of them reads and acts the same way through the others. The encoding only
translates: which moves are legal is always asked of ``DiceGame``.

Action space (``Discrete(n_shapes * n_orient * height * width)``)::

    action = ((shape_index * n_orient + orientation_index) * height + y) * width + x

- ``shape_index``: position of the shape in ``rules.shapes`` (the die's shapes, in die order).
  On a plain face only that shape's actions are legal; on ``*`` every shape's are: the ``*``
  choice is folded into the action.
- ``orientation_index``: position in ``shape.orientations(rules.orientation_mode)``;
  ``n_orient`` is the most any die shape has (8 under ``free``, 4 under ``rotate``).
- ``(x, y)``: the lower-left corner of the piece's bounding box.
- *take* is folded in too: when the supply has no stone of the shape, the action is legal if
  some takeable stone makes room for it, and the first such stone (lowest number) is taken.
- *rewards* under ``row_reward: choose``: every completed row is taken as a point, the same
  default the built-in bots use.

Observation (a flat ``float32`` vector, slices named by ``DiceCodec.layout``): three board
planes ``(3, height, width)`` seen from the observing seat (own stones, other players' stones,
garbage), the face showing (one-hot over ``rules.shapes`` then ``*``), whose turn it is (one-hot,
seats counted from the observer), the supply left per die shape (as a fraction of the starting
supply; 1 when the supply is unlimited) and the scores (seats counted from the observer).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from tabletris.engine.board import Placement, Stone
from tabletris.engine.dice import CHOICE, DiceGame, DiceRules
from tabletris.engine.shapes import Orientation, Shape

SCORE_BOUND = 1000.0
"""Scores in observations are clipped to +-this, so the observation space is bounded."""


@dataclass(frozen=True)
class DiceChoice:
    """What one action means for the pending roll: the engine's own objects, ready to play."""

    shape: Shape
    placement: Placement
    take: Stone | None


class DiceCodec:
    """The action and observation encoding for one rules set and number of players."""

    def __init__(self, rules: DiceRules, players: int) -> None:
        self.rules = rules
        self.players = players
        self.shapes: tuple[Shape, ...] = rules.shapes
        mode = rules.orientation_mode
        self.orientations: dict[Shape, tuple[Orientation, ...]] = {
            s: s.orientations(mode) for s in self.shapes
        }
        self.n_orient = max(len(o) for o in self.orientations.values())
        self.width = rules.width
        self.height = rules.height
        self.n_actions = len(self.shapes) * self.n_orient * self.height * self.width
        self.faces: tuple[str, ...] = (*(s.value for s in self.shapes), CHOICE)
        # Keyed by cells, not by the Orientation object: a deep-copied game (OpenSpiel clones
        # states that way) holds copies of the interned orientations.
        self._orient_index = {
            (s, o.cells): i for s, forms in self.orientations.items() for i, o in enumerate(forms)
        }
        self._shape_index = {s: i for i, s in enumerate(self.shapes)}
        sizes = [
            ("board", 3 * self.height * self.width),
            ("face", len(self.faces)),
            ("to_move", players),
            ("supply", len(self.shapes)),
            ("scores", players),
        ]
        self.layout: dict[str, slice] = {}
        start = 0
        for name, size in sizes:
            self.layout[name] = slice(start, start + size)
            start += size
        self.obs_size = start
        self.obs_low = np.zeros(self.obs_size, dtype=np.float32)
        self.obs_high = np.ones(self.obs_size, dtype=np.float32)
        self.obs_low[self.layout["scores"]] = -SCORE_BOUND
        self.obs_high[self.layout["scores"]] = SCORE_BOUND

    # ---------------------------------------------------------------- actions

    def encode(self, placement: Placement) -> int:
        """The action index of ``placement`` (its shape must be on the die)."""
        s = self._shape_index[placement.shape]
        o = self._orient_index[(placement.shape, placement.orientation.cells)]
        return ((s * self.n_orient + o) * self.height + placement.y) * self.width + placement.x

    def describe(self, action: int) -> str:
        """An action in words, for error messages and OpenSpiel's action strings."""
        if not 0 <= action < self.n_actions:
            return f"action {action} (out of range 0-{self.n_actions - 1})"
        rest, x = divmod(int(action), self.width)
        rest, y = divmod(rest, self.height)
        s, o = divmod(rest, self.n_orient)
        shape = self.shapes[s]
        forms = self.orientations[shape]
        if o >= len(forms):
            return f"action {action} ({shape.value}, orientation {o} does not exist)"
        cells = forms[o].at(x, y)
        return f"{shape.value} " + "[" + ",".join(f"[{cx},{cy}]" for cx, cy in cells) + "]"

    def choices(self, game: DiceGame) -> dict[int, DiceChoice]:
        """Every legal action for the pending roll of ``game``, with what it plays."""
        result: dict[int, DiceChoice] = {}
        if game.over or game.roll_face is None:
            return result
        for shape in game.shapes_for_roll():
            for take in game.take_options(shape):
                for p in game.legal_placements(shape, take):
                    a = self.encode(p)
                    if a not in result:
                        result[a] = DiceChoice(shape, p, take)
        return result

    def mask(self, choices: dict[int, DiceChoice]) -> np.ndarray:
        """The action mask (``int8``, 1 = legal) for the actions in ``choices``."""
        m = np.zeros(self.n_actions, dtype=np.int8)
        if choices:
            m[np.fromiter(choices, dtype=np.int64)] = 1
        return m

    # ----------------------------------------------------------- observations

    def observe(self, game: DiceGame, seat: int) -> np.ndarray:
        """The observation vector of ``game`` for ``seat`` (see the module docstring)."""
        obs = np.zeros(self.obs_size, dtype=np.float32)
        h, w = self.height, self.width
        planes = obs[self.layout["board"]].reshape(3, h, w)
        for stone in game.board.stones.values():
            plane = 2 if stone.owner is None else 0 if stone.owner == seat else 1
            for x, y in stone.cells:
                planes[plane, y, x] = 1.0
        if game.roll_face is not None:
            face = game.roll_face
            obs[self.layout["face"].start + self.faces.index(face)] = 1.0
        n = self.players
        if not game.over:
            obs[self.layout["to_move"].start + (game.to_move - seat) % n] = 1.0
        start = self.layout["supply"].start
        full = max(1, self.rules.supply * n)
        for i, shape in enumerate(self.shapes):
            left = game.supply.get(shape, 0) if game.rules.limited_supply else full
            obs[start + i] = min(1.0, left / full)
        start = self.layout["scores"].start
        for k in range(n):
            score = game.scores[(seat + k) % n]
            obs[start + k] = max(-SCORE_BOUND, min(SCORE_BOUND, score))
        return obs
