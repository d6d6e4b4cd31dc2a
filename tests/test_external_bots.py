"""External bots over the JSON-lines protocol: whole games, and every way a program can fail."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from helpers import play_dice_turn, play_tower_round
from tabletris.bots.base import Bot
from tabletris.bots.external import BotForfeit, ExternalBot, allowed_commands, resolve_command
from tabletris.bots.registry import make_bot
from tabletris.engine.dice import DiceGame
from tabletris.engine.records import record_of, replay
from tabletris.engine.tower import TowerGame
from tabletris.lab.simulate import config_from, simulate

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "random_bot.py"
EXT = f"ext:{EXAMPLE}"


def write_bot(tmp_path: Path, name: str, body: str) -> str:
    """A small Python bot whose request loop runs ``body`` (with ``req`` and ``say``)."""
    path = tmp_path / f"{name}.py"
    path.write_text(
        "import json, sys, time\n"
        "def say(obj):\n    print(json.dumps(obj), flush=True)\n"
        "for line in sys.stdin:\n"
        "    req = json.loads(line)\n"
        "    if req['type'] == 'hello':\n        say({'type': 'ready'}); continue\n"
        "    if req['type'] == 'quit':\n        break\n"
        + "".join(f"    {row}\n" for row in body.splitlines())
    )
    return str(path)


def play_dice(bots: list, seed: int = 1, players: list[str] | None = None) -> DiceGame:
    game = DiceGame(players or ["A", "B"], seed=seed)
    while not game.over:
        play_dice_turn(game, bots[game.to_move])
    return game


def test_example_bot_plays_whole_dice_games_and_records_replay() -> None:
    bot = make_bot(EXT, seed=5)
    try:
        for seed in (1, 2):
            game = play_dice([bot, make_bot("random", seed=seed)], seed=seed)
            assert game.over and bot.errors == []
            assert replay(record_of(game)).summary() == game.summary()
    finally:
        bot.close()


def test_example_bot_plays_whole_tower_games() -> None:
    bots = [make_bot(EXT, seed=1), make_bot(EXT, seed=2), make_bot("random", seed=3)]
    try:
        game = TowerGame(["A", "B", "C"], {"preset": "advanced"}, seed=7)
        while not game.over:
            play_tower_round(game, bots)
        assert all(b.errors == [] for b in bots[:2])
        assert replay(record_of(game)).summary() == game.summary()
    finally:
        for b in bots[:2]:
            b.close()


def test_bot_answering_with_cells_and_minos_is_understood(tmp_path: Path) -> None:
    """Answers may give the move itself instead of an option index, for both games."""
    body = (
        "if req['type'] == 'dice':\n"
        "    o = req['options'][-1]\n"
        "    say({'id': req['id'], 'shape': o['shape'], 'take': o['take'], 'place': o['place']})\n"
        "else:\n"
        "    say({'id': req['id'], **req['options'][0]})\n"
    )
    command = "ext:" + write_bot(tmp_path, "cells", body)
    bot = make_bot(command, seed=1)
    try:
        game = play_dice([bot, bot], seed=4)
        assert bot.errors == [] and game.turn > 1
        tower = TowerGame(["A"], seed=3)
        while not tower.over:
            play_tower_round(tower, [bot])
        assert bot.errors == []
    finally:
        bot.close()


FAILURES = {
    "crash": ("print('boom', file=sys.stderr, flush=True); sys.exit(3)", "crashed: it exited with status 3; its last words: boom"),
    "hang": ("time.sleep(60)", "timed out: no answer to dice request"),
    "garbage": ("print('hello table', flush=True)", "sent garbage: 'hello table' is not a JSON object"),
    "illegal": ("say({'id': req['id'], 'option': 10**6})", "made an illegal move: option 1000000 is not one of"),
    "bad_cells": (
        "say({'id': req['id'], 'place': [[0, 0], [5, 5], [9, 9], [3, 3]]})",
        "made an illegal move: place",
    ),
    "wrong_id": ("say({'id': -1, 'option': 0})", "sent garbage: answer id -1, expected"),
}


def RANDOM() -> Bot:
    """The fallback the registry gives by default: a random bot."""
    return make_bot("random", seed=1)


@pytest.mark.parametrize("kind", sorted(FAILURES))
def test_failing_bot_falls_back_and_the_game_goes_on(tmp_path: Path, kind: str) -> None:
    body, message = FAILURES[kind]
    bot = ExternalBot(write_bot(tmp_path, kind, body), seed=1, timeout=1.0, fallback=lambda: make_bot("random", seed=1))
    try:
        game = play_dice([bot, make_bot("random", seed=2)], seed=3)
        assert game.over
        assert len(bot.errors) == 1 and message in bot.errors[0]
        assert bot.replacement is not None and bot.replacement.name == "random"
        assert not bot.process.alive
        assert replay(record_of(game)).summary() == game.summary()
    finally:
        bot.close()


@pytest.mark.parametrize("kind", ["crash", "garbage", "illegal"])
def test_failing_bot_forfeits_without_touching_the_game(tmp_path: Path, kind: str) -> None:
    body, message = FAILURES[kind]
    bot = ExternalBot(write_bot(tmp_path, kind, body), timeout=1.0, fallback=None)
    game = DiceGame(["A", "B"], seed=3)
    game.roll()
    before = (game.board.rows(), list(game.scores), game.turn, game.roll_face, len(game.moves))
    with pytest.raises(BotForfeit, match="the seat forfeits") as info:
        play_dice_turn(game, bot)
    assert message in str(info.value)
    assert (game.board.rows(), list(game.scores), game.turn, game.roll_face, len(game.moves)) == before


def test_tower_failure_falls_back(tmp_path: Path) -> None:
    bot = ExternalBot(write_bot(tmp_path, "garbage", "print('{oops', flush=True)"), timeout=1.0, fallback=RANDOM)
    game = TowerGame(["A", "B"], seed=1)
    while not game.over:
        play_tower_round(game, [bot, make_bot("random", seed=1)])
    assert "sent garbage" in bot.errors[0]
    assert replay(record_of(game)).summary() == game.summary()


def test_bot_that_never_says_ready(tmp_path: Path) -> None:
    path = tmp_path / "mute.py"
    path.write_text("import sys\nfor line in sys.stdin:\n    print('{\"type\": \"nope\"}', flush=True)\n")
    bot = ExternalBot(str(path), timeout=1.0, fallback=RANDOM)
    play_dice([bot, bot], seed=1)
    assert 'expected {"type": "ready"} after hello' in bot.errors[0]


def test_settings_from_the_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("TABLETRIS_EXT_TIMEOUT", "0.5")
    monkeypatch.setenv("TABLETRIS_EXT_FALLBACK", "forfeit")
    bot = make_bot("ext:" + write_bot(tmp_path, "hang", FAILURES["hang"][0]))
    assert isinstance(bot, ExternalBot) and bot.timeout == 0.5 and bot.fallback is None
    with pytest.raises(BotForfeit, match="within 0.5 s"):
        play_dice([bot, bot])
    monkeypatch.setenv("TABLETRIS_EXT_FALLBACK", "nobody")
    with pytest.raises(ValueError, match="unknown bot 'nobody'"):
        make_bot(EXT)


def test_bad_commands_are_refused_up_front(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="not found"):
        make_bot("ext:./no/such/bot")
    plain = tmp_path / "bot.sh"
    plain.write_text("echo hi\n")
    with pytest.raises(ValueError, match="is not executable"):
        make_bot(f"ext:{plain}")
    with pytest.raises(ValueError, match="needs a program"):
        make_bot("ext:")
    assert resolve_command(str(EXAMPLE))[1:] == [str(EXAMPLE)]  # a .py file runs with this Python
    assert resolve_command(f"{sys.executable} {EXAMPLE}") == [sys.executable, str(EXAMPLE)]


def test_simulate_with_an_external_seat_is_reproducible() -> None:
    for game in ("dice", "tower"):
        config = config_from(game, f"{EXT},random", games=3, seed=11)
        first = simulate(config, "local")
        second = simulate(config, "local")
        assert [r.scores for r in first.results] == [r.scores for r in second.results]
        assert len(first.results) == 3


def test_request_shows_the_bot_its_seat_and_options(tmp_path: Path) -> None:
    log = tmp_path / "requests.jsonl"
    body = f"open({str(log)!r}, 'a').write(line)\nsay({{'id': req['id'], 'option': 0}})"
    bot = ExternalBot(write_bot(tmp_path, "logger", body), seed=1)
    game = DiceGame(["A", "B"], seed=2)
    play_dice_turn(game, bot)
    tower = TowerGame(["A", "B"], seed=2)
    play_tower_round(tower, [bot, make_bot("random")])
    bot.close()
    dice_req, tower_req = (json.loads(x) for x in log.read_text().splitlines())
    assert dice_req["type"] == "dice" and dice_req["state"]["seat"] == 0
    assert dice_req["state"]["roll"] == game.moves[0].roll
    assert all(set(o) == {"shape", "take", "place", "rows"} for o in dice_req["options"])
    assert tower_req["type"] == "tower" and tower_req["state"]["seat"] == 0
    assert tower_req["options"][-1] == {"hold": True}
    assert '"deck"' not in json.dumps(tower_req) and tower_req["state"]["deck_left"] == 26


def test_allowed_commands_for_servers(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("TABLETRIS_EXT_ALLOW", raising=False)
    assert allowed_commands() == []
    monkeypatch.setenv("TABLETRIS_EXT_ALLOW", f"{EXT}, random ,ext:./x")
    assert allowed_commands() == [EXT, "ext:./x"]
