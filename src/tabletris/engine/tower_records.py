"""The tower game's record (record-format.md): layouts, deck and rounds checked, replayed round by
round through the engine, and written from a game. ``GameSpec`` names these functions;
``records.py`` asks it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tabletris.engine.errors import IllegalMove, MalformedMove, RecordError, RulesError, error_text
from tabletris.engine.record_format import FORMAT, fail
from tabletris.engine.texts import N_, Message
from tabletris.engine.tower import TowerAction, TowerGame
from tabletris.engine.tower_layouts import LAYOUT_NAMES, LEGACY_SUFFIX

MOVE_LISTS = ("towers", "rounds")
"""The keys whose items a written record puts one per line."""


TOWER_KEYS = ("format", "game", "players", "rules", "seed", "towers", "deck", "rounds")


def _check_tower_rounds(doc: Mapping[str, Any]) -> list[list[TowerAction | None]]:
    """The ``rounds`` of a tower record as actions; RecordError naming the malformed key."""
    for key in doc:
        if key not in TOWER_KEYS:
            raise fail(key, "unknown key for a tower record")
    if "towers" in doc and not isinstance(doc["towers"], list):
        raise fail("towers", "expected a list with one layout per player")
    if "deck" in doc:
        deck = doc["deck"]
        if not isinstance(deck, list) or not all(isinstance(c, str) for c in deck):
            raise fail("deck", "expected a list of shape letters")
    rounds = doc.get("rounds", [])
    if not isinstance(rounds, list):
        raise fail("rounds", "expected a list of rounds")
    players = len(doc["players"])
    result: list[list[TowerAction | None]] = []
    for r, entry in enumerate(rounds):
        where = f"rounds[{r}]"
        if not isinstance(entry, list):
            raise fail(where, "expected a list with one action per player")
        if len(entry) != players:
            raise fail(where, f"expected {players} actions (one per player), got {len(entry)}")
        actions: list[TowerAction | None] = []
        for seat, raw in enumerate(entry):
            if raw is None:
                actions.append(None)
                continue
            try:
                actions.append(TowerAction.from_dict(raw, f"{where}[{seat}]"))
            except MalformedMove as e:
                raise fail(e.key or where, e.why) from None
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
