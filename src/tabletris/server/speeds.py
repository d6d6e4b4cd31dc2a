"""A room's speed, chosen when it is created, and the game clocks of real-time rooms.

Three modes (docs/api.md, "Speeds"):

- ``untimed``: nothing expires. A person who does not act for ``Limits.untimed_expel`` seconds
  may be expelled by the other people at the table (the timer's bot then plays the seat).
- ``realtime``: either a per-move timer (``per_move`` seconds for each turn, the old ``timer``;
  then the timer's bot plays, and ``kick_after`` timeouts in a row resign the seat) or a game
  clock per person (Fischer: ``initial`` seconds, plus ``increment`` for each move made in time;
  a clock that runs out resigns its seat and stays at zero).
- ``turn``: turn-based, hours or days per move (``per_move``); then as the per-move timer.

The clock arithmetic is here and pure (``Clocks``): what is left is worked out from when the
turn began (``rooms.turn_started``) and the stored clocks (``rooms.clocks``), never counted down
in memory, so a restarted server and an instance taking a room over show the same times.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from tabletris.i18n import _
from tabletris.server.errors import ActionError
from tabletris.server.limits import Limits, check_timer

MODES = ("untimed", "realtime", "turn")


@dataclass(frozen=True)
class Speed:
    """How a room's time runs; ``as_json`` is what the API shows and the room's config keeps."""

    mode: str = "untimed"
    per_move: float | None = None
    """Seconds per turn (dice) or round (tower): the real-time per-move timer, or turn-based."""
    initial: float | None = None
    """A real-time game clock's starting time per person (Fischer), in seconds."""
    increment: float = 0.0
    """Seconds added to a game clock for each move made in time."""

    @property
    def timed(self) -> bool:
        """Something expires: a per-move deadline or a game clock."""
        return self.mode != "untimed"

    @property
    def clocked(self) -> bool:
        """A game clock per person (Fischer), not one deadline per turn."""
        return self.mode == "realtime" and self.initial is not None

    def as_json(self) -> dict[str, Any]:
        if self.clocked:
            return {"mode": self.mode, "initial": self.initial, "increment": self.increment}
        if self.per_move is not None:
            return {"mode": self.mode, "per_move": self.per_move}
        return {"mode": self.mode}

    @classmethod
    def of_config(cls, config: Mapping[str, Any]) -> Speed:
        """A stored room's speed; a room stored before speeds has only ``timer`` (a real-time
        per-move timer, or none: untimed)."""
        raw = config.get("speed")
        if isinstance(raw, Mapping) and raw.get("mode") in MODES:
            def number(key: str) -> float | None:
                value = raw.get(key)
                return None if value is None else float(value)

            return cls(str(raw["mode"]), number("per_move"), number("initial"), number("increment") or 0.0)
        timer = config.get("timer")
        return cls("realtime", per_move=float(timer)) if timer else cls()


def seconds(value: float) -> str:
    """Seconds as a message writes them: ``0.5``, ``600``, ``1209600`` (never ``1.2e+06``)."""
    return f"{value:.0f}" if value == int(value) else f"{value:g}"


def check_speed(limits: Limits, speed: Mapping[str, Any] | None, timer: float | None, people: bool) -> Speed:
    """The speed of a new room from the request's ``speed`` (or the older ``timer``, a real-time
    per-move timer: ``check_timer``'s default for rooms with people when neither is given), each
    time within the server's limits, else ``bad_timer`` naming the field. A range is said in the
    player's language (the form can be typed past it); a speed of the wrong shape, which only a
    client author meets, in English."""
    if speed is None:
        per_move = check_timer(limits, timer, people)
        return Speed("realtime", per_move=per_move) if per_move else Speed()
    if timer:
        raise ActionError("bad_timer", "give the room a speed or a timer, not both")
    mode = speed.get("mode")
    per_move, initial, increment = speed.get("per_move"), speed.get("initial"), speed.get("increment")

    def within(name: str, value: float, low: float, high: float) -> float:
        if not (low <= value <= high):
            raise ActionError(
                "bad_timer", _("speed: {field} {value} s is out of range ({low}-{high} s)").format(
                    field=name, value=seconds(value), low=seconds(low), high=seconds(high))
            )
        return float(value)

    if mode == "untimed":
        if per_move is not None or initial is not None or increment is not None:
            raise ActionError("bad_timer", "an untimed room takes no times")
        return Speed()
    if mode == "turn":
        if per_move is None or initial is not None or increment is not None:
            raise ActionError("bad_timer", "a turn-based room takes per_move (seconds per move) only")
        return Speed("turn", per_move=within("per_move", per_move, limits.turn_min, limits.turn_max))
    if mode == "realtime":
        if per_move is not None:
            if initial is not None or increment is not None:
                raise ActionError("bad_timer", "a real-time room takes per_move, or initial and increment, not both")
            return Speed("realtime", per_move=within("per_move", per_move, limits.timer_min, limits.timer_max))
        if initial is None:
            raise ActionError("bad_timer", "a real-time room takes per_move, or initial and increment")
        return Speed(
            "realtime", initial=within("initial", initial, limits.clock_min, limits.clock_max),
            increment=within("increment", increment or 0.0, 0.0, limits.increment_max),
        )
    raise ActionError("bad_timer", f"speed: mode is untimed, realtime or turn, not {mode!r}")


@dataclass(frozen=True)
class Clocks:
    """Each seat's game clock (Fischer). ``left``: seconds left when the turn in play began
    (None: the seat has no clock, a bot's); ``used``: seconds a seat used this turn, once it has
    acted in it (a tower seat's submission; None: not yet). Times are never negative."""

    left: tuple[float | None, ...]
    used: tuple[float | None, ...]

    @classmethod
    def start(cls, initial: float, people: Sequence[bool]) -> Clocks:
        return cls(tuple(float(initial) if p else None for p in people), (None,) * len(people))

    def deadline(self, seat: int, started: float) -> float | None:
        """When the seat's clock reaches zero if it runs from ``started`` (None: no clock)."""
        left = self.left[seat]
        return None if left is None else started + left

    def remaining(self, seat: int, started: float, now: float, running: bool) -> float | None:
        """What the seat has left at ``now`` (its clock runs while it is to act: ``running``)."""
        left = self.left[seat]
        if left is None:
            return None
        used = self.used[seat]
        if used is not None:
            return max(0.0, left - used)
        return max(0.0, left - max(0.0, now - started)) if running else left

    def acted(self, seat: int, started: float, now: float) -> Clocks:
        """The seat acted at ``now`` in the turn begun at ``started``: its clock stops there,
        never below zero (a move the timer played when the clock ran out)."""
        left = self.left[seat]
        if left is None:
            return self
        used = list(self.used)
        used[seat] = min(left, max(0.0, now - started))
        return replace(self, used=tuple(used))

    def next_turn(self, increment: float) -> Clocks:
        """The turn ended: each seat that acted in it is charged its time, and gets the
        increment if it had time left (a clock that ran out stays at zero)."""
        left: list[float | None] = []
        for before, used in zip(self.left, self.used, strict=True):
            if before is None or used is None:
                left.append(before)
                continue
            rest = max(0.0, before - used)
            left.append(rest + increment if rest > 0 else 0.0)
        return Clocks(tuple(left), (None,) * len(self.left))

    def text(self) -> str:
        """As stored (``rooms.clocks``) and published to the other instances."""
        return json.dumps({"left": list(self.left), "used": list(self.used)}, separators=(",", ":"))

    @classmethod
    def parse(cls, text: str | None) -> Clocks | None:
        if not text:
            return None
        data = json.loads(text)
        return cls(tuple(data["left"]), tuple(data["used"]))


__all__ = ["MODES", "Clocks", "Speed", "check_speed"]
