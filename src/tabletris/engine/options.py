"""Rules options shared by both games: presets, overrides and their validation.

A game's rules are a frozen dataclass. A record or a command line gives them as a JSON object:
``{"preset": NAME}`` and/or individual options that override the preset. Every option is checked
here, once, with an error that names the option and says what was expected.
"""

from __future__ import annotations

import dataclasses
import json
import re
import types
from collections.abc import Mapping
from typing import Any, TypeVar, Union, get_args, get_origin, get_type_hints

from tabletris.engine.errors import RulesError, error_text
from tabletris.engine.texts import N_, NP_, Message

T = TypeVar("T")

#: The context of :data:`VALUE_LABELS` in the catalogs (``pgettext(VALUE_CONTEXT, label)``).
VALUE_CONTEXT = "rules value"
#: Preset names and the values of options offered as lists, as a player reads them in a form's
#: lists, the rules page and the rules in force (English labels; every front end shows them
#: through the catalogs). The values themselves stay the engine's and the records'.
VALUE_LABELS: dict[str, str] = {
    # presets
    "standard": NP_("rules value", "standard"),
    "long": NP_("rules value", "long"),
    "clear-rows": NP_("rules value", "clear rows"),
    "clear-stones": NP_("rules value", "clear stones"),
    "must-close": NP_("rules value", "must close"),
    "penalty": NP_("rules value", "penalty"),
    "choose": NP_("rules value", "choose"),
    "garbage": NP_("rules value", "garbage"),
    "classic": NP_("rules value", "classic"),
    "advanced": NP_("rules value", "advanced"),
    # option values
    "free": NP_("rules value", "free"),
    "rotate": NP_("rules value", "rotate"),
    "slide": NP_("rules value", "slide"),
    "drop": NP_("rules value", "drop"),
    "point": NP_("rules value", "point"),
    "lowest": NP_("rules value", "lowest"),
    "any": NP_("rules value", "any"),
    "cells": NP_("rules value", "cells"),
    "stones": NP_("rules value", "stones"),
    "one-wall": NP_("rules value", "one wall"),
    "both-walls": NP_("rules value", "both walls"),
    "matching": NP_("rules value", "matching"),
    "pairs": NP_("rules value", "pairs"),
}


def _show(value: Any) -> str:
    """A value as JSON when it is JSON, else as Python shows it (values given from code)."""
    try:
        return json.dumps(value)
    except (TypeError, ValueError):
        return repr(value)


def _check(name: str, value: Any, hint: Any) -> Any:
    """``value`` converted to ``hint`` (lists to tuples), or a RulesError naming the option."""
    origin = get_origin(hint)
    if origin in (Union, types.UnionType):
        errors: list[str] = []
        for arm in get_args(hint):
            try:
                return _check(name, value, arm)
            except RulesError as e:
                errors.append(error_text(e))
        raise RulesError(errors[-1])
    if hint is type(None):
        if value is None:
            return None
        raise RulesError(Message(N_("rules.{option}: expected null, got {value}"), option=name, value=_show(value)))
    if hint is bool:
        if isinstance(value, bool):
            return value
        raise RulesError(Message(N_("rules.{option}: expected true or false, got {value}"), option=name, value=_show(value)))
    if hint is int:
        if isinstance(value, int) and not isinstance(value, bool):
            return value
        raise RulesError(Message(N_("rules.{option}: expected an integer, got {value}"), option=name, value=_show(value)))
    if hint is str:
        if isinstance(value, str):
            return value
        raise RulesError(Message(N_("rules.{option}: expected a string, got {value}"), option=name, value=_show(value)))
    if origin is tuple:
        if not isinstance(value, list | tuple):
            raise RulesError(Message(N_("rules.{option}: expected a list, got {value}"), option=name, value=_show(value)))
        (item, *_rest) = get_args(hint)
        return tuple(_check(name, v, item) for v in value)
    if origin is dict or hint is dict or origin is Mapping:
        if isinstance(value, dict):
            return value
        raise RulesError(Message(N_("rules.{option}: expected an object, got {value}"), option=name, value=_show(value)))
    return value  # Any and value types validated by the game itself


def value_choices(cls: type[Any], name: str, help_text: str) -> list[str]:
    """The values a string option takes, read from its help text (``'free': ...; 'rotate': ...``)
    and kept where the rules class accepts them: what a form offers as a list."""
    choices: list[str] = []
    for value in re.findall(r"'([a-z][a-z-]*)'", help_text):
        if value in choices:
            continue
        try:
            cls.from_dict({name: value})
        except (RulesError, ValueError, TypeError):
            continue
        choices.append(value)
    return choices


_FIELDS: dict[type, tuple[dict[str, Any], frozenset[str]]] = {}


def _fields(cls: type) -> tuple[dict[str, Any], frozenset[str]]:
    """A rules class's option types and names, worked out once: ``get_type_hints`` evaluates
    every annotation anew, a third of a new game's set-up (issue 28)."""
    found = _FIELDS.get(cls)
    if found is None:
        found = _FIELDS[cls] = (get_type_hints(cls), frozenset(f.name for f in dataclasses.fields(cls)))
    return found


def build_options(cls: type[T], presets: Mapping[str, Mapping[str, Any]], raw: Mapping[str, Any] | None) -> T:
    """The rules ``raw`` describes: its preset (default ``standard``) with its overrides applied."""
    raw = dict(raw or {})
    preset = raw.pop("preset", "standard")
    if not isinstance(preset, str) or preset not in presets:
        raise RulesError(Message(
            N_("rules.preset: unknown preset {name}: expected one of {presets}"), name=json.dumps(preset), presets=", ".join(presets)
        ))
    values: dict[str, Any] = dict(presets[preset])
    hints, names = _fields(cls)
    for key, value in raw.items():
        if key not in names:
            raise RulesError(Message(N_("rules.{option}: unknown option (known: {options})"), option=key, options=", ".join(sorted(names))))
        values[key] = _check(key, value, hints[key])
    values["preset"] = preset
    return cls(**values)


def options_to_dict(options: Any) -> dict[str, Any]:
    """Every option as JSON-ready data (tuples as lists)."""

    def plain(v: Any) -> Any:
        if isinstance(v, tuple | list):
            return [plain(x) for x in v]
        if isinstance(v, dict):
            return {k: plain(x) for k, x in v.items()}
        return v

    return {f.name: plain(getattr(options, f.name)) for f in dataclasses.fields(options)}


def options_to_spec(options: Any, presets: Mapping[str, Mapping[str, Any]]) -> dict[str, Any]:
    """The shortest ``rules`` object for a record: the preset and what differs from it."""
    preset = getattr(options, "preset", "standard")
    base = options_to_dict(type(options)(**{"preset": preset, **presets[preset]}))
    mine = options_to_dict(options)
    spec: dict[str, Any] = {"preset": preset}
    for key, value in mine.items():
        if key != "preset" and base[key] != value:
            spec[key] = value
    return spec
