"""Game records, format ``tabletris/1`` (record-format.md): read, check, replay and write.

A record is plain JSON data. Reading checks its shape first (a malformed document names the key
at fault), then replays it move by move through the engine, so a record that breaks a rule is
rejected with the move number, the player and the rule, exactly as the engine words it.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from tabletris.engine.errors import RecordError
from tabletris.engine.games import GAMES, Game, spec_of
from tabletris.engine.record_format import FORMAT
from tabletris.engine.record_format import fail as _fail
from tabletris.engine.record_format import is_int as _is_int


def load(source: str | Path | Mapping[str, Any]) -> dict[str, Any]:
    """A record document from a path, a JSON text or a mapping; RecordError if it is not JSON."""
    if isinstance(source, Mapping):
        return dict(source)
    if isinstance(source, Path):
        try:
            text = source.read_text(encoding="utf-8")
        except OSError as e:
            raise RecordError(f"cannot read {source}: {e.strerror}") from None
        except UnicodeDecodeError as e:
            raise RecordError(f"{source} is not a record: not UTF-8 text (byte {e.start})") from None
    else:
        text = source
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as e:
        raise RecordError(f"not a JSON document: {e.msg} at line {e.lineno} column {e.colno}") from None
    if not isinstance(doc, dict):
        raise RecordError("key '': a record is a JSON object")
    return doc


def dumps(doc: Mapping[str, Any]) -> str:
    """A record as text: one key per line at the top, each move or round on one line."""
    lists = {key for s in GAMES.values() for key in s.record_lists}
    lines = ["{"]
    items = list(doc.items())
    for i, (key, value) in enumerate(items):
        comma = "," if i < len(items) - 1 else ""
        if key in lists and isinstance(value, list) and value:
            inner = ",\n".join("    " + json.dumps(v, separators=(", ", ": ")) for v in value)
            lines.append(f'  "{key}": [\n{inner}\n  ]{comma}')
        else:
            lines.append(f"  {json.dumps(key)}: {json.dumps(value, separators=(', ', ': '))}{comma}")
    lines.append("}")
    return "\n".join(lines) + "\n"


# --------------------------------------------------------------------- checks


def check_common(doc: Mapping[str, Any]) -> str:
    """Checks the keys every game shares; returns the game."""
    if doc.get("format") != FORMAT:
        raise _fail("format", f"expected \"{FORMAT}\", got {json.dumps(doc.get('format'))}")
    game = doc.get("game")
    if game not in GAMES:
        known = " or ".join(f'"{name}"' for name in GAMES)
        raise _fail("game", f"expected {known}, got {json.dumps(game)}")
    players = doc.get("players")
    if not isinstance(players, list) or not players:
        raise _fail("players", "expected a non-empty list of names")
    for i, name in enumerate(players):
        if not isinstance(name, str) or not name.strip():
            raise _fail(f"players[{i}]", "expected a non-empty name")
    if "rules" in doc and not isinstance(doc["rules"], dict):
        raise _fail("rules", "expected an object")
    if "seed" in doc and not _is_int(doc["seed"]):
        raise _fail("seed", "expected an integer")
    return str(game)


# --------------------------------------------------------------------- replay


def replay(source: str | Path | Mapping[str, Any]) -> Game:
    """The game a record describes, replayed through the engine by its game's spec (as
    python-chess's ``pgn.py`` asks the headers for the board class)."""
    doc = load(source)
    game = check_common(doc)
    return GAMES[game].replay_record(doc)


def record_of(game: Game) -> dict[str, Any]:
    """``game`` as a record-format v1 document, as ``chess.pgn.Game.from_board`` makes a PGN:
    the records sit above the games, which know nothing of them."""
    return spec_of(game).write_record(game)
