"""Issue 26 item 4, the server's half: ``POST /api/tutorials/{game}``, a stateless tutorial (the
script's seed and the moves kept so far), against a real uvicorn on 127.0.0.1 with httpx.

None of this existed before (no endpoint, no page): every test here fails on the old code.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from server_helpers import LiveServer, live_server
from tabletris.engine.tower import TowerAction
from tabletris.server.games import adapter_for
from tabletris.server.tutorials import MAX_MOVES
from tabletris.table.tutorial import Lesson, script_of


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    with live_server(tmp_path_factory.mktemp("tutorials") / "t.sqlite3") as s:
        yield s


def step(server: LiveServer, game: str, **body: Any) -> httpx.Response:
    return httpx.post(f"{server.url}/api/tutorials/{game}", json=body, timeout=10)


def first_kept(game: str, moves: list[dict[str, Any]]) -> dict[str, Any]:
    """The first legal move (in the engine's order) that the step shown keeps, as a client sends it."""
    script = script_of(game)
    assert script is not None
    adapter = adapter_for(game)
    lesson = Lesson(script)
    for m in moves:  # each decoded on the game it was played on
        assert lesson.replay([(0, adapter.action(lesson.game, 0, m))]) is None
    game_now = lesson.game
    if game == "dice":
        candidates: list[Any] = sorted(game_now.turn_options(), key=lambda o: (max(y for _, y in o.placement.cells), o.placement.x))
    else:
        candidates = [TowerAction.drop(p) for p in game_now.legal_drops(0)]
        for column in range(game_now.rules.width if game_now.towers[0].minos else 0):
            candidates += [TowerAction.drop(p, [column]) for p in game_now.legal_drops(0, [column])]
        candidates += [TowerAction.holding()] if game_now.can_hold(0) else []
    for action in candidates:
        trial = Lesson(script)
        trial.replay(lesson.kept)
        if trial.play(0, action):
            return adapter.action_json(action)
    raise AssertionError("no move the step keeps")


@pytest.mark.parametrize("game", ["dice", "tower"])
def test_a_whole_tutorial_is_played_through_the_endpoint(server: LiveServer, game: str) -> None:
    start = step(server, game)
    assert start.status_code == 200, start.text
    answer = start.json()
    assert answer["moves"] == [] and answer["step"]["index"] == 0 and not answer["finished"]
    state = answer["state"]
    assert state["type"] == "state" and state["you"] == 0 and state["private"] is not None
    assert state["room"]["game"] == game and state["room"]["status"] == "playing" and state["game"]["game"] == game
    names = []
    for _ in range(20):
        if answer["finished"]:
            break
        names.append(answer["step"]["name"])
        move = first_kept(game, answer["moves"])
        r = step(server, game, moves=answer["moves"], move=move)
        assert r.status_code == 200, r.text
        answer = r.json()
        assert answer["kept"] and answer["moves"][-1] == move
    assert answer["finished"] and answer["state"]["room"]["status"] == "over" and answer["state"]["private"] is None
    assert answer["ending"] == "{result} You have finished the tutorial."
    script = script_of(game)
    assert script is not None
    assert [s.name for s in script.steps][:-1] == list(dict.fromkeys(names))[: len(script.steps) - 1]


def test_a_move_the_step_takes_back_is_answered_with_its_reason_and_changes_nothing(server: LiveServer) -> None:
    first = step(server, "tower").json()
    off = {"place": [[1, 0], [2, 0], [1, 1], [2, 1]]}  # one column right of the icon
    r = step(server, "tower", moves=[], move=off)
    assert r.status_code == 200
    answer = r.json()
    assert answer["kept"] is False and answer["moves"] == [] and "taken back" in answer["note"]
    assert answer["state"]["game"] == first["state"]["game"] and answer["step"] == first["step"]


def test_an_illegal_move_gets_the_engines_words(server: LiveServer) -> None:
    r = step(server, "tower", move={"place": [[0, 5], [1, 5], [0, 6], [1, 6]]})
    assert r.status_code == 422
    body = r.json()
    assert body["error"] == "illegal" and "skyline" in body["message"]
    assert body["text"]["params"]["error"]["template"] == "{shape} would end above the skyline at {cells}"
    dice = step(server, "dice", move={"place": [[0, 0], [1, 0], [2, 0], [3, 0]], "shape": "I"})
    assert dice.status_code == 422 and dice.json()["error"] == "illegal", dice.text  # the die shows an O


def test_a_tampered_list_of_moves_is_refused_naming_the_first_bad_one(server: LiveServer) -> None:
    good = {"place": [[0, 0], [1, 0], [0, 1], [1, 1]]}
    # A move the first step takes back was never kept: the list is not this tutorial's.
    r = step(server, "tower", moves=[{"place": [[1, 0], [2, 0], [1, 1], [2, 1]]}])
    assert r.status_code == 422 and r.json()["error"] == "bad_tutorial"
    assert r.json()["message"].startswith("moves[0]: step 1 takes this move back")
    # A move the engine refuses, second in the list.
    r = step(server, "tower", moves=[good, {"place": [[0, 0], [1, 0], [0, 1], [1, 1]]}])
    assert r.status_code == 422 and r.json()["error"] == "bad_tutorial"
    assert r.json()["message"].startswith("moves[1]: not a move of this tutorial so far:") and "overlaps stone 1" in r.json()["message"]
    # Not a move at all, and too many of them: the request's own shape.
    r = step(server, "tower", moves=[{"place": "here"}])
    assert r.status_code == 422 and r.json()["error"] == "bad_request" and "moves" in r.json()["message"]
    r = step(server, "dice", moves=[good] * (MAX_MOVES + 1))
    assert r.status_code == 422 and r.json()["error"] == "bad_request"
    # A hold that drops a piece too: the engine says why not.
    r = step(server, "tower", moves=[good], move={"hold": True, "place": [[0, 0]]})
    assert r.status_code == 422 and r.json()["error"] == "illegal"


def test_a_game_without_a_tutorial_is_named_with_those_that_have_one(server: LiveServer) -> None:
    r = step(server, "chess")
    assert r.status_code == 422 and r.json()["error"] == "unknown_game"
    assert "dice, tower" in r.json()["message"]


def test_a_query_is_answered_as_a_room_answers_it(server: LiveServer) -> None:
    kept = step(server, "tower", moves=[], move={"place": [[0, 0], [1, 0], [0, 1], [1, 1]]}).json()
    r = step(server, "tower", moves=kept["moves"], query={"minos": [3]})
    assert r.status_code == 200
    answer = r.json()["answer"]
    assert answer["minos"] == [3] and answer["mino_cells"] == [[3, 0]] and answer["drops"]
    bad = step(server, "tower", moves=kept["moves"], query={"minos": [9]})
    assert bad.status_code == 422 and bad.json()["error"] == "illegal" and "outside the tower" in bad.json()["message"]


def test_the_page_is_served_in_the_players_language(server: LiveServer) -> None:
    r = httpx.get(f"{server.url}/tutorial/tower", headers={"accept-language": "cs"}, timeout=10)
    assert r.status_code == 200 and 'data-lang="cs"' in r.text and "/static/js/tutorial.js" in r.text
    openapi = httpx.get(f"{server.url}/openapi.json", timeout=10).json()
    assert "/api/tutorials/{game}" in openapi["paths"] and "/tutorial/{game}" not in openapi["paths"]


def test_the_api_document_names_the_endpoint_and_its_error() -> None:
    text = (Path(__file__).parent.parent / "docs" / "api.md").read_text()
    assert "POST /api/tutorials/{game}" in text and "| `bad_tutorial` | 422 |" in text
