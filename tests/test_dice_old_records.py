"""Records saved by the release before issue 11 replay exactly as before (record-format.md: a
record that does not name ``tokens_from_supply`` replays with it off). The fixtures were written
by that release (``tests/fixtures/make_release_records.py``) with its ``replay --json`` summary."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tabletris.engine.records import record_of, replay

RELEASE_0 = Path(__file__).parent / "fixtures" / "release-0"
DICE = sorted(p for p in RELEASE_0.glob("dice-*.json") if not p.name.endswith(".summary.json"))


def test_the_fixtures_are_there() -> None:
    assert len(DICE) == 6


def test_a_removal_named_after_the_fall_replays_only_in_an_old_record() -> None:
    """The first release cleared rows before the rewards and wanted a removal named by the cells
    after the fall. Its records replay as they were played; a record of today's rules (it names
    `tokens_from_supply`) names removals before the fall, so the same cells name Ann's own O."""
    doc = json.loads((RELEASE_0 / "dice-choose-clear-fallen-removal.json").read_text())
    assert replay(doc).scores == [1, 0]
    with pytest.raises(Exception, match=r"move 3 \(Ann\): cannot remove .*only a stone another player placed"):
        replay({**doc, "rules": {**doc["rules"], "tokens_from_supply": False}})


@pytest.mark.parametrize("path", DICE, ids=lambda p: p.stem)
def test_release_0_dice_records_replay_unchanged(path: Path) -> None:
    """Old records: same summary as the release that wrote them; their rules are kept as written,
    so saving one again keeps its meaning."""
    doc = json.loads(path.read_text())
    expected = json.loads(path.with_suffix(".summary.json").read_text())
    game = replay(doc)
    assert "tokens_from_supply" not in doc["rules"]
    assert not game.rules.tokens_from_supply
    assert game.summary() == expected
    assert record_of(game) == doc
    assert all(not mine for mine in game.tokens)


def test_an_old_record_with_takes_replays_its_takes() -> None:
    """The 2-player record has takes (the supply ran out): with tokens on they would come sooner,
    so the record would not replay; with the option off it does."""
    doc = json.loads((RELEASE_0 / "dice-standard-2p.json").read_text())
    assert any("take" in m for m in doc["moves"])
    with pytest.raises(Exception, match=r"^move \d+ \("):
        replay({**doc, "rules": {**doc["rules"], "tokens_from_supply": True}})
