"""The translation system itself: language choice, catalogs, messages rebuilt in a player's language."""

from __future__ import annotations

import pickle

import pytest

from tabletris import i18n
from tabletris.engine.texts import Message
from tabletris.i18n import catalogs


def test_every_catalog_is_complete_and_keeps_placeholders() -> None:
    problems = catalogs.problems()
    assert problems == [], "\n".join(problems[:50])


@pytest.mark.parametrize(
    ("value", "expected"),
    [("cs", "cs"), ("cs_CZ.UTF-8", "cs"), ("zh-CN", "zh_CN"), ("zh_Hans_CN", "zh_CN"), ("zh", "zh_CN"),
     ("en_GB", "en"), ("C", "en")],
)
def test_parse_language_accepts_the_usual_spellings(value: str, expected: str) -> None:
    assert i18n.parse_language(value) == expected


def test_an_unknown_explicit_language_is_refused_with_the_choices() -> None:
    with pytest.raises(i18n.LanguageError, match=r"unknown language 'fr'.*en, cs, zh_CN"):
        i18n.parse_language("fr")


def test_the_environment_falls_back_quietly() -> None:
    assert i18n.language_from_env({"LANG": "fr_FR.UTF-8"}) == "en"
    assert i18n.language_from_env({"LANGUAGE": "fr:cs", "LANG": "en_US.UTF-8"}) == "cs"
    assert i18n.language_from_env({"LC_ALL": "zh_CN.UTF-8"}) == "zh_CN"


def test_accept_language_honours_quality_values() -> None:
    assert i18n.negotiate("fr-FR,fr;q=0.9,cs;q=0.8,en;q=0.7") == "cs"
    assert i18n.negotiate("en;q=0.5, zh-CN;q=0.9") == "zh_CN"
    assert i18n.negotiate("de") == "en"
    assert i18n.negotiate(None) == "en"
    assert i18n.negotiate("cs;q=0, zh") == "zh_CN"


def test_numbers_and_dates_follow_the_locale() -> None:
    from datetime import date

    assert i18n.format_number(1234.5, "en") == "1,234.5"
    assert i18n.format_number(1234.5, "cs") == "1\xa0234,5"
    assert i18n.format_datetime(date(2026, 12, 1), "cs") == "1. 12. 2026"
    assert i18n.format_datetime(date(2026, 12, 1), "zh_CN") == "2026年12月1日"


def test_a_message_stays_english_text_and_survives_pickling() -> None:
    message = Message("the die already shows {face}: place a piece first", face="T")
    assert message == "the die already shows T: place a piece first"
    again = pickle.loads(pickle.dumps(message))
    assert isinstance(again, Message) and again.template == message.template and again == message
    assert message.as_json() == {"template": message.template, "params": {"face": "T"}}


def test_czech_plural_forms_map_to_browser_categories() -> None:
    assert i18n.plural_indexes("en") == {"one": 0, "other": 1}
    cs = i18n.plural_indexes("cs")
    assert cs["one"] == 0 and cs["few"] == 1 and cs["other"] == 2
    assert set(i18n.plural_indexes("zh_CN").values()) == {0}


def test_the_language_of_underscore_is_scoped() -> None:
    assert i18n.current_language() == "en"
    with i18n.language("cs") as lang:
        assert lang == "cs" and i18n.current_language() == "cs"
    assert i18n.current_language() == "en"


def test_each_front_end_keeps_its_own_wording() -> None:
    """Merged into one catalog, a later domain silently won everywhere: the terminal app showed
    the web's word for an English msgid both use differently. Each front end's own catalog wins."""
    from babel.messages.pofile import read_po

    def word(domain: str, msgid: str) -> str | None:
        with (i18n.LOCALE_DIR / "cs" / "LC_MESSAGES" / f"{domain}.po").open("rb") as f:
            found = read_po(f, locale="cs").get(msgid)
        return str(found.string) if found is not None and found.string else None

    clashes = [m for m in ("NEXT", "PLAY", "free", "out") if word("cli", m) and word("tui", m) and word("cli", m) != word("tui", m)]
    assert clashes, "the catalogs no longer word any of these differently: pick another msgid"
    msgid = clashes[0]
    assert i18n.translations("cs", "cli").gettext(msgid) == word("cli", msgid)
    assert i18n.translations("cs", "tui").gettext(msgid) == word("tui", msgid)


def test_a_front_end_may_not_reword_an_engine_text() -> None:
    assert catalogs.clashes() == []
    with pytest.raises(ValueError, match="unknown catalog domain"):
        i18n.use_domain("kitchen")


def test_every_catalog_passes_gettexts_own_check() -> None:
    """``msgfmt --check`` (GNU gettext) accepts every catalog: it refused three correct
    translations ("15% výplň") that Babel had flagged python-format for the "%" in their msgid."""
    import shutil
    import subprocess

    msgfmt = shutil.which("msgfmt")
    assert msgfmt, "GNU gettext's msgfmt is needed (.ci/run installs Debian's gettext)"
    pos = sorted(catalogs.LOCALE_DIR.glob("*/LC_MESSAGES/*.po"))
    assert len(pos) == 2 * len(catalogs.DOMAINS)
    for po in pos:
        done = subprocess.run([msgfmt, "--check", "-o", "/dev/null", str(po)], capture_output=True, text=True)
        assert done.returncode == 0 and "warning" not in done.stderr, f"{po}: {done.stderr}"
