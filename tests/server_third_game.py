"""A third game for the server's tests: the dice game under another name, with a spec and a server
adapter of its own and no edit to any shared server file (the test registers the spec)."""

from __future__ import annotations

from dataclasses import replace

from tabletris.engine.dice import DiceGame
from tabletris.engine.games import DICE
from tabletris.server.dice_adapter import DiceAdapter


class ThirdGame(DiceGame):
    """Its own class: the registry keeps one spec per game class."""


THIRD = replace(
    DICE, name="third", title="Third Tetris", label="third", game_cls=ThirdGame,
    bots=("random", "greedy"), front_ends={"server": "server_third_game"},
)

ADAPTER = DiceAdapter(THIRD)
