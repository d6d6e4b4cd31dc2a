"""Each game's rules in brief, as Markdown: one text for every front end (the terminal app's help
screen, the web's rules page and every room's rules panel through ``/api/meta``).

Each paragraph is its own catalog message, so a translator works on one paragraph at a time and a
front end rebuilds the text in a player's language with :func:`rules_text` and its ``gettext``
(the engine itself never translates: it imports no language machinery).
"""

from __future__ import annotations

from collections.abc import Callable

from tabletris.engine.texts import N_

DICE_PARAGRAPHS: tuple[str, ...] = (
    N_("## The dice game"),
    N_(
        "A shared board (10×20 by default). On your turn the die is rolled and names the piece you place\n"
        "(★ = you name any shape on the die). The piece must **rest** (a cell on the bottom row or right\n"
        "above a stone) and, with access *slide*, be able to slide in from the top through empty cells.\n"
        "Every row your piece completes scores 1 point; a row scores once per game. When the supply has\n"
        "no stone of the shape, you take one of that shape off the board, from the lowest rows, and place\n"
        "it again. The game ends when a rolled shape fits nowhere; most points wins, ties share the win."
    ),
)

TOWER_PARAGRAPHS: tuple[str, ...] = (
    N_("## The tower game"),
    N_(
        "Everyone has a private 8×15 tower. Each round the PLAY card names the piece everybody drops at the\n"
        "same time (rotations only, straight down; nothing may stick out above the skyline). Before it you\n"
        "may drop any of your minos, one at a time, in columns of your choice; or you may **hold** once per\n"
        "game and skip the piece. A tetromino covering a ◇ diamond earns a mino. A player with no legal\n"
        "drop must hold (if the hold is unused) or is **out**. Scoring: 2 points per complete row, 1 per\n"
        "bonus icon covered by a tetromino of the icon's shape, plus achievement cards (first to meet a\n"
        "card's condition takes its highest free space). The game ends after 27 cards or when all are out;\n"
        "ties are broken by more complete rows."
    ),
)

PARAGRAPHS: dict[str, tuple[str, ...]] = {"dice": DICE_PARAGRAPHS, "tower": TOWER_PARAGRAPHS}
"""Each game's rules, paragraph by paragraph, by the name records and commands use."""


def rules_text(game: str, gettext: Callable[[str], str] = str) -> str:
    """The rules of ``game`` as Markdown, each paragraph passed through ``gettext`` (a front end's
    ``_``, or ``lambda s: translate(s, lang)``); the default is the English text."""
    return "\n\n".join(gettext(p) for p in PARAGRAPHS[game]) + "\n"


DICE_RULES = rules_text("dice")
TOWER_RULES = rules_text("tower")

__all__ = ["DICE_PARAGRAPHS", "DICE_RULES", "PARAGRAPHS", "TOWER_PARAGRAPHS", "TOWER_RULES", "rules_text"]
