"""The terminal app's words in the player's language, and text laid out by terminal cells.

Every screen takes ``_``/``ngettext``/``N_`` from here (they are ``tabletris.i18n``'s), so the
``tui`` catalog is extracted from ``tui/`` alone. Three things are the app's own:

- Textual reads ``BINDINGS`` when a class is created, before any language is chosen, so their
  descriptions are marked ``N_`` and :class:`TranslatedBindings` translates them where the footer
  (and the keys panel) reads them: ``Screen.active_bindings``.
- Engine texts (rule help, rules in brief, achievement conditions, rule violations) stay English in
  the engine; :func:`engine_text` shows them translated (the rules in brief, paragraph by
  paragraph, through ``engine.rules_text.rules_text(game, engine_text)``).
- Chinese glyphs take two terminal cells: :func:`pad` fills and crops by cells, never by ``len``.
"""

from __future__ import annotations

import dataclasses
import string
from typing import TYPE_CHECKING

from rich.cells import cell_len, set_cell_size
from rich.style import StyleType
from rich.text import Text

from tabletris.i18n import N_, current_language, translate, translations

if TYPE_CHECKING:
    from textual.binding import ActiveBinding

#: Textual's own footer word for its command palette (``ctrl+p``), translated like ours.
N_("palette")


def _(message: str) -> str:
    """``message`` in the player's language, the app's own wording first (``tui.po``)."""
    return str(translations(current_language(), "tui").gettext(message))


def ngettext(singular: str, plural: str, n: int) -> str:
    return str(translations(current_language(), "tui").ngettext(singular, plural, n))


def pgettext(context: str, message: str) -> str:
    """``message`` in the player's language where one English word has several meanings: the
    ``random`` of a seat (a bot) is not the ``random`` of a seed, nor ``drop`` as a rule value the
    ``drop`` of a key."""
    return str(translations(current_language(), "tui").pgettext(context, message))


def engine_text(text: object) -> str:
    """An engine text (a ``Message``, an error, a marked constant) in the player's language."""
    return translate(text, current_language(), "tui")


def styled(template: str, style: StyleType = "", **values: object) -> Text:
    """A translated sentence with some of its fields in their own style: ``values`` are plain values
    or ``(value, style)`` pairs (a player's name in their seat colour). The words around the fields
    come from the translation, so each language keeps its own word order."""
    text = Text(style=style)
    for literal, name, spec, conversion in string.Formatter().parse(template):
        if literal:
            text.append(literal)
        if name is None:
            continue
        value = values[name]
        part_style: StyleType = ""
        if isinstance(value, tuple):
            value, part_style = value
        if conversion == "r":
            value = repr(value)
        text.append(format(value, spec or ""), part_style)
    return text


def pad(text: str, width: int, *, right: bool = False) -> str:
    """``text`` cropped or filled with spaces to exactly ``width`` terminal cells (a Chinese glyph
    is two cells; ``f"{name:<10}"`` would count it as one and shift every column after it)."""
    if cell_len(text) > width:
        return set_cell_size(text, width)
    fill = " " * (width - cell_len(text))
    return fill + text if right else text + fill


class TranslatedBindings:
    """Mixed into every screen of the app, before ``Screen``: the footer's key descriptions (marked
    ``N_`` in ``BINDINGS``) in the player's language, Textual's own too where the catalog has them."""

    @property
    def active_bindings(self) -> dict[str, ActiveBinding]:
        active: dict[str, ActiveBinding] = super().active_bindings  # type: ignore[misc]
        return {key: _translated(item) for key, item in active.items()}


def _translated(item: ActiveBinding) -> ActiveBinding:
    binding = item.binding
    binding = dataclasses.replace(
        binding,
        description=_(binding.description) if binding.description else "",
        tooltip=_(binding.tooltip) if binding.tooltip else "",
    )
    return item._replace(binding=binding, tooltip=_(item.tooltip) if item.tooltip else item.tooltip)


__all__ = ["N_", "TranslatedBindings", "_", "engine_text", "ngettext", "pad", "pgettext", "styled"]
