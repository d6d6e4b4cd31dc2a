"""The dice game's record (record-format.md): its moves checked, replayed through the engine turn
by turn, and written from a game. ``GameSpec`` names these functions; ``records.py`` asks it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from tabletris.engine.dice import DiceGame, DiceMove
from tabletris.engine.errors import IllegalMove, MalformedMove, RecordError, RulesError, error_text
from tabletris.engine.record_format import FORMAT, fail
from tabletris.engine.texts import N_, Message

MOVE_LISTS = ("moves",)
"""The keys whose items a written record puts one per line."""


def _check_dice_moves(doc: Mapping[str, Any]) -> list[dict[str, Any]]:
    allowed = {"format", "game", "players", "rules", "seed", "moves"}
    for key in doc:
        if key not in allowed:
            raise fail(key, "unknown key for a dice record")
    moves = doc.get("moves", [])
    if not isinstance(moves, list):
        raise fail("moves", "expected a list of turns")
    for i, move in enumerate(moves):
        try:
            DiceMove.check_dict(move, f"moves[{i}]")
        except MalformedMove as e:
            raise RecordError(error_text(e), e.key) from None
    return moves


def _new_dice_game(doc: Mapping[str, Any]) -> DiceGame:
    try:
        game = DiceGame(doc["players"], doc.get("rules"), seed=doc.get("seed"), recorded=True)
    except RulesError as e:
        raise RecordError(error_text(e)) from None
    return game


def replay_dice(doc: Mapping[str, Any], step: Callable[[DiceGame], None] | None = None) -> DiceGame:
    """Replay a dice record move by move; ``step`` sees the game before the first move and after
    each one (a replay viewer's frames, in one pass)."""
    moves = _check_dice_moves(doc)
    game = _new_dice_game(doc)
    if step is not None:
        step(game)
    for number, move in enumerate(moves, 1):
        replay_dice_move(game, move, number)
        if step is not None:
            step(game)
    return game


def replay_dice_move(game: DiceGame, move: Mapping[str, Any], number: int) -> None:
    """Play one recorded turn (``number``, from 1, names it in errors) on ``game``.

    A game whose die already shows this turn's roll (a live copy that rolled it ahead, as a
    table does before anyone decides) plays it without rolling again: the roll drew from the
    generator once, as in a replay from the start."""
    seat = move.get("player", game.to_move) if game.over else game.to_move
    name = game.players[seat] if 0 <= seat < len(game.players) else f"seat {seat}"
    where = Message(N_("move {number} ({player})"), number=number, player=name)
    if game.over:
        raise RecordError(Message(N_("{where}: the game is already over"), where=where))
    if "player" in move and move["player"] != game.to_move:
        raise RecordError(Message(
            N_("{where}: it is seat {seat}'s turn, not seat {other}'s"), where=where, seat=game.to_move, other=move["player"]
        ))
    try:
        if game.roll_face is None or game.roll_face != move.get("roll"):
            game.roll(move["roll"])
    except IllegalMove as e:
        raise RecordError(Message(N_("{where}: {error}"), where=where, error=error_text(e))) from None
    if game.over:
        if "place" in move or "take" in move or "rewards" in move or "tokens" in move:
            shapes = " ".join(s.value for s in game.shapes_for_roll(move["roll"]))
            raise RecordError(Message(N_("{where}: {shapes} cannot be placed anywhere: the game ends here"), where=where, shapes=shapes))
        return
    if "place" not in move:
        raise RecordError(Message(
            N_("{where}: the roll {face} can be placed, so the turn needs 'place'"), where=where, face=move["roll"]
        ))
    try:
        game.play(move["place"], move.get("shape"), move.get("take"), move.get("rewards"), move.get("tokens"))
    except IllegalMove as e:
        raise RecordError(Message(N_("{where}: {error}"), where=where, error=error_text(e))) from None


def dice_record(game: DiceGame) -> dict[str, Any]:
    return {**dice_record_head(game), "moves": [m.to_dict() for m in game.moves]}


def dice_record_head(game: DiceGame) -> dict[str, Any]:
    """The record without its moves (their list comes last): a server that keeps each move's
    text already joins those instead of rendering every move again."""
    return {"format": FORMAT, "game": "dice", "players": list(game.players), "rules": game.rules_spec, "seed": game.seed}
