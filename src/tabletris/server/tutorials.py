"""The guided first games in the browser (issue 26 item 4): the page, and the engine answering each step.

The tutorial is stateless: no room, no stored seed. The client sends the moves kept so far (as
the last answer listed them) with its new move; the server rebuilds the script's seeded game from
them (``table.tutorial.Lesson``: the same script the terminal plays) and answers with the state
message a room's seat would get, the step shown, and the moves kept now. A move the engine
refuses is answered as a room answers it (``illegal``, the engine's words); a move the step takes
back is answered 200 with ``kept: false`` and the step's reason, the game unchanged; a list of
moves so far that the script did not keep (tampered, or from another version of the script) is
refused with ``bad_tutorial`` naming the first such move.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse
from pydantic import BaseModel, Field

from tabletris.engine.errors import IllegalMove
from tabletris.i18n import _
from tabletris.server.adapter import GameAdapter
from tabletris.server.errors import ActionError, engine_text
from tabletris.server.games import adapter_for
from tabletris.server.models import ERRORS, MoveIn, Strict
from tabletris.server.pages import page_html, page_language
from tabletris.table.tutorial import Lesson, Script, script_of, tutorial_games

MAX_MOVES = 40
"""The longest list of moves so far a request may carry: every script ends in far fewer."""


class TutorialIn(Strict):
    moves: list[MoveIn] = Field(
        default_factory=list, max_length=MAX_MOVES,
        description="The moves kept so far, exactly as the last answer's 'moves' listed them (empty: the start)",
    )
    move: MoveIn | None = Field(None, description="The player's new move (a room's move, without 'turn' or 'round')")
    query: MoveIn | None = Field(None, description="A room's query instead of a move: dice {place, shape?, take?, rewards?}, tower {minos}")


class StepOut(BaseModel):
    index: int = Field(description="The step shown, from 0")
    count: int
    name: str = Field(description="The step's name (place, row, take, end; icons, card, minos, hold, end): a client's hints")
    text: str = Field(description="What to do, in English: the client translates it through the engine catalog")


class TutorialOut(BaseModel):
    game: str
    moves: list[dict[str, Any]] = Field(description="The moves kept, to send back with the next move")
    kept: bool = Field(description="Whether the new move was kept (false: the step took it back; nothing changed)")
    note: str | None = Field(description="The last word on the new move: its praise, or why it was taken back (English)")
    step: StepOut
    finished: bool = Field(description="The game is over: the tutorial is done")
    ending: str = Field(description="The last word once finished, in English, with {result}: the client's reading of the end")
    state: dict[str, Any] = Field(description="The state message a room's seat 0 would get (type, you, seq, private, room, game)")
    answer: dict[str, Any] | None = Field(None, description="A query's answer, as a room's 'answer' message carries it")


def script_for(game: str) -> tuple[Script, GameAdapter]:
    """The game's script and the server's adapter for it; ``unknown_game`` naming the games that have one."""
    script = script_of(game)
    if script is None:
        raise ActionError(
            "unknown_game",
            _("the {game!r} game has no guided first game (these have one: {games})").format(game=game[:40], games=", ".join(tutorial_games())),
        )
    return script, adapter_for(script.game)


def lesson_after(script: Script, adapter: GameAdapter, moves: list[MoveIn]) -> Lesson:
    """The script's game after the moves kept so far; ``bad_tutorial`` naming the first move that is
    not one the script kept (the engine's words when it refuses it)."""
    lesson = Lesson(script)
    for number, move in enumerate(moves):
        try:
            action = adapter.action(lesson.game, 0, move.engine_dict())
            taken_back = lesson.replay([(0, action)])
        except (ActionError, IllegalMove) as e:
            why = e.message if isinstance(e, ActionError) else engine_text(e)
            raise ActionError("bad_tutorial", f"moves[{number}]: not a move of this tutorial so far: {why}") from None
        if taken_back is not None:
            raise ActionError(
                "bad_tutorial",
                f"moves[{number}]: step {lesson.guide.index + 1} takes this move back, so it is not one of the moves "
                f"this tutorial kept (send the 'moves' of the last answer)",
            )
    return lesson


def state_message(script: Script, adapter: GameAdapter, lesson: Lesson) -> dict[str, Any]:
    """What a room sends its seat 0, for the one-seat game of the tutorial (the views draw it)."""
    game = lesson.game
    over = bool(game.over)
    seat = {"seat": 0, "kind": "human", "name": script.player, "strength": None, "tower": None, "open": False, "bot": False, "connected": True}
    room = {
        "id": f"tutorial-{script.game}", "game": script.game, "status": "over" if over else "playing", "created": 0.0,
        "rules": dict(script.rules), "preset": "standard", "timer": None, "rated": False, "seats": [seat],
        "rematch": None, "rematch_of": None, "deadline": None, "events": len(lesson.kept), "spectators": 0, "error": None,
    }
    private = None if over else adapter.private(game, 0)
    return {"type": "state", "you": 0, "seq": len(lesson.kept), "private": private, "room": room, "game": adapter.public(game)}


def tutorial_router() -> APIRouter:
    router = APIRouter()

    @router.post("/api/tutorials/{game}", response_model=TutorialOut, responses={422: ERRORS[422]}, tags=["tutorials"])
    async def tutorial_step(game: str, body: TutorialIn) -> TutorialOut:
        """A step of a game's guided first game: the game after the moves so far and the new move
        (or a query), the step to show, and the moves to send next time."""
        script, adapter = script_for(game)
        lesson = lesson_after(script, adapter, body.moves)
        kept, note, answer = True, None, None
        if body.query is not None:
            answer = adapter.query(lesson.game, 0, body.query.engine_dict())
        if body.move is not None:
            try:
                action = adapter.action(lesson.game, 0, body.move.engine_dict())
                kept = lesson.play(0, action)
            except IllegalMove as e:
                raise ActionError("illegal", engine_text(e)) from None
            note = lesson.guide.note or None
        guide = lesson.guide
        step = guide.step
        return TutorialOut(
            game=script.game,
            moves=[adapter.action_json(action) for _seat, action in lesson.kept],
            kept=kept,
            note=note,
            step=StepOut(index=guide.index, count=guide.count, name=step.name, text=step.text),
            finished=guide.finished,
            ending=script.ending,
            state=state_message(script, adapter, lesson),
            answer=answer,
        )

    @router.get("/tutorial/{game}", include_in_schema=False)
    async def tutorial_page(game: str, request: Request) -> HTMLResponse:
        # The page reads its game from the path: the server's page cache keeps one copy per language.
        return HTMLResponse(page_html("tutorial.html", page_language(request)), headers={"Vary": "Accept-Language, Cookie"})

    return router


__all__ = ["MAX_MOVES", "TutorialIn", "TutorialOut", "lesson_after", "script_for", "state_message", "tutorial_router"]
