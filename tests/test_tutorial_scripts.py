"""Issue 26 item 4: the guided first games' scripts (``table.tutorial``), shared by the terminal and
the browser. Each step is checked on the engine's state; a move the step takes back never touches
the game; every path a player can take through a script reaches its end within a few moves.

The scripts lived in ``tui/`` (the server may not import it) and the tower had none: the
``Lesson`` tests and the tower's fail on the old code.
"""

from __future__ import annotations

from typing import Any

import pytest

from tabletris.engine.dice import DiceGame
from tabletris.engine.errors import IllegalMove
from tabletris.engine.tower import TowerAction, TowerGame
from tabletris.table import dice_tutorial, tower_tutorial
from tabletris.table.tutorial import Lesson, script_of, tutorial_games


def test_every_game_has_a_script_found_through_its_spec() -> None:
    assert tutorial_games() == ["dice", "tower"]
    assert script_of("dice") is dice_tutorial.SCRIPT and script_of("tower") is tower_tutorial.SCRIPT
    assert script_of("no-such-game") is None
    for name in tutorial_games():
        script = script_of(name)
        assert script is not None and script.game == name
        names = [s.name for s in script.steps]
        assert len(set(names)) == len(names) and 3 <= len(names) <= 6  # few, short steps
        assert all(len(s.text) < 300 for s in script.steps)


def test_step_words_name_no_key_and_no_button() -> None:
    """Each front end adds its own controls; the script's words are the same in all of them."""
    words = ("Enter", "arrow", "press", "click", "tap", "button", "key", " r ", " f ", " t ", " h ", " m ")
    for name in tutorial_games():
        script = script_of(name)
        assert script is not None
        for step in script.steps:
            for text in (step.text, step.retry, step.praise):
                assert not [w for w in words if w.lower() in f" {text.lower()} "], (name, step.name, text)


def test_a_move_the_step_takes_back_leaves_the_game_as_it_was_and_the_same_roll_comes_again() -> None:
    lesson = Lesson(dice_tutorial.SCRIPT)
    game = lesson.game
    assert isinstance(game, DiceGame)
    first = min(game.turn_options(), key=lambda o: max(y for _, y in o.placement.cells))
    assert lesson.play(0, first) and lesson.guide.index == 1 and lesson.guide.note == dice_tutorial.STEPS[0].praise
    roll, moves = game.roll_face, list(game.moves)
    miss = next(o for o in game.turn_options() if not game.scoring_rows_after(o.placement, o.take))
    assert not lesson.play(0, miss)
    assert lesson.game is game and game.moves == moves and game.roll_face == roll and game.rows_completed == [0]
    assert lesson.guide.index == 1 and not lesson.guide.kept and lesson.guide.note == dice_tutorial.STEPS[1].retry
    row = next(o for o in game.turn_options() if game.scoring_rows_after(o.placement, o.take))
    assert lesson.play(0, row) and game.rows_completed == [1] and lesson.guide.index == 2


def test_an_illegal_move_is_the_engines_to_refuse() -> None:
    lesson = Lesson(tower_tutorial.SCRIPT)
    with pytest.raises(IllegalMove) as refused:
        lesson.play(0, TowerAction.drop([[0, 5], [1, 5], [0, 6], [1, 6]]))
    assert "skyline" in str(refused.value)
    assert lesson.game.rounds == [] and lesson.guide.index == 0


def test_replay_names_the_first_move_the_script_would_not_keep() -> None:
    lesson = Lesson(tower_tutorial.SCRIPT)
    good = TowerAction.drop([[0, 0], [1, 0], [0, 1], [1, 1]])
    hold = TowerAction.holding()
    assert lesson.replay([(0, good), (0, hold)]) == 1  # the card step wants the O beside the first
    assert len(lesson.kept) == 1 and lesson.guide.index == 1


def dice_paths() -> list[tuple[int, bool, bool]]:
    """Every way through the dice script (each legal move, each token choice), as a player would
    play it: (moves, a stone was taken from the lowest rows, the guide finished)."""
    script = dice_tutorial.SCRIPT
    ends: list[tuple[int, bool, bool]] = []

    def walk(path: list[Any]) -> None:
        lesson = Lesson(script)
        assert lesson.replay([(0, a) for a in path]) is None
        game = lesson.game
        if game.over or len(path) > 10:
            ends.append((len(path), any(m.take is not None for m in game.moves), lesson.guide.finished))
            return
        for option in game.turn_options():
            rows = game.scoring_rows_after(option.placement, option.take)
            choices = game.token_choices() if rows else []
            for tokens in [None] + ([(c,) for c in choices] if len(rows) == 1 and len(choices) > 1 else []):
                action = option if tokens is None else option.__class__(**{**option.__dict__, "tokens": tokens})
                trial = Lesson(script)
                trial.replay([(0, a) for a in path])
                if trial.play(0, action):
                    walk([*path, action])

    walk([])
    return ends


def test_every_path_through_the_dice_script_takes_from_the_lowest_rows_and_ends() -> None:
    """Whatever the player places (a row where the row step asks for one, any token), the seeded
    game reaches a take and its end within a few moves: the script cannot strand a newcomer."""
    ends = dice_paths()
    assert ends and all(n <= 8 for n, _, _ in ends), max(ends)
    assert all(took and finished for _, took, finished in ends)


def tower_options(game: TowerGame) -> list[TowerAction]:
    """Every action the seat may take: each drop after no mino or one mino in any column, a hold."""
    tower = game.towers[0]
    actions = [TowerAction.drop(p) for p in game.legal_drops(0)]
    for column in range(game.rules.width if tower.minos else 0):
        try:
            drops = game.legal_drops(0, [column])
        except IllegalMove:
            continue
        actions += [TowerAction.drop(p, [column]) for p in drops]
    if game.can_hold(0):
        actions.append(TowerAction.holding())
    return actions


def test_every_path_through_the_tower_script_reaches_each_step_in_order_and_ends() -> None:
    """Whatever the player drops (a mino or none, anywhere the engine allows), each step's card
    comes when the step asks for it and the tower goes out within a few rounds. Paths that reach
    the same tower at the same step are walked once."""
    script = tower_tutorial.SCRIPT
    ends: list[tuple[int, int]] = []
    seen: set[Any] = set()

    def walk(path: list[TowerAction]) -> None:
        lesson = Lesson(script)
        assert lesson.replay([(0, a) for a in path]) is None
        game, guide = lesson.game, lesson.guide
        key = (guide.index, game.round, game.towers[0].minos, game.towers[0].hold_used, tuple(game.towers[0].rows()))
        if key in seen:
            return
        seen.add(key)
        if game.over or len(path) > 12:
            assert guide.finished, path
            ends.append((len(path), len(guide._reached)))
            return
        last = len(script.steps) - 1  # the end step is reached by the engine's end, not by a move
        assert len(guide._reached) == min(len(path), last) and guide.index == min(len(path), last)
        for action in tower_options(game):
            trial = Lesson(script)
            trial.replay([(0, a) for a in path])
            if trial.play(0, action):
                walk([*path, action])

    walk([])
    assert ends and all(n <= 8 for n, _ in ends), max(ends)
    assert all(reached >= 4 for _, reached in ends)  # icons, card, minos and hold each reached by a move
