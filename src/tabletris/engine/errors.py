"""Errors the engine raises: each names what is wrong, where, and which rule says so."""

from __future__ import annotations


class IllegalMove(ValueError):
    """An action the rules do not allow in this position; the game is left unchanged."""


class RecordError(ValueError):
    """A record that cannot be replayed: malformed, or a move that breaks a rule.

    ``str()`` is the text after ``error:`` in ``tabletris replay``'s one-line message, e.g.
    ``move 12 (Ann): T does not rest at [[4,7],[5,7],[6,7],[5,8]]`` or
    ``key 'moves[3].roll': expected a string``.
    """
