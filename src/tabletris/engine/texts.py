"""Player-facing texts the engine writes, kept translatable without the engine knowing any language.

The engine speaks English (records, logs and tests quote its texts, and they never change with the
reader's language), but a player must see a rule violation in their own language. So a text the
engine builds from parts is a :class:`Message`: a ``str`` (the English sentence, exactly as before)
that also remembers its template and parameters, from which a front end rebuilds the sentence in
another language (``tabletris.i18n.translate``). ``N_`` marks a template for the catalog
extractor (``python -m tabletris.i18n.catalogs``) without translating it here.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def N_(template: str) -> str:
    """Mark ``template`` for extraction; the engine keeps it English."""
    return template


def NP_(context: str, template: str) -> str:
    """Mark ``template`` for extraction with a ``msgctxt`` (the same English meaning something
    else elsewhere: the rule value "free" is not the hold's "free"); a front end looks it up with
    ``pgettext(context, template)``."""
    return template


class Message(str):
    """An English sentence that can be rebuilt in another language from its template.

    ``params`` values may themselves be messages (a reason inside a placement error); each is
    translated on its own. Brace fields (``{face}``) name the parameters, as ``str.format`` does.
    """

    template: str
    params: Mapping[str, Any]

    def __new__(cls, template: str, **params: Any) -> Message:
        text = super().__new__(cls, template.format(**params) if params else template)
        text.template = template
        text.params = params
        return text

    def __reduce__(self) -> tuple[Any, ...]:
        # Errors cross process boundaries (bot workers); a plain str would lose the template.
        return (_rebuild, (self.template, dict(self.params)))

    def as_json(self) -> dict[str, Any]:
        """The message for a client that translates by itself (the web client's catalogs)."""
        return {
            "template": self.template,
            "params": {k: v.as_json() if isinstance(v, Message) else v for k, v in self.params.items()},
        }


def _rebuild(template: str, params: dict[str, Any]) -> Message:
    return Message(template, **params)


__all__ = ["NP_", "N_", "Message"]
