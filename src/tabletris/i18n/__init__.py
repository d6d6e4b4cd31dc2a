"""The players' languages: one set of gettext catalogs for every front end.

Catalogs are Babel/gettext ``.po`` files in ``locale/<lang>/LC_MESSAGES/<domain>.po``, one domain per
part of the product (``engine``: rule texts, rule violations, achievements; ``cli``: line mode and
commands; ``tui``: the terminal app; ``web``: the browser client and the server's words), so each
part's translators work in their own file. At run time every domain of a language is merged into
one :class:`babel.support.Translations`, so any front end finds the engine's texts too.

Source strings are English and are their own catalog; a language is complete when every message
of every domain has a translation (``tests/test_i18n_catalogs.py``). ``.mo`` files are compiled
by the build (``setup.py``); a checkout without them compiles the ``.po`` in memory on first use.

Front ends in one language per process (line mode, the terminal app) call :func:`use_language`
once and then ``_()``/``ngettext()``; the server, where every connection has its own language, asks
:func:`translations` for each.
"""

from __future__ import annotations

import io
import os
import re
import string
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from datetime import date, datetime
from functools import cache
from pathlib import Path
from typing import Any

from babel import Locale, UnknownLocaleError, dates, numbers
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po
from babel.support import NullTranslations, Translations

from tabletris.engine.options import VALUE_CONTEXT, VALUE_LABELS
from tabletris.engine.texts import N_, Message

LOCALE_DIR = Path(__file__).resolve().parent / "locale"
#: The languages a player can choose; the first is the source language of every catalog.
LANGUAGES: tuple[str, ...] = ("en", "cs", "zh_CN")
#: Each language's own name, for language menus (a player looks for the name they read).
LANGUAGE_NAMES: dict[str, str] = {"en": "English", "cs": "Čeština", "zh_CN": "简体中文"}
DOMAINS: tuple[str, ...] = ("engine", "cli", "tui", "web")
DEFAULT = "en"

_current: ContextVar[str] = ContextVar("tabletris_language", default=DEFAULT)
_primary: ContextVar[str | None] = ContextVar("tabletris_domain", default=None)


class LanguageError(ValueError):
    """A language name we have no catalogs for; the text lists the ones we have."""


def _aliases() -> dict[str, str]:
    table = {lang.lower().replace("-", "_"): lang for lang in LANGUAGES}
    table.update({"zh": "zh_CN", "zh_hans": "zh_CN", "zh_hans_cn": "zh_CN", "zh_sg": "zh_CN", "cs_cz": "cs",
                  "en_us": "en", "en_gb": "en", "c": "en", "posix": "en"})
    return table


def parse_language(value: str) -> str:
    """The language for an explicit choice (``--lang cs``, ``zh-CN``, ``cs_CZ.UTF-8``), or an error.

    An explicit choice that names no language we have is refused (the player asked for something
    specific); :func:`language_from_env` instead falls back quietly.
    """
    code = value.strip().split(".")[0].split("@")[0].replace("-", "_").lower()
    found = _aliases().get(code) or _aliases().get(code.split("_")[0])
    if found is None:
        known = ", ".join(LANGUAGES)
        raise LanguageError(f"unknown language {value!r}: tabletris speaks {known}")
    return found


def language_from_env(environ: Mapping[str, str] | None = None) -> str:
    """The terminal's language the way gettext reads it: ``LANGUAGE``, ``LC_ALL``, ``LC_MESSAGES``, ``LANG``.

    ``LANGUAGE`` may list several (``cs:en``); the first we speak wins. Anything else is English.
    """
    env = os.environ if environ is None else environ
    for var in ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG"):
        for part in env.get(var, "").split(":"):
            if part:
                try:
                    return parse_language(part)
                except LanguageError:
                    continue
    return DEFAULT


def negotiate(accept_language: str | None) -> str:
    """The language for a browser's ``Accept-Language`` header (quality values honoured)."""
    if not accept_language:
        return DEFAULT
    choices: list[tuple[float, int, str]] = []
    for index, item in enumerate(accept_language.split(",")):
        tag, _, params = item.strip().partition(";")
        quality = 1.0
        match = re.search(r"q\s*=\s*([0-9.]+)", params)
        if match:
            try:
                quality = float(match.group(1))
            except ValueError:
                quality = 0.0
        if tag and tag != "*" and quality > 0:
            choices.append((-quality, index, tag))
    for _q, _i, tag in sorted(choices):
        try:
            return parse_language(tag)
        except LanguageError:
            continue
    return DEFAULT


def _load_domain(lang: str, domain: str) -> Translations | None:
    folder = LOCALE_DIR / lang / "LC_MESSAGES"
    po, mo = folder / f"{domain}.po", folder / f"{domain}.mo"
    if mo.exists() and (not po.exists() or mo.stat().st_mtime >= po.stat().st_mtime):
        with mo.open("rb") as f:
            return Translations(f, domain=domain)
    if not po.exists():
        return None
    with po.open("rb") as f:
        catalog = read_po(f, locale=lang, domain=domain)
    buffer = io.BytesIO()
    write_mo(buffer, catalog)
    buffer.seek(0)
    return Translations(buffer, domain=domain)


@cache
def translations(lang: str, primary: str | None = None) -> NullTranslations:
    """Every domain of ``lang`` merged into one catalog (English: the identity).

    ``primary`` is the front end asking (``cli``, ``tui``, ``web``): its own catalog is merged last,
    so where two front ends word the same English differently each shows its own. The engine's
    texts read the same in every front end (the catalog check refuses a front end that words an
    engine message differently).
    """
    lang = parse_language(lang)
    if lang == DEFAULT:
        return NullTranslations()
    order = [d for d in DOMAINS if d not in ("engine", primary)] + ["engine"]
    if primary in DOMAINS and primary != "engine":
        order.append(primary)
    merged: Translations | None = None
    for domain in order:
        loaded = _load_domain(lang, domain)
        if loaded is None:
            continue
        if merged is None:
            merged = loaded
        else:
            merged.merge(loaded)
    return merged if merged is not None else NullTranslations()


def use_domain(domain: str | None) -> None:
    """Say which front end this process is (``cli``, ``tui``): its wording wins in ``_()``."""
    if domain is not None and domain not in DOMAINS:
        raise ValueError(f"unknown catalog domain {domain!r}: one of {', '.join(DOMAINS)}")
    _primary.set(domain)


def use_language(lang: str) -> str:
    """Set the language of ``_()`` for this process (and the tasks it starts); returns it."""
    lang = parse_language(lang)
    _current.set(lang)
    return lang


@contextmanager
def language(lang: str) -> Iterator[str]:
    """``_()`` in ``lang`` for the duration of a ``with`` block (tests, one server reply)."""
    token = _current.set(parse_language(lang))
    try:
        yield _current.get()
    finally:
        _current.reset(token)


def current_language() -> str:
    return _current.get()


def _(message: str) -> str:
    """``message`` in the current language (the message itself when no translation exists)."""
    return translations(_current.get(), _primary.get()).gettext(message)


def ngettext(singular: str, plural: str, n: int) -> str:
    """The plural form for ``n`` in the current language (Czech has three, Chinese one)."""
    return translations(_current.get(), _primary.get()).ngettext(singular, plural, n)


def translate(text: object, lang: str | None = None, domain: str | None = None) -> str:
    """An engine text in a player's language: a :class:`Message` is rebuilt from its template (each
    parameter translated in turn); a plain string is looked up as it stands.

    Records and logs keep ``str(error)``, the English; only what a player reads goes through here.
    """
    domain = domain or _primary.get()
    tr = translations(lang or _current.get(), domain)
    if isinstance(text, Message):
        # Only nested messages are words; a plain parameter is data (a player's name, a shape, cells)
        # and must never be "translated" because it happens to equal a catalog entry.
        params = {
            key: translate(value, lang, domain) if isinstance(value, Message) else value
            for key, value in text.params.items()
        }
        try:
            return tr.gettext(text.template).format(**params)
        except (KeyError, IndexError, ValueError):
            return str(text)  # a broken translation must not hide the error itself
    if isinstance(text, BaseException):
        return translate(text.args[0] if text.args else str(text), lang, domain)
    return tr.gettext(str(text))


def fields(message: str) -> set[str]:
    """The ``{name}`` placeholders of a message (what every translation must keep)."""
    return {name for _lit, name, _spec, _conv in string.Formatter().parse(message) if name is not None}


def locale_of(lang: str | None = None) -> Locale:
    try:
        return Locale.parse(parse_language(lang or _current.get()))
    except UnknownLocaleError:  # pragma: no cover - every language we ship is in CLDR
        return Locale.parse(DEFAULT)


def format_number(value: float, lang: str | None = None) -> str:
    """A number in the locale's way (``1 234,5`` in Czech, ``1,234.5`` in English)."""
    return numbers.format_decimal(value, locale=locale_of(lang))


def format_percent(value: float, lang: str | None = None) -> str:
    return numbers.format_percent(value, locale=locale_of(lang))


def format_datetime(value: datetime | date, lang: str | None = None, format: str = "medium") -> str:
    """A date or time in the locale's way (``1. 12. 2026 20:15`` in Czech)."""
    if isinstance(value, datetime):
        return dates.format_datetime(value, format=format, locale=locale_of(lang))
    return dates.format_date(value, format=format, locale=locale_of(lang))


def plural_indexes(lang: str) -> dict[str, int]:
    """For a client with ``Intl.PluralRules``: which gettext plural form each CLDR category takes.

    The catalogs' plural forms are gettext's (an index per form); a browser knows CLDR categories.
    Sampling the categories' integers through the catalog's own plural expression maps one to the
    other without shipping code to the page (the page's CSP forbids ``eval``).
    """
    lang = parse_language(lang)
    tr = translations(lang)
    if not isinstance(tr, Translations):
        return {"one": 0, "other": 1}
    catalog_plural = tr.plural
    rule = Locale.parse(lang).plural_form
    table: dict[str, int] = {}
    for n in range(0, 200):
        table.setdefault(rule(n), int(catalog_plural(n)))
    table.setdefault("other", int(catalog_plural(5)))
    return table


def value_names(lang: str | None = None) -> dict[str, str]:
    """Preset names and option values as a player reads them (``rules value`` in the catalogs),
    by the engine's value: ``{"free": "volně", "clear-rows": "mazání řad", …}``."""
    tr = translations(lang or _current.get(), _primary.get())
    return {value: str(tr.pgettext(VALUE_CONTEXT, label)) for value, label in VALUE_LABELS.items()}


def catalog_json(lang: str, domains: tuple[str, ...] = ("engine", "web")) -> dict[str, Any]:
    """A language's messages for the web client, from the same ``.po`` files (no second dictionary).

    ``messages`` maps each msgid to its text, or to the list of plural forms keyed by the singular;
    ``values`` each preset and option value to its name (:func:`value_names`).
    """
    lang = parse_language(lang)
    messages: dict[str, Any] = {}
    if lang != DEFAULT:
        for domain in domains:
            po = LOCALE_DIR / lang / "LC_MESSAGES" / f"{domain}.po"
            if not po.exists():
                continue
            with po.open("rb") as f:
                catalog = read_po(f, locale=lang, domain=domain)
            for msg in catalog:
                if not msg.id or not msg.string or msg.fuzzy or msg.context:
                    continue  # a message with a context is looked up by its context (``values``)
                if isinstance(msg.id, (tuple, list)):
                    messages[str(msg.id[0])] = list(msg.string)
                else:
                    messages[str(msg.id)] = msg.string
    return {
        "lang": lang,
        "bcp47": lang.replace("_", "-"),
        "name": LANGUAGE_NAMES[lang],
        "plural": plural_indexes(lang),
        "messages": messages,
        "values": value_names(lang),
        "languages": {code: LANGUAGE_NAMES[code] for code in LANGUAGES},
    }



__all__ = [
    "DEFAULT", "DOMAINS", "LANGUAGES", "LANGUAGE_NAMES", "LOCALE_DIR", "LanguageError", "Message", "N_", "_",
    "catalog_json", "current_language", "fields", "format_datetime", "format_number", "format_percent",
    "language", "language_from_env", "negotiate", "ngettext", "parse_language", "plural_indexes",
    "translate", "translations", "use_domain", "use_language", "value_names",
]
