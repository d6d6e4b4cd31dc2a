"""The leaderboard (lab.leaderboard, ``tabletris leaderboard``) and the mcts bot it rates."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from tabletris.bots.registry import bot_refusal, make_bot
from tabletris.cli.app import app
from tabletris.engine.dice import DiceGame
from tabletris.lab.leaderboard import run_leaderboard
from tabletris.table.driver import Table


def test_leaderboard_rates_every_bot_that_plays_and_leaves_out_the_rest() -> None:
    board = run_leaderboard("dice", ["random", "greedy", "oracle"], games=4, seed=1)
    assert [e.bot for e in board.entries] != [] and {e.bot for e in board.entries} == {"random", "greedy"}
    assert "oracle" in board.left_out and "tower" in board.left_out["oracle"]
    assert [e.ordinal for e in board.entries] == sorted((e.ordinal for e in board.entries), reverse=True)
    for e in board.entries:
        assert e.games == 4 and 0 <= e.wins <= 4 and e.ci95[0] <= e.win_rate <= e.ci95[1]
        assert abs(e.ordinal - (e.mu - 3 * e.sigma)) < 1e-9
    # Wins of a pairing add up to its games (a shared win is split).
    (pairing,) = board.pairings
    assert sum(pairing["wins"]) == pairing["games"] == 4
    again = run_leaderboard("dice", ["random", "greedy", "oracle"], games=4, seed=1)
    assert again.to_dict() == board.to_dict()


def test_the_winner_of_every_game_gains_rating() -> None:
    """greedy beats random nearly always at the dice game: its mu ends above random's."""
    board = run_leaderboard("dice", ["random", "greedy"], games=6, seed=3)
    mu = {e.bot: e.mu for e in board.entries}
    wins = {bot: w for bot, w in zip(board.pairings[0]["bots"], board.pairings[0]["wins"], strict=True)}
    assert (mu["greedy"] > mu["random"]) == (wins["greedy"] > wins["random"])


def test_leaderboard_command_writes_table_json_and_chart(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["leaderboard", "tower", "--bots", "random,greedy,mcts", "--games", "2", "--out", str(tmp_path)])
    assert result.exit_code == 0, result.output
    assert "tower leaderboard" in result.output and "left out: mcts" in result.output
    data = json.loads((tmp_path / "leaderboard.json").read_text())
    assert {e["bot"] for e in data["entries"]} == {"random", "greedy"}
    assert (tmp_path / "leaderboard.md").read_text().startswith("| rank | bot |")
    assert (tmp_path / "leaderboard.png").read_bytes()[:4] == b"\x89PNG"


def test_leaderboard_refuses_too_few_bots_and_unknown_names() -> None:
    result = CliRunner().invoke(app, ["leaderboard", "dice", "--bots", "random,oracle", "--games", "2"])
    assert result.exit_code == 2 and "needs two bots" in result.output
    result = CliRunner().invoke(app, ["leaderboard", "dice", "--bots", "random,wizard", "--games", "2"])
    assert result.exit_code == 2 and "unknown bot 'wizard'" in result.output


def test_mcts_takes_the_point_before_the_opponent_does() -> None:
    """Row 0 lacks one cell and the die has only I: the upright I there scores now; anything
    else lets the opponent score there, two rows if the first I lay on row 1. (Alone at the
    table the search rightly prefers that setup: the bot values a one-player game by score.)"""
    rules = {"width": 5, "height": 6, "die": ["I"], "garbage": [{"shape": "I", "cells": [[0, 0], [1, 0], [2, 0], [3, 0]]}]}
    for seed in (5, 6):
        game = DiceGame(["A", "B"], rules, seed=2)
        game.roll()
        action = make_bot("mcts", seed=seed, strength=1.0).choose_dice(game.view())
        assert (4, 0) in action.placement.cells
        game.act(action)
        assert game.scores == [1, 0]


def test_mcts_is_reproducible_and_plays_only_the_dice_game() -> None:
    def play(seed: int) -> list[dict]:
        game = DiceGame(["A", "B"], {"height": 8}, seed=seed)
        table = Table(game, [make_bot("mcts", seed=1, strength=0.0), make_bot("random", seed=2)])
        table.play_bots()
        assert game.over
        return table.log

    assert play(4) == play(4)
    reason = bot_refusal("mcts", "tower")
    assert reason is not None and "ISMCTSBot" in reason
