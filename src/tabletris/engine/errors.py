"""Errors the engine raises: each names what is wrong, where, and which rule says so.

Every error is a ``TabletrisError`` (so a front end catches one type) and a ``ValueError`` (so
code written before these types existed keeps working). The structure rides on attributes
(``reason``, ``cells``, ``key``) so no caller ever has to parse an error's text; the texts
themselves are part of the interface (records, tests and the docs quote them) and do not change.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from tabletris.engine.texts import N_, Message


class TabletrisError(ValueError):
    """Anything the engine refuses: bad rules, an illegal or malformed move, a broken record."""


class RulesError(TabletrisError):
    """Rules that cannot be used: an unknown preset or option, or a value of the wrong kind."""


class IllegalMove(TabletrisError):
    """An action the rules do not allow in this position; the game is left unchanged.

    ``reason`` is the rule broken without the player's name that a tower error starts with
    (``"Ann: T cannot be dropped …"`` has the reason ``"T cannot be dropped …"``).
    """

    def __init__(self, message: str, reason: str | None = None) -> None:
        super().__init__(message)
        self.reason = message if reason is None else reason


class MalformedMove(IllegalMove):
    """A move that is not even well-formed data (python-chess's ``InvalidMoveError``).

    ``key`` names the part at fault when the move came from data (``"rounds[3][0].minos"``),
    ``why`` says what was expected there.
    """

    def __init__(self, message: str, key: str | None = None, why: str | None = None) -> None:
        super().__init__(message)
        self.key = key
        self.why = message if why is None else why


def error_text(error: BaseException) -> str:
    """The text of ``error`` for a message that quotes it: its :class:`Message` when it carries one
    (so the quote is translated too), else ``str(error)`` as before."""
    if error.args and isinstance(error.args[0], Message):
        return error.args[0]
    return str(error)


def format_cells(cells: Iterable[Sequence[int]]) -> str:
    """Cells the way records write them: ``[[4,7],[5,7]]``."""
    return "[" + ",".join(f"[{c[0]},{c[1]}]" for c in cells) + "]"


class IllegalPlacement(IllegalMove):
    """A placement that breaks a rule; ``reason`` is the rule, ``str()`` the full sentence."""

    def __init__(self, shape: object, cells: Sequence[Sequence[int]], reason: str) -> None:
        self.shape = str(shape)
        self.cells = [list(c) for c in cells]
        # Malformed input has no cells to show: "T needs cells as [x, y] pairs, got 5", no "at []".
        if cells:
            text = Message(N_("{shape} {reason} at {cells}"), shape=self.shape, reason=reason, cells=format_cells(cells))
        else:
            text = Message(N_("{shape} {reason}"), shape=self.shape, reason=reason)
        super().__init__(text, reason)


class RecordError(TabletrisError):
    """A record that cannot be replayed: malformed, or a move that breaks a rule.

    ``str()`` is the text after ``error:`` in ``tabletris replay``'s one-line message, e.g.
    ``move 12 (Ann): T does not rest at [[4,7],[5,7],[6,7],[5,8]]`` or
    ``key 'moves[3].roll': expected a string``; ``key`` is the malformed key when there is one.
    """

    def __init__(self, message: str, key: str | None = None) -> None:
        super().__init__(message)
        self.key = key
