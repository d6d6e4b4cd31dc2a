"""The engine's texts in the players' languages: cards, rules, rule help, presets, rule violations.

The engine keeps its English (records and logs quote it); these tests check that a front end gets
every player-visible engine text in Czech and Chinese through ``tabletris.i18n.translate`` alone.
"""

from __future__ import annotations

import dataclasses

import pytest

from tabletris import i18n
from tabletris.engine.achievements import ACHIEVEMENTS
from tabletris.engine.games import GAMES
from tabletris.engine.rules_text import DICE_RULES, PARAGRAPHS, TOWER_RULES, rules_text

LANGS = ("cs", "zh_CN")


def _translated(text: str, lang: str) -> str:
    out = i18n.translate(text, lang)
    assert out and out != text, f"{text!r} has no {lang} translation"
    return out


@pytest.mark.parametrize("lang", LANGS)
def test_every_achievement_card_has_a_translated_name_and_condition(lang: str) -> None:
    for card in ACHIEVEMENTS.values():
        assert card.name, f"{card.id} has no name"
        _translated(card.name, lang)
        _translated(card.text, lang)
    # The wiki's own card names (seed 001) for the cards it lists.
    if lang == "zh_CN":
        assert i18n.translate(ACHIEVEMENTS["six-lines"].name, lang) == "完成6行"
        assert i18n.translate(ACHIEVEMENTS["tetris"].name, lang) == "消四"


@pytest.mark.parametrize("lang", LANGS)
def test_rules_text_is_translated_paragraph_by_paragraph(lang: str) -> None:
    for game, paragraphs in PARAGRAPHS.items():
        text = rules_text(game, lambda s: i18n.translate(s, lang))
        for paragraph in paragraphs:
            assert paragraph not in text
            assert _translated(paragraph, lang) in text
    # The English text is the one front ends showed before (the server and app read it).
    assert rules_text("dice") == DICE_RULES and rules_text("tower") == TOWER_RULES
    assert DICE_RULES.startswith("## The dice game\n\nA shared board") and DICE_RULES.endswith("share the win.\n")


@pytest.mark.parametrize("lang", LANGS)
def test_rule_help_presets_option_labels_and_titles_are_translated(lang: str) -> None:
    for spec in GAMES.values():
        _translated(spec.title, lang)
        option_names = {f.name for f in dataclasses.fields(spec.rules_cls)}
        assert set(spec.option_labels) == option_names
        assert set(spec.preset_help) == set(spec.presets)
        assert set(spec.rule_help) == option_names - {"preset"}
        for text in [*spec.rule_help.values(), *spec.preset_help.values(), *spec.option_labels.values()]:
            _translated(text, lang)
    # Quoted option values are what a player types: they stay as they are in every language.
    assert "'slide'" in i18n.translate(GAMES["dice"].rule_help["access"], lang)
