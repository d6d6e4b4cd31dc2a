"""The examples shown under each command's ``--help``, in one place (every command, ``bench`` too).

Kept apart from the commands so that ``--help`` text is easy to check as a whole: each line is a
command a new user can paste as it is.
"""

from __future__ import annotations

from tabletris.i18n import N_

EXAMPLES: dict[str, tuple[str, ...]] = {
    "play": (
        "tabletris play dice",
        "tabletris play dice --plain --seats human=Ann,expert@0.5 --seed 7 --save game.json",
        "tabletris play tower --seats human=Ann,human=Bob,expert --preset advanced",
        "tabletris play dice --preset long --rules target=30",
    ),
    "replay": (
        "tabletris replay game.json",
        "tabletris replay game.json --json",
        "tabletris replay game.json --tui",
    ),
    "bench": (
        "tabletris bench",
        "tabletris bench --seconds 1 --json",
        "tabletris bench --only placements --only expert",
        "tabletris bench --only env --seconds 5",
    ),
    "simulate": (
        "tabletris simulate dice --seats expert,greedy --games 200 --jobs 2",
        "tabletris simulate dice --preset standard --preset long --swap --out runs/compare",
        "tabletris simulate tower --seats expert,greedy,random --games 50 --preset advanced",
    ),
    "serve": (
        "tabletris serve",
        "tabletris serve --port 8080 --db sqlite+aiosqlite:///games.sqlite3",
    ),
}


def epilog(command: str) -> str | None:
    """The examples of ``command`` as a help epilog (Rich markup: one paragraph per line)."""
    lines = EXAMPLES.get(command)
    if not lines:
        return None
    # One paragraph per line: ``--help`` translates an epilog paragraph by paragraph.
    return "\n\n".join([N_("[bold]Examples[/bold]"), *(f"  [cyan]$ {line}[/cyan]" for line in lines)])


def preset_list() -> str:
    """Each game's presets for ``--preset`` help, from the engine's own tables."""
    from tabletris.engine.dice import DICE_PRESETS
    from tabletris.engine.tower import TOWER_PRESETS

    return f"dice: {', '.join(DICE_PRESETS)}; tower: {', '.join(TOWER_PRESETS)}"
