"""A guided first game (issue 26 item 4), one script per game, shared by every front end.

A tutorial is a seeded game on the game's own engine, played by one person, with steps that say
what to do next. Each step is reached when the engine's state after the player's move shows it (a
row the engine counted, a token it took, a stone it lifted, a card it awarded, the end it
declared); the tutorial never decides what is legal, and an illegal move is refused by the
engine in its own words. A step may ask for a move to be taken back (``retry``): the game goes
on from the moves kept, so the same roll (or card) comes again.

A step's words name no key and no button: each front end adds how its own controls do it, by the
step's ``name`` (the terminal's keys, the browser's buttons). The words are the engine catalog's
(``N_`` here), so the terminal and the browser read the same sentences in every language.

A game's script is the ``SCRIPT`` of the module its spec names for ``tutorial``
(``GameSpec.front_ends``); nothing here names a game. ``Lesson`` plays a script: the terminal
keeps one while the player plays, and the server rebuilds one for every request from the moves
so far (a stateless tutorial: no room and no stored seed).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from tabletris.engine.games import GAMES, spec
from tabletris.table.driver import Action, Table


@dataclass(frozen=True)
class Step:
    """One thing to learn: what to do and how the engine's state shows it done."""

    name: str
    """The step's name (``place``, ``row``, ``hold`` ...): a front end finds its own hint by it."""
    text: str
    """What to do, in a sentence or two (a catalog message); no key and no button named."""
    done: Callable[[Any, Any], bool]
    """Whether the player's last move reached the step: the game after it, and what the script's
    ``capture`` read before it."""
    retry: str = ""
    """When set (a catalog message), a move that does not reach the step is taken back and this
    says why; otherwise the game goes on and the step waits for a later move."""
    praise: str = ""
    """Said when the step is reached (a catalog message), or nothing."""


@dataclass(frozen=True)
class Script:
    """A game's guided first game: the game it starts from, its steps, and its last word."""

    game: str
    """The game's name (``GAMES``)."""
    rules: Mapping[str, Any]
    seed: int
    steps: tuple[Step, ...]
    capture: Callable[[Any], Any]
    """What a step compares the game with after a move (scores, tokens, moves), read before it."""
    ending: str
    """The last word (a catalog message with ``{result}``: a front end's reading of the end)."""
    setup: Mapping[str, Any] = field(default_factory=dict)
    """Game-specific set-up beside the rules (the tower's ``deck``), passed to ``GameSpec.new``."""
    player: str = "You"
    """The one seat's name where no front end names it (the record's); each front end names the
    seat in the player's language."""

    def new_game(self, player: str | None = None) -> Any:
        """The script's game, its one seat named ``player`` (by default the English ``player``)."""
        return spec(self.game).new([player or self.player], dict(self.rules), seed=self.seed, **self.setup)


def script_of(game: str) -> Script | None:
    """A game's guided first game (the ``SCRIPT`` of its spec's ``tutorial`` module), or None
    for a game without one (or no game of that name)."""
    found = GAMES.get(game)
    if found is None or not found.has_front_end("tutorial"):
        return None
    script: Script = found.front_end("tutorial").SCRIPT
    return script


def tutorial_games() -> list[str]:
    """The games that have a guided first game, in ``GAMES``'s order."""
    return [name for name, game in GAMES.items() if game.has_front_end("tutorial")]


class Guide:
    """Walks a script's steps as the game goes: ``index`` is the step shown.

    ``note`` is the last word on a move (a catalog message, untranslated: the step's praise, or
    why the move was taken back), or empty.
    """

    def __init__(self, script: Script) -> None:
        self.script = script
        self.index = 0
        self.note = ""
        self.kept = True
        """Whether the last move judged was kept (False: its step asked for it to be taken back)."""
        self.finished = False
        self._reached: list[tuple[int, int]] = []
        """Each step reached and the number of moves the game had then, for ``rewind``."""

    @property
    def step(self) -> Step:
        return self.script.steps[min(self.index, len(self.script.steps) - 1)]

    @property
    def count(self) -> int:
        return len(self.script.steps)

    def judge(self, game: Any, before: Any, moves: int) -> bool:
        """After a move (the game has ``moves`` now): go on when it reached the step; False when
        the step wants it taken back."""
        step = self.step
        self.kept = True
        if not self.finished and step.done(game, before):
            self.note = step.praise
            self._reached.append((moves, self.index))
            self.index = min(self.index + 1, len(self.script.steps) - 1)
            return True
        if step.retry and not self.finished:
            self.note = step.retry
            self.kept = False
            return False
        self.note = ""
        return True

    def rewind(self, moves: int) -> None:
        """Moves were taken back (the game has ``moves`` now): the steps those moves reached are
        to do again."""
        while self._reached and self._reached[-1][0] > moves:
            self.index = self._reached.pop()[1]
            self.note = ""
        self.finished = False

    def finish(self) -> None:
        """The game is over (the engine ended it): the last step is done, whatever came before;
        a front end says the script's ``ending`` with its own reading of the result."""
        self.index = len(self.script.steps) - 1
        self.finished = True
        self.note = ""


class Lesson:
    """A script being played: the game at its table, the guide, and the moves kept.

    ``play`` tries a move on a copy of the game first (rebuilt from the moves kept: the game is
    seeded, so the copy is the game), and applies it only when the step keeps it; a move the step
    takes back never touches the game, and the same roll or card comes again.
    """

    def __init__(self, script: Script, player: str | None = None, table: Table | None = None) -> None:
        self.script = script
        self.player = player
        self.table = table if table is not None else Table(script.new_game(player))
        self.guide = Guide(script)
        self.kept: list[tuple[int, Action]] = []
        self.table.to_act()
        if self.game.over:
            self.guide.finish()

    @property
    def game(self) -> Any:
        return self.table.game

    def to_act(self) -> list[int]:
        """The seats to act now (after the engine's chance: a dice roll)."""
        return self.table.to_act()

    def copy(self) -> Table:
        """A table with the script's game after the moves kept (the engine replays them)."""
        table = Table(self.script.new_game(self.player))
        for seat, action in self.kept:
            table.act(seat, action)
        table.to_act()
        return table

    def play(self, seat: int, action: Action) -> bool:
        """``seat``'s ``action`` for the step shown: True when kept (applied, the guide moved
        on), False when the step takes it back (``guide.note`` says why; nothing changed).
        ``IllegalMove`` passes up from the engine, and nothing changes either."""
        trial = self.copy()
        before = self.script.capture(trial.game)
        trial.act(seat, action)
        if not self.guide.judge(trial.game, before, len(self.kept) + 1):
            return False
        self.table.act(seat, action)
        self._keep(seat, action)
        return True

    def replay(self, moves: Sequence[tuple[int, Action]]) -> int | None:
        """Play ``moves`` on the lesson's own game, as a player who followed the steps did: the
        index of the first one the step would have taken back (the lesson stops there, past it:
        the caller refuses such a list), None when all are kept. ``IllegalMove`` passes up from
        the engine. No copy is tried, so replaying n moves costs n moves."""
        for number, (seat, action) in enumerate(moves):
            before = self.script.capture(self.game)
            self.table.act(seat, action)
            if not self.guide.judge(self.game, before, len(self.kept) + 1):
                return number
            self._keep(seat, action)
        return None

    def _keep(self, seat: int, action: Action) -> None:
        """A move the step kept is in: the engine's chance comes next (a roll), and maybe the end."""
        self.kept.append((seat, action))
        self.table.to_act()
        if self.game.over:
            self.guide.finish()


__all__ = ["Guide", "Lesson", "Script", "Step", "script_of", "tutorial_games"]
