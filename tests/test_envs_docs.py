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
    assert re.search(r"^TIMESTEPS = [\d_]+ ", code, re.M) and "GAMES = 300" in code
    code = re.sub(r"^TIMESTEPS = [\d_]+", "TIMESTEPS = 64", code, flags=re.M).replace("GAMES = 300", "GAMES = 2")
    assert "n_steps=64, batch_size=256" in code
    code = code.replace("n_steps=64, batch_size=256", "n_steps=8, batch_size=32")
    namespace: dict = {}
    exec(compile(code, "ppo-example", "exec"), namespace)
    out = capsys.readouterr().out
    counts = re.search(r"won (\d+), drawn (\d+), lost (\d+) of 2", out)
    assert counts and sum(int(n) for n in counts.groups()) == 2
    rate = float(re.search(r"win rate vs random: ([\d.]+)%", out).group(1))
    assert rate == (int(counts.group(1)) + int(counts.group(2)) / 2) / 2 * 100

    # The example is the script's setup (the script's figures are the example's): the same
    # options give the same weights after the same steps.
    import torch

    from test_envs_training import train_script

    train = train_script()
    args = train.parser().parse_args(["--n-steps", "8", "--batch-size", "32"])
    model = train.build_model(args)
    model.learn(total_timesteps=64)
    theirs = namespace["model"].policy.state_dict()
    ours = model.policy.state_dict()
    assert ours.keys() == theirs.keys()
    assert all(torch.equal(ours[k], theirs[k]) for k in ours)
