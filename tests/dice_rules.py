"""One hypothesis strategy for dice rule sets, shared by the tests that pin the compiled dice
kernel (turns, expert, env) to the Python engine: every option the kernel plays, at sizes each
test chooses (small boards end games sooner)."""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

DICE = (
    ["I", "O", "T", "S", "L", "*"],
    ["I", "O", "T", "S", "Z", "J", "L"],
    ["T", "*"],
    ["O", "I", "I", "*"],
    ["T", "L", "J"],
)


def dice_rules(
    width: int = 12, height: int = 24, target: int = 8, supply: int = 4, garbage: int = 6
) -> st.SearchStrategy[dict[str, Any]]:
    """Rule sets up to these sizes, with every other option drawn."""
    return st.fixed_dictionaries(
        {
            "width": st.integers(4, width),
            "height": st.integers(4, height),
            "access": st.sampled_from(["drop", "slide", "free"]),
            "orientation": st.sampled_from(["free", "rotate"]),
            "take": st.sampled_from(["lowest", "any"]),
            "must_close": st.booleans(),
            "clear_rows": st.sampled_from([False, "cells", "stones"]),
            "target": st.integers(1, target),
            "stuck_penalty": st.booleans(),
            "rescore_reopened": st.booleans(),
            "unlimited_supply": st.sampled_from([None, True, False]),
            "supply": st.integers(0, supply),
            "tokens_from_supply": st.booleans(),
            "garbage": st.integers(0, garbage),
            "die": st.sampled_from(DICE),
        }
    )
