"""The one turn driver: who acts now, rolling the die, asking a bot, applying an action.

Every front end used to re-encode this protocol for both games (the server's adapters, the two
terminal-app screens, the two line modes, the lab, the Gymnasium opponent loops). Now they hold a
``Table`` and keep only what is theirs: timing (the server's timers and bot delays, the app's
animations and worker threads), drawing and I/O. The driver is synchronous and decides nothing
itself: every rule is the engine's.

``Table.log`` lists what happened since the table was set, as record data: a dice turn is the
record's move (``{"player", "roll", "place", …}``), a tower submission is
``{"seat", "round", "action"}`` (the submissions of a round, in the order they came, make the
round; a spectator is shown them only once it resolves).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from tabletris.bots.base import Bot
from tabletris.engine.dice import DiceAction, DiceGame
from tabletris.engine.errors import IllegalMove
from tabletris.engine.games import GameSpec, spec_of
from tabletris.engine.texts import N_, Message
from tabletris.engine.tower import TowerAction, TowerGame

Action = DiceAction | TowerAction
Event = dict[str, Any]


def not_your_turn(game: DiceGame, seat: int) -> Message:
    """Why ``seat`` may not move in a dice game now: one sentence for every front end that asks
    (the table, the server), with its template so each player reads it in their language."""
    return Message(
        N_("it is {player}'s turn (seat {seat}), not seat {other}'s"), player=game.players[game.to_move], seat=game.to_move, other=seat
    )


class Table:
    """A game and the bots in its seats (seats without a bot are people)."""

    def __init__(self, game: DiceGame | TowerGame, bots: Mapping[int, Bot] | Sequence[Bot | None] = ()) -> None:
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
        """Do what chance does before anyone decides: a dice turn starts with a roll (a roll
        that cannot be placed ends the game, and that turn is an event of its own)."""
        game = self.game
        if isinstance(game, DiceGame) and not game.over and game.roll_face is None:
            before = len(game.moves)
            game.roll()
            return self._record(game.moves[before:])
        return []

    def to_act(self) -> list[int]:
        """The seats that must act now (after ``advance``): the dice player to move, or every
        tower seat still to submit this round; empty once the game is over."""
        self.advance()
        game = self.game
        if game.over:
            return []
        if isinstance(game, DiceGame):
            return [game.to_move]
        return game.waiting_for()

    def bots_to_act(self) -> list[int]:
        return [seat for seat in self.to_act() if seat in self.bots]

    def humans_to_act(self) -> list[int]:
        return [seat for seat in self.to_act() if seat not in self.bots]

    # ---------------------------------------------------------------- actions

    def bot_action(self, seat: int, bot: Bot | None = None) -> Action:
        """What ``bot`` (by default the seat's own) decides for ``seat`` now, completed by the
        rules. A bot sees what the seat may see: a dice view with a blind generator, the tower
        seat's view; only a measuring bot with ``sees_deck`` (the oracle) gets the game itself.
        Nothing is applied: the caller may time it, run it in a thread, or show it first."""
        bot = bot if bot is not None else self.bots.get(seat)
        if bot is None:
            raise ValueError(f"seat {seat} ({self.game.players[seat]}) has no bot")
        game = self.game
        if isinstance(game, DiceGame):
            if seat != game.to_move:
                raise IllegalMove(not_your_turn(game, seat))
            view = game.view()
            return view.complete(bot.choose_dice(view))
        action: TowerAction
        if bot.sees_deck:
            action = bot.choose_tower_omniscient(game, seat)
        else:
            action = bot.choose_tower(game.view(seat))
        return action

    def act(self, seat: int, action: Action) -> list[Event]:
        """Apply ``seat``'s action; the events it made (a dice turn; a tower submission). An
        ``IllegalMove`` leaves the game as it was."""
        game = self.game
        if isinstance(game, DiceGame):
            if not isinstance(action, DiceAction):
                raise TypeError(f"a dice action is a DiceAction, got {type(action).__name__}")
            if game.over:
                raise IllegalMove(Message(N_("the game is over")))
            if seat != game.to_move:
                raise IllegalMove(not_your_turn(game, seat))
            self.advance()
            before = len(game.moves)
            game.act(action)
            return self._record(game.moves[before:])
        if not isinstance(action, TowerAction):
            raise TypeError(f"a tower action is a TowerAction, got {type(action).__name__}")
        number = game.round
        game.submit(seat, action)
        event = {"seat": seat, "round": number, "action": action.to_dict()}
        self.log.append(event)
        return [event]

    def play_bot(self, seat: int) -> list[Event]:
        """Let the seat's bot decide and apply it."""
        return self.act(seat, self.bot_action(seat))

    def play_bots(self, max_actions: int | None = None) -> list[Event]:
        """Let bots act until a person must act or the game is over (or ``max_actions`` is
        reached); the events made. In the tower game every bot submits before the round can
        resolve, so people's waiting seats do not stop the bots."""
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
            if isinstance(self.game, DiceGame) and self.humans_to_act():
                return events

    def play_out(self) -> None:
        """Play to the end; every seat must have a bot (the lab, the environments' opponents)."""
        if self.humans():
            names = ", ".join(self.game.players[i] for i in self.humans())
            raise ValueError(f"cannot play out a game with people at the table ({names})")
        while not self.over:
            self.play_bots()

    # ---------------------------------------------------------------- helpers

    def _record(self, moves: Sequence[Any]) -> list[Event]:
        events = [m.to_dict() for m in moves]
        self.log.extend(events)
        return events
