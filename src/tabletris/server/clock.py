"""A room's turn clock: who acts when the room waits for a seat, and when a person's time is up.

The clock starts a task for each bot seat that must act and, when the room has a timer, sets an
alarm per turn for the people to act (``timesource.call_at``; the move cancels it); when it
rings, a task plays the timer bot for each of them whose time is up, and a seat that lets it
happen ``kick_after`` times in a row is resigned. Only the
instance that holds the room's lease runs the tasks (``Room.runs_clock``); the others show the
same deadline: the turn's start is stored with its events, so every instance, and the one that
takes the room over, works out the same deadline.

A move the clock plays (a bot's, or the timer's for a person) that cannot be stored (the
database is down, the disk full) is tried again with backoff (``RETRY_FIRST`` doubling up to
``RETRY_MAX`` seconds) for as long as its turn is the room's: a bot's turn has no deadline, so a
move given up on left the room waiting on the bot forever. So is a game's start whose seats are
all taken (``Room.full``) but whose start was not stored.

The room holds its clock through ``rooms.Clock`` (the lobby makes it: ``Lobby.clock_for``), so
another kind of clock (a game clock per player) can take this one's place.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
from typing import Any

from tabletris.bots.base import Bot
from tabletris.bots.registry import make_bot
from tabletris.server import timesource
from tabletris.server.errors import ActionError
from tabletris.server.logs import log_context
from tabletris.server.rooms import Room
from tabletris.server.seats import TIMER_BOT

log = logging.getLogger("tabletris.server")

RETRY_FIRST = 0.25
"""Seconds before a move (or a start) that could not be stored is tried again; doubled after
each failure, up to ``RETRY_MAX``."""
RETRY_MAX = 2.0
STORAGE = "storage"
"""The error code of a move that could not be stored."""


class TurnClock:
    """One room's turn timer and bot turns."""

    def __init__(self, room: Room) -> None:
        self.room = room
        self.timeouts: dict[int, int] = {}
        """Consecutive turns each seat let the timer play (``kick_after`` resigns the seat)."""
        self.external: dict[int, Bot] = {}
        """The external seats' bot objects (each holds its program's process for the game)."""
        self._pending: set[tuple[int, Any]] = set()
        """The (seat, turn) of every bot thinking now."""
        self._alarm: timesource.Alarm | None = None
        """Set as a turn with a deadline begins, for its first deadline; a move cancels it. Only
        when it rings does ``_timer`` start: a task waiting through every turn cost twice the
        CPU and objects the collector walks (``benchmarks/turn_timer.py``)."""
        self._timer: asyncio.Task[None] | None = None
        self._timer_key: Any = None
        """The turn ``_alarm`` and ``_timer`` watch: the task plays for each person whose time is
        up and sleeps until the next one's."""
        self._busy: asyncio.Task[Any] | None = None
        """The timer task playing a move now: it is not cancelled then (the move is committed
        or not, never half), and ends by itself once it is no longer ``_timer``."""
        self._starting: asyncio.Task[None] | None = None
        """The task retrying the start of a full room whose start was not stored."""

    def thinking(self) -> int:
        """Bots thinking now (the metrics)."""
        return len(self._pending)

    def moved(self, seat: int) -> None:
        """A person moved: their timeouts in a row start again."""
        self.timeouts.pop(seat, None)

    def release_bots(self) -> list[Bot]:
        """The external bots, let go (the caller stops their programs)."""
        bots = list(self.external.values())
        self.external.clear()
        return bots

    def _bot(self, seat: int) -> Bot:
        """An external seat's bot object (it holds the program's process for the game)."""
        bot = self.external.get(seat)
        if bot is None:
            s = self.room.seats[seat]
            bot = make_bot(s.bot_name, seed=secrets.randbits(64), strength=s.strength)
            self.external[seat] = bot
        return bot

    # ------------------------------------------------------------------ deadlines

    def seat_deadline(self, seat: int) -> float | None:
        """When ``seat``'s time for the turn in play is up (wall time; None: nothing expires):
        the turn's stored start plus the room's time per move, or the seat's game clock.
        Worked out from what is stored, so every instance, a restarted server and one that
        takes the room over all say the same."""
        room = self.room
        speed = room.speed
        started = room.turn_started
        if not speed.timed or room.status != "playing" or started is None:
            return None
        if speed.clocked:
            return None if room.clocks is None else room.clocks.deadline(seat, started)
        assert speed.per_move is not None
        return started + speed.per_move

    def _people_to_act(self) -> list[int]:
        room = self.room
        if room.table is None or room.status != "playing":
            return []
        return [s for s in room.table.to_act() if room.seats[s].kind == "human"]

    @property
    def deadline(self) -> float | None:
        """When the turn timer next plays for a person to act (wall time; None: no timer runs),
        the same on every instance."""
        deadlines = [d for s in self._people_to_act() if (d := self.seat_deadline(s)) is not None]
        return min(deadlines) if deadlines else None

    # ------------------------------------------------------------------ scheduling

    def schedule(self) -> None:
        """Start a task for each bot that must act, and the turn timer for the humans: on the
        instance that holds the room's lease. The others show the same deadline (the turn's
        start comes with the events) and run nothing."""
        room = self.room
        if room.status == "waiting" and room.runs_clock and room.full() and self._starting is None:
            self._starting = room.lobby.spawn(self._start_later())
        if room.status != "playing" or room.game is None:
            self.cancel()
            return
        if not room.runs_clock:
            self._stop_timer()
            return
        key = room.adapter.turn_key(room.game)
        acting = room.table.to_act() if room.table is not None else []
        for seat in acting:
            if room.seats[seat].is_bot and (seat, key) not in self._pending:
                self._pending.add((seat, key))
                room.lobby.spawn(self._bot_turn(seat, key))
        deadlines = [d for s in acting if room.seats[s].kind == "human" and (d := self.seat_deadline(s)) is not None]
        if deadlines:
            if self._timer_key != key or (self._timer is None and self._alarm is None):
                self._stop_timer()
                self._timer_key = key
                alarm = timesource.call_at(min(deadlines), self._ring)
                self._alarm = None if alarm.rung else alarm  # rung at once: a deadline that passed
        else:
            self._stop_timer()

    def _ring(self) -> None:
        """The turn's first deadline came (``_stop_timer`` cancels the alarm of a turn that
        moved on): the timer task plays for whoever is out of time."""
        self._alarm = None
        if self._timer is None:
            self._timer = self.room.lobby.spawn(self._run_timer(self._timer_key))

    def _stop_timer(self) -> None:
        """Stop this instance's timer (the deadline stays shown); a task playing a move
        finishes it and then sees the turn moved on."""
        if self._alarm is not None:
            self._alarm.cancel()
            self._alarm = None
        if self._timer is not None and self._timer is not self._busy:
            self._timer.cancel()
        self._timer = None
        self._timer_key = None

    def cancel(self) -> None:
        """No turn is timed here any more (the game ended, the lease was lost)."""
        self._stop_timer()

    async def _bot_turn(self, seat: int, key: Any) -> None:
        try:
            if self.room.lobby.bot_delay:
                await asyncio.sleep(self.room.lobby.bot_delay)
            await self._play_for(seat, key, "bot")
        finally:
            self._pending.discard((seat, key))

    async def _run_timer(self, key: Any) -> None:
        """The timer of turn ``key``: sleeps until the first person's time is up, plays the
        timer's move for every person whose time is up, and so on until the turn moves on. A
        game clock that ran out resigns its seat (it stays at zero); a per-move or turn-based
        timeout does after ``kick_after`` in a row."""
        room = self.room
        me = asyncio.current_task()
        while room.game is not None and room.status == "playing" and room.adapter.turn_key(room.game) == key:
            if self._timer is not me:
                return  # stopped while it played a move, or replaced: another task watches the turn
            due = {s: d for s in self._people_to_act() if (d := self.seat_deadline(s)) is not None}
            if not due:
                return
            when = min(due.values())
            if when > timesource.now():
                await timesource.sleep_until(when)
                continue
            self._busy = me
            try:
                for seat, deadline in sorted(due.items()):
                    if deadline > timesource.now() or room.seats[seat].kind != "human":
                        continue
                    self.timeouts[seat] = self.timeouts.get(seat, 0) + 1
                    await self._play_for(seat, key, "timer")
                    out = room.speed.clocked
                    if (out or self.timeouts.get(seat, 0) >= room.limits.kick_after) and room.seats[seat].kind == "human":
                        if out:
                            log.info("room %s: seat %d ran out of time: resigned", room.id, seat)
                        else:
                            log.info("room %s: seat %d timed out %d times: resigned", room.id, seat, self.timeouts[seat])
                        with contextlib.suppress(ActionError):
                            await room.resign(seat)
            finally:
                self._busy = None

    async def _start_later(self) -> None:
        """Start a full room whose start was not stored: tried with backoff while the room is
        waiting, full, and run here."""
        room = self.room
        delay = RETRY_FIRST
        try:
            while room.status == "waiting" and room.full() and room.runs_clock:
                await asyncio.sleep(delay)
                delay = min(delay * 2, RETRY_MAX)
                async with room.lock:
                    if room.status != "waiting" or not room.full() or not room.runs_clock:
                        return
                    started = await room.start_or_retry()
                if started:
                    log.info("room %s: the game started on a retry", room.id)
                    break
        finally:
            self._starting = None
        room.schedule()
        room.broadcast()

    async def _play_for(self, seat: int, key: Any, by: str) -> None:
        """A bot's move for ``seat`` (``by``: "bot" for a bot seat, "timer" for a person out of
        time), through the same path as a person's. The bot thinks off the event loop within
        ``bot_budget`` seconds; a bot that fails or runs out of time is replaced for this move
        by the timer bot, so the game goes on. A move that could not be stored is tried again
        with backoff while its turn is the room's (and this instance runs the room)."""
        delay = RETRY_FIRST
        kept: tuple[dict[str, Any], str] | None = None
        while (kept := await self._try_move(seat, key, by, kept)) is not None:
            await asyncio.sleep(delay)
            delay = min(delay * 2, RETRY_MAX)
            if not self.room.runs_clock:
                return

    async def _try_move(
        self, seat: int, key: Any, by: str, kept: tuple[dict[str, Any], str] | None = None
    ) -> tuple[dict[str, Any], str] | None:
        """One try at ``_play_for``'s move. ``kept``: the move (and who made it) that could
        not be stored on the last try, sent again for the same turn instead of asking the bot
        again (an outage under many bot rooms would keep every bot thinking). Returns the move
        and its maker when it could not be stored (None: played, or nothing to play)."""
        room = self.room
        log_context(room=room.id, seat=seat)
        spec = room.seats[seat]
        name = spec.bot_name if by == "bot" else TIMER_BOT
        for attempt in range(2):
            if room.game is None or room.status != "playing" or room.adapter.turn_key(room.game) != key:
                return None
            if room.table is None or seat not in room.table.to_act():
                return None
            view = room.adapter.bot_view(room.game, seat)
            external = self._bot(seat) if name.startswith("ext:") else None
            try:
                if attempt == 0 and kept is not None:
                    move, by = kept
                else:
                    move = await room.lobby.bots.move(room.game_name, view, seat, name, spec.strength, external)
                    move[room.adapter.turn_field] = key
                await room.act(seat, move, by=by)
                return None
            except ActionError as e:
                if e.code == STORAGE:  # the move was good; the storage logged why it failed
                    return move, by
                log.warning("room %s: bot move for seat %d rejected: %s", room.id, seat, e.message)
            except TimeoutError:
                log.warning("room %s: the bot for seat %d ran out of time", room.id, seat)
            except Exception:
                log.exception("room %s: bot for seat %d failed", room.id, seat)
            if attempt == 0:
                name, by = TIMER_BOT, "timer"
        return None


__all__ = ["TurnClock"]
