"""Every limit of the online table, in one place (``docs/security.md`` is the same table).

A server on the open internet is used by people who mean harm as well as by players. Each
limit below caps what one request, one connection, one client (IP address) or the whole server
may cost, and each is answered with the documented error body ``{"error": CODE, "message":
TEXT}``, where the text names the limit and the value that broke it. An over-limit request is
refused before any work that grows with its size (the body limit before reading, the rules
ranges before building a game, the record length before replaying it).

``Limits`` holds the values; ``create_app(limits=...)`` takes another set for tests and the load
benchmark, which play hundreds of rooms from one address. ``LIMIT_TABLE`` is the documented
table: ``tests/test_server_abuse.py`` checks that ``docs/security.md`` shows the same values.
"""

from __future__ import annotations

import json
import time
import unicodedata
from collections import deque
from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any, Protocol

from tabletris.engine.errors import RulesError
from tabletris.engine.games import GameSpec
from tabletris.i18n import _
from tabletris.server.errors import ActionError, engine_text


@dataclass(frozen=True)
class Limits:
    """The values; see ``LIMIT_TABLE`` for what each one caps and the error it answers."""

    # rules of a new room
    dice_width: int = 20
    dice_height: int = 40
    garbage_share: float = 0.25
    supply: int = 50
    target: int = 200
    die_faces: int = 12
    minos_in_box: int = 200
    start_minos: int = 20
    rules_bytes: int = 2048
    timer_min: float = 10.0
    timer_max: float = 600.0
    default_timer: float = 60.0
    clock_min: float = 30.0
    clock_max: float = 10800.0
    increment_max: float = 300.0
    turn_min: float = 3600.0
    turn_max: float = 1209600.0
    untimed_expel: float = 604800.0
    # names
    name_chars: int = 24
    # requests and messages
    body_bytes: int = 1024 * 1024
    request_bytes: int = 16 * 1024
    record_moves: int = 2000
    message_bytes: int = 16 * 1024
    message_rate: float = 20.0
    message_burst: float = 40.0
    message_strikes: int = 200
    http_rate: float = 50.0
    http_burst: float = 100.0
    # per client (IP address)
    rooms_per_minute: int = 10
    open_rooms: int = 5
    sockets_per_client: int = 64
    # per room and server
    spectators: int = 50
    chat_chars: int = 300
    chat_lines: int = 5
    chat_window: float = 10.0
    chat_keep: int = 50
    rooms_total: int = 2000
    bot_only_moves: int = 2000
    ext_processes: int = 8
    # time
    hello_timeout: float = 5.0
    header_timeout: float = 10.0
    keep_alive: int = 5
    ws_ping: float = 20.0
    send_timeout: float = 10.0
    outbox: int = 256
    bot_budget: float = 5.0
    kick_after: int = 3
    rematch_reserve: float = 120.0
    finished_linger: float = 120.0
    waiting_expiry: float = 3600.0
    abandoned_expiry: float = 1800.0
    # accounts
    queue_rate: float = 1.0
    queue_burst: float = 10.0

    @classmethod
    def unlimited_clients(cls, **changes: Any) -> Limits:
        """The per-client limits lifted (tests, the load benchmark: everything from 127.0.0.1)."""
        values = {
            "rooms_per_minute": 10**6, "open_rooms": 10**6, "sockets_per_client": 10**6,
            "http_rate": 1e6, "http_burst": 1e6, "rooms_total": 10**6, **changes,
        }
        return cls(**values)


@dataclass(frozen=True)
class LimitRow:
    field: str
    what: str
    error: str
    unit: str = ""


LIMIT_TABLE: tuple[LimitRow, ...] = (
    LimitRow("dice_width", "dice board width", "bad_rules", "cells"),
    LimitRow("dice_height", "dice board height", "bad_rules", "cells"),
    LimitRow("garbage_share", "garbage stones' cells, as a share of the board", "bad_rules"),
    LimitRow("supply", "dice supply per shape", "bad_rules", "stones"),
    LimitRow("target", "dice target (clear_rows)", "bad_rules", "points"),
    LimitRow("die_faces", "faces of the die", "bad_rules"),
    LimitRow("minos_in_box", "tower minos in the box", "bad_rules"),
    LimitRow("start_minos", "tower minos at the start", "bad_rules"),
    LimitRow("rules_bytes", "a room's rules as JSON", "bad_rules", "bytes"),
    LimitRow("timer_min", "shortest turn timer", "bad_timer", "s"),
    LimitRow("timer_max", "longest turn timer", "bad_timer", "s"),
    LimitRow("default_timer", "turn timer of a room with people when none is given", "-", "s"),
    LimitRow("clock_min", "shortest real-time game clock (speed initial)", "bad_timer", "s"),
    LimitRow("clock_max", "longest real-time game clock (speed initial)", "bad_timer", "s"),
    LimitRow("increment_max", "a game clock's increment per move (speed increment)", "bad_timer", "s"),
    LimitRow("turn_min", "shortest turn-based time per move", "bad_timer", "s"),
    LimitRow("turn_max", "longest turn-based time per move", "bad_timer", "s"),
    LimitRow("untimed_expel", "an untimed room's player to act may be expelled by the others after", "too_early", "s"),
    LimitRow("name_chars", "a name, as sent and after NFC and space folding", "bad_name", "characters"),
    LimitRow("body_bytes", "the body of a record upload (POST /api/replay)", "too_large", "bytes"),
    LimitRow("request_bytes", "every other HTTP body (rooms, joins, moves: refused before it is read)", "too_large", "bytes"),
    LimitRow("record_moves", "moves (dice) or rounds (tower) of a record to replay", "bad_record"),
    LimitRow("message_bytes", "a websocket message", "too_large", "bytes"),
    LimitRow("message_rate", "websocket messages per second per connection", "rate_limited", "/s"),
    LimitRow("message_burst", "websocket burst", "rate_limited"),
    LimitRow("message_strikes", "refused messages before the connection is closed (1008)", "-"),
    LimitRow("http_rate", "HTTP requests per second per client", "rate_limited", "/s"),
    LimitRow("http_burst", "HTTP burst per client", "rate_limited"),
    LimitRow("rooms_per_minute", "rooms a client creates per minute", "rate_limited"),
    LimitRow("open_rooms", "waiting rooms a client has open", "too_many_rooms"),
    LimitRow("sockets_per_client", "websockets open per client (then the handshake is closed 1013)", "-"),
    LimitRow("spectators", "spectators per room", "room_full"),
    LimitRow("chat_chars", "a chat line", "bad_chat", "characters"),
    LimitRow("chat_lines", "chat lines per connection in chat_window", "rate_limited"),
    LimitRow("chat_window", "the window of chat_lines", "rate_limited", "s"),
    LimitRow("chat_keep", "chat lines a room keeps in memory for people who connect later", "-"),
    LimitRow("rooms_total", "rooms waiting or playing on the server", "server_full"),
    LimitRow("bot_only_moves", "moves of a room without people before it is stopped", "-"),
    LimitRow("ext_processes", "external bot processes on the server", "bad_seats"),
    LimitRow("hello_timeout", "wait for a websocket's hello (then close 4401)", "-", "s"),
    LimitRow("header_timeout", "an HTTP connection's first request (then it is closed)", "-", "s"),
    LimitRow("keep_alive", "idle HTTP keep-alive", "-", "s"),
    LimitRow("ws_ping", "websocket ping interval and timeout (half-open sockets)", "-", "s"),
    LimitRow("send_timeout", "a connection that does not read for this long is closed (4408)", "-", "s"),
    LimitRow("outbox", "replies queued for one connection (states coalesce to the latest)", "-"),
    LimitRow("bot_budget", "a bot's thinking time per move (then the timer bot moves)", "-", "s"),
    LimitRow("kick_after", "consecutive timed-out turns before a seat is resigned", "-"),
    LimitRow("rematch_reserve", "a rematch seat is kept for its player", "-", "s"),
    LimitRow("finished_linger", "a finished room stays in memory (then served from the database)", "-", "s"),
    LimitRow("waiting_expiry", "a waiting room nobody joins expires", "-", "s"),
    LimitRow("abandoned_expiry", "a game without moves or people connected expires", "-", "s"),
    LimitRow("queue_rate", "Play now tickets posted or left per second per account", "rate_limited", "/s"),
    LimitRow("queue_burst", "Play now burst per account", "rate_limited"),
)
assert {r.field for r in LIMIT_TABLE} == {f.name for f in fields(Limits)}


def limit_value(limits: Limits, row: LimitRow) -> str:
    """A limit's value as the documentation table writes it."""
    value = getattr(limits, row.field)
    if isinstance(value, float):
        return f"{value:.0f}" if value == int(value) else f"{value:g}"  # 1209600, not 1.2096e+06
    return str(value)


# ---------------------------------------------------------------------- rules


class RulesChecker(Protocol):
    """What ``check_rules`` asks of a game (its server adapter)."""

    spec: GameSpec

    def check_limits(self, rules: Any, limits: Limits) -> None: ...


def check_rules(limits: Limits, game: RulesChecker, rules: Any) -> dict[str, Any]:
    """The server's ranges for a new room's rules, checked on the parsed options (cheap: no
    board is built), so a 40x100 board with 5000 garbage stones costs nothing to refuse: the
    game's spec parses them, then the game's adapter checks its own limits
    (``check_limits``). The engine still checks everything else when the game is built."""
    if rules is None:
        return {}
    if not isinstance(rules, Mapping):
        raise ActionError("bad_rules", "rules: expected an object")
    size = len(json.dumps(rules, separators=(",", ":"), default=str))
    if size > limits.rules_bytes:
        raise ActionError("bad_rules", f"rules: {size} bytes of JSON, at most {limits.rules_bytes}")
    try:
        parsed = game.spec.rules(rules)
    except (RulesError, ValueError, TypeError) as e:
        raise ActionError("bad_rules", engine_text(e)) from None
    game.check_limits(parsed, limits)
    return dict(rules)


def check_limit(name: str, value: float, limit: float) -> None:
    """``bad_rules`` when the option ``name``'s ``value`` is over this server's ``limit``."""
    if value > limit:
        raise ActionError("bad_rules", _("rules.{name}: {value:g} is over this server's limit ({limit:g})").format(name=name, value=value, limit=limit))


def check_timer(limits: Limits, timer: float | None, people: bool) -> float | None:
    """The turn timer: the default for rooms with people; 0 turns it off for bot-only rooms
    only (an untimed room with people stalls forever when one of them walks away)."""
    if timer is None or timer == 0:
        return limits.default_timer if people else None
    if not (limits.timer_min <= timer <= limits.timer_max):
        raise ActionError(
            "bad_timer", _("timer: {timer:g} s is out of range ({low:g}-{high:g} s)").format(timer=timer, low=limits.timer_min, high=limits.timer_max)
        )
    return float(timer)


# ---------------------------------------------------------------------- names

_CONFUSABLE = str.maketrans(
    {
        "0": "o", "1": "l", "|": "l", "5": "s", "$": "s", "3": "e", "@": "a",
        # Cyrillic and Greek letters that look like Latin ones
        "а": "a", "е": "e", "о": "o", "р": "p", "с": "c", "у": "y", "х": "x", "к": "k",
        "м": "m", "т": "t", "н": "h", "в": "b", "і": "i", "ј": "j", "ѕ": "s",
        "α": "a", "ο": "o", "ρ": "p", "τ": "t", "υ": "u", "ν": "v", "κ": "k", "ι": "i",
    }
)


def clean_name(limits: Limits, name: Any) -> str:
    """A player name: at most ``name_chars`` characters as sent (the OpenAPI document's
    ``maxLength``), then NFC, runs of spaces folded, 1..``name_chars`` printable characters, no
    format characters (zero-width joiners, bidi overrides) that would make two names look alike."""
    if not isinstance(name, str):
        raise ActionError("bad_name", "a name is a string")
    if len(name) > limits.name_chars:
        raise ActionError("bad_name", _("a name has at most {most} characters, got {got}").format(most=limits.name_chars, got=len(name)))
    name = " ".join(unicodedata.normalize("NFC", name).split())
    if not name:
        raise ActionError("bad_name", _("a name needs at least one visible character"))
    if len(name) > limits.name_chars:
        raise ActionError("bad_name", _("a name has at most {most} characters, got {got}").format(most=limits.name_chars, got=len(name)))
    if not name.isprintable() or any(unicodedata.category(c) == "Cf" for c in name):
        raise ActionError("bad_name", _("a name may not contain control or invisible format characters"))
    return name


def name_skeleton(name: str) -> str:
    """What a name looks like: compatibility forms folded (full-width, ligatures), case and
    accents dropped, look-alike letters and digits mapped to one letter, spaces removed."""
    folded = unicodedata.normalize("NFKD", name).casefold()
    bare = "".join(c for c in folded if not unicodedata.combining(c) and not c.isspace())
    return bare.translate(_CONFUSABLE)


def check_name_free(name: str, taken: list[str | None], room: str) -> None:
    """``name_taken`` if ``name`` is, or looks like, a name already in ``room``."""
    mine = name_skeleton(name)
    for other in taken:
        if other is not None and name_skeleton(other) == mine:
            if other == name:
                raise ActionError("name_taken", _("someone in room {room} is already called {name!r}").format(room=room, name=name))
            raise ActionError(
                "name_taken",
                _("someone in room {room} is called {other!r}, which looks the same as {name!r}").format(room=room, other=other, name=name),
            )


# ---------------------------------------------------------------------- clients


class Bucket:
    """A token bucket: ``rate`` per second on average, bursts of ``burst``."""

    __slots__ = ("burst", "rate", "stamp", "tokens")

    def __init__(self, rate: float, burst: float) -> None:
        self.rate = rate
        self.burst = burst
        self.tokens = burst
        self.stamp = time.monotonic()

    def take(self) -> bool:
        now = time.monotonic()
        self.tokens = min(self.burst, self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now
        if self.tokens >= 1:
            self.tokens -= 1
            return True
        return False

    def wait(self) -> float:
        """Seconds until ``take`` would succeed again (0 when it would now)."""
        return max(0.0, (1 - self.tokens) / self.rate) if self.rate > 0 else float("inf")


class ClientLedger:
    """Per-client (IP address) counters: HTTP rate, rooms created in the last minute, open
    websockets. Entries of quiet clients are dropped, so the ledger itself stays small."""

    def __init__(self, limits: Limits) -> None:
        self.limits = limits
        self.buckets: dict[str, Bucket] = {}
        self.created: dict[str, deque[float]] = {}
        self.sockets: dict[str, int] = {}
        self._swept = time.monotonic()

    def http(self, client: str) -> bool:
        self._sweep()
        bucket = self.buckets.get(client)
        if bucket is None:
            bucket = self.buckets[client] = Bucket(self.limits.http_rate, self.limits.http_burst)
        return bucket.take()

    def http_wait(self, client: str) -> float:
        """Seconds until ``client``'s next HTTP request is allowed (the 429's ``Retry-After``)."""
        bucket = self.buckets.get(client)
        return bucket.wait() if bucket is not None else 0.0

    def room_created(self, client: str) -> None:
        """Count a new room; ``rate_limited`` if the client made its allowance this minute."""
        now = time.monotonic()
        stamps = self.created.setdefault(client, deque())
        while stamps and stamps[0] < now - 60:
            stamps.popleft()
        if len(stamps) >= self.limits.rooms_per_minute:
            raise ActionError(
                "rate_limited", _("at most {most} new rooms a minute from one address").format(most=self.limits.rooms_per_minute),
                retry_after=stamps[0] + 60 - now,
            )
        stamps.append(now)

    def socket_opened(self, client: str) -> bool:
        count = self.sockets.get(client, 0)
        if count >= self.limits.sockets_per_client:
            return False
        self.sockets[client] = count + 1
        return True

    def socket_closed(self, client: str) -> None:
        count = self.sockets.get(client, 0) - 1
        if count > 0:
            self.sockets[client] = count
        else:
            self.sockets.pop(client, None)

    def _sweep(self) -> None:
        now = time.monotonic()
        if now - self._swept < 60:
            return
        self._swept = now
        self.buckets = {k: b for k, b in self.buckets.items() if now - b.stamp < 60}
        self.created = {k: d for k, d in self.created.items() if d and d[-1] > now - 60}
