"""Keep the catalogs in step with the code: ``python -m tabletris.i18n.catalogs [extract|update|compile|check]``.

- ``extract`` writes each domain's template (``locale/<domain>.pot``) from the source.
- ``update`` extracts, then merges the templates into every language's ``.po`` (new messages
  arrive untranslated, vanished ones are dropped; translators then fill the blanks).
- ``compile`` writes the ``.mo`` files (the build does this too; see ``setup.py``).
- ``check`` lists every problem :func:`problems` finds and exits 1 if there is any: the test suite
  runs the same check.

Babel does the extraction (Python and JavaScript), the merging and the compiling; this module
only says which sources feed which domain, so the command needs no configuration file.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable
from pathlib import Path

from babel.messages.catalog import Catalog
from babel.messages.extract import DEFAULT_KEYWORDS, extract_from_dir
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po, write_po

from tabletris.i18n import DEFAULT, DOMAINS, LANGUAGES, LOCALE_DIR, fields

PACKAGE = Path(__file__).resolve().parent.parent
#: Which folders of the package feed which domain (relative to ``src/tabletris``).
SOURCES: dict[str, tuple[str, ...]] = {
    "engine": ("engine", "bots", "table"),
    "cli": ("cli", "lab", "kit"),
    "tui": ("tui",),
    "web": ("server",),
}
#: ``_(msg)``, ``N_(msg)``, ``ngettext(singular, plural, n)``, in Python and in the web client alike
#: (the client's ``_``/``ngettext`` take a second/fourth argument with the ``{name}`` values).
KEYWORDS = {**DEFAULT_KEYWORDS, "NP_": ((1, "c"), 2)}  # NP_(context, msg): the engine's contextual marker
METHODS = [("**.py", "python"), ("**/static/**.js", "javascript")]


def extract(domain: str) -> Catalog:
    """The domain's messages as they stand in the source, with where each is used."""
    catalog = Catalog(domain=domain, project="tabletris", msgid_bugs_address="", charset="utf-8")
    for folder in SOURCES[domain]:
        root = PACKAGE / folder
        if not root.exists():
            continue
        for filename, lineno, message, comments, context in extract_from_dir(
            str(root), METHODS, keywords=KEYWORDS, comment_tags=("TRANSLATORS:",), strip_comment_tags=True
        ):
            where = f"src/tabletris/{folder}/{filename}"
            catalog.add(message, None, [(where, lineno)], auto_comments=comments, context=context)
    return catalog


def _po_path(lang: str, domain: str) -> Path:
    return LOCALE_DIR / lang / "LC_MESSAGES" / f"{domain}.po"


def _write(path: Path, catalog: Catalog) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    for message in catalog:
        # Babel flags any msgid with a "%" as python-format ("15% infill"); every message here is
        # formatted with ``str.format`` (its placeholders are braces), and a false flag makes
        # gettext's ``msgfmt --check`` refuse a correct translation ("15% výplň").
        message.flags.discard("python-format")
    catalog.fuzzy = False  # the header is ours, not a guess awaiting review
    catalog.revision_date = catalog.creation_date  # a real date: msgfmt warns on the placeholder
    catalog.project, catalog.version = "tabletris", ""
    catalog.msgid_bugs_address = ""
    catalog.last_translator = "tabletris contributors"
    catalog.language_team = f"{catalog.locale or 'en'} <https://github.com/tabletris>"
    with path.open("wb") as f:
        write_po(f, catalog, width=100, include_lineno=False, sort_output=True)


def read(lang: str, domain: str) -> Catalog | None:
    path = _po_path(lang, domain)
    if not path.exists():
        return None
    with path.open("rb") as f:
        return read_po(f, locale=lang, domain=domain)


def update(domains: Iterable[str] = DOMAINS) -> None:
    for domain in domains:
        template = extract(domain)
        _write(LOCALE_DIR / f"{domain}.pot", template)
        for lang in LANGUAGES:
            if lang == DEFAULT:
                continue
            catalog = read(lang, domain)
            if catalog is None:
                catalog = Catalog(locale=lang, domain=domain, project="tabletris", charset="utf-8")
            catalog.update(template, no_fuzzy_matching=True)
            catalog.obsolete.clear()
            _write(_po_path(lang, domain), catalog)


def compile_all(target: Path = LOCALE_DIR) -> list[Path]:
    """``.mo`` beside each ``.po`` (under ``target``, the build's copy of the package)."""
    written = []
    for po in sorted(target.glob("*/LC_MESSAGES/*.po")):
        lang, domain = po.parent.parent.name, po.stem
        with po.open("rb") as f:
            catalog = read_po(f, locale=lang, domain=domain)
        mo = po.with_suffix(".mo")
        with mo.open("wb") as f:
            write_mo(f, catalog)
        written.append(mo)
    return written


def _texts(value: str | tuple[str, ...] | list[str] | None) -> list[str]:
    if value is None:
        return []
    return [value] if isinstance(value, str) else list(value)


def problems(domains: Iterable[str] = DOMAINS) -> list[str]:
    """Every message without a translation, every stale catalog, every placeholder that differs."""
    found: list[str] = []
    for domain in domains:
        template = extract(domain)
        wanted = {m.id for m in template if m.id}
        for lang in LANGUAGES:
            if lang == DEFAULT:
                continue
            catalog = read(lang, domain)
            where = f"{lang}/{domain}.po"
            if catalog is None:
                found.append(f"{where}: missing (run: python -m tabletris.i18n.catalogs update)")
                continue
            have = {m.id for m in catalog if m.id}
            for msgid in sorted(wanted - have, key=str):
                found.append(f"{where}: no entry for {msgid!r} (run update, then translate it)")
            for msg in catalog:
                if not msg.id or msg.id not in wanted:
                    continue
                ids = _texts(msg.id)
                strings = _texts(msg.string)
                if msg.fuzzy:
                    found.append(f"{where}: {ids[0]!r} is marked fuzzy (check the translation, drop the flag)")
                if not strings or not all(strings):
                    found.append(f"{where}: {ids[0]!r} has no translation")
                    continue
                expected = set().union(*(fields(i) for i in ids))
                for text in strings:
                    try:
                        got = fields(text)
                    except ValueError as e:
                        found.append(f"{where}: {ids[0]!r}: the translation {text!r} is not a valid format ({e})")
                        continue
                    if got != expected and not (len(ids) > 1 and got <= expected):
                        found.append(
                            f"{where}: {ids[0]!r}: placeholders {sorted(got)} differ from {sorted(expected)} in {text!r}"
                        )
    found.extend(clashes())
    return found


def clashes() -> list[str]:
    """Engine messages that a front end's catalog words differently.

    At run time a front end's catalog is merged over the engine's (``translations(lang, primary)``),
    so an engine text (a rule's name, an option label) would read one way in the rules paragraph and
    another in the front end's panel. Front ends may word their own messages differently from each
    other; the engine's words are the same everywhere.
    """
    found: list[str] = []
    for lang in LANGUAGES:
        if lang == DEFAULT:
            continue
        engine = read(lang, "engine")
        if engine is None:
            continue
        words = {(m.context, _texts(m.id)[0]): tuple(_texts(m.string)) for m in engine if m.id and not m.fuzzy}
        for domain in DOMAINS:
            catalog = read(lang, domain) if domain != "engine" else None
            for msg in catalog or ():
                if not msg.id or msg.fuzzy:
                    continue
                key = (msg.context, _texts(msg.id)[0])
                strings = tuple(_texts(msg.string))
                theirs = words.get(key)
                if theirs and all(strings) and theirs != strings:
                    found.append(
                        f"{lang}: engine text {key[1]!r} reads {theirs[0]!r} in engine.po but {strings[0]!r} in"
                        f" {domain}.po (use the engine's wording, or a msgctxt if it means something else here)"
                    )
    return found


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    command = args[0] if args else "check"
    domains = args[1:] or list(DOMAINS)
    if command == "extract":
        for domain in domains:
            _write(LOCALE_DIR / f"{domain}.pot", extract(domain))
    elif command == "update":
        update(domains)
    elif command == "compile":
        for mo in compile_all():
            print(mo.relative_to(LOCALE_DIR))
    elif command == "check":
        found = problems(domains)
        for line in found:
            print(line)
        print(f"{len(found)} problem(s)")
        return 1 if found else 0
    else:
        print(f"unknown command {command!r}: extract, update, compile or check", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
