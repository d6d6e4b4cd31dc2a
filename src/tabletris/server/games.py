"""How the server drives each game through its engine: one adapter per game.

An adapter turns a client's move into an engine call, the engine's state into the JSON the web
client draws, and an event log back into a game. It never decides a rule itself: legality, the
legal placements sent to the client and every error reason come from the engine.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any, Protocol

from tabletris.bots.base import Bot
from tabletris.bots.registry import make_bot
from tabletris.engine.board import Placement, Stone, parse_cells
from tabletris.engine.dice import DiceAction, DiceGame, not_your_turn, stone_dict
from tabletris.engine.dice_records import replay_dice, replay_dice_move
from tabletris.engine.errors import IllegalMove, RecordError
from tabletris.engine.games import GAMES, spec
from tabletris.engine.options import RulesError
from tabletris.engine.records import record_of
from tabletris.engine.rules_text import rules_text
from tabletris.engine.shapes import Shape
from tabletris.engine.texts import Message
from tabletris.engine.tower import TowerAction, TowerGame
from tabletris.engine.tower_layouts import LAYOUT_NAMES
from tabletris.engine.tower_records import recorded_towers, replay_tower
from tabletris.i18n import _
from tabletris.table.driver import Action, Table

LOG_LENGTH = 24
"""Moves of the log sent with each state (the record has them all)."""


class ActionError(Exception):
    """A client's message that cannot be accepted: ``code`` for programs, ``message`` for people."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message

    def __reduce__(self) -> tuple[Any, tuple[str, str]]:
        """Pickled as (code, message): it comes back from the replay and bot processes."""
        return (ActionError, (self.code, self.message))


def engine_text(e: BaseException) -> str:
    """An engine error's text, keeping its :class:`Message` (template and parameters) when it has
    one: ``str(e)`` would flatten it to English, and the web client translates from the template."""
    first = e.args[0] if e.args else None
    return first if isinstance(first, Message) else str(e)


class GameAdapter(Protocol):
    """What the room needs from a game; see ``DiceAdapter`` for the reference implementation."""

    name: str
    max_seats: int

    def rules_meta(self) -> dict[str, Any]: ...
    def new_game(self, players: Sequence[str], rules: Mapping[str, Any], seed: int | None) -> Any: ...
    def start_record(self, game: Any) -> dict[str, Any]: ...
    def rebuild(self, start: Mapping[str, Any], events: Sequence[Mapping[str, Any]]) -> Any: ...
    def extend(self, game: Any, events: Sequence[Mapping[str, Any]], first: int) -> None:
        """Apply the events that follow the ``first`` ones already in ``game`` (a live copy
        catching up); ``RecordError`` when they do not follow on (the caller rebuilds)."""
    def action(self, game: Any, seat: int, move: Mapping[str, Any]) -> Action: ...
    def action_json(self, action: Any) -> dict[str, Any]: ...
    turn_field: str

    def turn_key(self, game: Any) -> Any: ...
    def bot_view(self, game: Any, seat: int) -> Any: ...
    def bot_move(self, view: Any, seat: int, bot: Bot) -> dict[str, Any]: ...
    def public(self, game: Any) -> dict[str, Any]: ...
    def private(self, game: Any, seat: int) -> dict[str, Any] | None: ...
    def query(self, game: Any, seat: int, message: Mapping[str, Any]) -> dict[str, Any]: ...
    def record(self, game: Any) -> dict[str, Any]: ...
    def summary(self, game: Any) -> dict[str, Any]: ...
    def frames(self, record: Mapping[str, Any]) -> tuple[dict[str, Any], list[dict[str, Any]]]: ...


def cells_json(cells: Sequence[Sequence[int]]) -> list[list[int]]:
    return [[int(c[0]), int(c[1])] for c in cells]




def _rules_meta(game: str, summary: str) -> dict[str, Any]:
    """The game's options and presets (its ``GameSpec``), for the create form, the rules page and
    the rules-in-force panel of every room, with ``summary``: the rules in brief (the text the
    terminal app's help screen shows: ``engine.rules_text``). Each option has its ``label`` (the
    name a player reads; the web client translates it, as every engine text) and each preset its
    one-line ``preset_help``."""
    game_spec = spec(game)
    meta = game_spec.rules_meta()
    for option in meta["options"]:
        option["label"] = game_spec.option_labels.get(option["name"], option["name"])
    return {"summary": summary, **meta, "preset_help": dict(game_spec.preset_help)}


class DiceAdapter:
    """The dice game: events are the record's moves; the server rolls as each turn begins."""

    name = "dice"
    max_seats = GAMES["dice"].max_players
    turn_field = "turn"
    """A move names the turn it answers (``game.turn``): a late one is refused, not applied to
    the next turn."""

    def rules_meta(self) -> dict[str, Any]:
        return _rules_meta("dice", rules_text("dice"))

    def new_game(self, players: Sequence[str], rules: Mapping[str, Any], seed: int | None) -> DiceGame:
        return DiceGame(list(players), dict(rules), seed=seed)

    def start_record(self, game: DiceGame) -> dict[str, Any]:
        record = record_of(game)
        record["moves"] = []
        return record

    def rebuild(self, start: Mapping[str, Any], events: Sequence[Mapping[str, Any]]) -> DiceGame:
        return replay_dice({**start, "moves": list(events)})

    def extend(self, game: DiceGame, events: Sequence[Mapping[str, Any]], first: int) -> None:
        for number, event in enumerate(events, first + 1):
            replay_dice_move(game, event, number)

    def action(self, game: DiceGame, seat: int, move: Mapping[str, Any]) -> DiceAction:
        """The client's move as the engine's ``DiceAction``: the one of the turn's legal
        options (``turn_options``) with these cells, shape and stone taken, with the rewards
        the client chose. When none matches, the engine says why (``play`` on a view)."""
        if game.over:
            raise ActionError("game_over", _("the game is over"))
        if seat != game.to_move:
            raise ActionError("not_your_turn", not_your_turn(game, seat))
        if move.get("place") is None:
            raise ActionError("bad_message", "a dice move needs 'place': the four cells of the piece")
        try:
            cells = frozenset(parse_cells(move["place"], "place"))
            take = None if move.get("take") is None else frozenset(parse_cells(move["take"], "take"))
            rewards = None if move.get("rewards") is None else tuple(
                r if isinstance(r, str) else parse_cells(r["remove"], "rewards") for r in move["rewards"]
            )
        except (IllegalMove, ValueError, KeyError, TypeError) as e:
            raise ActionError("illegal", engine_text(e)) from None
        try:
            tokens = None if move.get("tokens") is None else tuple(Shape(t) for t in move["tokens"])
        except ValueError:
            tokens = ()  # not shapes: the engine words it below
        shape = move.get("shape") or game.roll_face
        if tokens != ():
            for option in game.turn_options():
                if (
                    option.shape.value == shape
                    and frozenset(option.placement.cells) == cells
                    and (None if option.take is None else frozenset(option.take.cells)) == take
                ):
                    return replace(option, rewards=rewards, tokens=tokens)
        try:  # not a legal option: the engine's reason
            game.view().play(move["place"], move.get("shape"), move.get("take"), move.get("rewards"), move.get("tokens"))
        except IllegalMove as e:
            raise ActionError("illegal", engine_text(e)) from None
        raise ActionError("illegal", _("this is not one of the legal moves listed in the state"))

    def action_json(self, action: DiceAction) -> dict[str, Any]:
        move: dict[str, Any] = {"place": cells_json(action.placement.cells), "shape": action.shape.value}
        if action.take is not None:
            move["take"] = cells_json(action.take.cells)
        if action.rewards is not None:
            move["rewards"] = [
                r if isinstance(r, str) else {"remove": cells_json(r.cells if isinstance(r, Stone) else r)}
                for r in action.rewards
            ]
        if action.tokens:
            move["tokens"] = [t.value for t in action.tokens]
        return move

    def turn_key(self, game: DiceGame) -> Any:
        return game.turn

    def bot_view(self, game: DiceGame, seat: int) -> DiceGame:
        """A copy for the bot to think on, taken on the event loop: the bot runs in a worker
        while the room's game goes on changing."""
        return game.view()

    def bot_move(self, view: DiceGame, seat: int, bot: Bot) -> dict[str, Any]:
        """The bot's decision (``Table.bot_action``: completed by the rules) as a client move."""
        action = Table(view, {seat: bot}).bot_action(seat)
        assert isinstance(action, DiceAction)
        return self.action_json(action)

    def public(self, game: DiceGame) -> dict[str, Any]:
        rules = game.rules
        first = max(0, len(game.moves) - LOG_LENGTH)
        return {
            "game": "dice",
            **game.public_state(),
            "clear_rows": rules.clear_rows,
            "target": rules.target if rules.clear_rows else None,
            "row_reward": rules.row_reward,
            "log_start": first,
            "log": [m.to_dict() for m in game.moves[first:]],
        }

    def private(self, game: DiceGame, seat: int) -> dict[str, Any] | None:
        """The legal decisions for the seat to move, grouped by shape, stone taken and orientation."""
        if game.over or seat != game.to_move or game.roll_face is None:
            return None
        choose = game.rules.row_reward == "choose"
        options = []
        for shape in game.shapes_for_roll():
            for take in game.take_options(shape):
                placements = game.legal_placements(shape, take)
                forms = []
                for o in shape.orientations(game.rules.orientation_mode):
                    mine = [p for p in placements if p.orientation is o]
                    form: dict[str, Any] = {"cells": cells_json(o.cells), "places": [[p.x, p.y] for p in mine]}
                    if choose:
                        form["rows"] = [len(game.scoring_rows_after(p, take)) for p in mine]
                    forms.append(form)
                options.append(
                    {
                        "shape": shape.value,
                        "take": None if take is None else stone_dict(take),
                        "orientations": forms,
                    }
                )
        return {
            "options": options,
            "rewardable": [s.number for s in game.rewardable_stones()] if choose else [],
            "tokens": game.rules.takes_tokens,
        }

    def query(self, game: DiceGame, seat: int, message: Mapping[str, Any]) -> dict[str, Any]:
        """``{"place", "shape"?, "take"?, "rewards"?}``: the point tokens that placement would take
        by default (the engine plays it on a view) and the shapes a token may be now, so the
        player can accept the default with one click or name others."""
        if game.over or seat != game.to_move:
            raise ActionError("not_your_turn", _("it is not seat {seat}'s turn").format(seat=seat))
        if message.get("place") is None:
            raise ActionError("bad_message", "a dice query needs 'place': the four cells of the piece")
        try:
            move = game.view().play(message["place"], message.get("shape"), message.get("take"), message.get("rewards"))
        except IllegalMove as e:
            raise ActionError("illegal", engine_text(e)) from None
        return {
            "tokens": [t.value for t in move.tokens or ()],
            "choices": [s.value for s in game.token_choices()],
        }

    def record(self, game: DiceGame) -> dict[str, Any]:
        return record_of(game)

    def summary(self, game: DiceGame) -> dict[str, Any]:
        summary = game.summary()
        for i, player in enumerate(summary["players"]):
            player["rows"] = game.rows_completed[i]
        summary["stuck"] = game.stuck
        return summary

    def frames(self, record: Mapping[str, Any]) -> tuple[dict[str, Any], list[dict[str, Any]]]:
        """The replay summary and the position before the first move and after each move."""
        frames: list[dict[str, Any]] = []
        game = replay_dice(record, step=lambda g: frames.append(self._frame(g)))
        return self.summary(game), frames

    def _frame(self, game: DiceGame) -> dict[str, Any]:
        state = self.public(game)
        state["last"] = game.moves[-1].to_dict() if game.moves else None
        del state["log"]
        state["roll"] = None
        return state


def _drop_forms(placements: Sequence[Placement], shape: Shape) -> list[dict[str, Any]]:
    """Legal drops grouped by orientation (rotations only), as the client's ghost uses them."""
    forms = []
    for o in shape.orientations("rotate"):
        mine = [p for p in placements if p.orientation is o]
        forms.append({"cells": cells_json(o.cells), "places": [[p.x, p.y] for p in mine]})
    return forms


class TowerAdapter:
    """The tower game: events are the submissions in the order they were accepted.

    A submission stays private: it is stored (so a restart keeps it) but only its own seat is
    told what it was; everybody sees the actions once the round resolves (``last_round``).
    """

    name = "tower"
    max_seats = GAMES["tower"].max_players
    turn_field = "round"

    def rules_meta(self) -> dict[str, Any]:
        return {**_rules_meta("tower", rules_text("tower")), "towers": list(LAYOUT_NAMES)}

    def new_game(self, players: Sequence[str], rules: Mapping[str, Any], seed: int | None) -> TowerGame:
        return TowerGame(list(players), dict(rules), seed=seed)

    def start_record(self, game: TowerGame) -> dict[str, Any]:
        record = record_of(game)
        record["rounds"] = []
        return record

    def rebuild(self, start: Mapping[str, Any], events: Sequence[Mapping[str, Any]]) -> TowerGame:
        try:
            game = TowerGame(
                start["players"], start.get("rules"), seed=start.get("seed"),
                towers=recorded_towers(start), deck=start.get("deck"),
            )
        except RulesError as e:
            raise RecordError(str(e)) from None
        self.extend(game, events, 0)
        return game

    def extend(self, game: TowerGame, events: Sequence[Mapping[str, Any]], first: int) -> None:
        for number, ev in enumerate(events, first + 1):
            try:
                game.submit(int(ev["seat"]), ev["action"])
            except (IllegalMove, KeyError, TypeError, ValueError) as e:
                raise RecordError(f"event {number}: {e}") from None

    def action(self, game: TowerGame, seat: int, move: Mapping[str, Any]) -> TowerAction:
        if game.over:
            raise ActionError("game_over", _("the game is over"))
        if seat not in game.active_seats():
            raise ActionError("not_your_turn", _("{name} is out: the tower is frozen").format(name=game.players[seat]))
        if game.forced(seat):
            raise ActionError("not_your_turn", _("{name} has no legal drop: the engine holds for them").format(name=game.players[seat]))
        action = {k: move[k] for k in ("minos", "place", "hold") if k in move}
        if action.get("hold") is False:
            del action["hold"]
        try:
            return TowerAction.from_dict(action)
        except (IllegalMove, ValueError) as e:
            raise ActionError("illegal", engine_text(e)) from None

    def action_json(self, action: TowerAction) -> dict[str, Any]:
        result: dict[str, Any] = action.to_dict()
        return result

    def turn_key(self, game: TowerGame) -> Any:
        return game.round

    def bot_view(self, game: TowerGame, seat: int) -> TowerGame:
        return game.view(seat)

    def bot_move(self, view: TowerGame, seat: int, bot: Bot) -> dict[str, Any]:
        """The bot's decision (``Table.bot_action`` on the seat's view) as a client move; a bot
        that plays only dice is stood in for by the random bot."""
        try:
            action = Table(view, {seat: bot}).bot_action(seat)
        except NotImplementedError:
            action = Table(view, {seat: make_bot("random", seed=bot.rng.getrandbits(32))}).bot_action(seat)
        assert isinstance(action, TowerAction)
        return self.action_json(action)

    def public(self, game: TowerGame) -> dict[str, Any]:
        state = game.public_state()
        state["game"] = "tower"
        state["width"] = game.rules.width
        state["height"] = game.rules.height
        state["players"] = list(game.players)
        state["submitted"] = [game.submitted(i) for i in range(game.player_count)]
        state["winners"] = game.winners()
        state["rounds_played"] = len(game.rounds)
        state["last_round"] = (
            [None if a is None else a.to_dict() for a in game.rounds[-1]] if game.rounds else None
        )
        for i, (tower, entry) in enumerate(zip(game.towers, state["towers"], strict=True)):
            entry["stones"] = [stone_dict(st) for st in tower.board.stones.values()]
            entry["icons"] = tower.layout.to_dict()
            entry["hold_used"] = tower.hold_used
            entry["seat"] = i
        state["end"] = self._end_reason(game)
        first = max(0, len(game.rounds) - LOG_LENGTH)
        state["log_start"] = first
        state["log"] = [self._round_log(game, k) for k in range(first + 1, len(game.rounds) + 1)]
        return state

    @staticmethod
    def _end_reason(game: TowerGame) -> str | None:
        """Why the game ended, for the players: the last card was played, or every tower is out."""
        if not game.over:
            return None
        return "deck" if game.deck_left == 0 and not all(t.out for t in game.towers) else "out"

    @staticmethod
    def _round_log(game: TowerGame, number: int) -> dict[str, Any]:
        """Round ``number`` (from 1) for the game log: its card, each seat's action and the
        achievement cards won in it. Round k played the k-th card drawn (a round whose players
        were all forced to hold still took its card)."""
        actions = game.rounds[number - 1]
        won = []
        for card in game.achievements:
            seats = sorted(s for s, r in card.met_round.items() if r == number)
            if seats:
                won.append({"id": card.id, "seats": seats, "points": [card.points_for(s) for s in seats]})
        return {
            "round": number,
            "card": game.deck[number - 1].value if number - 1 < len(game.deck) else None,
            "actions": [None if a is None else a.to_dict() for a in actions],
            "achievements": won,
        }

    def private(self, game: TowerGame, seat: int) -> dict[str, Any] | None:
        """The seat's own: what it has submitted this round, and the legal drops without minos."""
        if game.over or game.play_card is None or game.towers[seat].out:
            return None
        pending = game.pending(seat)
        return {
            "pending": None if pending is None else pending.to_dict(),
            "forced": game.forced(seat),
            "can_hold": game.can_hold(seat),
            "minos": game.towers[seat].minos,
            "drops": _drop_forms(game.legal_drops(seat), game.play_card),
        }

    def query(self, game: TowerGame, seat: int, message: Mapping[str, Any]) -> dict[str, Any]:
        """``{"minos": [columns]}``: where those minos land and the legal drops after them."""
        minos = message.get("minos", [])
        if not isinstance(minos, list) or len(minos) > 64 or not all(
            isinstance(m, int) and not isinstance(m, bool) for m in minos
        ):
            raise ActionError("bad_message", "'minos' is a list of column numbers")
        if game.over or game.play_card is None:
            raise ActionError("game_over", _("the game is over"))
        tower = game.towers[seat].copy()
        cells = []
        try:
            drops = game.legal_drops(seat, minos)
            for column in minos:
                placement = tower.mino_placement(column)
                tower.board.push(placement)
                cells.append(cells_json(placement.cells)[0])
        except IllegalMove as e:
            raise ActionError("illegal", engine_text(e)) from None
        return {"minos": minos, "mino_cells": cells, "drops": _drop_forms(drops, game.play_card)}

    def record(self, game: TowerGame) -> dict[str, Any]:
        return record_of(game)

    def summary(self, game: TowerGame) -> dict[str, Any]:
        return game.summary()

    def frames(self, record: Mapping[str, Any]) -> tuple[dict[str, Any], list[dict[str, Any]]]:
        """The replay summary and the position after each round (prefixes of the record)."""
        game = replay_tower(record)
        summary = self.summary(game)
        rounds = list(record.get("rounds") or [])
        frames = []
        for k in range(len(rounds)):
            frames.append(self.public(replay_tower({**record, "rounds": rounds[:k]})))
        frames.append(self.public(game))
        return summary, frames


ADAPTERS: dict[str, GameAdapter] = {"dice": DiceAdapter(), "tower": TowerAdapter()}


def adapter_for(game: str) -> GameAdapter:
    try:
        return ADAPTERS[game]
    except KeyError:
        raise ActionError("unknown_game", f"unknown game {game!r}: expected one of {', '.join(ADAPTERS)}") from None


__all__ = ["ADAPTERS", "ActionError", "DiceAdapter", "GameAdapter", "RecordError", "RulesError", "adapter_for"]
