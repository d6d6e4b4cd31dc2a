"""Seat lists as the command line writes them: ``human,human=Ann,random,expert@0.5``."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from tabletris.bots.base import Bot
from tabletris.bots.registry import make_bot
from tabletris.engine.texts import N_, Message


@dataclass(frozen=True)
class SeatSpec:
    """One seat: ``kind`` is ``human`` or a bot name; ``name`` the player's; ``strength`` for bots."""

    kind: str
    name: str
    strength: float | None = None

    @property
    def is_human(self) -> bool:
        return self.kind == "human"


def parse_seats(text: str, max_seats: int = 8, person: str = "Player {number}") -> list[SeatSpec]:
    """Seats from ``KIND[@STRENGTH][=NAME]`` items; ValueError naming the item at fault.

    ``person`` names an unnamed human seat from its number (a front end passes it in the
    player's language: the name goes into the record as it is shown)."""
    items = [s.strip() for s in text.split(",")]
    if not items or any(not s for s in items):
        raise ValueError(Message(N_("--seats: expected a comma-separated list like human,random, got {text!r}"), text=text))
    if len(items) > max_seats:
        raise ValueError(Message(N_("--seats: at most {most} seats, got {count}"), most=max_seats, count=len(items)))
    seats: list[SeatSpec] = []
    counts: dict[str, int] = {}
    for item in items:
        kind, _, name = item.partition("=")
        strength: float | None = None
        if "@" in kind:
            kind, _, level = kind.partition("@")
            strength = parse_strength(item, level)
        kind = kind.strip()
        if not kind:
            raise ValueError(Message(N_("--seats: {item!r} names no player kind"), item=item))
        counts[kind] = counts.get(kind, 0) + 1
        if not name:
            if kind == "human":
                name = person.format(number=len(seats) + 1)
            else:
                name = f"{kind.split(':')[0].capitalize()} {len(seats) + 1}"
        seats.append(SeatSpec(kind, name.strip(), strength))
    names = [s.name for s in seats]
    if len(set(names)) != len(names):
        raise ValueError(Message(N_("--seats: two seats have the same name ({names})"), names=", ".join(names)))
    return seats


def parse_strength(item: str, level: str) -> float:
    """The ``STRENGTH`` of a ``KIND@STRENGTH`` seat: a number from 0 to 1 (docs/strength.md)."""
    try:
        strength = float(level)
    except ValueError:
        raise ValueError(Message(N_("--seats: {item!r}: strength {level!r} is not a number"), item=item, level=level)) from None
    if not 0 <= strength <= 1:  # also refuses nan
        raise ValueError(Message(N_("--seats: {item!r}: strength {level} is outside 0 to 1"), item=item, level=level))
    return strength


def check_game(kinds: Sequence[str], game: str) -> None:
    """Refuse a bot seat for a game that bot does not play; ValueError naming the bot and why."""
    from tabletris.bots.registry import bot_refusal

    for kind in kinds:
        if kind == "human":
            continue
        reason = bot_refusal(kind, game)
        if reason is not None:
            raise ValueError(f"--seats: {kind!r}: {reason}")


def parse_rules(items: list[str] | None, preset: str | None = None) -> dict[str, object]:
    """A rules object from ``--preset`` and ``--rules key=value`` (values in JSON, else strings)."""
    import json

    rules: dict[str, object] = {}
    if preset:
        rules["preset"] = preset
    for item in items or []:
        item = item.strip()
        if item.startswith("{"):
            try:
                extra = json.loads(item)
            except json.JSONDecodeError as e:
                raise ValueError(Message(N_("--rules: {item!r} is not a JSON object: {error}"), item=item, error=e.msg)) from None
            if not isinstance(extra, dict):
                raise ValueError(Message(N_("--rules: {item!r} is not a JSON object"), item=item))
            rules.update(extra)
            continue
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise ValueError(Message(N_("--rules: expected key=value, got {item!r}"), item=item))
        try:
            parsed: object = json.loads(value)
        except json.JSONDecodeError:
            parsed = value
        rules[key.strip()] = parsed
    return rules


def make_seat_bots(seats: Sequence[SeatSpec], seed: int | None) -> dict[int, Bot]:
    """A bot for every non-human seat, each seeded from the game seed and its seat (so a seeded
    game repeats exactly); unseeded bots for an unseeded game."""
    return {
        i: make_bot(s.kind, seed=None if seed is None else seed * 31 + i, strength=s.strength)
        for i, s in enumerate(seats)
        if not s.is_human
    }
