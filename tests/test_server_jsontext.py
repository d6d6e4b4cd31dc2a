"""The hot path's JSON text (server/jsontext.py): orjson's compact text, parsed back to the same
value, and the standard library's for what orjson refuses (a 128-bit seed, a non-string key)."""

from __future__ import annotations

import json

from hypothesis import given
from hypothesis import strategies as st

from tabletris.server.jsontext import dumps


def test_compact_text_that_parses_back_to_the_same_value() -> None:
    value = {"seat": 0, "name": "Věra 场地", "cells": [[1, 2], [3, 4]], "deadline": 1796227498.25, "take": None}
    text = dumps(value)
    assert " " not in text.replace("Věra 场地", "")
    assert json.loads(text) == value
    assert "Věra 场地" in text  # UTF-8, not \\u escapes


def test_values_orjson_refuses_fall_back_to_the_standard_library() -> None:
    seed = 2**127 + 12345
    assert json.loads(dumps({"seed": seed})) == {"seed": seed}
    assert json.loads(dumps({3: "x"})) == {"3": "x"}


@given(
    seed=st.one_of(st.integers(min_value=2**64), st.integers(max_value=-(2**63) - 1), st.integers(-(2**63), 2**64 - 1)),
    moves=st.lists(st.dictionaries(st.sampled_from(["player", "roll", "place"]), st.integers(-5, 50)), max_size=5),
    name=st.text(max_size=8),
)
def test_a_record_with_a_big_seed_renders_as_the_standard_library_would(seed: int, moves: list[dict[str, int]], name: str) -> None:
    # A record's 128-bit seed goes into orjson's text as its digits (a finished game's record is
    # rendered at its end, in the last move's turn of the loop): the same value either way.
    record = {"format": "tabletris-record", "seed": seed, "players": [name], "moves": moves}
    text = dumps(record)
    assert json.loads(text) == record
    assert f'"seed":{seed},' in text
    assert text == json.dumps(record, separators=(",", ":"), ensure_ascii=False)
