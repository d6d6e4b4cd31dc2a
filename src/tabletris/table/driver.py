"""The one turn driver: who acts now, rolling the die, asking a bot, applying an action.

Every front end holds a ``Table`` and keeps only what is theirs: timing (the server's timers and
bot delays, the app's animations and worker threads), drawing and I/O. The driver is synchronous,
asks only the ``Game`` protocol (``engine/games.py``) and never names a game: every rule is the
engine's.

``Table.log`` lists what happened since the table was set, as record data: a dice turn is the
record's move (``{"player", "roll", "place", …}``), a tower submission is
``{"seat", "round", "action"}`` (the submissions of a round, in the order they came, make the
round; a spectator is shown them only once it resolves).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from tabletris.bots.base import Bot
from tabletris.engine.games import Event, Game, GameSpec, spec_of

Action = Any
"""A game's own action type (``DiceAction``, ``TowerAction``, …): the table never looks inside."""


class Table:
    """A game and the bots in its seats (seats without a bot are people)."""

    def __init__(self, game: Game, bots: Mapping[int, Bot] | Sequence[Bot | None] = ()) -> None:
        self.game = game
        self.spec: GameSpec = spec_of(game)
        if isinstance(bots, Mapping):
            self.bots: dict[int, Bot] = dict(bots)
        else:
            self.bots = {i: b for i, b in enumerate(bots) if b is not None}
        for seat in self.bots:
            if not 0 <= seat < len(game.players):
                raise ValueError(f"a bot for seat {seat}, but the game has seats 0-{len(game.players) - 1}")
        self.log: list[Event] = []

    def __repr__(self) -> str:
        seats = ", ".join(
            f"{name} ({self.bots[i].name})" if i in self.bots else name for i, name in enumerate(self.game.players)
        )
        return f"<Table {self.spec.name}: {seats}; {'over' if self.over else f'to act {self.to_act()}'}>"

    # ---------------------------------------------------------------- queries

    @property
    def over(self) -> bool:
        return self.game.over

    def is_bot(self, seat: int) -> bool:
        return seat in self.bots

    def humans(self) -> list[int]:
        return [i for i in range(len(self.game.players)) if i not in self.bots]

    def advance(self) -> list[Event]:
        """Do what chance does before anyone decides (a dice turn starts with a roll; a roll
        that cannot be placed ends the game, and that turn is an event of its own)."""
        events = self.game.advance()
        self.log.extend(events)
        return events

    def to_act(self) -> list[int]:
        """The seats that must act now (after ``advance``): the dice player to move, or every
        tower seat still to submit this round; empty once the game is over."""
        self.advance()
        return self.game.to_act()

    def bots_to_act(self) -> list[int]:
        return [seat for seat in self.to_act() if seat in self.bots]

    def humans_to_act(self) -> list[int]:
        return [seat for seat in self.to_act() if seat not in self.bots]

    # ---------------------------------------------------------------- actions

    def bot_action(self, seat: int, bot: Bot | None = None) -> Action:
        """What ``bot`` (by default the seat's own) decides for ``seat`` now, completed by the
        rules. A bot sees what the seat may see (``Game.seat_view``: no future rolls, no deck
        order, no other seat's pending action); only a measuring bot with ``sees_deck`` (the
        oracle) is handed the hidden order. Nothing is applied: the caller may time it, run it
        in a thread, or show it first."""
        bot = bot if bot is not None else self.bots.get(seat)
        if bot is None:
            raise ValueError(f"seat {seat} ({self.game.players[seat]}) has no bot")
        self.advance()
        self.game.check_can_act(seat)
        view = self.game.seat_view(seat, reveal=bot.sees_deck)
        return view.complete(bot.choose(view))

    def act(self, seat: int, action: Action) -> list[Event]:
        """Apply ``seat``'s action; the events it made (a dice turn; a tower submission). An
        ``IllegalMove`` leaves the game as it was."""
        self.advance()
        events = self.game.apply(seat, action)
        self.log.extend(events)
        return events

    def play_bot(self, seat: int) -> list[Event]:
        """Let the seat's bot decide and apply it."""
        return self.act(seat, self.bot_action(seat))

    def play_bots(self, max_actions: int | None = None) -> list[Event]:
        """Let bots act until a person must act or the game is over (or ``max_actions`` is
        reached); the events made. In a simultaneous game (tower rounds) every bot submits
        before the round can resolve, so people's waiting seats do not stop the bots."""
        events: list[Event] = []
        done = 0
        while True:
            bots = self.bots_to_act()
            if not bots:
                return events
            for seat in bots:
                if max_actions is not None and done >= max_actions:
                    return events
                events.extend(self.play_bot(seat))
                done += 1

    def play_out(self) -> None:
        """Play to the end; every seat must have a bot (the lab, the environments' opponents)."""
        if self.humans():
            names = ", ".join(self.game.players[i] for i in self.humans())
            raise ValueError(f"cannot play out a game with people at the table ({names})")
        while not self.over:
            self.play_bots()
