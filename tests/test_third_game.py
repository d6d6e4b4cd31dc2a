"""A third game, registered only here, plays through every shared layer with no edit to any of them.

The pile game (tests/pile_game: its engine, records and spec, and its own front-end modules) is
the proof of issue 24's promise: a game is its spec. Each test registers it for its own run
(``pile`` fixture) and takes it out again, so the product's game list never shows it.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

import pile_game
from pile_game.engine import PileGame, Take
from tabletris.bots.registry import bot_refusal, bots_for, make_bot
from tabletris.engine import records
from tabletris.engine.errors import IllegalMove, RecordError
from tabletris.engine.games import GAME_NAMES, GAMES, GameSpec, spec
from tabletris.lab.tasks import config_from, make_tasks, run_game
from tabletris.table.driver import Table

ROOT = Path(__file__).resolve().parent.parent
TABLETRIS = str(Path(sys.executable).parent / "tabletris")


@pytest.fixture
def pile() -> Iterator[GameSpec]:
    game_spec = pile_game.install()
    yield game_spec
    pile_game.uninstall()


def test_the_pile_game_is_registered_only_while_a_test_asks_for_it(pile: GameSpec) -> None:
    assert spec("pile") is pile and "pile" in GAMES
    assert "pile" not in GAME_NAMES  # the product's games are the built-in ones
    pile_game.uninstall()
    assert "pile" not in GAMES
    pile_game.install()


def test_two_bots_play_it_through_the_table(pile: GameSpec) -> None:
    game = pile.new(["Ann", "Bob"], {"stones": 12}, seed=5)
    table = Table(game, [make_bot("random", seed=1), make_bot("random", seed=2)])
    table.play_out()
    assert game.over and game.left == 0 and len(game.winners()) == 1
    # The log is the record's moves, roll and all, and every take was legal for its roll.
    assert table.log == game.moves and all(1 <= m["take"] <= m["roll"] for m in table.log)
    assert sum(m["take"] for m in table.log) == 12


def test_a_person_and_a_bot_take_turns_and_an_illegal_take_changes_nothing(pile: GameSpec) -> None:
    game = pile.new(["Ann", "Bot"], seed=3)
    table = Table(game, {1: make_bot("random", seed=4)})
    assert table.humans_to_act() == [0] and game.roll_face is not None  # chance moved first
    with pytest.raises(IllegalMove):
        table.act(0, Take(game.roll_face + 1))
    assert game.left == 9 and game.moves == []
    with pytest.raises(IllegalMove, match="Ann's turn"):
        table.bot_action(1)
    table.act(0, Take(1))
    events = table.play_bots()
    assert events and events[0]["player"] == 1 and (game.over or table.humans_to_act() == [0])


def test_its_record_round_trips_and_a_broken_one_names_the_move(pile: GameSpec, tmp_path: Path) -> None:
    game = pile.new(["Ann", "Bob"], seed=11)
    Table(game, [make_bot("random", seed=1), make_bot("random", seed=2)]).play_out()
    doc = records.record_of(game)
    text = records.dumps(doc)
    assert text.count('{"player"') == len(game.moves)  # one move per line, as the spec's record_lists say
    again = records.replay(text)
    assert isinstance(again, PileGame) and again.moves == game.moves and again.winners() == game.winners()
    broken = json.loads(text)
    broken["moves"][0]["take"] = broken["moves"][0]["roll"] + 1
    with pytest.raises(RecordError, match="move 1"):
        records.replay(broken)


def test_tabletris_replay_reads_it_in_a_fresh_process(pile: GameSpec, tmp_path: Path) -> None:
    game = pile.new(["Ann", "Bob"], seed=2)
    Table(game, [make_bot("random", seed=1), make_bot("random", seed=2)]).play_out()
    path = tmp_path / "pile.json"
    path.write_text(records.dumps(records.record_of(game)), encoding="utf-8")
    env = {**os.environ, "TABLETRIS_GAMES": "pile_game.plugin", "PYTHONPATH": str(ROOT / "tests")}
    done = subprocess.run(
        [TABLETRIS, "replay", str(path), "--json"],
        capture_output=True, text=True, env=env, timeout=120,
    )
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout)
    assert summary == game.summary() and summary["winners"] == [game.players[game.winners()[0]]]
    without = subprocess.run(
        [TABLETRIS, "replay", str(path), "--json"],
        capture_output=True, text=True, env={k: v for k, v in env.items() if k != "TABLETRIS_GAMES"}, timeout=120,
    )
    assert without.returncode == 1 and "pile" in without.stderr  # not registered: refused, naming the game


def test_the_lab_simulates_it(pile: GameSpec) -> None:
    config = config_from("pile", "random,random", games=6, seed=1, presets=["standard", "long"], swap=True)
    results = [run_game(task) for task in make_tasks(config)]
    assert len(results) == 12
    for r in results:
        assert sorted(r.wins) == [0.0, 1.0] and sorted(r.scores) == [0, 1] and r.length >= 1
    # A pure function of the task: the same task plays the same game.
    assert run_game(make_tasks(config)[3]) == results[3]


def test_it_offers_only_the_bots_its_spec_names(pile: GameSpec) -> None:
    assert bots_for("pile") == ["random"]
    assert bot_refusal("random", "pile") is None
    assert "plays only the dice" in (bot_refusal("mcts", "pile") or "")
    assert bot_refusal("greedy", "pile") is not None and bot_refusal("ext:./bot", "pile") is not None
    with pytest.raises(ValueError, match="greedy"):
        config_from("pile", "random,greedy", games=1)


def test_the_generic_env_plays_it_and_passes_gymnasiums_checker(pile: GameSpec) -> None:
    import gymnasium
    from gymnasium.utils.env_checker import check_env

    import tabletris  # noqa: F401  (registers the environments)

    env = gymnasium.make("tabletris/Game-v0", game="pile", opponents="random", reward="win")
    check_env(env.unwrapped, skip_render_check=True)
    rng = __import__("random").Random(0)
    for episode in range(20):
        obs, info = env.reset(seed=episode)
        total, done = 0.0, False
        while not done:
            mask = info["action_mask"]
            assert mask.any() and obs[2] == 1  # the learner is to move whenever it is asked
            obs, reward, done, truncated, info = env.step(rng.choice([i for i, ok in enumerate(mask) if ok]))
            total += reward
        assert total in (1.0, -1.0) and info["is_success"] == (total == 1.0)
        assert info["winner"] is not None
    obs, info = env.reset(seed=1)
    past = int(info["action_mask"].sum())  # one past the legal ones
    obs, reward, done, truncated, info = env.step(past)
    assert info["illegal_action"] == past
    strict = gymnasium.make("tabletris/Game-v0", game="pile", illegal_action="raise")
    obs, info = strict.reset(seed=1)
    with pytest.raises(ValueError, match="not legal"):
        strict.step(int(info["action_mask"].sum()))


def test_the_generic_env_refuses_a_bot_or_a_game_without_an_env_module(pile: GameSpec) -> None:
    from tabletris.envs.game_env import GameEnv

    with pytest.raises(ValueError, match="greedy"):
        GameEnv("pile", opponents="greedy")
    with pytest.raises(ValueError, match="no env module"):
        GameEnv("dice")


@pytest.mark.asyncio
async def test_the_server_plays_it_over_the_websocket_with_a_bot_seat(
    pile: GameSpec, db_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A room of the pile game is created, joined and played to the end by a person over a real
    websocket against the random bot (in the server's spawned workers, which load the plug-in
    from TABLETRIS_GAMES); the lobby's meta lists it, a take the roll does not allow is refused
    with the engine's words, and the stored record replays to the same end."""
    import httpx

    from server_helpers import Client, create_room, join, live_server

    monkeypatch.setenv("TABLETRIS_GAMES", "pile_game.plugin")
    with live_server(db_url) as server:
        meta = httpx.get(f"{server.url}/api/meta").json()
        assert meta["games"]["pile"]["bots"] == ["random"] and meta["games"]["pile"]["view"] is None
        refused = httpx.post(f"{server.url}/api/rooms", json={"game": "pile", "seats": [{"kind": "open"}, {"kind": "greedy"}]})
        assert refused.status_code == 422 and refused.json()["error"] == "bad_seats"
        assert refused.json()["message"] == "seats[1]: the greedy bot plays only the dice and tower game"
        room = create_room(server.url, {"game": "pile", "rules": {"stones": 11}, "seats": [{"kind": "open"}, {"kind": "random"}]})
        seat = join(server.url, room["id"], "Ann")
        assert seat["seat"] == 0
        ann = await Client.connect(server.ws, room["id"], seat["token"])
        refused_once = False
        while True:
            state = await ann.state_where(
                lambda m: m["game"] is not None and (m["game"]["over"] or (m["game"]["to_move"] == 0 and m["private"] is not None)),
                timeout=30,
            )
            game = state["game"]
            if game["over"]:
                break
            turn, takes = game["turn"], state["private"]["takes"]
            assert takes == list(range(1, min(game["roll"], game["left"]) + 1))
            if not refused_once and max(takes) < game["left"]:
                error = await ann.request({"type": "move", "take": max(takes) + 1, "turn": turn})
                assert error["type"] == "error" and error["error"] == "illegal", error
                assert f"the die shows {game['roll']}" in error["message"]
                refused_once = True
            reply = await ann.request({"type": "move", "take": takes[-1], "turn": turn})
            assert reply["type"] == "ack", reply
        await ann.close()
        record = httpx.get(f"{server.url}/api/rooms/{room['id']}/record").json()
    replayed = records.replay(record)
    assert replayed.over and replayed.left == 0 and sum(m["take"] for m in record["moves"]) == 11
    assert {m["player"] for m in record["moves"]} == {0, 1}, "the person and the bot both took"
    assert replayed.winners() == game["winners"] and replayed.seat_scores() == game["scores"]
