"""What every game's record shares (record-format.md): the format's name, and the way a check of a
malformed record names the key at fault. Each game's own record code (``dice_records.py``,
``tower_records.py``) and the records' front door (``records.py``) build on it.
"""

from __future__ import annotations

from typing import Any

from tabletris.engine.errors import RecordError

FORMAT = "tabletris/1"


def fail(key: str, why: str) -> RecordError:
    """The error for a malformed record: ``key 'moves[3].place': why``, with the key kept."""
    return RecordError(f"key '{key}': {why}", key)


def is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)
