"""The ``tabletris`` command: one Typer app, one module per command."""

from __future__ import annotations

import importlib

import typer

app = typer.Typer(
    name="tabletris",
    help="The digital table for tabletop Tetris games: the dice game and the tower game.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)

# Each module defines ``register(app)``; a command whose module is missing is simply absent.
COMMAND_MODULES = (
    "tabletris.cli.play",
    "tabletris.cli.replay",
    "tabletris.cli.bench",
    "tabletris.cli.simulate",
    "tabletris.cli.serve",
    "tabletris.cli.kit",
)

for _name in COMMAND_MODULES:
    try:
        _module = importlib.import_module(_name)
    except ModuleNotFoundError as _e:
        if _e.name != _name:
            raise
        continue
    _module.register(app)


def main() -> None:
    app()
