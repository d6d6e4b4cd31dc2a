"""Records are saved without overwriting: numbered names, and bad paths refused up front."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tabletris.engine import records
from tabletris.engine.dice import DiceGame
from tabletris.engine.records import record_of
from tabletris.table.saving import check_writable, numbered_path, save_record


def test_second_save_gets_a_numbered_name(tmp_path: Path) -> None:
    doc = record_of(DiceGame(["Ann", "Bob"], seed=1))
    first = save_record(doc, tmp_path / "game.json")
    second = save_record(doc, tmp_path / "game.json")
    third = save_record(doc, tmp_path / "game.json")
    assert [first.name, second.name, third.name] == ["game.json", "game-2.json", "game-3.json"]
    assert records.load(json.loads(second.read_text(encoding="utf-8")))["players"] == ["Ann", "Bob"]
    assert not list(tmp_path.glob(".*.tmp"))


def test_numbered_path_skips_taken_numbers(tmp_path: Path) -> None:
    (tmp_path / "g.json").write_text("{}")
    (tmp_path / "g-2.json").write_text("{}")
    assert numbered_path(tmp_path / "g.json").name == "g-3.json"
    assert numbered_path(tmp_path / "new.json").name == "new.json"


def test_check_writable_refuses_a_folder_and_a_file_as_parent(tmp_path: Path) -> None:
    with pytest.raises(OSError, match="is a folder"):
        check_writable(tmp_path)
    blocker = tmp_path / "file"
    blocker.write_text("x")
    with pytest.raises(OSError, match="is not a folder"):
        check_writable(blocker / "game.json")
    check_writable(tmp_path / "missing" / "game.json")  # creatable: fine
