"""Issue 11, tower: each player chooses a tower and which end is the bottom; end ``b`` is end ``a``
turned 180 degrees; records of the first release's layouts still replay (``2b@v1``)."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tabletris.engine.errors import RecordError, RulesError
from tabletris.engine.records import record_of, replay
from tabletris.engine.shapes import TETROMINOES
from tabletris.engine.tower import LEGACY_LAYOUT_NAMES, TowerGame, library_layout
from tabletris.engine.tower_layouts import LAYOUT_NAMES

RELEASE_0 = Path(__file__).parent / "fixtures" / "release-0"


@pytest.mark.parametrize("tower", "1234")
def test_end_b_is_end_a_turned_upside_down(tower: str) -> None:
    """rules.md tower Setup: 'End b is the same printed tower turned upside down, so its icons are end
    a's turned 180 degrees: a cell (x, y) of a is (width-1-x, height-1-y) of b.'"""
    a, b = library_layout(tower + "a"), library_layout(tower + "b")
    assert dict(b.bonus) == {(7 - x, 14 - y): s for (x, y), s in a.bonus.items()}
    assert b.diamonds == frozenset((7 - x, 14 - y) for x, y in a.diamonds)


@pytest.mark.parametrize("name", LAYOUT_NAMES)
def test_both_ends_spread_icons_over_all_heights_and_shapes(name: str) -> None:
    """rules.md Layouts: 'same number of icons on each, spread over all heights and all seven
    shapes' — on both ends."""
    layout = library_layout(name)
    assert Counter(layout.bonus.values()) == {s: 2 for s in TETROMINOES}
    assert len(layout.diamonds) == 6
    assert {y for _, y in [*layout.bonus, *layout.diamonds]} == set(range(15))


def test_each_seat_chooses_its_tower_and_end() -> None:
    """Seed 002 Setup 6: 'Each player takes a Matrix Tower and a Matrix Base. Choose which end of the
    Tower will be the bottom for the game'."""
    game = TowerGame(["A", "B", "C"], seed=5, towers=["2b", "1a", "4b"])
    assert game.layout_specs == ["2b", "1a", "4b"]
    assert game.towers[0].layout == library_layout("2b")
    assert [t["name"] for t in record_of(game)["towers"]] == ["2b", "1a", "4b"]


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), chosen=st.lists(st.sampled_from([None, *LAYOUT_NAMES]), min_size=1, max_size=4))
def test_unchosen_seats_get_a_free_tower_and_end(seed: int, chosen: list[str | None]) -> None:
    """rules.md: 'a seat that does not choose gets a free tower and end at random' — never one a
    seat chose, never one another seat got: every seat has a tower of its own."""
    numbers = [c[0] for c in chosen if c is not None]
    if len(numbers) != len(set(numbers)):
        with pytest.raises(RulesError, match=r"towers: seats [\d, ]+ and \d (both|all) chose tower \d"):
            TowerGame([f"P{i}" for i in range(len(chosen))], seed=seed, towers=chosen)
        return
    game = TowerGame([f"P{i}" for i in range(len(chosen))], seed=seed, towers=chosen)
    names = game.layout_specs
    assert all(isinstance(n, str) and n in LAYOUT_NAMES for n in names)
    assert len({str(n)[0] for n in names}) == len(chosen)
    for want, got in zip(chosen, names, strict=True):
        if want is not None:
            assert got == want
    again = TowerGame([f"P{i}" for i in range(len(chosen))], seed=seed, towers=chosen)
    assert again.layout_specs == names  # drawn from the seed


def test_no_choice_draws_as_the_first_release_did() -> None:
    """Without any choice the draw is the first release's: a seed keeps its towers and deck."""
    doc = json.loads((RELEASE_0 / "tower-advanced-4p.json").read_text())
    game = TowerGame(doc["players"], {"preset": "advanced"}, seed=doc["seed"])
    assert game.layout_specs == doc["towers"]
    assert [c.value for c in game.deck] == doc["deck"]


def test_bad_tower_choices_are_named() -> None:
    """A choice that is not a tower, or too few free towers, is refused with the seat and reason."""
    with pytest.raises(RulesError, match=r"towers\[1\]: unknown layout '5a'"):
        TowerGame(["A", "B"], towers=["1a", "5a"])
    with pytest.raises(RulesError, match=r"towers: seats 1 and 2 both chose tower 1 .*free towers: 2 3 4"):
        TowerGame(["A", "B"], towers=["1a", "1b"])


@pytest.mark.parametrize("path", sorted(RELEASE_0.glob("tower-*[0-9]p.json")), ids=lambda p: p.stem)
def test_records_of_the_first_release_replay_unchanged(path: Path) -> None:
    """Records that name a layout without icons were written with the first release's layouts: they
    replay as they were played (``2b`` is read as ``2b@v1``)."""
    doc = json.loads(path.read_text())
    expected = json.loads(path.with_suffix(".summary.json").read_text())
    game = replay(doc)
    assert game.summary() == expected
    assert all(name in LEGACY_LAYOUT_NAMES for name in game.layout_specs)
    assert replay(record_of(game)).summary() == expected  # re-saved: icons travel with the record


def test_a_record_stores_the_icons_so_it_replays_without_the_layout_files() -> None:
    """The record is the game: a new record carries each layout's icons with its name."""
    game = TowerGame(["A", "B"], seed=2, towers=["3b", None])
    doc = record_of(game)
    for entry, tower in zip(doc["towers"], game.towers, strict=True):
        assert set(entry) == {"name", "bonus", "diamonds"}
        assert entry["name"] == tower.layout.name
    assert replay(doc).towers[0].layout.bonus == game.towers[0].layout.bonus
    with pytest.raises(RecordError, match=r"towers\[0\]\.name: expected the layout's name"):
        replay({**doc, "towers": [{**doc["towers"][0], "name": 3}, doc["towers"][1]]})


def test_line_mode_towers_option(tmp_path: Path) -> None:
    """`tabletris play tower --plain --towers 2b,-`: seat 0 plays tower 2 with end b at the bottom,
    seat 1 a free tower drawn at random; a clash or a dice game is refused with the reason."""
    from typer.testing import CliRunner

    from tabletris.cli.app import app

    runner = CliRunner()
    save = tmp_path / "game.json"
    result = runner.invoke(
        app, ["play", "tower", "--plain", "--no-color", "--seats", "random=Ann,random=Bob", "--seed", "5",
              "--towers", "2b,-", "--save", str(save)],
    )
    assert result.exit_code == 0, result.output
    assert "Towers: Ann: 2b, Bob: " in result.output
    towers = json.loads(save.read_text())["towers"]
    assert towers[0]["name"] == "2b" and towers[1]["name"][0] != "2"
    clash = runner.invoke(app, ["play", "tower", "--plain", "--seats", "random,random", "--towers", "1a,1b"])
    assert clash.exit_code == 2 and "seats 1 and 2 both chose tower 1" in clash.output
    dice = runner.invoke(app, ["play", "dice", "--plain", "--seats", "random,random", "--towers", "1a,2a"])
    assert dice.exit_code == 2 and "--towers is for the tower game" in dice.output


def test_server_create_and_join_take_a_tower_choice(tmp_path: Path) -> None:
    """The web table's create/join flow: a seat may name its tower and end; a clash or a tower in a
    dice room is refused with the engine's reason; seats without one get a free tower."""
    from fastapi.testclient import TestClient

    from tabletris.server.app import create_app

    app = create_app(f"sqlite+aiosqlite:///{tmp_path / 'towers.sqlite3'}", bot_delay=0)
    with TestClient(app) as c:
        body = {"game": "tower", "seats": [{"kind": "open"}, {"kind": "open"}, {"kind": "random", "tower": "3a"}]}
        room = c.post("/api/rooms", json=body).json()
        assert [s["tower"] for s in room["seats"]] == [None, None, "3a"]
        clash = c.post(f"/api/rooms/{room['id']}/join", json={"name": "Ann", "tower": "3b"})
        assert clash.status_code == 422 and clash.json()["error"] == "bad_tower"
        assert "seats 1 and 3 both chose tower 3" in clash.json()["message"]  # the engine's words
        assert c.post(f"/api/rooms/{room['id']}/join", json={"name": "Ann", "tower": "2b"}).status_code == 200
        assert c.post(f"/api/rooms/{room['id']}/join", json={"name": "Bob"}).status_code == 200
        state = c.get(f"/api/rooms/{room['id']}").json()
        layouts = [t["layout"] for t in state["game"]["towers"]]
        assert layouts[0] == "2b" and layouts[2] == "3a" and layouts[1][0] not in "23"
        dice = c.post("/api/rooms", json={"game": "dice", "seats": [{"kind": "open", "tower": "1a"}]})
        assert dice.status_code == 422 and dice.json()["error"] == "bad_tower"
