"""The examples in docs/ai-interfaces.md run as written (the PPO one with fewer steps)."""

from __future__ import annotations

import re
from pathlib import Path

DOC = Path(__file__).resolve().parents[1] / "docs" / "ai-interfaces.md"


def example(name: str) -> str:
    """The python block after ``<!-- example: NAME -->`` in the doc."""
    match = re.search(rf"<!-- example: {name} -->\n```python\n(.*?)```", DOC.read_text(encoding="utf-8"), re.S)
    assert match, f"docs/ai-interfaces.md has no '{name}' example"
    return match.group(1)


def test_mcts_example_runs_stock_openspiel_mcts(capsys) -> None:
    exec(compile(example("mcts"), "mcts-example", "exec"), {})
    assert "scores" in capsys.readouterr().out


def test_ppo_example_trains_and_evaluates(capsys) -> None:
    code = example("ppo")
    assert "TIMESTEPS = 200_000" in code and "GAMES = 300" in code
    code = code.replace("TIMESTEPS = 200_000", "TIMESTEPS = 64").replace("GAMES = 300", "GAMES = 2")
    code = code.replace("n_steps=1024, batch_size=256", "n_steps=64, batch_size=32")
    exec(compile(code, "ppo-example", "exec"), {})
    out = capsys.readouterr().out
    rate = float(re.search(r"win rate vs random: ([\d.]+)%", out).group(1))
    assert 0.0 <= rate <= 100.0
