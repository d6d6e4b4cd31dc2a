"""The ``tabletris`` command: one Typer app, one module per command."""

from __future__ import annotations

import importlib
from importlib.metadata import PackageNotFoundError, version
from typing import Annotated

import typer

from tabletris.cli.examples import epilog
from tabletris.i18n import LanguageError, language_from_env, parse_language, use_language

app = typer.Typer(
    name="tabletris",
    help="The digital table for tabletop Tetris games: the dice game and the tower game.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    context_settings={"help_option_names": ["-h", "--help"]},
    epilog="Run [cyan]tabletris COMMAND -h[/cyan] for a command's options and examples.",
)


def _version(value: bool) -> None:
    if value:
        try:
            typer.echo(f"tabletris {version('tabletris')}")
        except PackageNotFoundError:  # run from a source tree that was never installed
            typer.echo("tabletris (not installed)")
        raise typer.Exit()


def _language(value: str | None) -> str:
    """The language of everything the commands print: ``--lang``, else the terminal's
    (``LANGUAGE``, ``LC_ALL``, ``LC_MESSAGES``, ``LANG``), set before any command runs."""
    if value is None:
        return use_language(language_from_env())
    try:
        return use_language(parse_language(value))
    except LanguageError as e:
        raise typer.BadParameter(str(e)) from None


@app.callback()
def _main(
    show_version: Annotated[
        bool, typer.Option("--version", callback=_version, is_eager=True, help="Print the version and exit.")
    ] = False,
    lang: Annotated[
        str | None,
        typer.Option(
            "--lang",
            callback=_language,
            is_eager=True,
            metavar="LANG",
            help="Language of the game's texts: en, cs or zh_CN (default: from LANG/LANGUAGE/LC_ALL).",
        ),
    ] = None,
) -> None:
    """The digital table for tabletop Tetris games: the dice game and the tower game."""

# Each module defines ``register(app)``; a command whose module is missing is simply absent.
COMMAND_MODULES = (
    "tabletris.cli.play",
    "tabletris.cli.replay",
    "tabletris.cli.bench",
    "tabletris.cli.simulate",
    "tabletris.cli.leaderboard",
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

for _command in app.registered_commands:  # examples under every command's --help
    _name = _command.name or (_command.callback.__name__ if _command.callback else "")
    _command.epilog = _command.epilog or epilog(_name.replace("_command", ""))


def main() -> None:
    app()
