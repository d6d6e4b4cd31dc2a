"""The dice game at the terminal: roll, steer a ghost piece, place; bots play by themselves.

Every rule question goes to the engine: which shapes a roll allows (``shapes_for_roll``), which
stones may be taken (``take_options``), whether the ghost's cells are a legal placement
(``Board.validate``, whose reason text is shown as is), what a turn scores
(``scoring_rows_after``) and the move itself (``DiceGame.play``, which leaves the game untouched
when it refuses). The screen only moves the ghost around and draws.
"""

from __future__ import annotations

import random
from typing import Any

from rich.align import Align
from rich.console import Group
from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen, Screen
from textual.widgets import Footer, OptionList, Static
from textual.widgets.option_list import Option
from textual.worker import get_current_worker

from tabletris.bots.base import Bot
from tabletris.engine.board import IllegalPlacement, Placement, Stone
from tabletris.engine.dice import CHOICE, DiceAction, DiceGame
from tabletris.engine.errors import IllegalMove
from tabletris.engine.shapes import Orientation, Shape, find_orientation, normalise
from tabletris.tui import palette
from tabletris.tui.board_view import BoardView
from tabletris.tui.pieces import format_cells_short, piece_picture, shape_letter
from tabletris.tui.setup import Setup


class DieView(Static):
    """The die: its face letter and a drawing of the piece it names."""

    DEFAULT_CSS = """
    DieView { width: 14; height: 6; border: round $accent; content-align: center middle; }
    """

    def show_face(self, face: str | None, rolling: bool = False) -> None:
        parts: list[Text] = []
        if face is None:
            parts = [Text("\n–", "dim")]
        elif face == CHOICE:
            parts = [Text("★", "bold #ffffff"), Text("any shape", "dim")]
        else:
            shape = Shape(face)
            parts = [Text(face, palette.shape_style(shape)), piece_picture(shape)]
        self.border_title = "rolling…" if rolling else "die"
        self.update(Group(*(Align.center(p) for p in parts)))


class RewardScreen(ModalScreen[tuple[Any, ...] | None]):
    """``row_reward: choose``: for each scored row, the point or an opponent's stone to remove."""

    BINDINGS = [Binding("escape", "cancel", "Back")]

    def __init__(self, rows: int, stones: list[Stone], players: list[str]) -> None:
        super().__init__()
        self.rows = rows
        self.stones = stones
        self.players = players
        self.chosen: list[Any] = []

    def compose(self) -> ComposeResult:
        with Vertical(id="reward-box"):
            yield Static(id="reward-title")
            yield OptionList(id="reward-options")

    def on_mount(self) -> None:
        self._refill()

    def _refill(self) -> None:
        title = self.query_one("#reward-title", Static)
        title.update(
            f"Row {len(self.chosen) + 1} of {self.rows} completed: take the point, or remove a stone "
            "another player placed."
        )
        options = self.query_one("#reward-options", OptionList)
        options.clear_options()
        options.add_option(Option("Take the point", id="point"))
        taken = {tuple(c) for r in self.chosen if not isinstance(r, str) for c in r}
        for stone in self.stones:
            if set(stone.cells) & taken:
                continue
            owner = self.players[stone.owner] if stone.owner is not None else "nobody"
            label = Text.assemble(
                "Remove ", shape_letter(stone.shape), f" of {owner} at {format_cells_short(stone.cells)}"
            )
            options.add_option(Option(label, id=f"stone-{stone.number}"))
        options.highlighted = 0
        options.focus()

    @on(OptionList.OptionSelected)
    def _picked(self, event: OptionList.OptionSelected) -> None:
        option_id = event.option.id or "point"
        if option_id == "point":
            self.chosen.append("point")
        else:
            number = int(option_id.split("-")[1])
            stone = next(s for s in self.stones if s.number == number)
            self.chosen.append(tuple(stone.cells))
        if len(self.chosen) >= self.rows:
            self.dismiss(tuple(self.chosen))
        else:
            self._refill()

    def action_cancel(self) -> None:
        self.dismiss(None)


class DiceScreen(Screen[None]):
    """One dice game: board, die, players and scores, supply, move log, and the ghost piece."""

    BINDINGS = [
        Binding("left", "move(-1, 0)", "←", show=False),
        Binding("right", "move(1, 0)", "→", show=False),
        Binding("up", "move(0, 1)", "↑", show=False),
        Binding("down", "move(0, -1)", "↓", show=False),
        Binding("r", "rotate(1)", "Rotate"),
        Binding("e", "rotate(-1)", "Rotate back", show=False),
        Binding("f", "flip", "Flip"),
        Binding("space", "drop", "Drop"),
        Binding("enter", "place", "Place"),
        Binding("c", "cycle_shape", "Shape", show=False),
        Binding("t", "cycle_take", "Take", show=False),
        Binding("right_square_bracket", "cycle_legal(1)", "Next fit", show=False),
        Binding("left_square_bracket", "cycle_legal(-1)", "Prev fit", show=False),
        Binding("u", "undo", "Undo"),
        Binding("question_mark", "app.help", "Help"),
        Binding("n", "app.new_game", "New", show=False),
        Binding("q", "app.quit", "Quit"),
    ]

    def __init__(self, setup: Setup, game: DiceGame, bots: dict[int, Bot]) -> None:
        super().__init__()
        self.setup = setup
        self.game = game
        self.bots = bots
        self.phase = "idle"
        """``rolling``, ``place`` (a human steers the ghost), ``bot``, ``reward`` or ``over``."""
        self.shape: Shape | None = None
        self.orient: Orientation | None = None
        self.gx = 0
        self.gy = 0
        self.take: Stone | None = None
        self.message = Text()
        self.points: list[int] = []
        self._token = 0
        self._face_rng = random.Random()

    # ------------------------------------------------------------ layout

    def compose(self) -> ComposeResult:
        with Horizontal(id="dice-main"):
            with VerticalScroll(id="board-scroll"):
                yield BoardView(self.game.board, id="board")
            with Vertical(id="side"):
                with Horizontal(id="side-top"):
                    yield DieView(id="die")
                    yield Static(id="players")
                yield Static(id="supply")
                yield Static(id="status")
                yield Static(id="message")
                with VerticalScroll(id="log-box"):
                    yield Static(id="log")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#board", BoardView).border_title = "dice"
        self.query_one("#log-box").border_title = "moves"
        self.query_one("#players").border_title = "players"
        self.refresh_all()
        self.call_after_refresh(self.next_turn)

    @property
    def is_human_turn(self) -> bool:
        return not self.game.over and self.game.to_move not in self.bots

    # ------------------------------------------------------------ turn flow

    def next_turn(self) -> None:
        """Start whatever comes next: the end, a roll, a bot's move or a human's ghost."""
        game = self.game
        if game.over:
            self.phase = "over"
            self.refresh_all()
            self.app.call_later(self.app.show_end, self.setup, game)  # type: ignore[attr-defined]
            return
        if game.roll_face is None:
            game.roll()  # the engine rolls; the animation below only shows it
            self.animate_roll()
            return
        self.after_roll()

    def animate_roll(self) -> None:
        self.phase = "rolling"
        frames = max(0, int(getattr(self.app, "roll_frames", 8)))
        die = self.query_one(DieView)
        faces = list(self.game.rules.die)
        token = self._token
        state = {"left": frames}

        def tick() -> None:
            if token != self._token:
                return
            if state["left"] <= 0:
                self.after_roll()
                return
            state["left"] -= 1
            die.show_face(self._face_rng.choice(faces), rolling=True)
            self.set_timer(0.06, tick)

        self.refresh_all()
        tick()

    def after_roll(self) -> None:
        game = self.game
        self.query_one(DieView).show_face(game.roll_face)
        if game.over:  # the roll could not be placed: the engine ended the game
            self.next_turn()
            return
        if game.to_move in self.bots:
            self.start_bot()
        else:
            self.start_human()

    def start_human(self) -> None:
        game = self.game
        self.phase = "place"
        shapes = [s for s in game.shapes_for_roll() if game.can_place(s)] or list(game.shapes_for_roll())
        self.choose_shape(shapes[0])
        self.refresh_all()

    def choose_shape(self, shape: Shape) -> None:
        """Set the piece to ``shape``: pick a stone to take if the supply is out, then the ghost."""
        self.shape = shape
        takes = self.game.take_options(shape)
        usable = [t for t in takes if self.game.legal_placements(shape, t)]
        self.take = (usable or takes or [None])[0]
        self.reset_ghost()

    def reset_ghost(self) -> None:
        """Put the ghost on a legal placement near the middle of the board, if there is one."""
        assert self.shape is not None
        legal = self.game.legal_placements(self.shape, self.take)
        forms = self.shape.orientations(self.game.rules.orientation_mode)
        if legal:
            centre = self.game.board.width / 2
            best = min(legal, key=lambda p: (p.orientation.index, abs(p.x + p.orientation.width / 2 - centre), p.y, p.x))
            self.orient, self.gx, self.gy = best.orientation, best.x, best.y
        else:
            self.orient = forms[0]
            self.gx = (self.game.board.width - self.orient.width) // 2
            self.gy = self.game.board.height - self.orient.height

    # ------------------------------------------------------------ bots

    def start_bot(self) -> None:
        self.phase = "bot"
        self.refresh_all()
        seat = self.game.to_move
        self._token += 1
        self.think(self.bots[seat], self.game.view(), self._token)

    @work(thread=True, exclusive=True, group="bot")
    def think(self, bot: Bot, view: DiceGame, token: int) -> None:
        """The bot decides on a copy of the game, off the UI thread."""
        try:
            decision: DiceAction | Exception = view.complete(bot.choose_dice(view))
        except Exception as e:  # a broken bot must not kill the table
            decision = e
        if not get_current_worker().is_cancelled:
            self.app.call_from_thread(self.bot_decided, decision, token)

    def bot_decided(self, decision: DiceAction | Exception, token: int) -> None:
        if token != self._token or self.phase != "bot":
            return
        name = self.game.player_name
        if isinstance(decision, Exception):
            self.say(f"{name} (bot) failed: {decision}", error=True)
            self.phase = "idle"
            self.refresh_all()
            return
        pause = float(getattr(self.app, "bot_pause", 0.5))
        board = self.query_one("#board", BoardView)
        board.show(ghost=decision.placement.cells, ghost_ok=True, lifted=decision.take.cells if decision.take else ())

        def apply() -> None:
            if token != self._token:
                return
            try:
                self.commit(decision.placement, decision.shape, decision.take, decision.rewards)
            except IllegalMove as e:
                self.say(f"{name} (bot) made an illegal move: {e}", error=True)
                self.phase = "idle"
                self.refresh_all()

        if pause > 0:
            self.set_timer(pause, apply)
        else:
            apply()

    # ------------------------------------------------------------ moves

    def commit(self, placement: Placement | tuple[Any, ...], shape: Shape, take: Stone | None, rewards: Any) -> None:
        """Play through the engine; on success log it and go on, else raise ``IllegalMove``."""
        game = self.game
        player = game.to_move
        before = game.scores[player]
        face = game.roll_face
        game.play(placement, shape if face == CHOICE else None, take, rewards)
        self.points = self.points[: len(game.moves) - 1] + [game.scores[player] - before]
        self.message = Text()
        self.phase = "idle"
        self.next_turn()
        self.refresh_all()

    def action_place(self) -> None:
        if self.phase != "place" or self.shape is None or self.orient is None:
            return
        cells = self.orient.at(self.gx, self.gy)
        reason = self.ghost_reason()
        if reason is not None:
            self.say(reason, error=True)
            return
        game = self.game
        placement = Placement(self.shape, self.orient, self.gx, self.gy)
        rewards: tuple[Any, ...] | None = None
        if game.rules.row_reward == "choose":
            rows = game.scoring_rows_after(placement, self.take)
            if rows:
                stones = self.reward_candidates(placement)
                if stones:
                    self.phase = "reward"
                    self.app.push_screen(
                        RewardScreen(len(rows), stones, game.players),
                        lambda chosen: self.rewards_chosen(placement, chosen),
                    )
                    return
                rewards = ("point",) * len(rows)
            else:
                rewards = ()
        self.try_commit(placement, rewards, cells)

    def reward_candidates(self, placement: Placement) -> list[Stone]:
        """Other players' stones as they lie once the piece is placed (rows cleared if the rules say)."""
        view = self.game.view()
        rows = view.scoring_rows_after(placement, self.take)
        player = view.to_move
        try:
            view.play(placement, self.shape if view.roll_face == CHOICE else None, self.take, ("point",) * len(rows))
        except IllegalMove:
            return []
        return [s for s in view.board.stones.values() if s.owner is not None and s.owner != player]

    def rewards_chosen(self, placement: Placement, chosen: tuple[Any, ...] | None) -> None:
        self.phase = "place"
        if chosen is None:
            self.say("Reward choice cancelled: the piece is not placed yet.")
            self.refresh_all()
            return
        self.try_commit(placement, chosen, placement.cells)

    def try_commit(self, placement: Placement, rewards: tuple[Any, ...] | None, cells: tuple[Any, ...]) -> None:
        assert self.shape is not None
        try:
            self.commit(placement, self.shape, self.take, rewards)
        except IllegalMove as e:
            self.say(str(e), error=True)
            self.refresh_all()

    def action_undo(self) -> None:
        game = self.game
        if self.phase in ("reward", "rolling"):
            return
        if not any(m.place is not None and m.player not in self.bots for m in game.moves):
            self.say("Nothing to undo: no person has placed a piece yet.", error=True)
            return
        self._token += 1  # forget any bot decision in flight
        self.workers.cancel_group(self, "bot")
        while True:
            move = game.undo()
            if move.player not in self.bots:
                break
        del self.points[len(game.moves) :]
        self.say(f"Took back {game.players[move.player]}'s {move.shape or move.roll}.")
        self.phase = "idle"
        self.next_turn()
        self.refresh_all()

    # ------------------------------------------------------------ the ghost

    def ghost_reason(self) -> str | None:
        """Why the ghost's cells are not a legal placement (the engine's words), or None."""
        if self.shape is None or self.orient is None:
            return "no piece to place"
        game = self.game
        board = game.board
        if self.take is not None:
            board = board.copy()
            board.remove(self.take)
        try:
            board.validate(
                self.shape, self.orient.at(self.gx, self.gy), game.rules.orientation_mode, game.rules.access_mode
            )
        except IllegalPlacement as e:
            return str(e)
        return None

    def clamp(self) -> None:
        assert self.orient is not None
        board = self.game.board
        self.gx = max(0, min(self.gx, board.width - self.orient.width))
        self.gy = max(0, min(self.gy, board.height - self.orient.height))

    def action_move(self, dx: int, dy: int) -> None:
        if self.phase != "place":
            return
        self.gx += dx
        self.gy += dy
        self.clamp()
        self.message = Text()
        self.refresh_all()

    def _turn_to(self, cells: tuple[tuple[int, int], ...], mode: str) -> None:
        assert self.shape is not None and self.orient is not None
        found = find_orientation(self.shape, normalise(cells), "free" if mode == "free" else "rotate")
        if found is None:
            return
        old = self.orient
        # Keep the piece's centre where it was.
        self.gx += (old.width - found.width) // 2
        self.gy += (old.height - found.height) // 2
        self.orient = found
        self.clamp()
        self.message = Text()
        self.refresh_all()

    def action_rotate(self, turns: int) -> None:
        if self.phase != "place" or self.orient is None:
            return
        cells = self.orient.cells
        for _ in range(turns % 4):
            cells = normalise([(y, -x) for x, y in cells])
        self._turn_to(cells, self.game.rules.orientation_mode)

    def action_flip(self) -> None:
        if self.phase != "place" or self.orient is None:
            return
        if self.game.rules.orientation_mode != "free":
            self.say("Flipping is off: these rules allow rotations only (orientation rotate).", error=True)
            return
        self._turn_to(normalise([(-x, y) for x, y in self.orient.cells]), "free")

    def action_drop(self) -> None:
        """Let the ghost fall to the highest legal spot at or below it in its column and form."""
        if self.phase != "place" or self.shape is None:
            return
        same = [
            p
            for p in self.game.legal_placements(self.shape, self.take)
            if p.orientation is self.orient and p.x == self.gx
        ]
        if not same:
            self.say(f"{self.shape.value} fits nowhere in this column in this form.", error=True)
            return
        below = [p for p in same if p.y <= self.gy]
        target = max(below or same, key=lambda p: p.y) if below else min(same, key=lambda p: p.y)
        self.gy = target.y
        self.message = Text()
        self.refresh_all()

    def action_cycle_legal(self, step: int) -> None:
        """Jump the ghost to the next (or previous) legal placement, in reading order."""
        if self.phase != "place" or self.shape is None or self.orient is None:
            return
        legal = sorted(
            self.game.legal_placements(self.shape, self.take), key=lambda p: (p.orientation.index, p.y, p.x)
        )
        if not legal:
            self.say(f"{self.shape.value} fits nowhere.", error=True)
            return
        here = (self.orient.index, self.gy, self.gx)
        keys = [(p.orientation.index, p.y, p.x) for p in legal]
        if step > 0:
            nxt = next((p for p, k in zip(legal, keys, strict=True) if k > here), legal[0])
        else:
            nxt = next((p for p, k in zip(reversed(legal), reversed(keys), strict=True) if k < here), legal[-1])
        self.orient, self.gx, self.gy = nxt.orientation, nxt.x, nxt.y
        self.message = Text()
        self.refresh_all()

    def action_cycle_shape(self) -> None:
        if self.phase != "place" or self.shape is None:
            return
        shapes = list(self.game.shapes_for_roll())
        if len(shapes) < 2:
            self.say(f"The die shows {self.game.roll_face}: there is no shape to choose.", error=True)
            return
        self.choose_shape(shapes[(shapes.index(self.shape) + 1) % len(shapes)])
        self.message = Text()
        self.refresh_all()

    def action_cycle_take(self) -> None:
        if self.phase != "place" or self.shape is None:
            return
        takes = self.game.take_options(self.shape)
        if takes == [None]:
            self.say(f"The supply still has {self.shape.value}: nothing is taken from the board.", error=True)
            return
        index = takes.index(self.take) if self.take in takes else -1
        self.take = takes[(index + 1) % len(takes)]
        self.reset_ghost()
        self.refresh_all()

    @on(BoardView.CellClicked)
    def clicked(self, event: BoardView.CellClicked) -> None:
        """Click a candidate stone to take it; click a cell to move the ghost there; click the
        ghost (when it is legal) to place it."""
        if self.phase != "place" or self.shape is None or self.orient is None:
            return
        cell = event.cell
        takes = [t for t in self.game.take_options(self.shape) if t is not None]
        for stone in takes:
            if cell in stone.cells and stone is not self.take:
                self.take = stone
                self.reset_ghost()
                self.refresh_all()
                return
        if cell in self.orient.at(self.gx, self.gy) and self.ghost_reason() is None:
            self.action_place()
            return
        legal = [p for p in self.game.legal_placements(self.shape, self.take) if cell in p.cells]
        if legal:
            best = min(
                legal,
                key=lambda p: (p.orientation is not self.orient, abs(p.x - self.gx) + abs(p.y - self.gy)),
            )
            self.orient, self.gx, self.gy = best.orientation, best.x, best.y
        else:
            self.gx = cell[0] - self.orient.width // 2
            self.gy = cell[1]
            self.clamp()
        self.message = Text()
        self.refresh_all()

    # ------------------------------------------------------------ drawing

    def say(self, text: str, error: bool = False) -> None:
        self.message = Text(text, style="bold #ff6b6b" if error else "#9fd3ff")
        self.query_one("#message", Static).update(self.message)

    def refresh_all(self) -> None:
        if not self.is_mounted:
            return
        game = self.game
        board = self.query_one("#board", BoardView)
        rules = game.rules
        board.border_title = f"dice {rules.width}×{rules.height}"
        board.border_subtitle = f"seed {game.seed}"
        ghost: tuple[tuple[int, int], ...] = ()
        ok = True
        highlight: list[tuple[int, int]] = []
        lifted: tuple[tuple[int, int], ...] = ()
        reason = None
        if self.phase == "place" and self.orient is not None and self.shape is not None:
            ghost = self.orient.at(self.gx, self.gy)
            reason = self.ghost_reason()
            ok = reason is None
            takes = [t for t in game.take_options(self.shape) if t is not None]
            for t in takes:
                highlight.extend(t.cells)
            if self.take is not None:
                lifted = self.take.cells
        board.show(game.board, ghost=ghost, ghost_ok=ok, highlight=highlight, lifted=lifted)
        if ghost:  # a tall board in a short terminal scrolls to keep the ghost in sight
            top = rules.height - 1 - max(y for _, y in ghost)
            self.query_one("#board-scroll", VerticalScroll).scroll_to(y=max(0, top - 2), animate=False)
        self.query_one(DieView).show_face(game.roll_face) if self.phase != "rolling" else None
        self.query_one("#players", Static).update(self.players_text())
        self.query_one("#supply", Static).update(self.supply_text())
        self.query_one("#status", Static).update(self.status_text(reason))
        self.query_one("#message", Static).update(self.message)
        log = self.query_one("#log", Static)
        log.update(self.log_text())
        self.query_one("#log-box", VerticalScroll).scroll_end(animate=False)

    def players_text(self) -> Text:
        game = self.game
        text = Text(no_wrap=True, overflow="ellipsis")
        for seat, name in enumerate(game.players):
            turn = seat == game.to_move and not game.over
            text.append("▶ " if turn else "  ", "bold #ffffff")
            text.append(f"{palette.seat_mark(seat)} ", f"bold {palette.seat_colour(seat)}")
            who = "" if seat not in self.bots else " ⚙"
            text.append(f"{name}{who}", f"bold {palette.seat_colour(seat)}" if turn else palette.seat_colour(seat))
            text.append(f"  {game.scores[seat]:>3}", "bold")
            if seat < len(game.players) - 1:
                text.append("\n")
        return text

    def supply_text(self) -> Text:
        game = self.game
        text = Text("supply ", "dim")
        if not game.rules.limited_supply:
            text.append("unlimited", "dim")
            return text
        for shape, left in game.supply.items():
            text.append_text(shape_letter(shape))
            text.append(f"{left:<3} ", "bold" if left else "bold #ff6b6b")
        return text

    def status_text(self, reason: str | None) -> Text:
        game = self.game
        text = Text()
        if game.over:
            text.append("Game over.", "bold")
            return text
        name = game.player_name
        colour = palette.seat_colour(game.to_move)
        if self.phase == "rolling":
            text.append(f"{name} rolls the die…", colour)
        elif self.phase == "bot":
            text.append(f"{name} is thinking…", colour)
        elif self.phase in ("place", "reward") and self.shape is not None:
            text.append(f"{name}", f"bold {colour}")
            text.append(" places ")
            text.append_text(shape_letter(self.shape))
            if game.roll_face == CHOICE:
                text.append("  (★: c changes shape)", "dim")
            if self.take is not None:
                text.append(f"\ntaking the {self.shape.value} at {format_cells_short(self.take.cells)}", "#feca57")
                if len(game.take_options(self.shape)) > 1:
                    text.append(" (t: another)", "dim")
            text.append("\n")
            if reason is None:
                rows = game.scoring_rows_after(Placement(self.shape, self.orient, self.gx, self.gy), self.take) if self.orient else []
                text.append("✔ fits", f"bold {palette.GHOST_OK}")
                if rows:
                    text.append(f" · completes {len(rows)} row{'s' if len(rows) > 1 else ''}", "bold #feca57")
                text.append("  ⏎ place", "dim")
            else:
                text.append(f"✘ {reason}", f"bold {palette.GHOST_BAD}")
        return text

    def log_text(self) -> Text:
        game = self.game
        text = Text(no_wrap=True, overflow="ellipsis")
        for i, move in enumerate(game.moves):
            if i:
                text.append("\n")
            text.append(f"{i + 1:>3} ", "dim")
            text.append(f"{game.players[move.player]:<10.10} ", palette.seat_colour(move.player))
            text.append_text(shape_letter(move.roll))
            if move.shape is not None:
                text.append("→")
                text.append_text(shape_letter(move.shape))
            if move.place is None:
                text.append("  cannot be placed: game over", "bold #ff6b6b")
                continue
            if move.take is not None:
                text.append(" took ", "#feca57")
            text.append(f" {format_cells_short(move.place)}", "dim")
            pts = self.points[i] if i < len(self.points) else 0
            if pts:
                text.append(f"  +{pts}", "bold #feca57")
            if move.rewards:
                removed = sum(1 for r in move.rewards if r != "point")
                if removed:
                    text.append(f"  removed {removed}", "#ff9f43")
        if not game.moves:
            text.append("no moves yet", "dim")
        return text
