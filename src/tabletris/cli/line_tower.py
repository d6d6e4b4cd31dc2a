"""The tower game at a plain terminal: every seat decides in private, then the round is revealed.

Humans share the keyboard (hot-seat): with more than one person at the table the screen is cleared
and the next person is asked to take the keyboard before their tower is shown, so nobody sees
another's choice. Bots decide from their seat's view. Every rule comes from the engine (legal
drops, minos, hold, forced holds and outs, scoring); this module shows the position and turns typed
lines into ``TowerAction``s. Bad input is answered with the reason and asked again.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table
from rich.text import Text

from tabletris.bots.base import Bot
from tabletris.cli.line_game import LineGame, QuitGame, orientation_picture, play_line_game
from tabletris.cli.render import board_text, shape_style
from tabletris.engine.board import Placement
from tabletris.engine.errors import IllegalMove
from tabletris.engine.shapes import Shape
from tabletris.engine.tower import Tower, TowerAction, TowerGame
from tabletris.i18n import N_, _, ngettext, translate
from tabletris.table.positions import cells_text, numbers, shown, typed
from tabletris.table.seats import SeatSpec

HELP = N_("""\
Your move this round (everybody moves at the same time, in private):
  N          drop the PLAY piece as legal drop number N from the list
  O C        drop it in orientation O (see the pictures) with its left edge in column C
  m C        first drop one of your minos in column C (repeat for more; they fall before the piece)
             (columns, rows and orientations count from 1, row 1 at the bottom)
  clear      take back the minos you queued this round
  hold       skip this piece (once per game, no minos that round)
  list       show your tower and the legal drops again
  help       this text
  quit       stop the game (the record is saved with --save)""")

LEGEND = N_(
    "icons on empty cells: lowercase letter = bonus icon of that shape (+1 when a piece of that shape covers it), "
    "* = diamond (a tetromino on it earns a mino)"
)


def tower_marks(tower: Tower) -> dict[tuple[int, int], str]:
    """Icons to draw on the empty cells of ``tower``: bonus letters in lower case, ``*`` diamonds."""
    marks: dict[tuple[int, int], str] = {}
    board = tower.board
    for cell, shape in tower.layout.bonus.items():
        if not board.is_filled(cell):
            marks[cell] = shape.value.lower()
    for cell in tower.layout.diamonds:
        if not board.is_filled(cell):
            marks[cell] = "*"
    return marks


def compact_tower(tower: Tower, color: bool = True) -> Text:
    """A tower one character per cell (with row and column numbers), icons on empty cells."""
    marks = tower_marks(tower)
    rows = tower.rows()
    height = len(rows)
    text = Text()
    for i, row in enumerate(rows):
        y = height - 1 - i
        text.append(f"{shown(y):>2} ", style="dim")
        for x, ch in enumerate(row):
            mark = marks.get((x, y))
            if mark is not None:
                text.append(mark, style="bold white" if color else "")
            elif ch == ".":
                text.append(".", style="grey35" if color else "")
            else:
                text.append(ch, style=shape_style(ch) if color else "")
        text.append("\n")
    text.append("   " + "".join(str(shown(x) % 10) for x in range(tower.board.width)), style="dim")
    return text


class LineTowerGame(LineGame[TowerGame]):
    """One tower game at the terminal."""

    def __init__(
        self,
        game: TowerGame,
        seats: Sequence[SeatSpec],
        bots: dict[int, Bot],
        console: Console,
        color: bool = True,
        ask: Callable[[str], str] = input,
    ) -> None:
        super().__init__(game, seats, bots, console, color, ask)
        self.humans = [i for i, s in enumerate(seats) if s.is_human]

    # --------------------------------------------------------------- display

    def header(self) -> None:
        g = self.game
        play = g.play_card.value if g.play_card else "-"
        nxt = g.next_card.value if g.next_card else "-"
        # TRANSLATORS: PLAY and NEXT are the two card spaces printed on the game's board.
        text = Text("\n" + _("Round {number}/27").format(number=g.round) + "   " + _("PLAY") + " ", style="bold")
        text.append(play, style=shape_style(play) if self.color else "")
        text.append("   " + _("NEXT") + " ")
        text.append(nxt, style=shape_style(nxt) if self.color else "")
        text.append("   " + _("cards left {cards}   minos in the box {minos}").format(cards=g.deck_left, minos=g.supply), style="")
        self.console.print(text)
        self.show_achievements()

    def show_achievements(self) -> None:
        g = self.game
        for card in g.achievements:
            spaces = []
            for i, (points, holders) in enumerate(zip(card.points, card.holders, strict=True)):
                if g.player_count == 2 and i == 0:
                    spaces.append("[" + _("{points}: not used with 2 players").format(points=points) + "]")
                    continue
                names = ", ".join(g.players[s] for s in holders) or _("free")
                spaces.append(f"[{points}: {names}]")
            self.say(
                f"  {translate(card.spec.name)} ({card.id}) — {translate(card.spec.text)}: {' '.join(spaces)}", style="cyan", soft_wrap=True
            )

    def show_all(self) -> None:
        """Every tower side by side, with minos, hold, and score."""
        g = self.game
        table = Table.grid(padding=(0, 3))
        for _tower in g.towers:
            table.add_column()
        heads = []
        for seat, tower in enumerate(g.towers):
            name = _("{name} (out)").format(name=g.players[seat]) if tower.out else g.players[seat]
            head = Text(f"{name}\n", style="bold")
            s = g.score(seat)
            held = tower.held.value if tower.held else _("unused")
            head.append(
                _("score {score}  rows {rows}\nbonus {bonus}  minos {minos}\nhold {hold}").format(
                    score=s["total"], rows=s["lines"], bonus=s["bonus"], minos=tower.minos, hold=held
                ),
                style="",
            )
            heads.append(head)
        table.add_row(*heads)
        table.add_row(*[compact_tower(t, self.color) for t in g.towers])
        self.console.print(table)
        self.say(_(LEGEND), style="dim")

    def show_own(self, seat: int, minos: Sequence[int], drops: Sequence[Placement]) -> None:
        """The seat's tower (icons, queued minos as ``m``), its minos and hold, and the legal drops."""
        g = self.game
        tower = g.towers[seat]
        marks = tower_marks(tower)
        heights = [tower.column_height(x) for x in range(tower.board.width)]
        for column in minos:
            marks[(column, heights[column])] = "m"
            heights[column] += 1
        self.console.print(board_text(tower.rows(), color=self.color, marks=marks))
        self.say(_(LEGEND), style="dim")
        held = _("used ({shape})").format(shape=tower.held.value) if tower.held else _("unused")
        if minos:
            self.say(_("minos {minos}, queued: columns {columns}   hold {hold}").format(
                minos=tower.minos, columns=numbers(minos), hold=held
            ))
        else:
            self.say(_("minos {minos}   hold {hold}").format(minos=tower.minos, hold=held))
        self.show_drops(drops)

    def show_drops(self, drops: Sequence[Placement]) -> None:
        g = self.game
        shape = g.play_card
        if shape is None:
            return
        orientations = list(shape.orientations("rotate"))
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
        if not drops:
            self.say(_("No legal drop with these minos: type clear, or hold."), style="yellow")
            return
        for i, o in enumerate(orientations):
            items = [f"{n}:c{shown(p.x)}" for n, p in enumerate(drops, 1) if p.orientation is o]
            self.say("  " + _("orientation {number}: {drops}").format(number=shown(i), drops="  ".join(items) if items else _("none")))

    # ------------------------------------------------------------------ loop

    def run(self) -> None:
        g = self.game
        while not g.over:
            self.header()
            played_before = len(g.rounds)
            waiting = self.table.to_act()
            for seat in range(g.player_count):
                if g.forced(seat) and not g.towers[seat].out:
                    self.say(
                        _("{name} has no legal drop for {shape}: the engine holds for them.").format(name=g.players[seat], shape=g.play_card),
                        style="yellow",
                    )
            humans_waiting = [s for s in waiting if s in self.humans]
            for seat in waiting:
                if self.table.is_bot(seat):
                    self.table.play_bot(seat)
                    self.say(_("{name} has decided.").format(name=g.players[seat]), style="dim")
                else:
                    if len(self.humans) > 1:
                        self.pass_to(seat)
                    self.human_turn(seat)
                    if len(humans_waiting) > 1:
                        self.console.clear()
            self.reveal(played_before)
        self.finish()

    def pass_to(self, seat: int) -> None:
        """Hot-seat: clear the screen and wait until the next person has the keyboard."""
        self.console.clear()
        self.ask(_("Pass to {name} — press Enter ").format(name=self.game.players[seat]))
        self.console.clear()

    def human_turn(self, seat: int) -> None:
        g = self.game
        name = g.players[seat]
        minos: list[int] = []
        drops = self.drops(seat, minos)
        self.say("\n" + _("{name}: your tower — PLAY {play}, NEXT {next}").format(name=name, play=g.play_card, next=g.next_card or "-"), style="bold")
        self.show_own(seat, minos, drops)
        while True:
            line = self.ask(_("{name}, drop {shape} (N, O C, m C, hold, help): ").format(name=name, shape=g.play_card))
            if not line:
                continue
            cmd = line.lower()
            parts = cmd.split()
            if cmd == "help":
                self.say(_(HELP))
                continue
            if cmd == "list":
                self.show_own(seat, minos, drops)
                continue
            if cmd == "clear":
                minos = []
                drops = self.drops(seat, minos)
                self.show_own(seat, minos, drops)
                continue
            if cmd == "hold":
                try:
                    self.table.act(seat, TowerAction.holding())
                except IllegalMove as e:
                    self.say(f"✗ {translate(e)}", style="red")
                    continue
                return
            if parts[0] in ("m", "mino"):
                if len(parts) != 2 or not parts[1].lstrip("-").isdigit():
                    self.say("✗ " + _("type m and a column number, e.g. m 3"), style="red")
                    continue
                column = typed(int(parts[1]))
                try:
                    new_drops = self.drops(seat, [*minos, column])
                except IllegalMove as e:
                    self.say(f"✗ {translate(e)}", style="red")
                    continue
                minos.append(column)
                drops = new_drops
                self.show_own(seat, minos, drops)
                continue
            try:
                placement = self.parse_drop(seat, parts, drops, minos)
            except ValueError as e:
                self.say(f"✗ {translate(e)}", style="red")
                continue
            try:
                self.table.act(seat, TowerAction.drop(placement, minos))
            except IllegalMove as e:
                self.say(f"✗ {translate(e)}", style="red")
                continue
            return

    def drops(self, seat: int, minos: Sequence[int]) -> list[Placement]:
        """The engine's legal drops after ``minos``, numbered by orientation then column."""
        found = self.game.legal_drops(seat, minos)
        return sorted(found, key=lambda p: (p.orientation.index, p.x))

    def parse_drop(
        self, seat: int, parts: list[str], drops: Sequence[Placement], minos: Sequence[int] = ()
    ) -> Placement:
        """A legal drop from ``N`` (its number) or ``O C``; ValueError saying what is wrong (for
        a drop that breaks a rule, the engine's reason)."""
        g = self.game
        assert g.play_card is not None
        if not parts or not all(p.lstrip("-").isdigit() for p in parts) or len(parts) > 2:
            raise ValueError(_("cannot read {text!r}: type help for the syntax").format(text=" ".join(parts)))
        if len(parts) == 1:
            n = int(parts[0])
            if not 1 <= n <= len(drops):
                if drops:
                    raise ValueError(_("there is no drop number {number}: choose 1 to {last}").format(number=n, last=len(drops)))
                raise ValueError(_("there is no legal drop: hold or clear your minos"))
            return drops[n - 1]
        orientations = list(g.play_card.orientations("rotate"))
        o_index, column = typed(int(parts[0])), typed(int(parts[1]))
        if not 0 <= o_index < len(orientations):
            raise ValueError(_("orientation {number} does not exist: 1 to {last}").format(number=shown(o_index), last=len(orientations)))
        o = orientations[o_index]
        for p in drops:
            if p.orientation is o and p.x == column:
                return p
        error = g.drop_error(seat, o, column, minos)
        reason = translate(error) if error is not None else _("it is not among the legal drops")
        legal = sorted(p.x for p in drops if p.orientation is o)
        if legal:
            raise ValueError(
                _("orientation {number} in column {column} is not a legal drop: {reason} (columns: {columns})").format(
                    number=shown(o_index), column=shown(column), reason=reason, columns=numbers(legal)
                )
            )
        raise ValueError(
            _("orientation {number} in column {column} is not a legal drop: {reason}").format(
                number=shown(o_index), column=shown(column), reason=reason)
        )

    def reveal(self, played_before: int) -> None:
        """Say what every seat did in the rounds just resolved, then show all towers."""
        g = self.game
        for number in range(played_before, len(g.rounds)):
            self.say("\n" + _("Round {number} revealed:").format(number=number + 1), style="bold")
            for seat, action in enumerate(g.rounds[number]):
                name = g.players[seat]
                if action is None:
                    self.say("  " + _("{name} is out.").format(name=name))
                elif action.hold:
                    self.say("  " + _("{name} holds.").format(name=name))
                elif action.minos:
                    self.say("  " + _("{name} drops at {cells} after minos in columns {columns}").format(
                        name=name, cells=cells_text(action.place or ()), columns=numbers(action.minos)
                    ))
                else:
                    self.say("  " + _("{name} drops at {cells}").format(name=name, cells=cells_text(action.place or ())))
        for card in g.achievements:
            for seat, met_round in card.met_round.items():
                if played_before < met_round <= len(g.rounds):
                    points = card.points_for(seat)
                    if card.space_of(seat) is not None:
                        got = ngettext("{count} point", "{count} points", points).format(count=points)
                    else:
                        got = _("no space left: 0 points")
                    self.say(
                        "  " + _("{name} achieves {card}: {points}").format(name=g.players[seat], card=translate(card.spec.name), points=got),
                        style="bold green",
                    )
        self.show_all()

    def finish(self) -> None:
        g = self.game
        self.say("\n" + _("Game over."), style="bold")
        self.show_achievements()
        table = Table(title=_("Final scores"), header_style="bold")
        table.add_column(_("player"))
        table.add_column(_("rows"), justify="right")
        table.add_column(_("row points"), justify="right")
        table.add_column(_("bonus"), justify="right")
        for card in g.achievements:
            table.add_column(translate(card.spec.name), justify="right")
        table.add_column(_("total"), justify="right")
        winners = g.winners()
        for seat, name in enumerate(g.players):
            s = g.score(seat)
            cells = [name + (" ★" if seat in winners else ""), str(s["lines"]), str(s["line_points"]), str(s["bonus"])]
            cells += [str(s["achievements"].get(card.id, 0)) for card in g.achievements]
            cells.append(str(s["total"]))
            table.add_row(*cells)
        self.console.print(table)
        totals = [g.score(i)["total"] for i in range(g.player_count)]
        best = max(totals)
        tied = [i for i, t in enumerate(totals) if t == best]
        names = ", ".join(g.players[i] for i in winners)
        if len(tied) > 1 and len(winners) < len(tied):
            self.say(
                ngettext(
                    "Tie on {count} point broken by complete rows: {names} wins.",
                    "Tie on {count} points broken by complete rows: {names} wins.",
                    best,
                ).format(count=best, names=names),
                style="bold green",
            )
        elif len(winners) > 1:
            self.say(
                ngettext(
                    "Tie on {count} point and on complete rows: shared win for {names}.",
                    "Tie on {count} points and on complete rows: shared win for {names}.",
                    best,
                ).format(count=best, names=names),
                style="bold green",
            )
        else:
            self.say(ngettext("Winner: {names}", "Winners: {names}", 1).format(names=names), style="bold green")


def play_tower(
    seats: Sequence[SeatSpec],
    rules: dict[str, Any],
    seed: int | None,
    save: Path | None,
    color: bool = True,
    ask: Callable[[str], str] = input,
    console: Console | None = None,
    towers: Sequence[str | None] | None = None,
) -> int:
    """Play one tower game; the exit code (0 played or stopped, 2 bad options). ``towers``: each
    seat's chosen tower and end (``"2b"``), None for a free one at random (the engine draws it)."""

    def intro(game: TowerGame) -> list[str]:
        specs = zip(game.players, game.layout_specs, strict=True)
        custom = _("custom")
        shown = ", ".join(f"{n}: {spec if isinstance(spec, str) else custom}" for n, spec in specs)
        return [_("Towers: {towers}").format(towers=shown)]

    return play_line_game(
        _("Tower Tetris"),
        lambda names, rules, seed: TowerGame(names, rules, seed=seed, towers=towers),
        LineTowerGame,
        seats, rules, seed, save, color, ask, console,
        intro=intro,
    )


def show_summary(console: Console, summary: dict[str, Any], color: bool = True) -> None:
    """``tabletris replay``'s picture of a tower game: each tower with its points, and the round."""
    for p in summary["players"]:
        flags = []
        if p.get("out"):
            flags.append(_("out"))
        if p.get("held"):
            flags.append(_("hold used"))
        console.print(Text(
            ngettext("{name}: {count} point ({flags})", "{name}: {count} points ({flags})", p["score"]).format(
                name=p["name"], count=p["score"], flags=", ".join(flags) or _("in play")
            ),
            style="bold",
        ))
        console.print(board_text(p["rows"], color=color))
        parts = [_("rows {count} x2").format(count=p["lines"]), _("bonus {count}").format(count=p["bonus"])]
        parts += [f"{k} {v}" for k, v in p.get("achievements", {}).items()]
        console.print("  " + ", ".join(parts))
    state = _("over") if summary["over"] else _("in progress")
    console.print(Text(_("tower game, round {number}, {state}").format(number=summary["round"], state=state), style="bold"))


play = play_tower
"""The game's line mode, as ``tabletris play`` asks it (the spec's ``line`` front end)."""

__all__ = ["LineTowerGame", "QuitGame", "Shape", "compact_tower", "play", "play_tower", "show_summary", "tower_marks"]
