"""Each game's rules in brief, as Markdown: one text for every front end (the terminal app's help
screen, the web's rules page and every room's rules panel through ``/api/meta``).

Each paragraph is its own catalog message (the game's ``GameSpec.rules_paragraphs``), so a
translator works on one paragraph at a time and a front end rebuilds the text in a player's
language with :func:`rules_text` and its ``gettext`` (the engine itself never translates: it
imports no language machinery).
"""

from __future__ import annotations

from collections.abc import Callable

from tabletris.engine.games import spec


def rules_text(game: str, gettext: Callable[[str], str] = str) -> str:
    """The rules of ``game`` as Markdown, each paragraph passed through ``gettext`` (a front end's
    ``_``, or ``lambda s: translate(s, lang)``); the default is the English text."""
    return spec(game).rules_text(gettext)


__all__ = ["rules_text"]
