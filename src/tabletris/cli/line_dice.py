"""The dice game at a plain terminal: one line of input per decision, bots in between.

Everything a rule decides comes from the engine (legal placements, takes, rewards, the end); this
module only shows the position and turns typed lines into engine calls. Bad input is answered with
the reason and asked again.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.text import Text

from tabletris.cli.line_game import LineGame, orientation_picture, play_line_game
from tabletris.cli.render import board_text, scoreboard, shape_style
from tabletris.engine.board import Placement, Stone
from tabletris.engine.dice import CHOICE, DiceAction, DiceGame
from tabletris.engine.errors import IllegalMove
from tabletris.engine.shapes import Shape
from tabletris.i18n import N_, _, ngettext, translate
from tabletris.table.positions import cells_text, for_people, numbers, shown, typed
from tabletris.table.seats import SeatSpec

HELP = N_("""\
Place the rolled piece:
  O C        orientation number O (see the pictures) with its left edge in column C
  O C Y      the same, with its bottom row at Y (when the piece fits at several heights)
  x,y x,y x,y x,y   the four cells themselves, column then row (columns and rows count from 1,
             row 1 at the bottom; a record's cells as JSON count from 0: [[0,0],[1,0],[2,0],[1,1]])
Other commands:
  list       show the board and the legal places again
  undo       take back your last move (and the bots' moves after it)
  help       this text
  quit       stop the game (the record is saved with --save)""")


class LineDiceGame(LineGame[DiceGame]):
    """One dice game at the terminal."""

    def show(self, marks: dict[tuple[int, int], str] | None = None) -> None:
        g = self.game
        self.console.print(board_text(g.board.rows(), color=self.color, marks=marks))
        supply = _("unlimited") if not g.rules.limited_supply else "  ".join(
            f"{s.value}:{n}" for s, n in g.supply.items()
        )
        self.console.print(Text(_("supply {supply}").format(supply=supply), style="dim"))
        if any(g.tokens):
            held = "; ".join(
                f"{name} {' '.join(t.value for t in mine)}" for name, mine in zip(g.players, g.tokens, strict=True) if mine
            )
            self.console.print(Text(_("point tokens (out of the supply): {held}").format(held=held), style="dim"))
        self.console.print(scoreboard(g.players, g.scores, to_move=None if g.over else g.to_move))

    # ------------------------------------------------------------------ loop

    def run(self) -> None:
        g = self.game
        self.show()
        while not g.over:
            player = g.to_move
            name = g.players[player]
            if not self.table.to_act():  # the roll (made by the driver) cannot be placed: the end
                face = g.moves[-1].roll
                self.say("\n" + _("{name} rolls {face}").format(name=name, face=face), style="bold")
                shapes = " ".join(s.value for s in g.shapes_for_roll(face))
                self.say(_("{shapes} cannot be placed anywhere: the game ends.").format(shapes=shapes), style="bold red")
                break
            face = g.roll_face or ""
            self.say("\n" + _("{name} rolls {face}").format(name=name, face=face), style="bold")
            score_before = g.scores[player]
            if self.table.is_bot(player):
                self.table.play_bot(player)
                move = g.moves[-1]
                self.say(
                    _("{name} places {shape} at {cells}").format(name=name, shape=move.shape or face, cells=cells_text(move.place or ()))
                )
                self._report_move(player, score_before)
                self.show()
            elif self.human_turn(player):
                self._report_move(player, score_before)
                self.show()
        self.finish()

    def _report_move(self, player: int, score_before: int) -> None:
        move = self.game.moves[-1]
        name = self.game.players[player]
        gained = self.game.scores[player] - score_before
        if gained:
            self.say(ngettext("{name} scores {count} point!", "{name} scores {count} points!", gained).format(name=name, count=gained), style="bold green")
        for reward in move.rewards or ():
            if not isinstance(reward, str):
                self.say(_("{name} removes the stone at {cells}").format(name=name, cells=cells_text(reward)))
        if move.tokens:
            shown = " ".join(t.value for t in move.tokens)
            self.say(
                ngettext(
                    "{name} takes {shapes} out of the supply as point token",
                    "{name} takes {shapes} out of the supply as point tokens",
                    len(move.tokens),
                ).format(name=name, shapes=shown)
            )

    def finish(self) -> None:
        g = self.game
        self.say("\n" + _("Game over."), style="bold")
        self.show()
        winners = [g.players[i] for i in g.winners()]
        self.say(ngettext("Winner: {names}", "Winners: {names}", len(winners)).format(names=", ".join(winners)), style="bold green")

    # ---------------------------------------------------------- human turns

    def human_turn(self, player: int) -> bool:
        """Ask the human to move; False when an undo changed whose turn it is."""
        g = self.game
        while True:
            shape = self.ask_shape()
            if shape is None:
                return False
            take = self.ask_take(shape)
            if take is False:
                continue
            placements = g.legal_placements(shape, take if isinstance(take, Stone) else None)
            if g.must_close_applies(shape):
                self.say(_("must_close: a placement completes a row, so only those are offered."), style="yellow")
            self.show_orientations(shape, placements)
            while True:
                line = self.ask(_("{name}, place {shape} (O C, cells, list, undo, help): ").format(name=g.players[player], shape=shape.value))
                if not line:
                    continue
                cmd = line.lower()
                if cmd == "help":
                    self.say(_(HELP))
                    continue
                if cmd == "list":
                    self.show()
                    self.show_orientations(shape, placements)
                    continue
                if cmd == "undo":
                    if self.undo(player):
                        return False
                    continue
                try:
                    placement = self.parse_placement(line, shape, placements, take if isinstance(take, Stone) else None)
                except ValueError as e:
                    self.say(f"✗ {translate(e)}", style="red")
                    continue
                rewards = self.ask_rewards(placement, take if isinstance(take, Stone) else None)
                tokens = self.ask_tokens(placement, shape, take if isinstance(take, Stone) else None, rewards)
                action = DiceAction(
                    shape, placement, take if isinstance(take, Stone) else None,
                    None if rewards is None else tuple(rewards), tokens,
                )
                try:
                    self.table.act(player, action)
                except IllegalMove as e:
                    self.say(f"✗ {translate(e)}", style="red")
                    continue
                return True

    def ask_shape(self) -> Shape | None:
        g = self.game
        if g.roll_face != CHOICE:
            return Shape(g.roll_face or "")
        options = [s for s in g.shapes_for_roll() if g.can_place(s)]
        names = " ".join(s.value for s in options)
        while True:
            line = self.ask(_("The die shows *: name a shape ({shapes}): ").format(shapes=names))
            if line.lower() == "undo":
                if self.undo(g.to_move):
                    return None
                continue
            if line.lower() == "help":
                self.say(_("Name any shape on the die; only shapes that can be placed are offered."))
                continue
            try:
                shape = Shape.parse(line)
            except ValueError:  # the choice is among the offered shapes, not all the game's
                self.say("✗ " + _("{text!r} is not one of {shapes}").format(text=line, shapes=names), style="red")
                continue
            if shape not in options:
                self.say("✗ " + _("{shape} is not one of {shapes}").format(shape=shape.value, shapes=names), style="red")
                continue
            return shape

    def ask_take(self, shape: Shape) -> Stone | None | bool:
        """The stone to take off the board when the supply is out; False to choose again."""
        g = self.game
        options = [s for s in g.take_options(shape) if s is not None and g.legal_placements(shape, s)]
        if not g.take_candidates(shape) and g.take_options(shape) == [None]:
            return None
        if not options:
            self.say("✗ " + _("no {shape} can be taken so that it fits again").format(shape=shape.value), style="red")
            return False
        self.say(_("The supply has no {shape} left: take one from the lowest rows.").format(shape=shape.value))
        if len(options) == 1:
            self.say(_("Taking the {shape} at {cells}.").format(shape=shape.value, cells=cells_text(options[0].cells)))
            return options[0]
        for i, stone in enumerate(options, 1):
            self.say(f"  {i}: {cells_text(stone.cells)}")
        while True:
            line = self.ask(_("Which {shape} do you take (1-{last})? ").format(shape=shape.value, last=len(options)))
            if line.isdigit() and 1 <= int(line) <= len(options):
                return options[int(line) - 1]
            self.say("✗ " + _("type a number from 1 to {last}").format(last=len(options)), style="red")

    def ask_rewards(self, placement: Placement, take: Stone | None) -> list[Any] | None:
        g = self.game
        if g.rules.row_reward != "choose":
            return None
        rows = g.scoring_rows_after(placement, take)
        rewards: list[Any] = []
        removed: set[int] = set()
        for row in rows:
            stones = [s for s in g.rewardable_stones() if s.number not in removed]
            if take is not None:
                stones = [s for s in stones if s.number != take.number]
            if not stones:
                rewards.append("point")
                continue
            self.say(_("Row {row} is complete: take the point, or remove another player's stone:").format(row=row))
            for i, stone in enumerate(stones, 1):
                self.say(f"  {i}: " + _("{name}'s {shape} at {cells}").format(
                    name=g.players[stone.owner or 0], shape=stone.shape.value, cells=cells_text(stone.cells)
                ))
            while True:
                line = self.ask(_("point or a stone number: ")).lower()
                if line in ("p", "point", ""):
                    rewards.append("point")
                    break
                if line.isdigit() and 1 <= int(line) <= len(stones):
                    stone = stones[int(line) - 1]
                    removed.add(stone.number)
                    rewards.append({"remove": [list(c) for c in stone.cells]})
                    break
                self.say("✗ " + _("type point or a number from 1 to {last}").format(last=len(stones)), style="red")
        return rewards

    def ask_tokens(
        self, placement: Placement, shape: Shape, take: Stone | None, rewards: list[Any] | None
    ) -> tuple[Shape, ...] | None:
        """The point tokens' shapes (``tokens_from_supply``): the engine's default is shown and
        Enter accepts it; the engine checks a typed choice (and the turn is asked again if it
        refuses)."""
        g = self.game
        action = DiceAction(shape, placement, take, None if rewards is None else tuple(rewards))
        default = g.complete(action).tokens
        if not default:
            return None
        shown = " ".join(t.value for t in default)
        names = " ".join(s.value for s in g.token_choices())
        prompt = ngettext(
            "{count} point token out of the supply ({shapes}) [Enter: {default}]: ",
            "{count} point tokens out of the supply ({shapes}) [Enter: {default}]: ",
            len(default),
        ).format(count=len(default), shapes=names, default=shown)
        while True:
            line = self.ask(prompt).upper()
            if not line:
                return default
            picked = line.replace(",", " ").split()
            if len(picked) == 1 and len(default) > 1 and len(picked[0]) == len(default):
                picked = list(picked[0])  # "IO" for two tokens
            if len(picked) != len(default):
                self.say("✗ " + ngettext("name {count} shape, e.g. {example}", "name {count} shapes, e.g. {example}", len(default)).format(
                    count=len(default), example=shown
                ), style="red")
                continue
            try:
                return tuple(Shape.parse(t) for t in picked)
            except ValueError as e:
                self.say(f"✗ {translate(e)}", style="red")

    def show_orientations(self, shape: Shape, placements: Sequence[Placement]) -> None:
        orientations = list(shape.orientations(self.game.rules.orientation_mode))
        columns: dict[int, set[int]] = {}
        for p in placements:
            columns.setdefault(orientations.index(p.orientation), set()).add(p.x)
        pictures = [orientation_picture(o) for o in orientations]
        height = max(len(p) for p in pictures)
        text = Text()
        for i in range(len(orientations)):
            text.append(f"{shown(i):<7}", style="bold")
        text.append("\n")
        for line in range(height):
            for pic in pictures:
                row = pic[line] if line < len(pic) else ""
                for ch in row:
                    text.append(ch, style=shape_style(shape.value) if ch == "#" and self.color else "")
                text.append(" " * (7 - len(row)))
            text.append("\n")
        self.console.print(text)
        for i in range(len(orientations)):
            cols = sorted(columns.get(i, ()))
            where = numbers(cols) if cols else _("none")
            self.say("  " + _("orientation {number}: columns {columns}").format(number=shown(i), columns=where))

    def parse_placement(
        self, line: str, shape: Shape, placements: Sequence[Placement], take: Stone | None = None
    ) -> Placement:
        """A placement from ``O C [Y]`` or from cells; ValueError with the engine's reason otherwise."""
        orientations = list(shape.orientations(self.game.rules.orientation_mode))
        parts = line.split()
        if all(p.lstrip("-").isdigit() for p in parts) and len(parts) in (2, 3):
            o_index, x = typed(int(parts[0])), typed(int(parts[1]))
            if not 0 <= o_index < len(orientations):
                raise ValueError(_("orientation {number} does not exist: 1 to {last}").format(number=shown(o_index), last=len(orientations)))
            o = orientations[o_index]
            fits = [p for p in placements if p.orientation is o and p.x == x]
            if len(parts) == 3:
                y = typed(int(parts[2]))
                at_height = [p for p in fits if p.y == y]
                if fits and not at_height:  # the column is right: the height is what is wrong
                    raise ValueError(
                        _("orientation {number} in column {column} has no legal place at height {height} (heights: {heights})").format(
                            number=shown(o_index), column=shown(x), height=shown(y), heights=numbers(p.y for p in fits)
                        )
                    )
                fits = at_height
            if not fits:
                legal = sorted({p.x for p in placements if p.orientation is o})
                if legal:
                    raise ValueError(_("orientation {number} has no legal place in column {column} (columns: {columns})").format(
                        number=shown(o_index), column=shown(x), columns=numbers(legal)
                    ))
                raise ValueError(_("orientation {number} has no legal place in column {column}").format(number=shown(o_index), column=shown(x)))
            if len(fits) > 1:
                raise ValueError(_("it fits at several heights in column {column}: add one of {heights}").format(
                    column=shown(x), heights=numbers(p.y for p in fits)))
            return fits[0]
        parsed = _parse_cells(line)
        if parsed is None:
            raise ValueError(_("cannot read {text!r}: type help for the syntax").format(text=line))
        cells, as_record = parsed
        wanted = {(x, y) for x, y in cells}
        for p in placements:
            if set(p.cells) == wanted:
                return p
        reason = self.game.placement_error(shape, cells, take)  # the engine words the rule
        if not as_record:  # the engine quotes the cells as records write them: say them as typed
            reason = for_people(reason, cells)
        if reason is None:  # pragma: no cover - legal cells are one of the legal placements
            reason = _("{shape} at {cells} is not among this turn's places").format(shape=shape.value, cells=cells_text(cells))
        raise ValueError(reason)

    def undo(self, player: int) -> bool:
        """Take back ``player``'s last move and the bots' moves after it; False if there is none.

        In hot-seat a person undoes only their own move: once another person has moved since,
        that move is theirs to keep, so the undo is refused.
        """
        g = self.game
        name = g.players[player]
        placed = [i for i, m in enumerate(g.moves) if m.place is not None]
        mine = [i for i in placed if g.moves[i].player == player]
        if not mine:
            self.say("✗ " + _("{name} has no move to undo").format(name=name), style="red")
            return False
        humans = {i for i, s in enumerate(self.seats) if s.is_human}
        since = [g.moves[i].player for i in placed if i > mine[-1] and g.moves[i].player in humans]
        if since:
            self.say(
                "✗ " + _("{name} can undo only their own move: {other} has moved since").format(name=name, other=g.players[since[-1]]),
                style="red",
            )
            return False
        while True:
            move = g.undo()
            if move.player == player:
                break
        self.say(_("Undone: {name} plays the {face} again.").format(name=name, face=move.roll), style="yellow")
        self.show()
        return True


def _parse_cells(line: str) -> tuple[list[list[int]], bool] | None:
    """Typed cells as the engine's, and whether they were a record's (JSON, from 0) rather than
    a person's pairs (from 1); None when the line is neither."""
    text = line.strip()
    if text.startswith("["):
        try:
            value = json.loads(text)
        except json.JSONDecodeError:
            return None
        if isinstance(value, list) and all(
            isinstance(c, list) and len(c) == 2 and all(isinstance(n, int) for n in c) for c in value
        ):
            return value, True
        return None
    pairs = re.findall(r"(-?\d+)\s*,\s*(-?\d+)", text)
    if not pairs:
        return None
    return [[typed(int(a)), typed(int(b))] for a, b in pairs], False


def play_dice(
    seats: Sequence[SeatSpec],
    rules: dict[str, Any],
    seed: int | None,
    save: Path | None,
    color: bool = True,
    ask: Callable[[str], str] = input,
    console: Console | None = None,
) -> int:
    """Play one dice game; the exit code (0 played or stopped, 2 bad options)."""
    return play_line_game(
        _("Dice Tetris"),
        lambda names, rules, seed: DiceGame(names, rules, seed=seed),
        LineDiceGame,
        seats, rules, seed, save, color, ask, console,
    )


def show_summary(console: Console, summary: dict[str, Any], color: bool = True) -> None:
    """``tabletris replay``'s picture of a dice game: the shared board and how far it went."""
    console.print(board_text(summary["rows"], color=color))
    state = _("over") if summary["over"] else _("in progress")
    console.print(Text(
        ngettext("dice game, {count} turn, {state}", "dice game, {count} turns, {state}", summary["turn"]).format(
            count=summary["turn"], state=state
        ),
        style="bold",
    ))


play = play_dice
"""The game's line mode, as ``tabletris play`` asks it (the spec's ``line`` front end)."""
