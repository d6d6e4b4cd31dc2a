"""The lobby's list (``GET /api/rooms``) as JSON text, from a cache updated on change, in pages.

Each live room renders its lobby entry (``Room.info_text``) once per change, with its state;
an ended room's entry is rendered once, when it ends. A request joins the entries: the list
for a status is rebuilt (sorted, joined) only when one of its entries changed, and a page
already answered since then is answered again as it was. Nothing is decoded, validated or
encoded per request, and nothing is read from the database.

Pages: newest first (``created``, then ``id``); ``limit`` entries, and when more follow, a
``next`` cursor (``after``) that names the last entry's place in the order, so a page does not
shift when rooms are created meanwhile (they come before it). With several instances, the
rooms other instances hold are listed from the entries those publish on the bus when they
change them (``Lobby.elsewhere``; read from the database once at start), and the rooms this
instance holds are described from memory: no request reads the database (each did before,
the newest 500 rooms for a page after the first).
"""

from __future__ import annotations

import bisect
import json
import operator
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Literal, Protocol
from urllib.parse import urlencode

from tabletris.server.errors import ActionError
from tabletris.server.leases import Leases
from tabletris.server.rooms import ENDED, LIVE, Room

PAGES_KEPT = 64
"""Answered pages kept per rebuilt list (different limits and cursors)."""


class ListedLobby(Protocol):
    """What the list reads from the lobby (``lobby.Lobby``): its rooms in memory, the newest
    ended ones' entries, and (several instances) the entries of the rooms others hold."""

    rooms: dict[str, Room]
    ended: dict[str, dict[str, Any]]
    elsewhere: dict[str, tuple[dict[str, Any], str]]
    leases: Leases


FILTERED_KEPT = 64
"""Filtered lists kept built (one per status and filter combination asked for)."""


@dataclass(frozen=True)
class Filters:
    """What the lobby's list may be narrowed to: a game, a preset, at least ``seats`` open
    seats, rated or not; ``list``: ``open`` (waiting rooms with an open seat) or ``recent``
    (ended games)."""

    game: str | None = None
    preset: str | None = None
    seats: int | None = None
    rated: bool | None = None
    list: Literal["open", "recent"] | None = None

    def statuses(self, status: str | None) -> tuple[str, ...] | None:
        """The statuses this list may show (None: any)."""
        allowed: tuple[str, ...] | None = None
        if self.list == "open":
            allowed = ("waiting",)
        elif self.list == "recent":
            allowed = ENDED
        if status is not None:
            allowed = (status,) if allowed is None or status in allowed else ()
        return allowed

    def keeps(self, game: str, preset: Any, open_seats: int, rated: bool) -> bool:
        wanted_open = self.seats if self.seats is not None else 1 if self.list == "open" else 0
        return (
            (self.game is None or game == self.game)
            and (self.preset is None or preset == self.preset)
            and open_seats >= wanted_open
            and (self.rated is None or rated == self.rated)
        )

    def keeps_room(self, room: Room) -> bool:
        return self.keeps(room.game_name, room.rules.get("preset", "standard"), sum(1 for s in room.seats if s.kind == "open"),
                          bool(room.config.get("rated")))

    def keeps_info(self, info: Mapping[str, Any]) -> bool:
        return self.keeps(info["game"], info.get("preset"), sum(1 for s in info["seats"] if s.get("open")), bool(info.get("rated")))


NO_FILTERS = Filters()


class Entry:
    """One room in the order: its sort key and its entry as JSON text."""

    __slots__ = ("key", "status", "text")

    def __init__(self, created: float, room_id: str, status: str, text: str) -> None:
        self.key = (-created, room_id)
        self.status = status
        self.text = text


class _Built:
    """A list for one status (None: all), sorted, with the texts it was built from."""

    __slots__ = ("keys", "pages", "sources", "texts")

    def __init__(self, sources: list[str], entries: list[Entry]) -> None:
        entries.sort(key=lambda e: e.key)
        self.sources = sources
        self.keys = [e.key for e in entries]
        self.texts = [e.text for e in entries]
        self.pages: dict[tuple[int, str | None], tuple[str, str | None]] = {}


CURSOR_PATTERN = r"^[0-9]{1,12}(\.[0-9]{1,20})?(e[+-]?[0-9]{1,3})?_[A-Za-z0-9_-]{1,32}$"
"""What a cursor looks like (the OpenAPI document's pattern): a room's ``created``, ``_``, its id."""


def cursor(key: tuple[float, str]) -> str:
    """The ``after`` value that starts the next page after the entry with ``key``."""
    return f"{-key[0]!r}_{key[1]}"


def parse_cursor(value: str) -> tuple[float, str]:
    created, sep, room_id = value.partition("_")
    try:
        if not sep or not room_id:
            raise ValueError
        return (-float(created), room_id)
    except ValueError:
        raise ActionError("bad_request", f"after: {value[:40]!r} is not a cursor from this list (its Link header's next page)") from None


def page_of(keys: list[tuple[float, str]], texts: list[str], limit: int, after: str | None) -> tuple[str, str | None]:
    """The page of ``limit`` entries after the cursor ``after`` (None: the first), as a JSON
    array, and the cursor of the page after it (None: this is the last)."""
    start = 0 if after is None else bisect.bisect_right(keys, parse_cursor(after))
    end = min(len(keys), start + limit)
    more = cursor(keys[end - 1]) if end < len(keys) and end > start else None
    return "[" + ",".join(texts[start:end]) + "]", more


class LobbyList:
    """The lobby's list, answered from text rendered on change (see the module)."""

    def __init__(self, lobby: ListedLobby) -> None:
        self.lobby = lobby
        self._built: dict[tuple[str | None, Filters], _Built] = {}
        self._ended: dict[str, tuple[dict[str, Any], str]] = {}
        """Each ended room's entry as text, beside the entry it was rendered from."""

    def _ended_text(self, info: dict[str, Any]) -> str:
        cached = self._ended.get(info["id"])
        if cached is not None and cached[0] is info:
            return cached[1]
        text = json.dumps(info, separators=(",", ":"))
        self._ended[info["id"]] = (info, text)
        return text

    async def page(
        self, status: str | None, limit: int, after: str | None = None, filters: Filters = NO_FILTERS
    ) -> tuple[str, str | None]:
        """A page of the list (JSON text) and the next page's cursor."""
        built = self._current(status, filters)
        key = (limit, after)
        answer = built.pages.get(key)
        if answer is None:
            answer = page_of(built.keys, built.texts, limit, after)
            if len(built.pages) >= PAGES_KEPT:
                built.pages.clear()
            built.pages[key] = answer
        return answer

    def _current(self, status: str | None, filters: Filters = NO_FILTERS) -> _Built:
        """The list for ``status`` and ``filters``, rebuilt only if an entry changed since it
        was built (each room's text is a new object at each change, so comparing the texts by
        identity is one pointer comparison per room)."""
        rooms: Iterable[Room] = self.lobby.rooms.values()
        allowed = filters.statuses(status)
        plain = filters == NO_FILTERS
        live = [
            r for r in rooms
            if r.status in LIVE and (allowed is None or r.status in allowed) and r.info_text and (plain or filters.keeps_room(r))
        ]
        sources = [r.info_text for r in live]
        ended: list[dict[str, Any]] = []
        if allowed is None or any(s not in LIVE for s in allowed):
            ended = [
                info for info in self.lobby.ended.values()
                if (allowed is None or info["status"] in allowed) and (plain or filters.keeps_info(info))
            ]
            sources += [self._ended_text(info) for info in ended]
        here = self.lobby.rooms
        elsewhere = [
            (info, text) for room_id, (info, text) in self.lobby.elsewhere.items()
            if (allowed is None or info["status"] in allowed) and room_id not in here and room_id not in self.lobby.ended
            and (plain or filters.keeps_info(info))
        ]
        sources += [text for _, text in elsewhere]
        built = self._built.get((status, filters))
        if built is not None and len(built.sources) == len(sources) and all(map(operator.is_, built.sources, sources)):
            return built
        entries = [Entry(r.created, r.id, r.status, r.info_text) for r in live]
        entries += [Entry(info["created"], info["id"], info["status"], self._ended_text(info)) for info in ended]
        entries += [Entry(info["created"], info["id"], info["status"], text) for info, text in elsewhere]
        if len(self._built) >= FILTERED_KEPT and (status, filters) not in self._built:
            self._built.clear()
        built = self._built[(status, filters)] = _Built(sources, entries)
        if len(self._ended) > 2 * max(1, len(self.lobby.ended)):
            self._ended = {k: v for k, v in self._ended.items() if k in self.lobby.ended}
        return built


def next_link(path: str, query: Mapping[str, str], after: str) -> str:
    """The ``Link`` header naming the next page (RFC 8288)."""
    params = {k: v for k, v in query.items() if k != "after"}
    params["after"] = after
    return f'<{path}?{urlencode(params)}>; rel="next"'


__all__ = ["CURSOR_PATTERN", "NO_FILTERS", "Filters", "LobbyList", "ListedLobby", "cursor", "next_link", "page_of", "parse_cursor"]
