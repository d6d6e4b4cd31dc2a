"""The stronger tower expert of issue 29 (item 3): its tuning as the core reads it, its replies
with minos in C and in Python, and that it outscores the first expert on the same decks.

The strength itself (expert / oracle over 400 decks with its interval, the duels) is measured by
``scripts/measure_strength.py tower`` and ``tower-duels`` (docs/strength.md), not here; this
checks only the direction on a few fixed decks, deterministically (seeded games in the core).
"""

from __future__ import annotations

import statistics
from typing import Any

import pytest

from tabletris.bots import tower_eval as te
from tabletris.bots.expert import ExpertBot
from tabletris.engine import fasttower as ft
from tabletris.engine.tower import TowerGame
from tower_reference import make_bots, play_python

pytestmark = pytest.mark.skipif(ft.built_module() is None, reason="the compiled tower core is not built here")

FIRST_EXPERT = te.core_params(te.DEFAULT_TOWER_WEIGHTS, 12, 4, False, False)
"""The expert before item 3: greedy's weights, NEXT's and the third card's replies without minos."""


@pytest.fixture(autouse=True)
def core() -> Any:
    with ft.forced():
        yield


def test_the_experts_tuning_is_what_the_core_reads() -> None:
    bot = ExpertBot()
    assert bot.tower_weights == te.EXPERT_TOWER_WEIGHTS != te.DEFAULT_TOWER_WEIGHTS
    assert bot.tower_core_params() == te.core_params(te.EXPERT_TOWER_WEIGHTS, 12, 4, True, False)
    weaker = ExpertBot(strength=0.5)
    assert weaker.tower_core_params()[-4:] == (7, 2, 1, 0)


def solo_mean(params: tuple[Any, ...], decks: range) -> float:
    scores = []
    for seed in decks:
        game = TowerGame(["a"], seed=seed)
        ft.playout(game, ["expert"], [None], [params])
        assert game.over
        scores.append(game.seat_scores()[0])
    return statistics.fmean(scores)


def test_the_expert_outscores_the_first_expert_on_the_same_decks() -> None:
    decks = range(1000, 1060)
    assert solo_mean(ExpertBot().tower_core_params(), decks) > solo_mean(FIRST_EXPERT, decks) + 0.5


@pytest.mark.parametrize("next_minos,third_minos", [(True, False), (False, True), (True, True)])
def test_replies_with_minos_are_the_python_experts(next_minos: bool, third_minos: bool) -> None:
    """Whole games with minos in hand (the start minos and the diamonds'), each decision in C and
    in Python: the replies after a mino are looked at alike."""
    for seed in (3,):
        games = []
        for fast_path in (True, False):
            game = TowerGame(["a", "b"], {"preset": "advanced", "start_minos": 2, "width": 6, "height": 11}, seed=seed)
            bots = make_bots(["expert", "expert"], seed)
            for bot in bots:
                assert isinstance(bot, ExpertBot)
                bot.fast_path = fast_path
                bot.next_minos = next_minos
                bot.third_minos = third_minos
            play_python(game, bots)
            games.append([r for r in game.rounds])
        assert games[0] == games[1]
