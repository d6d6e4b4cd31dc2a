"""Options every command shares or checks up front (issue 15.10, 15.11): refusals and help."""

from __future__ import annotations

from importlib.metadata import version

import pytest
from typer.testing import CliRunner

from tabletris.cli.app import app
from tabletris.cli.examples import EXAMPLES
from tabletris.engine.dice import DICE_PRESETS
from tabletris.engine.tower import TOWER_PRESETS
from tabletris.table.seats import check_game, parse_seats

runner = CliRunner()
COMMANDS = ("play", "replay", "bench", "simulate", "serve")


@pytest.mark.parametrize("level", ["2", "-0.5", "1.01", "nan"])
def test_a_strength_outside_0_to_1_is_refused_everywhere(level: str) -> None:
    """Issue 15.10: `expert@2` was accepted (strength is 0 to 1, docs/strength.md)."""
    for args in (
        ["play", "dice", "--plain", "--seats", f"human,expert@{level}"],
        ["simulate", "dice", "--seats", f"expert@{level},random", "--games", "1"],
    ):
        result = runner.invoke(app, args)
        assert result.exit_code == 2, result.output
        assert f"--seats: 'expert@{level}': strength {level} is outside 0 to 1" in result.output
    assert parse_seats("expert@0,greedy@1")[1].strength == 1.0


@pytest.mark.parametrize("budget", ["-1", "0"])
def test_a_budget_that_is_not_positive_is_refused(budget: str) -> None:
    """Issue 15.10: `--budget -1` was accepted."""
    result = runner.invoke(app, ["simulate", "dice", "--games", "1", "--budget", budget])
    assert result.exit_code == 2
    assert f"--budget: {budget}: seconds per decision must be above 0" in result.output


def test_the_oracle_is_refused_for_dice_with_the_reason() -> None:
    """Issue 15.10: `oracle` was offered for dice, where it only plays as the expert."""
    why = "the oracle bot plays only the tower game: it sees the deck, and the dice game has none"
    for args in (
        ["play", "dice", "--plain", "--seats", "human,oracle"],
        ["simulate", "dice", "--seats", "oracle,random", "--games", "1"],
    ):
        result = runner.invoke(app, args)
        assert result.exit_code == 2
        assert why in result.output
    check_game(["oracle", "expert", "human"], "tower")  # the tower game takes it


def test_dash_h_is_help_for_the_app_and_every_command() -> None:
    """Issue 15.11: `-h` was an unknown option."""
    result = runner.invoke(app, ["-h"])
    assert result.exit_code == 0 and "Usage: tabletris" in result.output
    for command in COMMANDS:
        result = runner.invoke(app, [command, "-h"])
        assert result.exit_code == 0, (command, result.output)
        assert f"Usage: tabletris {command}" in result.output


def test_version_prints_the_installed_version() -> None:
    """Issue 15.11: there was no `--version`."""
    result = runner.invoke(app, ["--version"])
    assert result.exit_code == 0
    assert result.output == f"tabletris {version('tabletris')}\n"


@pytest.mark.parametrize("command", COMMANDS)
def test_every_help_shows_examples_of_that_command(command: str) -> None:
    """Issue 15.11: no `--help` had an example."""
    result = runner.invoke(app, [command, "--help"], env={"COLUMNS": "200"})
    assert result.exit_code == 0
    assert "Examples" in result.output
    assert EXAMPLES[command]
    for line in EXAMPLES[command]:
        assert f"$ {line}" in result.output
        assert line.split()[1] == command


@pytest.mark.parametrize("command", ["play", "simulate"])
def test_help_lists_the_presets_of_both_games(command: str) -> None:
    """Issue 15.11: the presets were not listed (`play` named three of dice's seven)."""
    result = runner.invoke(app, [command, "--help"], env={"COLUMNS": "250"})
    text = " ".join(result.output.split())
    assert f"dice: {', '.join(DICE_PRESETS)}; tower: {', '.join(TOWER_PRESETS)}" in text
