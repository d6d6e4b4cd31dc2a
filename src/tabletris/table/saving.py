"""Saving records to files without ever overwriting one: a second game saved to ``game.json`` goes
to ``game-2.json``, then ``game-3.json`` (a rematch, or the same ``--save`` twice, loses nothing)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from tabletris.engine import records


def numbered_path(path: Path) -> Path:
    """``path`` if nothing is there yet, else the first free ``stem-N.suffix`` (N from 2)."""
    if not path.exists():
        return path
    n = 2
    while True:
        candidate = path.with_name(f"{path.stem}-{n}{path.suffix}")
        if not candidate.exists():
            return candidate
        n += 1


def check_writable(path: Path) -> None:
    """Refuse a save path before the game starts, not after it ends: OSError naming the reason.

    The folder must exist (or be creatable) and be writable; a path that is a folder is refused.
    """
    if path.is_dir():
        raise OSError(f"{path} is a folder, not a file")
    folder = path.parent if str(path.parent) else Path(".")
    probe = folder
    while not probe.exists():
        probe = probe.parent
    if not probe.is_dir():
        raise OSError(f"{probe} is not a folder")
    if not os.access(probe, os.W_OK):
        raise OSError(f"cannot write in {probe}: permission denied")


def save_record(doc: dict[str, Any], path: Path) -> Path:
    """Write a record to ``path`` or, if a file is there, to the next numbered name; the path used.

    The text goes to a temporary file that is then renamed, so a crash mid-write never leaves a
    half record under the real name. OSError passes through with the path in it.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    target = numbered_path(path)
    tmp = target.with_name(f".{target.name}.tmp")
    tmp.write_text(records.dumps(doc), encoding="utf-8")
    os.replace(tmp, target)
    return target
