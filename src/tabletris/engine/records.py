"""Game records, format ``tabletris/1`` (record-format.md): read, check, replay and write.

A record is plain JSON data. Reading checks its shape first (a malformed document names the key
at fault), then replays it move by move through the engine, so a record that breaks a rule is
rejected with the move number, the player and the rule, exactly as the engine words it.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from tabletris.engine.dice import DiceGame, DiceMove
from tabletris.engine.errors import IllegalMove, MalformedMove, RecordError, RulesError, error_text
from tabletris.engine.games import GAMES, spec_of
from tabletris.engine.texts import N_, Message
from tabletris.engine.tower import TowerAction, TowerGame
from tabletris.engine.tower_layouts import LAYOUT_NAMES, LEGACY_SUFFIX

FORMAT = "tabletris/1"


def load(source: str | Path | Mapping[str, Any]) -> dict[str, Any]:
    """A record document from a path, a JSON text or a mapping; RecordError if it is not JSON."""
    if isinstance(source, Mapping):
        return dict(source)
    if isinstance(source, Path):
        try:
            text = source.read_text(encoding="utf-8")
        except OSError as e:
            raise RecordError(f"cannot read {source}: {e.strerror}") from None
        except UnicodeDecodeError as e:
            raise RecordError(f"{source} is not a record: not UTF-8 text (byte {e.start})") from None
    else:
        text = source
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as e:
        raise RecordError(f"not a JSON document: {e.msg} at line {e.lineno} column {e.colno}") from None
    if not isinstance(doc, dict):
        raise RecordError("key '': a record is a JSON object")
    return doc


def dumps(doc: Mapping[str, Any]) -> str:
    """A record as text: one key per line at the top, each move or round on one line."""
    lines = ["{"]
    items = list(doc.items())
    for i, (key, value) in enumerate(items):
        comma = "," if i < len(items) - 1 else ""
        if key in ("moves", "rounds", "towers") and isinstance(value, list) and value:
            inner = ",\n".join("    " + json.dumps(v, separators=(", ", ": ")) for v in value)
            lines.append(f'  "{key}": [\n{inner}\n  ]{comma}')
        else:
            lines.append(f"  {json.dumps(key)}: {json.dumps(value, separators=(', ', ': '))}{comma}")
    lines.append("}")
    return "\n".join(lines) + "\n"


# --------------------------------------------------------------------- checks


def _fail(key: str, why: str) -> RecordError:
    return RecordError(f"key '{key}': {why}", key)


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def check_common(doc: Mapping[str, Any]) -> str:
    """Checks the keys both games share; returns the game."""
    if doc.get("format") != FORMAT:
        raise _fail("format", f"expected \"{FORMAT}\", got {json.dumps(doc.get('format'))}")
    game = doc.get("game")
    if game not in GAMES:
        known = " or ".join(f'"{name}"' for name in GAMES)
        raise _fail("game", f"expected {known}, got {json.dumps(game)}")
    players = doc.get("players")
    if not isinstance(players, list) or not players:
        raise _fail("players", "expected a non-empty list of names")
    for i, name in enumerate(players):
        if not isinstance(name, str) or not name.strip():
            raise _fail(f"players[{i}]", "expected a non-empty name")
    if "rules" in doc and not isinstance(doc["rules"], dict):
        raise _fail("rules", "expected an object")
    if "seed" in doc and not _is_int(doc["seed"]):
        raise _fail("seed", "expected an integer")
    return str(game)


def _check_dice_moves(doc: Mapping[str, Any]) -> list[dict[str, Any]]:
    allowed = {"format", "game", "players", "rules", "seed", "moves"}
    for key in doc:
        if key not in allowed:
            raise _fail(key, "unknown key for a dice record")
    moves = doc.get("moves", [])
    if not isinstance(moves, list):
        raise _fail("moves", "expected a list of turns")
    for i, move in enumerate(moves):
        try:
            DiceMove.check_dict(move, f"moves[{i}]")
        except MalformedMove as e:
            raise RecordError(error_text(e), e.key) from None
    return moves


# --------------------------------------------------------------------- replay


def replay(source: str | Path | Mapping[str, Any]) -> Any:
    """The game a record describes, replayed through the engine (a DiceGame or a TowerGame)."""
    doc = load(source)
    game = check_common(doc)
    return REPLAYERS[game](doc)


def record_of(game: Any) -> dict[str, Any]:
    """``game`` as a record-format v1 document, as ``chess.pgn.Game.from_board`` makes a PGN:
    the records sit above the games, which know nothing of them."""
    return WRITERS[spec_of(game).name](game)


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
    return {
        "format": FORMAT,
        "game": "dice",
        "players": list(game.players),
        "rules": game.rules_spec,
        "seed": game.seed,
        "moves": [m.to_dict() for m in game.moves],
    }


# ---------------------------------------------------------------- tower game

TOWER_KEYS = ("format", "game", "players", "rules", "seed", "towers", "deck", "rounds")


def _check_tower_rounds(doc: Mapping[str, Any]) -> list[list[TowerAction | None]]:
    """The ``rounds`` of a tower record as actions; RecordError naming the malformed key."""
    for key in doc:
        if key not in TOWER_KEYS:
            raise _fail(key, "unknown key for a tower record")
    if "towers" in doc and not isinstance(doc["towers"], list):
        raise _fail("towers", "expected a list with one layout per player")
    if "deck" in doc:
        deck = doc["deck"]
        if not isinstance(deck, list) or not all(isinstance(c, str) for c in deck):
            raise _fail("deck", "expected a list of shape letters")
    rounds = doc.get("rounds", [])
    if not isinstance(rounds, list):
        raise _fail("rounds", "expected a list of rounds")
    players = len(doc["players"])
    result: list[list[TowerAction | None]] = []
    for r, entry in enumerate(rounds):
        where = f"rounds[{r}]"
        if not isinstance(entry, list):
            raise _fail(where, "expected a list with one action per player")
        if len(entry) != players:
            raise _fail(where, f"expected {players} actions (one per player), got {len(entry)}")
        actions: list[TowerAction | None] = []
        for seat, raw in enumerate(entry):
            if raw is None:
                actions.append(None)
                continue
            try:
                actions.append(TowerAction.from_dict(raw, f"{where}[{seat}]"))
            except MalformedMove as e:
                raise _fail(e.key or where, e.why) from None
        result.append(actions)
    return result


def replay_tower(doc: Mapping[str, Any]) -> TowerGame:
    """Replay a tower record round by round; RecordError ``round R (NAME): rule`` on a broken rule.

    Seats the engine decided for (a forced hold, a seat that is out) must say so in the record:
    ``{"hold": true}`` and ``null``; anything else is an error naming the round and the player.
    """
    rounds = _check_tower_rounds(doc)
    try:
        game = TowerGame(
            doc["players"], doc.get("rules"), seed=doc.get("seed"), towers=recorded_towers(doc), deck=doc.get("deck")
        )
    except RulesError as e:
        raise RecordError(error_text(e)) from None
    for number, actions in enumerate(rounds, 1):
        if len(game.rounds) >= number:
            # Nobody had a choice (forced holds, seats out): the engine played this round itself.
            _check_automatic_round(game, number, actions)
            continue
        if game.over:
            raise RecordError(Message(N_("{where}: the game is already over"), where=Message(N_("round {number}"), number=number)))
        card = game.play_card.value if game.play_card is not None else "-"
        waiting = game.waiting_for()
        for seat, action in enumerate(actions):  # the engine's decisions first: known at round start
            if seat in waiting:
                continue
            where = Message(N_("round {number} ({player})"), number=number, player=game.players[seat])
            if game.towers[seat].out:
                if action is not None:
                    raise RecordError(Message(N_("{where}: the player is out, so the entry must be null"), where=where))
            elif action is None or not action.hold:
                raise RecordError(Message(
                    N_("{where}: no legal drop for {shape}, so the player must hold ({hold})"),
                    where=where, shape=card, hold='{"hold": true}',
                ))
        for seat in waiting:
            action = actions[seat]
            where = Message(N_("round {number} ({player})"), number=number, player=game.players[seat])
            if action is None:
                raise RecordError(Message(N_("{where}: the player is not out, so the entry needs an action"), where=where))
            try:
                game.submit(seat, action)
            except IllegalMove as e:
                raise RecordError(Message(N_("{where}: {error}"), where=where, error=e.reason)) from None
        if len(game.rounds) < number:
            raise RecordError(Message(N_("round {number}: the round did not complete"), number=number))
    return game


def recorded_towers(doc: Mapping[str, Any]) -> list[Any] | None:
    """The record's layouts. A record names a layout without its icons only if the first release
    wrote it, so a bare name ``2b`` is that release's layout, ``2b@v1``; records since then carry
    the icons (``tower_record``)."""
    towers = doc.get("towers")
    if towers is None:
        return None
    return [t + LEGACY_SUFFIX if isinstance(t, str) and t in LAYOUT_NAMES else t for t in towers]


def _check_automatic_round(game: TowerGame, number: int, actions: list[TowerAction | None]) -> None:
    """A round the engine resolved by itself must be recorded exactly as it was played."""
    played = game.rounds[number - 1]
    for seat, (want, got) in enumerate(zip(played, actions, strict=True)):
        if want != got:
            expected = "null (out)" if want is None else '{"hold": true} (no legal drop)'
            raise RecordError(f"round {number} ({game.players[seat]}): the engine decides this round: expected {expected}")


def tower_record(game: TowerGame) -> dict[str, Any]:
    """``game`` as a record: layouts, the 27 cards in draw order and every resolved round."""
    return {
        "format": FORMAT,
        "game": "tower",
        "players": list(game.players),
        "rules": game.rules_spec,
        "seed": game.seed,
        "towers": [t.layout.to_record() for t in game.towers],
        "deck": [c.value for c in game.deck],
        "rounds": [[None if a is None else a.to_dict() for a in r] for r in game.rounds],
    }


REPLAYERS: dict[str, Callable[[Mapping[str, Any]], Any]] = {"dice": replay_dice, "tower": replay_tower}
WRITERS: dict[str, Callable[[Any], dict[str, Any]]] = {"dice": dice_record, "tower": tower_record}
