"""Each game's rules in brief, as Markdown: one text for every front end (the terminal app's help
screen, the web's rules page and every room's rules panel through ``/api/meta``)."""

from __future__ import annotations

DICE_RULES = """\
## The dice game

A shared board (10×20 by default). On your turn the die is rolled and names the piece you place
(★ = you name any shape on the die). The piece must **rest** (a cell on the bottom row or right
above a stone) and, with access *slide*, be able to slide in from the top through empty cells.
Every row your piece completes scores 1 point; a row scores once per game. When the supply has
no stone of the shape, you take one of that shape off the board, from the lowest rows, and place
it again. The game ends when a rolled shape fits nowhere; most points wins, ties share the win.
"""

TOWER_RULES = """\
## The tower game

Everyone has a private 8×15 tower. Each round the PLAY card names the piece everybody drops at the
same time (rotations only, straight down; nothing may stick out above the skyline). Before it you
may drop any of your minos, one at a time, in columns of your choice; or you may **hold** once per
game and skip the piece. A tetromino covering a ◇ diamond earns a mino. A player with no legal
drop must hold (if the hold is unused) or is **out**. Scoring: 2 points per complete row, 1 per
bonus icon covered by a tetromino of the icon's shape, plus achievement cards (first to meet a
card's condition takes its highest free space). The game ends after 27 cards or when all are out;
ties are broken by more complete rows.
"""

__all__ = ["DICE_RULES", "TOWER_RULES"]
