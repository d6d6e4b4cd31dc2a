"""The ghost piece a person steers before placing: where it is, how it turns, why it cannot go.

Kept apart from Textual so it is tested without a pilot. It decides no rule: legal spots come
from the engine (``legal_placements``, ``legal_drops``, ``mino_placement``), the reason a spot is
refused is the engine's own sentence (``DiceGame.placement_error``, ``TowerGame.drop_error``),
and turning a form is ``Orientation.rotated``/``flipped``. Each action returns None when it did
something and otherwise the sentence to show the player.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from tabletris.engine.board import Board, Placement, Stone
from tabletris.engine.dice import CHOICE, DiceAction, DiceGame
from tabletris.engine.errors import IllegalMove
from tabletris.engine.shapes import Cell, Orientation, Shape
from tabletris.engine.tower import Tower, TowerAction, TowerGame
from tabletris.table.positions import for_people
from tabletris.tui.texts import _


def _centred(placements: list[Placement], width: int) -> Placement:
    """The first form's spot nearest the middle: where a ghost starts, so it is easy to see."""
    return min(placements, key=lambda p: (p.orientation.index, abs(p.x + p.orientation.width / 2 - width / 2), p.y, p.x))


@dataclass
class DiceGhost:
    """The piece the player to move is placing: shape (★ lets it change), stone taken, form, spot."""

    game: DiceGame
    shape: Shape | None = None
    take: Stone | None = None
    orient: Orientation | None = None
    gx: int = 0
    gy: int = 0

    def start(self) -> None:
        """A new roll: the first shape that fits anywhere (or the first offered), then its best spot."""
        shapes = [s for s in self.game.shapes_for_roll() if self.game.can_place(s)] or list(self.game.shapes_for_roll())
        self.choose_shape(shapes[0])

    def choose_shape(self, shape: Shape) -> None:
        """Set the shape; if the supply is out of it, pick a stone to take that leaves a spot."""
        self.shape = shape
        takes = self.game.take_options(shape)
        usable = [t for t in takes if self.game.legal_placements(shape, t)]
        self.take = (usable or takes or [None])[0]
        self.reset()

    def legal(self) -> list[Placement]:
        assert self.shape is not None
        return self.game.legal_placements(self.shape, self.take)

    def reset(self) -> None:
        """Put the ghost on a legal spot near the middle, or at the top when none is left."""
        assert self.shape is not None
        legal = self.legal()
        board = self.game.board
        if legal:
            best = _centred(legal, board.width)
            self.orient, self.gx, self.gy = best.orientation, best.x, best.y
        else:
            self.orient = self.shape.orientations(self.game.rules.orientation_mode)[0]
            self.gx = (board.width - self.orient.width) // 2
            self.gy = board.height - self.orient.height

    @property
    def cells(self) -> tuple[Cell, ...]:
        return () if self.orient is None else self.orient.at(self.gx, self.gy)

    @property
    def placement(self) -> Placement:
        assert self.shape is not None and self.orient is not None
        return Placement(self.shape, self.orient, self.gx, self.gy)

    def action(self, rewards: tuple[object, ...] | None = None) -> DiceAction:
        """The decision the ghost stands for (rewards left to the engine unless given)."""
        assert self.shape is not None
        return DiceAction(self.shape, self.placement, self.take, rewards)  # type: ignore[arg-type]

    def reason(self) -> str | None:
        """Why the ghost's cells are not a legal placement (the engine's words), or None."""
        if self.shape is None or self.orient is None:
            return _("no piece to place")
        return for_people(self.game.placement_error(self.shape, self.cells, self.take), self.cells)

    def scoring_rows(self) -> list[int]:
        return self.game.scoring_rows_after(self.placement, self.take)

    def _clamp(self) -> None:
        assert self.orient is not None
        board = self.game.board
        self.gx = max(0, min(self.gx, board.width - self.orient.width))
        self.gy = max(0, min(self.gy, board.height - self.orient.height))

    def move(self, dx: int, dy: int) -> None:
        self.gx += dx
        self.gy += dy
        self._clamp()

    def _turn_to(self, found: Orientation) -> str | None:
        assert self.orient is not None
        if found not in found.shape.orientations(self.game.rules.orientation_mode):
            return None
        self.gx += (self.orient.width - found.width) // 2  # keep the piece's centre where it was
        self.gy += (self.orient.height - found.height) // 2
        self.orient = found
        self._clamp()
        return None

    def rotate(self, turns: int) -> str | None:
        assert self.orient is not None
        return self._turn_to(self.orient.rotated(turns))

    def flip(self) -> str | None:
        """Turn the piece over, if the rules allow its mirror image; else the engine says why not."""
        assert self.orient is not None and self.shape is not None
        found = self.orient.flipped()
        if found not in self.shape.orientations(self.game.rules.orientation_mode):
            cells = found.at(self.gx, self.gy)
            return for_people(self.game.placement_error(self.shape, cells, self.take), cells)
        return self._turn_to(found)

    def drop(self) -> str | None:
        """Let the ghost fall to the highest legal spot at or below it in its column and form."""
        assert self.shape is not None
        same = [p for p in self.legal() if p.orientation is self.orient and p.x == self.gx]
        if not same:
            return _("{shape} fits nowhere in this column in this form.").format(shape=self.shape.value)
        below = [p for p in same if p.y <= self.gy]
        self.gy = max(below, key=lambda p: p.y).y if below else min(same, key=lambda p: p.y).y
        return None

    def cycle_legal(self, step: int) -> str | None:
        """Jump to the next (or previous) legal placement in reading order."""
        assert self.shape is not None and self.orient is not None
        legal = sorted(self.legal(), key=lambda p: (p.orientation.index, p.y, p.x))
        if not legal:
            return _("{shape} fits nowhere.").format(shape=self.shape.value)
        here = (self.orient.index, self.gy, self.gx)
        keys = [(p.orientation.index, p.y, p.x) for p in legal]
        if step > 0:
            nxt = next((p for p, k in zip(legal, keys, strict=True) if k > here), legal[0])
        else:
            nxt = next((p for p, k in zip(reversed(legal), reversed(keys), strict=True) if k < here), legal[-1])
        self.orient, self.gx, self.gy = nxt.orientation, nxt.x, nxt.y
        return None

    def cycle_shape(self) -> str | None:
        assert self.shape is not None
        shapes = list(self.game.shapes_for_roll())
        if len(shapes) < 2:
            return _("The die shows {face}: there is no shape to choose.").format(face=self.game.roll_face)
        self.choose_shape(shapes[(shapes.index(self.shape) + 1) % len(shapes)])
        return None

    def cycle_take(self) -> str | None:
        assert self.shape is not None
        takes = self.game.take_options(self.shape)
        if takes == [None]:
            return _("The supply still has {shape}: nothing is taken from the board.").format(shape=self.shape.value)
        index = takes.index(self.take) if self.take in takes else -1
        self.take = takes[(index + 1) % len(takes)]
        self.reset()
        return None

    def reward_candidates(self, rows: int) -> tuple[Board | None, list[Stone]]:
        """For ``row_reward: choose``: the board once the piece is placed (rows cleared if the
        rules say so) and the stones on it another player placed; (None, []) if it cannot go."""
        view = self.game.view()
        player = view.to_move
        try:
            view.act(self.action(("point",) * rows))
        except IllegalMove:
            return None, []
        return view.board, [s for s in view.board.stones.values() if s.owner is not None and s.owner != player]

    def candidates(self) -> list[Stone]:
        """The stones that may be taken for this shape (the supply is out of it)."""
        assert self.shape is not None
        return [t for t in self.game.take_options(self.shape) if t is not None]

    def click(self, cell: Cell) -> str:
        """A click: ``"take"`` (another stone chosen), ``"place"`` (on a legal ghost) or ``"move"``."""
        assert self.shape is not None and self.orient is not None
        for stone in self.candidates():
            if cell in stone.cells and stone is not self.take:
                self.take = stone
                self.reset()
                return "take"
        if cell in self.cells and self.reason() is None:
            return "place"
        legal = [p for p in self.legal() if cell in p.cells]
        if legal:
            best = min(legal, key=lambda p: (p.orientation is not self.orient, abs(p.x - self.gx) + abs(p.y - self.gy)))
            self.orient, self.gx, self.gy = best.orientation, best.x, best.y
        else:
            self.gx = cell[0] - self.orient.width // 2
            self.gy = cell[1]
            self._clamp()
        return "move"

    @property
    def named_shape(self) -> Shape | None:
        """The shape to name in the move: only a ★ roll names one."""
        return self.shape if self.game.roll_face == CHOICE else None


@dataclass
class TowerGhost:
    """One seat's plan for the round: minos to drop first, then the PLAY piece's form and column."""

    game: TowerGame
    seat: int
    orient: Orientation | None = None
    gx: int = 0
    minos: list[int] = field(default_factory=list)
    mino_mode: bool = False

    def reset(self) -> None:
        """The PLAY piece on a legal drop near the middle (or centred on top when none is left)."""
        game = self.game
        if game.play_card is None:
            return
        drops = game.legal_drops(self.seat, self.minos)
        width = game.rules.width
        if drops:
            best = _centred(drops, width)
            self.orient, self.gx = best.orientation, best.x
        else:
            self.orient = game.play_card.orientations("rotate")[0]
            self.gx = (width - self.orient.width) // 2

    @property
    def minos_left(self) -> int:
        return self.game.towers[self.seat].minos - len(self.minos)

    def planned_tower(self) -> Tower:
        """The seat's tower with the minos planned so far dropped into a copy."""
        tower = self.game.towers[self.seat].copy()
        for column in self.minos:
            tower.board.push(tower.mino_placement(column))
        return tower

    def cells_and_reason(self) -> tuple[tuple[Cell, ...], str | None]:
        """The ghost's cells and why it cannot go there (None when it can), in the engine's words."""
        game = self.game
        if game.play_card is None or self.orient is None:
            return (), None
        tower = self.planned_tower()
        if self.mino_mode:
            if self.minos_left <= 0:
                return (), self.no_mino_left()
            try:
                return tower.mino_placement(self.gx).cells, None
            except IllegalMove as e:
                return ((self.gx, tower.board.height - 1),), str(e)
        for p in game.legal_drops(self.seat, self.minos):
            if p.orientation is self.orient and p.x == self.gx:
                return p.cells, None
        reason = game.drop_error(self.seat, self.orient, self.gx, self.minos)
        return self.orient.at(self.gx, tower.board.height - self.orient.height), reason

    def _span(self) -> int:
        assert self.orient is not None
        return 1 if self.mino_mode else self.orient.width

    def move(self, dx: int) -> None:
        self.gx = max(0, min(self.game.rules.width - self._span(), self.gx + dx))

    def rotate(self, turns: int) -> None:
        if self.orient is None or self.mino_mode:
            return
        found = self.orient.rotated(turns)
        self.gx += (self.orient.width - found.width) // 2
        self.orient = found
        self.gx = max(0, min(self.game.rules.width - found.width, self.gx))

    def no_mino_left(self) -> str:
        """The engine's refusal of one mino more than the seat has."""
        try:
            self.game.legal_drops(self.seat, [*self.minos, 0])
        except IllegalMove as e:
            return str(e)
        return _("no mino left")  # not reached: the engine refuses a mino the seat does not have

    def toggle_mino(self) -> str | None:
        if not self.mino_mode and self.minos_left <= 0:
            return self.no_mino_left()
        self.mino_mode = not self.mino_mode
        # Back from a mino at the right wall, the piece (wider than a mino) stays inside the tower.
        self.gx = max(0, min(self.game.rules.width - self._span(), self.gx))
        return None

    def unmino(self) -> int | None:
        """Take back the last planned mino; its column, or None when none is planned."""
        return self.minos.pop() if self.minos else None

    def drop(self) -> TowerAction | str | None:
        """Enter: plan the mino (None), or the round's action to submit, or why it cannot go."""
        cells, reason = self.cells_and_reason()
        if reason is not None:
            return reason
        if self.mino_mode:
            self.minos.append(self.gx)
            if self.minos_left <= 0:
                self.mino_mode = False
            return None
        assert self.orient is not None and self.game.play_card is not None
        placement = Placement(self.game.play_card, self.orient, self.gx, min(y for _, y in cells))
        return TowerAction.drop(placement, self.minos)

    def click(self, cell: Cell) -> bool:
        """A click on the tower: True when it was on a legal ghost (drop it), else the ghost moves."""
        cells, reason = self.cells_and_reason()
        if cell in cells and reason is None:
            return True
        span = self._span()
        self.gx = max(0, min(self.game.rules.width - span, cell[0] - span // 2))
        return False

