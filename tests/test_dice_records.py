"""record-format.md for the dice game: writing, reading, replaying and rejecting records.

A record is a saved game, a replay, a bug report and a test fixture at once, so its errors must be
exact: a broken rule names the move (from 1), the player and the rule; a malformed document names
the key at fault; nothing else ever escapes (no KeyError, no TypeError).
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from helpers import garbage_from_rows, play_random_game
from tabletris.engine import records
from tabletris.engine.dice import DiceGame
from tabletris.engine.errors import RecordError
from tabletris.engine.records import record_of
from tabletris.engine.shapes import Shape

CYCLE = ["I", "O", "T", "S", "L"]


def lowest_option_game(
    players: list[str], turns: int, rules: dict[str, Any] | None = None
) -> DiceGame:
    """A game whose rolls cycle I O T S L and whose every piece goes as low and left as it can."""
    game = DiceGame(players, rules, seed=3)
    for i in range(turns):
        game.roll(CYCLE[i % len(CYCLE)])
        option = min(
            game.turn_options(),
            key=lambda o: (max(y for _, y in o.placement.cells), o.placement.x),
        )
        game.play(option.placement, take=option.take)
    return game


def doc_with(moves: list[dict[str, Any]], **top: Any) -> dict[str, Any]:
    doc: dict[str, Any] = {"format": "tabletris/1", "game": "dice", "players": ["Ann", "Bob"]}
    doc.update(top)
    doc["moves"] = moves
    return doc


def replay_error(doc: Any) -> str:
    with pytest.raises(RecordError) as info:
        records.replay(doc)
    return str(info.value)


# --------------------------------------------------------------- round trip


def test_record_round_trips_through_text() -> None:
    """record-format.md: a record replays the whole game, and writing it again gives the same document."""
    game = lowest_option_game(["Ann", "Bob"], 14, {"preset": "long", "stuck_penalty": True})
    doc = record_of(game)
    assert doc["format"] == "tabletris/1" and doc["game"] == "dice"
    assert doc["players"] == ["Ann", "Bob"]
    assert doc["rules"] == {"preset": "long", "stuck_penalty": True, "tokens_from_supply": True}
    assert doc["seed"] == 3 and len(doc["moves"]) == 14
    text = records.dumps(doc)
    assert json.loads(text) == doc
    again = records.replay(text)
    assert record_of(again) == doc
    assert again.summary() == game.summary()


def test_dumps_writes_one_move_per_line() -> None:
    """The record text keeps one turn per line so a diff of two games reads turn by turn."""
    doc = record_of(lowest_option_game(["Ann"], 5))
    lines = records.dumps(doc).splitlines()
    move_lines = [line for line in lines if line.lstrip().startswith('{"player"')]
    assert len(move_lines) == 5
    for line, move in zip(move_lines, doc["moves"], strict=True):
        assert json.loads(line.strip().rstrip(",")) == move


def test_move_entries_follow_the_format() -> None:
    """record-format.md `moves`: `shape` only when `roll` is `*`; `take` only when the supply is empty."""
    game = DiceGame(["Ann"], {"width": 4, "height": 6, "supply": 1, "die": ["O", "*"]}, seed=1)
    game.roll("*")
    game.play([[0, 0], [1, 0], [0, 1], [1, 1]], shape="O")
    game.roll("O")
    game.play([[2, 0], [3, 0], [2, 1], [3, 1]], take=[[0, 0], [1, 0], [0, 1], [1, 1]])
    moves = record_of(game)["moves"]
    assert moves[0] == {
        "player": 0,
        "roll": "*",
        "shape": "O",
        "place": [[0, 0], [0, 1], [1, 0], [1, 1]],
    }
    assert moves[1] == {
        "player": 0,
        "roll": "O",
        "take": [[0, 0], [0, 1], [1, 0], [1, 1]],
        "place": [[2, 0], [2, 1], [3, 0], [3, 1]],
    }


def test_the_spec_example_turn_replays() -> None:
    """record-format.md: a turn like the example (`*` naming L, a take, a place, rewards) replays."""
    rules = {
        "width": 4,
        "height": 6,
        "row_reward": "choose",
        "supply": 1,
        "die": ["L", "O", "*"],
        "access": "free",
    }
    l_high = [[0, 2], [1, 2], [2, 2], [2, 3]]
    doc = doc_with(
        [
            {"player": 0, "roll": "O", "place": [[0, 0], [1, 0], [0, 1], [1, 1]]},
            {"player": 0, "roll": "L", "place": l_high},
            {
                "player": 0,
                "roll": "*",
                "shape": "L",
                "take": l_high,
                "place": [[2, 0], [3, 0], [2, 1], [2, 2]],
                "rewards": ["point"],
            },
        ],
        players=["Ann"],
        rules=rules,
        seed=5,
    )
    game = records.replay(doc)
    assert game.scores == [1]
    assert game.supply == {Shape.L: 0, Shape.O: 0}
    written = record_of(game)["moves"][2]
    assert written["shape"] == "L" and written["take"] == l_high and written["rewards"] == ["point"]
    assert record_of(records.replay(record_of(game))) == record_of(game)


def test_player_is_optional() -> None:
    """record-format.md: `player` optional (checked if present)."""
    doc = record_of(lowest_option_game(["Ann", "Bob"], 6))
    bare = json.loads(json.dumps(doc))
    for move in bare["moves"]:
        del move["player"]
    assert record_of(records.replay(bare)) == doc


def test_recorded_rolls_win_over_the_seed() -> None:
    """record-format.md: chance outcomes are written into the record, so it replays the same under any seed."""
    doc = record_of(lowest_option_game(["Ann", "Bob"], 8))
    for seed in (0, 99):
        other = records.replay({**doc, "seed": seed})
        assert [m["roll"] for m in record_of(other)["moves"]] == [m["roll"] for m in doc["moves"]]
        assert other.summary() == records.replay(doc).summary()
    no_seed = {k: v for k, v in doc.items() if k != "seed"}
    assert records.replay(no_seed).summary() == records.replay(doc).summary()


def test_listed_garbage_round_trips() -> None:
    """record-format.md `garbage`: a list of stones `{"shape": S, "cells": [...]}` in the rules."""
    garbage = garbage_from_rows(["T.........", "TT........", "T........."])
    game = DiceGame(["Ann"], {"garbage": garbage, "height": 8}, seed=2)
    doc = record_of(game)
    assert doc["rules"]["garbage"] == garbage
    assert records.replay(records.dumps(doc)).board.rows()[-3:] == [
        "T.........",
        "TT........",
        "T.........",
    ]


def test_load_from_path_text_and_mapping(tmp_path: Path) -> None:
    """`load` reads a path, a JSON text or a mapping; unreadable input is a RecordError."""
    doc = record_of(lowest_option_game(["Ann"], 2))
    path = tmp_path / "game.json"
    path.write_text(records.dumps(doc), encoding="utf-8")
    assert records.load(path) == records.load(records.dumps(doc)) == records.load(doc) == doc
    assert record_of(records.replay(path)) == doc
    with pytest.raises(RecordError, match="cannot read"):
        records.load(tmp_path / "missing.json")
    with pytest.raises(RecordError, match="not a JSON document"):
        records.load("{not json")
    with pytest.raises(RecordError, match="key '': a record is a JSON object"):
        records.load("[1, 2]")


# ------------------------------------------------------------------ summary


def test_replay_summary_format() -> None:
    """record-format.md: dice summary has `game`, `over`, `turn`, `players` (`name`, `score`), `winners`, `rows`."""
    rules = {"width": 4, "height": 5, "die": ["S", "I", "O"], "access": "free"}
    game = DiceGame(["Ann", "Bob"], rules, seed=1)
    game.roll("S")
    game.play([[0, 1], [1, 1], [1, 0], [2, 0]])  # an S laid the Z way round: still an S
    summary = game.summary()
    assert set(summary) == {"game", "over", "turn", "players", "winners", "rows"}
    assert summary["game"] == "dice" and summary["over"] is False and summary["turn"] == 1
    assert summary["players"] == [{"name": "Ann", "score": 0}, {"name": "Bob", "score": 0}]
    assert summary["winners"] == []  # empty while the game is not over
    assert summary["rows"] == ["....", "....", "....", "SS..", ".SS."]
    json.dumps(summary)  # plain JSON data


# --------------------------------------------------------- rule violations


def test_illegal_move_error_names_move_player_and_rule() -> None:
    """record-format.md: e.g. `move 12 (Ann): T does not rest at [[4,7],[5,7],[6,7],[5,8]]`."""
    doc = record_of(lowest_option_game(["Ann"], 11))
    board = records.replay(doc).board
    assert max(board.column_heights()[4:7]) < 7  # the T below really hangs in the air
    doc["moves"].append({"player": 0, "roll": "T", "place": [[4, 7], [5, 7], [6, 7], [5, 8]]})
    assert replay_error(doc) == "move 12 (Ann): T does not rest at [[4,7],[5,7],[6,7],[5,8]]"


@pytest.mark.parametrize(
    ("move", "expected"),
    [
        (
            {"player": 1, "roll": "O", "place": [[0, 0], [1, 0], [0, 1], [1, 1]]},
            "move 1 (Ann): it is seat 0's turn, not seat 1's",
        ),
        (
            {"roll": "Z", "place": [[0, 0], [1, 0], [1, 1], [2, 1]]},
            "move 1 (Ann): 'Z' is not a face of the die (I O T S L *)",
        ),
        ({"roll": "O"}, "move 1 (Ann): the roll O can be placed, so the turn needs 'place'"),
        (
            {"roll": "*", "place": [[0, 0], [1, 0], [0, 1], [1, 1]]},
            "move 1 (Ann): the die shows *: name one of I O T S L",
        ),
        (
            {"roll": "*", "shape": "Z", "place": [[0, 0], [1, 0], [1, 1], [2, 1]]},
            "move 1 (Ann): * names one of I O T S L, not Z",
        ),
        (
            {"roll": "O", "shape": "T", "place": [[0, 0], [1, 0], [0, 1], [1, 1]]},
            "move 1 (Ann): the die shows O, not T",
        ),
        (
            {"roll": "O", "place": [[0, 0], [1, 0], [2, 0], [1, 1]]},
            "move 1 (Ann): O is not the shape of an O at [[0,0],[1,0],[2,0],[1,1]]",
        ),
        (
            {"roll": "O", "place": [[9, 0], [10, 0], [9, 1], [10, 1]]},
            "move 1 (Ann): O is out of bounds at [[9,0],[10,0],[9,1],[10,1]]",
        ),
        (
            {"roll": "O", "place": [[0, 0], [1, 0], [0, 1]]},
            "move 1 (Ann): O needs 4 distinct cells at [[0,0],[1,0],[0,1]]",
        ),
        (
            {"roll": "O", "take": [[0, 0]], "place": [[0, 0], [1, 0], [0, 1], [1, 1]]},
            "move 1 (Ann): the supply still has O: there is nothing to take",
        ),
        (
            {"roll": "O", "place": [[0, 0], [1, 0], [0, 1], [1, 1]], "rewards": []},
            "move 1 (Ann): rewards are only chosen with row_reward: choose",
        ),
    ],
)
def test_first_move_rule_errors(move: dict[str, Any], expected: str) -> None:
    """record-format.md: a record that breaks a rule is rejected naming the move, the player and the rule."""
    assert replay_error(doc_with([move], seed=1)) == expected


def test_overlap_error_names_the_second_player() -> None:
    """The player named is the one whose move breaks the rule (seat order, from the record)."""
    o = [[0, 0], [1, 0], [0, 1], [1, 1]]
    doc = doc_with([{"roll": "O", "place": o}, {"roll": "O", "place": o}], seed=1)
    assert replay_error(doc) == "move 2 (Bob): O overlaps stone 1 (O) at [[0,0],[1,0],[0,1],[1,1]]"


def test_unreachable_placement_error() -> None:
    """rules.md access `slide`: an enclosed hole named in a record is rejected with the reason."""
    garbage = garbage_from_rows(["....", "....", "IIII", "....", "...."])
    doc = doc_with(
        [{"roll": "O", "place": [[0, 0], [1, 0], [0, 1], [1, 1]]}],
        rules={"width": 4, "height": 5, "die": ["I", "O"], "garbage": garbage},
        seed=1,
    )
    assert replay_error(doc) == (
        "move 1 (Ann): O cannot be reached from the top (access slide) at [[0,0],[1,0],[0,1],[1,1]]"
    )


def test_place_on_a_roll_that_ends_the_game_is_rejected() -> None:
    """record-format.md: a turn without `place` says the rolled shape cannot be placed; with one it is wrong."""
    garbage = garbage_from_rows(["....", "IIII", "iiii", "IIII"])
    rules = {"width": 4, "height": 4, "die": ["I", "O"], "garbage": garbage}
    stuck = doc_with(
        [{"roll": "O", "place": [[0, 3], [1, 3], [0, 4], [1, 4]]}], rules=rules, seed=1
    )
    assert replay_error(stuck) == "move 1 (Ann): O cannot be placed anywhere: the game ends here"
    ended = records.replay(doc_with([{"roll": "O"}], rules=rules, seed=1))
    assert ended.over and ended.summary()["winners"] == ["Ann", "Bob"]


def test_a_move_after_the_end_is_rejected() -> None:
    """record-format.md: moves may stop mid-game, but none may follow the end."""
    garbage = garbage_from_rows(["....", "IIII", "iiii", "IIII"])
    rules = {"width": 4, "height": 4, "die": ["I", "O"], "garbage": garbage}
    doc = doc_with(
        [{"roll": "O"}, {"roll": "I", "place": [[0, 3], [1, 3], [2, 3], [3, 3]]}],
        rules=rules,
        seed=1,
    )
    message = replay_error(doc)
    assert message.startswith("move 2") and "the game is already over" in message


def test_take_errors_in_records() -> None:
    """§2 A turn, 2 in a record: an empty supply needs a `take`, and only a lowest stone of the shape."""
    rules = {"width": 4, "height": 6, "supply": 1, "die": ["O"], "access": "free"}
    base = [
        {"roll": "O", "place": [[0, 0], [1, 0], [0, 1], [1, 1]]},
        {"roll": "O", "place": [[0, 2], [1, 2], [0, 3], [1, 3]]},
    ]
    missing = doc_with(
        [*base, {"roll": "O", "place": [[2, 0], [3, 0], [2, 1], [3, 1]]}], rules=rules, seed=1
    )
    assert replay_error(missing) == (
        "move 3 (Ann): the supply has no O left: take one from the lowest rows ([[0,0],[0,1],[1,0],[1,1]])"
    )
    high = doc_with(
        [
            *base,
            {
                "roll": "O",
                "take": [[0, 2], [1, 2], [0, 3], [1, 3]],
                "place": [[2, 0], [3, 0], [2, 1], [3, 1]],
            },
        ],
        rules=rules,
        seed=1,
    )
    assert replay_error(high) == (
        "move 3 (Ann): cannot take [[0,2],[1,2],[0,3],[1,3]]: not one of the lowest O stones"
    )


def test_reward_errors_in_records() -> None:
    """House rule `row_reward: choose` in a record: one reward per completed row, bottom first."""
    rules = {"width": 4, "height": 6, "die": ["O"], "row_reward": "choose"}
    base = [{"roll": "O", "place": [[0, 0], [1, 0], [0, 1], [1, 1]], "rewards": []}]
    short = doc_with(
        [*base, {"roll": "O", "place": [[2, 0], [3, 0], [2, 1], [3, 1]], "rewards": ["point"]}],
        rules=rules,
        seed=1,
    )
    assert replay_error(short) == (
        "move 2 (Bob): 2 rows scored: rewards needs 2 entries (point or remove), got 1"
    )
    ok = doc_with(
        [
            *base,
            {
                "roll": "O",
                "place": [[2, 0], [3, 0], [2, 1], [3, 1]],
                "rewards": ["point", {"remove": [[0, 0], [1, 0], [0, 1], [1, 1]]}],
            },
        ],
        rules=rules,
        seed=1,
    )
    game = records.replay(ok)
    assert game.scores == [0, 1] and game.board.stone_at((0, 0)) is None


# ---------------------------------------------------------------- malformed


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        ({"format": None}, "key 'format': expected \"tabletris/1\", got null"),
        ({"format": "tabletris/2"}, 'key \'format\': expected "tabletris/1", got "tabletris/2"'),
        ({"game": "chess"}, 'key \'game\': expected "dice" or "tower", got "chess"'),
        ({"players": []}, "key 'players': expected a non-empty list of names"),
        ({"players": "Ann"}, "key 'players': expected a non-empty list of names"),
        ({"players": ["Ann", 7]}, "key 'players[1]': expected a non-empty name"),
        ({"rules": ["long"]}, "key 'rules': expected an object"),
        ({"seed": "42"}, "key 'seed': expected an integer"),
        ({"seed": True}, "key 'seed': expected an integer"),
        ({"comment": "hi"}, "key 'comment': unknown key for a dice record"),
        ({"moves": {"1": {}}}, "key 'moves': expected a list of turns"),
        ({"moves": [3]}, "key 'moves[0]': expected an object"),
        ({"moves": [{"roll": "O", "when": 1}]}, "key 'moves[0].when': unknown key in a turn"),
        (
            {"moves": [{"roll": "O", "player": "0"}]},
            "key 'moves[0].player': expected a seat number",
        ),
        (
            {"moves": [{"place": [[0, 0]]}]},
            "key 'moves[0].roll': expected the die face as a string",
        ),
        ({"moves": [{"roll": "*", "shape": 5}]}, "key 'moves[0].shape': expected a shape letter"),
        (
            {"moves": [{"roll": "O", "place": [[0, 0], [1]]}]},
            "key 'moves[0].place': expected a list of [x, y] cells",
        ),
        (
            {"moves": [{"roll": "O", "place": [[0, 0.5]]}]},
            "key 'moves[0].place': expected a list of [x, y] cells",
        ),
        (
            {"moves": [{"roll": "O", "take": "lowest"}]},
            "key 'moves[0].take': expected a list of [x, y] cells",
        ),
        ({"moves": [{"roll": "O", "rewards": "point"}]}, "key 'moves[0].rewards': expected a list"),
        (
            {"moves": [{"roll": "O", "rewards": ["pt"]}]},
            'key \'moves[0].rewards[0]\': expected "point" or {"remove": cells}',
        ),
        (
            {"moves": [{"roll": "O", "rewards": [{"remove": 1}]}]},
            "key 'moves[0].rewards[0].remove': expected a list",
        ),
        ({"rules": {"colour": "red"}}, "rules.colour: unknown option"),
        ({"rules": {"width": "wide"}}, 'rules.width: expected an integer, got "wide"'),
        (
            {"players": [f"P{i}" for i in range(9)]},
            "players: the dice game takes 1 to 8 players, got 9",
        ),
    ],
)
def test_malformed_documents_name_the_key(change: dict[str, Any], expected: str) -> None:
    """record-format.md: 'A malformed document gets the same treatment, naming the key at fault.'"""
    doc = {**doc_with([], seed=1), **change}
    assert replay_error(doc).startswith(expected)


def test_missing_required_keys() -> None:
    """record-format.md: `format`, `game` and `players` are required."""
    for key in ("format", "game", "players"):
        doc = doc_with([], seed=1)
        del doc[key]
        assert replay_error(doc).startswith(f"key '{key}'")


# ---------------------------------------------------------- robustness fuzz

JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 12) | st.sampled_from(["O", "*", "T", "point", ""]),
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(st.sampled_from(["remove", "x", "shape"]), inner, max_size=2)
    ),
    max_leaves=8,
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 1000),
    index=st.integers(0, 50),
    key=st.sampled_from(["player", "roll", "shape", "take", "place", "rewards"]),
    value=JSON,
)
def test_a_corrupted_record_is_rejected_cleanly(
    seed: int, index: int, key: str, value: Any
) -> None:
    """Bad input never crashes the engine: any corrupted turn replays or raises RecordError, nothing else."""
    rules = {"width": 6, "height": 8, "supply": 1, "row_reward": "choose", "access": "free"}
    game = play_random_game(
        DiceGame(["Ann", "Bob"], rules, seed=seed), random.Random(seed), max_turns=30
    )
    doc = json.loads(json.dumps(record_of(game)))
    if not doc["moves"]:
        return
    move = doc["moves"][index % len(doc["moves"])]
    move[key] = value
    try:
        replayed = records.replay(doc)
    except RecordError as e:
        event("rejected")
        assert str(e).startswith(("move ", "key ")), str(e)
    else:
        event("replayed")
        assert replayed.turn <= len(doc["moves"])


def test_rules_given_with_tuples_round_trip() -> None:
    """record-format.md: the record is plain JSON, so rules passed with tuples still round-trip,
    and editing the caller's mapping afterwards does not change the game's record."""
    spec: dict[str, Any] = {
        "die": ("I", "O", "T", "S", "L", "*"),
        "width": 6,
        "garbage": [{"shape": "O", "cells": ((0, 0), (1, 0), (0, 1), (1, 1))}],
    }
    game = lowest_option_game(["Ann", "Bob"], 4, spec)
    spec["garbage"].append({"shape": "I", "cells": [[5, 0], [5, 1], [5, 2], [5, 3]]})
    doc = record_of(game)
    assert doc["rules"] == {
        "die": ["I", "O", "T", "S", "L", "*"],
        "width": 6,
        "garbage": [{"shape": "O", "cells": [[0, 0], [1, 0], [0, 1], [1, 1]]}],
        "tokens_from_supply": True,
    }
    assert record_of(records.replay(records.dumps(doc))) == doc
