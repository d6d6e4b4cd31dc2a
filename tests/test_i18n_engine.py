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
from tabletris.engine.rules_text import rules_text

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
        # Tower rows never clear (issue 27 item 11): the cards say rows are completed (完成), not 消.
        assert "完成" in i18n.translate(ACHIEVEMENTS["tetris"].name, lang)
        assert not any("消" in i18n.translate(card.name, lang) for card in ACHIEVEMENTS.values())


@pytest.mark.parametrize("lang", LANGS)
def test_rules_text_is_translated_paragraph_by_paragraph(lang: str) -> None:
    for game, game_spec in GAMES.items():
        text = rules_text(game, lambda s: i18n.translate(s, lang))
        for paragraph in game_spec.rules_paragraphs:
            assert paragraph not in text
            assert _translated(paragraph, lang) in text
    # The English text is the one front ends showed before (the server and app read it).
    dice_rules = rules_text("dice")
    assert dice_rules == GAMES["dice"].rules_text() and rules_text("tower") == GAMES["tower"].rules_text()
    assert dice_rules.startswith("## The dice game\n\nA shared board") and dice_rules.endswith("share the win.\n")


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
    # A help text names each value as the form's lists show it (issue 27 item 11: 'slide' stayed English).
    access = i18n.translate(GAMES["dice"].rule_help["access"], lang)
    assert i18n.value_names(lang)["slide"] in access and "'slide'" not in access


# ----------------------------------------------------------------------------- rule violations

from tabletris.engine.dice import DiceGame  # noqa: E402
from tabletris.engine.errors import IllegalMove, TabletrisError  # noqa: E402
from tabletris.engine.texts import Message  # noqa: E402
from tabletris.engine.tower import TowerGame  # noqa: E402
from tabletris.i18n import catalogs  # noqa: E402
from tabletris.table.driver import Table  # noqa: E402


def _english_phrases() -> set[str]:
    """The literal parts of the engine catalog's English messages that are words (two or more):
    none of them may survive in a translation."""
    import re
    import string

    phrases: set[str] = set()
    for msg in catalogs.extract("engine"):
        if not msg.id:
            continue
        ids = [msg.id] if isinstance(msg.id, str) else list(msg.id)
        for text in ids:
            for literal, *_ in string.Formatter().parse(text):
                for run in re.findall(r"[A-Za-z']+(?: [A-Za-z']+)+", literal):
                    if re.search(r"[a-z]{3,} [a-z]{2,}", run):
                        phrases.add(run)
    return phrases


def _error(action: object) -> TabletrisError:
    try:
        action()  # type: ignore[operator]
    except TabletrisError as e:
        return e
    raise AssertionError("no error")


def _errors_from_play() -> list[tuple[TabletrisError, str]]:
    """Real errors from play, each with the English ``str()`` it has always had."""
    found: list[tuple[TabletrisError, str]] = []
    dice = DiceGame(["Ann", "Bob"], seed=7)
    found.append((_error(lambda: dice.play([[0, 0], [1, 0], [2, 0], [1, 1]])), "roll the die first"))
    dice.roll("T")
    found.append((_error(lambda: dice.roll()), "the die already shows T: place a piece first"))
    found.append((_error(lambda: dice.play([[0, 5], [1, 5], [2, 5], [1, 6]])), "T does not rest at [[0,5],[1,5],[2,5],[1,6]]"))
    found.append((_error(lambda: dice.play([[-1, 0], [0, 0], [1, 0], [0, 1]])), "T is out of bounds at [[-1,0],[0,0],[1,0],[0,1]]"))
    found.append((_error(lambda: dice.play([[0, 0], [1, 0], [2, 0], [3, 0]])), "T is not the shape of a T at [[0,0],[1,0],[2,0],[3,0]]"))
    found.append((_error(lambda: dice.play([[0, 0], [1, 0], [2, 0], [1, 1]], "I")), "the die shows T, not I"))
    found.append((_error(lambda: dice.roll("Q")), "the die already shows T: place a piece first"))
    dice.play([[0, 0], [1, 0], [2, 0], [1, 1]])
    found.append((_error(lambda: dice.roll("Q")), "'Q' is not a face of the die (I O T S L *)"))
    dice.roll("O")
    found.append((_error(lambda: dice.play([[0, 0], [1, 0], [0, 1], [1, 1]])), "O overlaps stone 1 (T) at [[0,0],[1,0],[0,1],[1,1]]"))
    table = Table(dice)
    action = dice.turn_options()[0]
    found.append((_error(lambda: table.act(0, action)), "it is Bob's turn (seat 2), not seat 1's"))
    found.append((_error(lambda: DiceGame(["Ann"], {"width": 3})), "rules.width: 3 is out of range (4-40)"))

    tower = TowerGame(["Ann", "Bob"], seed=3)
    card = tower.play_card.value
    found.append((_error(lambda: tower.submit(0, {"minos": [99], "place": [[0, 0], [1, 0], [2, 0], [3, 0]]})),
                  "Ann: mino 1: column 100 is outside the tower (1-8)"))
    found.append((_error(lambda: tower.submit(0, {"minos": [0, 1], "place": [[0, 0], [1, 0], [2, 0], [3, 0]]})),
                  "Ann: drops 2 minos but has 1"))
    found.append((_error(lambda: tower.submit(0, {"place": [[0, 13], [0, 14], [0, 15], [0, 16]]})),
                  f"Ann: {card} would end above the skyline at [[0,13],[0,14],[0,15],[0,16]]"))
    found.append((_error(lambda: tower.submit(0, {"hold": True, "minos": [0]})), "Ann: action: a hold has no minos and no place"))
    tower.submit(0, {"hold": True})
    tower.submit(1, {"place": [list(c) for c in tower.legal_drops(1)[0].cells]})
    found.append((_error(lambda: tower.submit(0, {"hold": True})), f"Ann: has used the hold already ({card}): once per game"))
    found.append((_error(lambda: tower.submit(0, {"jump": 1})), "Ann: action.jump: unknown key in an action (known: minos, place, hold)"))
    return found


@pytest.mark.parametrize("lang", LANGS)
def test_rule_violations_from_play_are_translated_and_stay_english_in_str(lang: str) -> None:
    phrases = _english_phrases()
    assert "does not rest" in phrases and "the die already shows" in phrases  # the check can fail
    for error, english in _errors_from_play():
        assert str(error) == english  # records, logs and tests keep the engine's English
        assert isinstance(error.args[0], Message), f"{english!r} is not a Message"
        shown = i18n.translate(error, lang)
        assert shown != english
        assert "{" not in shown, f"{english!r} → {shown!r} keeps a placeholder"
        left = sorted(p for p in phrases if p in shown)
        assert not left, f"{english!r} → {shown!r} keeps English {left}"


def test_a_placement_error_is_a_nested_message_translated_part_by_part() -> None:
    dice = DiceGame(["Ann", "Bob"], seed=7)
    dice.roll("T")
    error = _error(lambda: dice.play([[0, 5], [1, 5], [2, 5], [1, 6]]))
    assert isinstance(error, IllegalMove) and isinstance(error.reason, Message)
    assert error.reason == "does not rest"
    assert i18n.translate(error, "cs") == "T na [[0,5],[1,5],[2,5],[1,6]] neleží na ničem"
    assert i18n.translate(error, "zh_CN") == "T 在 [[0,5],[1,5],[2,5],[1,6]]：没有放稳"
    assert i18n.translate(error, "en") == str(error)
