"""The README's "From Python" section runs: its examples are the engine's first lesson."""

from __future__ import annotations

import doctest
from pathlib import Path

README = Path(__file__).resolve().parent.parent / "README.md"


def test_readme_examples_run() -> None:
    result = doctest.testfile(str(README), module_relative=False, optionflags=doctest.ELLIPSIS)
    assert result.attempted >= 15
    assert result.failed == 0


def test_the_line_mode_example_is_what_line_mode_prints() -> None:
    """The README's line-mode session (seed 7: Ann rolls T, types ``2 10``) is the program's own
    output, pictures of the orientations and the error included (it showed orientations 0 and 2
    swapped)."""
    import subprocess
    import sys

    text = README.read_text(encoding="utf-8")
    block = text[text.index("Ann rolls T\n"):]
    block = block[: block.index("```")]
    lines = [line.rstrip() for line in block.splitlines() if line.strip()]
    typed = "2 10"
    prompt = next(line for line in lines if line.endswith(": " + typed))
    asked = prompt[: -len(typed)]  # the prompt as printed, before what the person typed
    tabletris = str(Path(sys.executable).parent / "tabletris")
    done = subprocess.run(
        [tabletris, "play", "dice", "--plain", "--no-color", "--seats", "human=Ann,random", "--seed", "7"],
        input=typed + "\nquit\n", capture_output=True, text=True, timeout=60, env={"NO_COLOR": "1", "LANG": "C.UTF-8", "PATH": ""},
    )
    shown = done.stdout.replace(asked, prompt + "\n", 1)  # with what was typed, as a person sees it
    out = [line.rstrip() for line in shown.splitlines() if line.strip()]
    start = out.index("Ann rolls T")
    assert out[start : start + len(lines)] == lines
