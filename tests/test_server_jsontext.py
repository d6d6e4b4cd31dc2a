"""The hot path's JSON text (server/jsontext.py): orjson's compact text, parsed back to the same
value, and the standard library's for what orjson refuses (a 128-bit seed, a non-string key)."""

from __future__ import annotations

import json

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
