"""Tower records (record-format.md): round trips, replay errors, and hypothesis properties."""

from __future__ import annotations

import copy
import itertools
import json
import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tabletris.bots.registry import make_bot
from tabletris.engine import games, records
from tabletris.engine.errors import IllegalMove, RecordError
from tabletris.engine.records import record_of
from tabletris.engine.tower import TowerAction, TowerGame, TowerRules, library_layout
from tower_helpers import game_with


def random_game(seed: int, players: int = 4, rules: dict[str, Any] | None = None, rounds: int = 27) -> TowerGame:
    """Random bots (which use minos and holds) playing up to ``rounds`` rounds."""
    rng = random.Random(seed)
    game = TowerGame([f"P{i}" for i in range(players)], rules, seed=rng.getrandbits(32))
    bots = [make_bot("random", seed=rng.getrandbits(32)) for _ in range(players)]
    while not game.over and len(game.rounds) < rounds:
        for seat in game.waiting_for():
            game.submit(seat, bots[seat].choose_tower(game.view(seat)))
    return game


# ------------------------------------------------------------ round trips


def test_record_has_the_documented_keys() -> None:
    """Record: format, game, players, rules, seed, towers, deck (27) and rounds (one entry per seat)."""
    doc = record_of(random_game(3))
    assert list(doc) == ["format", "game", "players", "rules", "seed", "towers", "deck", "rounds"]
    assert doc["format"] == "tabletris/1" and doc["game"] == "tower"
    assert len(doc["deck"]) == 27 and len(doc["towers"]) == 4
    assert all(isinstance(r, list) and len(r) == 4 for r in doc["rounds"])
    used_minos = any("minos" in a for r in doc["rounds"] for a in r if a)
    holds = any(a == {"hold": True} for r in doc["rounds"] for a in r)
    assert used_minos or holds


@pytest.mark.parametrize("seed", range(12))
def test_round_trip_is_exact_through_text(seed: int) -> None:
    """Record: tower_record(replay(doc)) == doc, through records.dumps and back."""
    rules = {"preset": "advanced"} if seed % 2 else None
    game = random_game(seed, players=1 + seed % 4, rules=rules)
    doc = record_of(game)
    again = records.replay(records.dumps(doc))
    assert record_of(again) == doc
    assert again.summary() == game.summary()
    assert json.loads(records.dumps(doc)) == doc


def test_a_record_may_stop_mid_game() -> None:
    """Record: rounds may stop mid-game; the replay continues from there."""
    game = random_game(5, rounds=6)
    doc = record_of(game)
    again = records.replay(doc)
    assert not again.over and again.round == game.round
    assert again.play_card is game.play_card


def test_custom_layouts_and_rules_round_trip() -> None:
    """Record: custom layouts in towers and rule options survive the round trip."""
    custom = {"bonus": [{"cell": [0, 0], "shape": "I"}], "diamonds": [[7, 0]]}
    game = TowerGame(["A", "B"], {"achievements": ["connect-io"], "four_pairs": "pairs"}, seed=4, towers=[custom, "3a"])
    game.submit(0, TowerAction.drop(game.legal_drops(0)[0]))
    game.submit(1, TowerAction.holding())
    doc = record_of(game)
    assert doc["towers"] == [custom, library_layout("3a").to_record()]
    assert doc["towers"][1]["name"] == "3a"
    assert doc["rules"] == {"preset": "standard", "achievements": ["connect-io"], "four_pairs": "pairs"}
    assert record_of(records.replay(doc)) == doc


def test_summary_matches_record_format() -> None:
    """Summary: game, over, round, players[name, score, lines, bonus, achievements, out, minos, held, rows], winners."""
    game = random_game(8)
    summary = game.summary()
    assert list(summary) == ["game", "over", "round", "players", "winners"]
    assert summary["game"] == "tower" and summary["over"] is True
    for p, seat in zip(summary["players"], range(4), strict=True):
        assert list(p) == ["name", "score", "lines", "bonus", "achievements", "out", "minos", "held", "rows"]
        assert p["score"] == game.score(seat)["total"]
        assert len(p["rows"]) == 15 and all(len(r) == 8 for r in p["rows"])
    assert summary["winners"] == [game.players[i] for i in game.winners()]
    assert records.replay(record_of(game)).summary() == summary


def test_summary_winners_empty_while_playing() -> None:
    """Summary: winners is empty while the game is not over."""
    assert random_game(2, rounds=3).summary()["winners"] == []


def test_game_registry_knows_the_tower_rules() -> None:
    """The game registry builds the tower game's rules from a rules object."""
    assert games.spec("tower").rules({"preset": "advanced"}) == TowerRules.from_dict({"preset": "advanced"})


# ----------------------------------------------------------- replay errors


def _base_doc() -> dict[str, Any]:
    return record_of(random_game(1, players=2, rounds=5))


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda d: d.update(colour=1), r"^key 'colour': unknown key for a tower record$"),
        (lambda d: d.update(rounds={}), r"^key 'rounds': expected a list"),
        (lambda d: d["rounds"].__setitem__(0, [None]), r"^key 'rounds\[0\]': expected 2 actions"),
        (lambda d: d["rounds"][0].__setitem__(1, {"place": [[0, "a"]]}), r"^key 'rounds\[0\]\[1\]\.place': expected a list of \[x, y\] cells"),
        (lambda d: d["rounds"][0].__setitem__(0, {"jump": 1}), r"^key 'rounds\[0\]\[0\]\.jump': unknown key"),
        (lambda d: d["rounds"][0].__setitem__(0, {"minos": ["a"], "place": []}), r"^key 'rounds\[0\]\[0\]\.minos'"),
        (lambda d: d.update(deck=d["deck"][:5]), r"^deck: expected 27 cards"),
        (lambda d: d.update(towers=["zz", "1a"]), r"^towers\[0\]: unknown layout 'zz'"),
        (lambda d: d.update(rules={"achievements": ["x"]}), r"^rules\.achievements: unknown card 'x'"),
        (lambda d: d.update(format="other"), r"^key 'format'"),
    ],
)
def test_malformed_records_name_the_key(change: Any, message: str) -> None:
    """Replay: a malformed document is rejected, naming the key at fault."""
    doc = copy.deepcopy(_base_doc())
    change(doc)
    with pytest.raises(RecordError, match=message):
        records.replay(doc)


def test_a_broken_rule_names_round_player_and_rule() -> None:
    """Replay: errors read 'round R (NAME): rule', rounds numbered from 1."""
    doc = copy.deepcopy(_base_doc())
    doc["rounds"][2][1] = {"place": [[0, 14], [1, 14], [2, 14], [3, 14]]}
    with pytest.raises(RecordError, match=r"^round 3 \(P1\): \w .*(straight drop|overlaps|not the shape|mirrored)"):
        records.replay(doc)


def test_replay_rejects_minos_a_player_does_not_have() -> None:
    """Replay: a player may only drop minos they hold."""
    game = game_with("O")
    doc = record_of(game)
    doc["rounds"] = [[{"minos": [0, 1], "place": [[4, 0], [5, 0], [4, 1], [5, 1]]}]]
    with pytest.raises(RecordError, match=r"^round 1 \(Ann\): drops 2 minos but has 1$"):
        records.replay(doc)


def test_replay_rejects_a_second_hold_and_rounds_after_the_end() -> None:
    """Replay: the hold is once per game; no round after the game is over."""
    game = game_with("OO")
    doc = record_of(game)
    doc["rounds"] = [[{"hold": True}], [{"hold": True}]]
    with pytest.raises(RecordError, match=r"^round 2 \(Ann\): has used the hold already"):
        records.replay(doc)
    finished = random_game(4, players=1)
    doc = record_of(finished)
    doc["rounds"].append([{"hold": True}])
    with pytest.raises(RecordError, match=rf"^round {len(doc['rounds'])}: the game is already over"):
        records.replay(doc)


def _first_forced_hold() -> tuple[dict[str, Any], int, int]:
    """A random game's record with a hold the engine forced: (doc, round index, seat)."""
    for seed in range(300):
        doc = record_of(random_game(seed, players=2))
        for r, entry in enumerate(doc["rounds"]):
            for seat, action in enumerate(entry):
                if action == {"hold": True}:
                    partial = dict(doc, rounds=doc["rounds"][:r])
                    if records.replay(partial).forced(seat):
                        return doc, r, seat
    raise AssertionError("no forced hold in 300 random games")


def test_replay_checks_a_forced_hold() -> None:
    """Replay: a seat with no legal drop must hold; any other entry is rejected."""
    doc, r, seat = _first_forced_hold()
    name = doc["players"][seat]
    broken = copy.deepcopy(doc)
    broken["rounds"][r][seat] = {"place": [[0, 0], [1, 0], [2, 0], [3, 0]]}
    with pytest.raises(RecordError, match=rf"^round {r + 1} \({name}\): no legal drop for ., so the player must hold"):
        records.replay(broken)


def test_replay_checks_that_an_out_seat_is_null() -> None:
    """Replay: a seat that is out is written as null; an action there is rejected."""
    for seed in range(300):
        doc = record_of(random_game(seed, players=2))
        outs = [(r, s) for r, entry in enumerate(doc["rounds"]) for s, a in enumerate(entry) if a is None]
        if outs:
            break
    r, seat = outs[0]
    broken = copy.deepcopy(doc)
    broken["rounds"][r][seat] = {"hold": True}
    with pytest.raises(RecordError, match=rf"^round {r + 1} \({doc['players'][seat]}\): the player is out"):
        records.replay(broken)


def test_replay_rejects_null_for_a_player_who_is_not_out() -> None:
    """Replay: null is only for a player who is out."""
    doc = copy.deepcopy(_base_doc())
    doc["rounds"][0][0] = None
    with pytest.raises(RecordError, match=r"^round 1 \(P0\): the player is not out"):
        records.replay(doc)


# ------------------------------------------------------------- properties


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), players=st.integers(1, 4))
def test_property_no_piece_ever_ends_above_the_skyline(seed: int, players: int) -> None:
    """Property (skyline): after every round of a random game, every cell is inside the 8x15 tower."""
    rng = random.Random(seed)
    game = TowerGame([f"P{i}" for i in range(players)], seed=seed)
    bots = [make_bot("random", seed=rng.getrandbits(32)) for _ in range(players)]
    while not game.over:
        for seat in game.waiting_for():
            game.submit(seat, bots[seat].choose_tower(game.view(seat)))
        for tower in game.towers:
            assert all(0 <= y < 15 and 0 <= x < 8 for s in tower.board.stones.values() for x, y in s.cells)


@settings(max_examples=60, deadline=None)
@given(
    seed=st.integers(0, 10_000),
    cells=st.lists(st.tuples(st.integers(-1, 8), st.integers(-1, 18)), min_size=4, max_size=4),
    minos=st.lists(st.integers(-1, 8), max_size=2),
)
def test_property_any_accepted_action_is_a_legal_drop_below_the_skyline(
    seed: int, cells: list[tuple[int, int]], minos: list[int]
) -> None:
    """Property (validation): an arbitrary action is either rejected unchanged or is a listed legal drop."""
    game = random_game(seed, players=1, rounds=random.Random(seed).randint(0, 8), rules={"start_minos": 2})
    if game.over:
        return
    before = record_of(game)
    action = TowerAction(tuple(minos), tuple(cells))
    try:
        legal = {frozenset(p.cells) for p in game.legal_drops(0, minos)}
    except IllegalMove:
        legal = set()
    try:
        game.submit(0, action)
    except IllegalMove:
        assert record_of(game) == before
        assert frozenset(cells) not in legal
        return
    assert frozenset(cells) in legal
    assert all(y < 15 for x, y in cells)


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), orders=st.lists(st.permutations(range(4)), min_size=27, max_size=27))
def test_property_resolution_does_not_depend_on_submission_order(seed: int, orders: list[list[int]]) -> None:
    """Property (simultaneity): the same actions submitted in any order give the same game."""
    reference = random_game(seed)
    doc = record_of(reference)
    game = TowerGame(doc["players"], doc["rules"], seed=doc["seed"], towers=doc["towers"], deck=doc["deck"])
    for number, (entry, order) in enumerate(zip(doc["rounds"], itertools.cycle(orders), strict=False), 1):
        if len(game.rounds) >= number:
            continue  # every seat was forced (hold or out): the engine resolved this round itself
        waiting = set(game.waiting_for())
        for seat in order:
            if seat in waiting:
                game.submit(seat, TowerAction.from_dict(entry[seat]))
    assert record_of(game) == doc
    assert game.summary() == reference.summary()
    assert [t.minos for t in game.towers] == [t.minos for t in reference.towers]
    assert game.supply == reference.supply


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), players=st.integers(1, 4), advanced=st.booleans())
def test_property_random_game_replays_identically(seed: int, players: int, advanced: bool) -> None:
    """Property (records): a random game replays identically from its record and round-trips."""
    game = random_game(seed, players, {"preset": "advanced"} if advanced else None)
    doc = record_of(game)
    again = records.replay(json.loads(json.dumps(doc)))
    assert record_of(again) == doc
    assert again.summary() == game.summary()
    assert [c.holders for c in again.achievements] == [c.holders for c in game.achievements]
