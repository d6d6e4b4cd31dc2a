"""The ``tabletris`` command: one Typer app, one module per command."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from importlib.metadata import PackageNotFoundError, version
from typing import Annotated, Any

import typer
from typer.core import TyperCommand, TyperGroup

from tabletris.cli.examples import epilog
from tabletris.cli.extras import NUMPY_EXTRA_OF_COMMAND, extra_for
from tabletris.i18n import (
    N_,
    LanguageError,
    _,
    language_from_env,
    parse_language,
    use_domain,
    use_language,
)


@contextmanager
def _help_in_language(command: Any, ctx: Any) -> Iterator[None]:
    """``--help`` in the chosen language. Typer reads help texts when the commands are declared,
    before ``--lang`` is parsed; so they stay English on the commands and are swapped for their
    translations only while a help page is written (texts without a translation stay as they are)."""
    if "lang" not in ctx.find_root().params:  # ``-h`` came before ``--lang`` was read: the terminal's
        _language(None)
    saved: list[tuple[Any, str, Any]] = []

    def swap(obj: Any, attr: str) -> None:
        value = getattr(obj, attr, None)
        if isinstance(value, str) and value:
            saved.append((obj, attr, value))
            # An epilog is paragraphs (a heading, then examples): each is translated on its own.
            setattr(obj, attr, "\n\n".join(_(p) for p in value.split("\n\n")) if attr == "epilog" else _(value))

    targets: list[Any] = [command, *getattr(command, "commands", {}).values()]  # a group: its commands' lines
    for target in targets:
        for attr in ("help", "short_help", "epilog"):
            swap(target, attr)
        for param in target.params:
            swap(param, "help")
    try:
        yield
    finally:
        for obj, attr, value in reversed(saved):
            setattr(obj, attr, value)


def lang_first(args: list[str]) -> list[str]:
    """``--lang`` is the whole program's option, but players write it after the command too
    (``tabletris play --lang cs``): wherever it stands (before a ``--``), it is read first."""
    rest: list[str] = []
    moved: list[str] = []
    i = 0
    while i < len(args):
        arg = args[i]
        if arg == "--":
            rest.extend(args[i:])
            break
        if arg == "--lang" and i + 1 < len(args):
            moved += args[i : i + 2]
            i += 2
            continue
        if arg.startswith("--lang="):
            moved.append(arg)
        else:
            rest.append(arg)
        i += 1
    return moved + rest


class _Group(TyperGroup):
    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:
        return super().parse_args(ctx, lang_first(list(args)))

    def format_help(self, ctx: Any, formatter: Any) -> None:
        with _help_in_language(self, ctx):
            super().format_help(ctx, formatter)


class _Command(TyperCommand):
    def format_help(self, ctx: Any, formatter: Any) -> None:
        with _help_in_language(self, ctx):
            super().format_help(ctx, formatter)


app = typer.Typer(
    name="tabletris",
    cls=_Group,
    help=N_("The digital table for tabletop Tetris games: the dice game and the tower game."),
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    context_settings={"help_option_names": ["-h", "--help"]},
    epilog=N_("Run [cyan]tabletris COMMAND -h[/cyan] for a command's options and examples."),
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
    use_domain("cli")  # line mode's own wording first; the terminal app asks for its own (tui/texts.py)
    if value is None:
        return use_language(language_from_env())
    try:
        return use_language(parse_language(value))
    except LanguageError as e:
        raise typer.BadParameter(str(e)) from None


@app.callback()
def _main(
    show_version: Annotated[
        bool, typer.Option("--version", callback=_version, is_eager=True, help=N_("Print the version and exit."))
    ] = False,
    lang: Annotated[
        str | None,
        typer.Option(
            "--lang",
            callback=_language,
            is_eager=True,
            metavar="LANG",
            help=N_("Language of the game's texts: en, cs or zh_CN (default: from LANG/LANGUAGE/LC_ALL)."),
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
    if _command.cls in (None, TyperCommand):
        _command.cls = _Command  # help pages in the chosen language


def main() -> None:
    from tabletris.engine.games import load_plugins

    load_plugins()  # TABLETRIS_GAMES and the ``tabletris.games`` entry points: plug-in games
    try:
        app()
    except ModuleNotFoundError as e:
        command = next((a for a in sys.argv[1:] if a in NUMPY_EXTRA_OF_COMMAND), None)  # past --lang cs and the like
        needed = extra_for(e.name, command)
        if needed is None:
            raise
        package, extra = needed
        typer.echo(
            _("error: this needs the optional package {package}: pip install 'tabletris[{extra}]'").format(
                package=package, extra=extra
            ),
            err=True,
        )
        raise SystemExit(1) from None
