"""Both games as OpenSpiel Python games: ``python_tabletris_dice`` and ``python_tabletris_tower``.

Importing this module registers them::

    import pyspiel
    import tabletris.envs.openspiel_games  # noqa: F401
    game = pyspiel.load_game("python_tabletris_dice", {"players": 3, "preset": "long"})

The dice game is sequential with explicit chance: each turn starts at a chance node (the die;
one outcome per distinct face, weighted by how many faces show it) and continues at the player
to move, whose actions are ``tabletris.envs.dice_codec``'s (a turn may be two or more decisions
of the same player: PLACE, then TAKE or reward ids when the rules leave a choice). A roll that
cannot be placed ends the game (the engine decides).

The tower game deals its cards as chance nodes one at a time, as at the table: PLAY and NEXT
before the first round, then one new NEXT after each round (each outcome a shape, weighted by the
cards of it not dealt yet among the 28, so the card removed unseen is never dealt). The state
holds only the cards dealt so far; nothing below NEXT exists until chance deals it. Rounds are
simultaneous (all seats act at one simultaneous node, with ``tower_codec``'s actions) or, with
``turn_based=true``, sequential: the seats still to act choose one after the other in seat order,
none seeing what the others chose (imperfect information), with mino sub-steps as extra
decisions of the same seat and no WAIT. Information states (``information_state_string``) hold
only what the player has seen: the cards dealt, the resolved rounds, its own choices this round
and who has already chosen. ``resample_from_infostate`` redraws the other seats' hidden choices
of the round in progress; that is what ``ISMCTSBot`` needs.

Parameters (OpenSpiel's parameter strings cannot hold JSON, so rules are written flat):
``players`` (int), ``preset`` (a preset name), ``rules`` (``"key:value;key:value"``, values in
JSON, e.g. ``"height:30;stuck_penalty:true"``; the dice ``die`` is a string of faces such as
``"IOTSZJL*"``), ``seed`` (the engine's setup seed: dice garbage, tower layouts and advanced
achievement cards; everything drawn during play is a chance node), for the dice game
``max_turns`` (a safety cap: the game is cut off there, scores as they stand), for the tower
game ``turn_based``, and for both:

- ``returns``: ``score`` (the default: returns are the scores; general-sum), ``difference`` (own
  score minus the best other) or ``win`` (+1 sole win, 0 shared, -1 loss; who won is the
  engine's ``winners()``). With two players ``difference`` and ``win`` are zero-sum.
- ``terminal_rewards``: false (the default) declares the REWARDS model: rewards are the
  step changes of ``returns`` since the last decision node (a chance node's change, e.g. the dice
  game's stuck penalty, is added to the move before it). True declares the TERMINAL model, which
  OpenSpiel's stock ``MCTSBot`` requires: rewards are 0 and the returns count only at the end.

Stock search, no proxies: ``MCTSBot(game, 2, 50, RandomRolloutEvaluator())`` on
``python_tabletris_dice`` with ``terminal_rewards=true`` (any ``returns``), and ``ISMCTSBot`` on
``python_tabletris_tower`` with ``turn_based=true,terminal_rewards=true``.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Mapping
from typing import Any

import numpy as np
import pyspiel

from tabletris.engine.achievements import ACHIEVEMENTS
from tabletris.engine.dice import DiceGame, DiceRules
from tabletris.engine.options import RulesError
from tabletris.engine.shapes import TETROMINOES, Shape
from tabletris.engine.tower import CARDS_PER_SHAPE, DECK_SIZE, TowerAction, TowerGame
from tabletris.engine.tower import MAX_PLAYERS as MAX_TOWER_PLAYERS
from tabletris.envs.dice_codec import DiceCodec, DiceDecider
from tabletris.envs.rewards import REWARD_SCHEMES, margin, outcome
from tabletris.envs.tower_codec import WAIT, SeatTurn, TowerCodec


def parse_flat_rules(preset: str, text: str) -> dict[str, Any]:
    """Rules from OpenSpiel's flat parameters: ``preset`` plus ``"key:value;key:value"``."""
    rules: dict[str, Any] = {"preset": preset}
    for item in (part.strip() for part in text.split(";")):
        if not item:
            continue
        key, sep, value = item.partition(":")
        if not sep or not key.strip():
            raise RulesError(f"rules: expected key:value items separated by ';', got {item!r}")
        try:
            parsed: Any = json.loads(value)
        except json.JSONDecodeError:
            parsed = value.strip()
        if key.strip() == "die" and isinstance(parsed, str):
            parsed = list(parsed)
        rules[key.strip()] = parsed
    return rules


def _players(params: dict[str, Any]) -> list[str]:
    return [f"Player {i + 1}" for i in range(int(params["players"]))]


def _check_returns(params: dict[str, Any]) -> str:
    form = str(params["returns"])
    if form not in REWARD_SCHEMES:
        raise RulesError(f"returns: {form!r}: expected one of {', '.join(REWARD_SCHEMES)}")
    return form


def _game_type(
    base: pyspiel.GameType, params: dict[str, Any], players: int, *, sequential: bool | None = None
) -> pyspiel.GameType:
    """The registered type with this game's reward model, utility and dynamics (they follow the
    parameters, and OpenSpiel's bots read them from the type)."""
    form = str(params["returns"])
    terminal = bool(params["terminal_rewards"])
    zero_sum = players == 2 and form in ("difference", "win")
    dynamics = base.dynamics
    information = base.information
    if sequential:
        dynamics = pyspiel.GameType.Dynamics.SEQUENTIAL
    return pyspiel.GameType(
        short_name=base.short_name,
        long_name=base.long_name,
        dynamics=dynamics,
        chance_mode=base.chance_mode,
        information=information,
        utility=pyspiel.GameType.Utility.ZERO_SUM if zero_sum else pyspiel.GameType.Utility.GENERAL_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL if terminal else pyspiel.GameType.RewardModel.REWARDS,
        max_num_players=base.max_num_players,
        min_num_players=base.min_num_players,
        provides_information_state_string=base.provides_information_state_string,
        provides_information_state_tensor=base.provides_information_state_tensor,
        provides_observation_string=base.provides_observation_string,
        provides_observation_tensor=base.provides_observation_tensor,
        parameter_specification=base.parameter_specification,
    )


def _utility_bounds(form: str, top: float, bottom: float) -> tuple[float, float]:
    if form == "win":
        return -1.0, 1.0
    if form == "difference":
        return bottom - top, top - bottom
    return bottom, top


def _returns(form: str, scores: list[int], winners: list[int] | None) -> list[float]:
    """The returns of every seat under ``form``; ``win`` is 0 for everyone until the end."""
    n = len(scores)
    if form == "score":
        return [float(s) for s in scores]
    if form == "difference":
        return [margin(scores, i) for i in range(n)]
    return [0.0] * n if winners is None else [outcome(winners, i) for i in range(n)]


class _RewardsMixin:
    """Rewards and returns under the ``returns`` and ``terminal_rewards`` parameters."""

    form: str
    terminal_rewards: bool
    _rewards: np.ndarray

    def _values(self) -> list[float]:
        raise NotImplementedError

    def _note(self, before: list[float], chance: bool) -> None:
        """Record the step's change of the returns as the rewards (see the module docstring)."""
        delta = np.array(self._values()) - np.array(before)
        self._rewards = self._rewards + delta if chance else delta

    def rewards(self) -> list[float]:
        if self.terminal_rewards:
            return self._values() if self.is_terminal() else [0.0] * len(self._rewards)  # type: ignore[attr-defined]
        return [float(r) for r in self._rewards]

    def returns(self) -> list[float]:
        if self.terminal_rewards and not self.is_terminal():  # type: ignore[attr-defined]
            return [0.0] * len(self._rewards)
        return self._values()


# ------------------------------------------------------------------- dice

_DICE_DEFAULTS: dict[str, Any] = {
    "players": 2,
    "preset": "standard",
    "rules": "",
    "seed": 0,
    "max_turns": 1000,
    "returns": "score",
    "terminal_rewards": False,
}

DICE_GAME_TYPE = pyspiel.GameType(
    short_name="python_tabletris_dice",
    long_name="Python tabletris dice game",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
    information=pyspiel.GameType.Information.PERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.GENERAL_SUM,
    reward_model=pyspiel.GameType.RewardModel.REWARDS,
    max_num_players=8,
    min_num_players=1,
    provides_information_state_string=False,
    provides_information_state_tensor=False,
    provides_observation_string=True,
    provides_observation_tensor=True,
    parameter_specification=_DICE_DEFAULTS,
)

MAX_REWARD_STEPS = 4
"""At most 4 rows complete at once (a piece is 4 cells high), so at most 4 reward decisions."""


class DiceSpielGame(pyspiel.Game):
    """The dice game's static facts for OpenSpiel: sizes, bounds, parameters."""

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        params = {**_DICE_DEFAULTS, **(params or {})}
        self.rules = DiceRules.from_dict(parse_flat_rules(params["preset"], params["rules"]))
        self.player_names = _players(params)
        self.setup_seed = int(params["seed"])
        self.max_turns = int(params["max_turns"])
        self.form = _check_returns(params)
        self.terminal_rewards = bool(params["terminal_rewards"])
        DiceGame(self.player_names, self.rules, seed=self.setup_seed)  # fails early, clearly
        self.codec = DiceCodec(self.rules, len(self.player_names))
        self.faces: list[str] = list(dict.fromkeys(self.rules.die))
        rules = self.rules
        if rules.rescore_reopened:
            top = 4 * self.max_turns
        elif rules.clear_rows:
            top = rules.target + 3
        else:
            top = rules.height
        low, high = _utility_bounds(self.form, float(top), -1.0 if rules.stuck_penalty else 0.0)
        n = len(self.player_names)
        super().__init__(
            _game_type(DICE_GAME_TYPE, params, n),
            pyspiel.GameInfo(
                num_distinct_actions=self.codec.n_actions,
                max_chance_outcomes=len(self.faces),
                num_players=n,
                min_utility=low,
                max_utility=high,
                utility_sum=0.0 if n == 2 and self.form != "score" else None,
                max_game_length=self.max_turns * (2 + MAX_REWARD_STEPS),
            ),
            params,
        )

    def new_initial_state(self) -> DiceSpielState:
        return DiceSpielState(self)

    def make_py_observer(
        self, iig_obs_type: Any = None, params: dict[str, Any] | None = None
    ) -> DiceObserver:
        return DiceObserver(self.codec, params)


class DiceSpielState(_RewardsMixin, pyspiel.State):
    """A dice game in progress; the engine's ``DiceGame`` does all the rule work."""

    def __init__(self, game: DiceSpielGame) -> None:
        super().__init__(game)
        # The state keeps what it needs itself: OpenSpiel clones states by pickling, and the
        # game object it pickles back is not this Python object.
        self.codec = game.codec
        self.faces = game.faces
        self.max_turns = game.max_turns
        self.form = game.form
        self.terminal_rewards = game.terminal_rewards
        # The game lives in the decider only: OpenSpiel clones a Python state attribute by
        # attribute, so a second reference would become a second, diverging game.
        self.decider = DiceDecider(self.codec, DiceGame(game.player_names, game.rules, seed=game.setup_seed))
        self._rewards = np.zeros(len(game.player_names))

    @property
    def game(self) -> DiceGame:
        return self.decider.game

    def _values(self) -> list[float]:
        game = self.game
        return _returns(self.form, game.scores, game.winners() if game.over else None)

    def _cut_off(self) -> bool:
        return self.game.turn >= self.max_turns

    def current_player(self) -> int:
        if self.game.over or self._cut_off():
            return int(pyspiel.PlayerId.TERMINAL)
        if self.game.roll_face is None:
            return int(pyspiel.PlayerId.CHANCE)
        return self.game.to_move

    def _legal_actions(self, player: int) -> list[int]:
        if player != self.current_player():
            return []
        return sorted(self.decider.legal)

    def chance_outcomes(self) -> list[tuple[int, float]]:
        die = self.game.rules.die
        return [(i, die.count(face) / len(die)) for i, face in enumerate(self.faces)]

    def _apply_action(self, action: int) -> None:
        game = self.game
        before = self._values()
        chance = self.is_chance_node()
        if chance:
            game.roll(self.faces[action])
            self.decider.refresh()
        else:
            self.decider.apply(action)
        self._note(before, chance)

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            return f"roll {self.faces[action]}"
        return self.codec.describe(action)

    def is_terminal(self) -> bool:
        return self.game.over or self._cut_off()

    def __str__(self) -> str:
        game = self.game
        turn = self.decider.turn
        pending = "" if turn.placement is None else f" building {turn.placement} ({turn.phase})"
        return "\n".join(
            [*game.board.rows(), f"scores {game.scores} turn {game.turn} roll {game.roll_face}{pending}"]
        )


class DiceObserver:
    """OpenSpiel's observer interface over ``DiceCodec.observe`` (perfect information)."""

    def __init__(self, codec: DiceCodec, params: dict[str, Any] | None) -> None:
        if params:
            raise ValueError(f"observation parameters are not supported: {params}")
        self.codec = codec
        self.tensor = np.zeros(codec.obs_size, dtype=np.float32)
        self.dict = {"observation": self.tensor}

    def set_from(self, state: DiceSpielState, player: int) -> None:
        self.tensor[:] = state.decider.observe(player)

    def string_from(self, state: DiceSpielState, player: int) -> str:
        return str(state)


pyspiel.register_game(DICE_GAME_TYPE, DiceSpielGame)


# ------------------------------------------------------------------ tower

_TOWER_DEFAULTS: dict[str, Any] = {
    "players": 2,
    "preset": "standard",
    "rules": "",
    "seed": 0,
    "turn_based": False,
    "returns": "score",
    "terminal_rewards": False,
}

TOWER_GAME_TYPE = pyspiel.GameType(
    short_name="python_tabletris_tower",
    long_name="Python tabletris tower game",
    dynamics=pyspiel.GameType.Dynamics.SIMULTANEOUS,
    chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
    information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.GENERAL_SUM,
    reward_model=pyspiel.GameType.RewardModel.REWARDS,
    max_num_players=MAX_TOWER_PLAYERS,
    min_num_players=1,
    provides_information_state_string=True,
    provides_information_state_tensor=False,
    provides_observation_string=True,
    provides_observation_tensor=True,
    parameter_specification=_TOWER_DEFAULTS,
)


class _NeedCard(Exception):
    """The engine wants a card chance has not dealt yet (a round that resolved by itself)."""


class DealtTowerGame(TowerGame):
    """A tower game whose deck exists only as far as it has been dealt.

    The engine reads the cards in draw order from ``_cards`` and, past their end, asks
    ``_guess_rest`` (which views use to invent the unseen rest). Here the cards come from
    OpenSpiel's chance nodes: ``deal`` adds the next one, and an engine that needs one more
    before the next decision (when every seat's hold was forced and the round resolved by
    itself) stops between rounds with ``_NeedCard``, to go on in ``deal``.
    """

    stalled = False

    def _setup_deck(self, deck: Any) -> list[Shape]:
        return list(deck or ())

    def _guess_rest(self) -> None:
        raise _NeedCard

    def _finish_setup(self) -> None:
        self._deck_size = DECK_SIZE
        self.stalled = False

    @property
    def next_card(self) -> Shape | None:
        if self._drawn >= min(self._deck_size, len(self._cards)):
            return None  # none left, or not dealt yet
        return self._cards[self._drawn]

    def needs_card(self) -> bool:
        """Whether chance must deal before anybody can decide: NEXT (or a card a round that
        resolved by itself moved on to) is not dealt yet."""
        return self.stalled or (not self.over and len(self._cards) < min(self._drawn + 1, DECK_SIZE))

    def dealt(self) -> list[Shape]:
        return list(self._cards)

    def deal(self, card: Shape) -> None:
        self._cards.append(card)
        if self.stalled:
            self.stalled = False
            self.resume_round()

    def resume_round(self) -> None:
        """Go on to the next round after an interruption (see the class docstring)."""
        try:
            self._start_round()
        except _NeedCard:
            self.stalled = True

    def submit_dealt(self, seat: int, action: TowerAction) -> None:
        """``submit``, stopping between rounds when the engine needs an undealt card."""
        try:
            self.submit(seat, action)
        except _NeedCard:
            self.stalled = True


class TowerSpielGame(pyspiel.Game):
    """The tower game's static facts for OpenSpiel (see the module docstring)."""

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        params = {**_TOWER_DEFAULTS, **(params or {})}
        self.rules_spec = parse_flat_rules(params["preset"], params["rules"])
        self.player_names = _players(params)
        self.setup_seed = int(params["seed"])
        self.turn_based = bool(params["turn_based"])
        self.form = _check_returns(params)
        self.terminal_rewards = bool(params["terminal_rewards"])
        probe = TowerGame(self.player_names, self.rules_spec, seed=self.setup_seed)
        rules = probe.rules
        n = len(self.player_names)
        self.codec = TowerCodec(rules, n)
        icons = max(len(t.layout.bonus) for t in probe.towers)
        top = 2 * rules.height + icons + sum(ACHIEVEMENTS[c].points[0] for c in rules.achievements or ())
        low, high = _utility_bounds(self.form, float(top), 0.0)
        decisions = DECK_SIZE * n + rules.minos_in_box if self.turn_based else DECK_SIZE + rules.minos_in_box
        super().__init__(
            _game_type(TOWER_GAME_TYPE, params, n, sequential=self.turn_based),
            pyspiel.GameInfo(
                num_distinct_actions=self.codec.n_actions,
                max_chance_outcomes=len(TETROMINOES),
                num_players=n,
                min_utility=low,
                max_utility=high,
                utility_sum=0.0 if n == 2 and self.form != "score" else None,
                max_game_length=decisions,
            ),
            params,
        )

    def new_initial_state(self) -> TowerSpielState:
        return TowerSpielState(self)

    def make_py_observer(
        self, iig_obs_type: Any = None, params: dict[str, Any] | None = None
    ) -> TowerObserver:
        perfect_recall = bool(iig_obs_type is not None and iig_obs_type.perfect_recall)
        return TowerObserver(self.codec, params, perfect_recall)


class TowerSpielState(_RewardsMixin, pyspiel.State):
    """A tower game in progress: the cards dealt so far, then the engine's game."""

    def __init__(self, game: TowerSpielGame) -> None:
        super().__init__(game)
        self.codec = game.codec
        self.player_names = game.player_names
        self.rules_spec = game.rules_spec
        self.setup_seed = game.setup_seed
        self.turn_based = game.turn_based
        self.form = game.form
        self.terminal_rewards = game.terminal_rewards
        self.n = len(game.player_names)
        self.first_cards: list[Shape] = []
        self.game: DealtTowerGame | None = None
        self.turns = [SeatTurn() for _ in range(self.n)]
        self._rewards = np.zeros(self.n)
        # Turn-based: the round's start and its decisions, to redraw the hidden ones.
        self._round_start: tuple[DealtTowerGame, list[SeatTurn]] | None = None
        self._round_moves: list[tuple[int, int]] = []

    def _values(self) -> list[float]:
        if self.game is None:
            return [0.0] * self.n
        game = self.game
        return _returns(self.form, game.scores(), game.winners() if game.over else None)

    def dealt(self) -> list[Shape]:
        return self.first_cards if self.game is None else self.game.dealt()

    def current_player(self) -> int:
        game = self.game
        if game is None or game.needs_card():
            return int(pyspiel.PlayerId.CHANCE)
        if game.over:
            return int(pyspiel.PlayerId.TERMINAL)
        if not self.turn_based:
            return int(pyspiel.PlayerId.SIMULTANEOUS)
        return game.waiting_for()[0]

    def _legal(self, player: int) -> Mapping[int, Any]:
        assert self.game is not None
        return self.codec.legal(self.game, player, self.turns[player]) or {WAIT: None}

    def _legal_actions(self, player: int) -> list[int]:
        game = self.game
        if game is None or game.over or game.needs_card():
            return []
        if self.turn_based and player != self.current_player():
            return []
        return sorted(self._legal(player))

    def chance_outcomes(self) -> list[tuple[int, float]]:
        dealt = self.dealt()
        left = [CARDS_PER_SHAPE - dealt.count(s) for s in TETROMINOES]
        total = sum(left)
        return [(i, k / total) for i, k in enumerate(left) if k]

    def _apply_action(self, action: int) -> None:
        """A chance outcome (the next card), or in the turn-based form a seat's decision."""
        before = self._values()
        if self.is_chance_node():
            card = TETROMINOES[action]
            if self.game is None:
                self.first_cards.append(card)
                if len(self.first_cards) == 2:  # PLAY and NEXT: the game can start
                    started = DealtTowerGame(
                        self.player_names, self.rules_spec, seed=self.setup_seed, deck=self.first_cards
                    )
                    started._finish_setup()
                    self.game = started
            else:
                self.game.deal(card)
            self._note(before, chance=True)
            return
        game = self.game
        assert game is not None
        seat = self.current_player()
        if self._round_start is None:
            self._round_start = (copy.deepcopy(game), copy.deepcopy(self.turns))
        self._round_moves.append((seat, action))
        self._decide(seat, action)
        self._note(before, chance=False)

    def _decide(self, seat: int, action: int) -> None:
        game = self.game
        assert game is not None
        rounds = len(game.rounds)
        self._take(seat, self._legal(seat)[action])
        if game.over or len(game.rounds) != rounds:
            self.turns = [SeatTurn() for _ in range(self.n)]
            self._round_start = None
            self._round_moves = []

    def _take(self, seat: int, value: int | TowerAction | None) -> None:
        """One seat's decision, in either form of the round: a mino column is kept for the seat's
        submission; the piece's drop (or hold) submits it with those minos; WAIT (None: a seat
        whose action is in, or forced) does nothing."""
        game = self.game
        assert game is not None
        if isinstance(value, int):
            self.turns[seat].minos.append(value)
        elif value is not None:  # the piece's drop or hold
            self.turns[seat].done = True
            game.submit_dealt(seat, value)

    def _apply_actions(self, actions: list[int]) -> None:
        game = self.game
        assert game is not None
        before = self._values()
        rounds = len(game.rounds)
        chosen = [self._legal(p)[a] for p, a in enumerate(actions)]
        for seat, value in enumerate(chosen):
            self._take(seat, value)
        if game.over or len(game.rounds) != rounds:
            self.turns = [SeatTurn() for _ in range(self.n)]
        self._note(before, chance=False)

    def resample_from_infostate(self, player_id: int, probability_sampler: Any) -> TowerSpielState:
        """A state ``player_id`` cannot tell from this one: the other seats' choices in the round
        in progress (all that is hidden; undealt cards do not exist yet) redrawn uniformly among
        their legal actions, with ``probability_sampler`` (a callable giving floats in [0, 1))."""
        state = self.clone()
        if self._round_start is None:
            return state
        start_game, start_turns = self._round_start
        state.game = copy.deepcopy(start_game)
        state.turns = copy.deepcopy(start_turns)
        state._round_start = (copy.deepcopy(start_game), copy.deepcopy(start_turns))
        state._round_moves = []
        own = [a for seat, a in self._round_moves if seat == player_id]

        def play(seat: int, action: int) -> None:
            state._round_moves.append((seat, action))
            state._decide(seat, action)

        while state.current_player() != player_id:
            seat = state.current_player()
            legal = state._legal_actions(seat)
            pick = min(int(probability_sampler() * len(legal)), len(legal) - 1)
            play(seat, legal[pick])
        for a in own:
            play(player_id, a)
        return state

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            return f"deal {TETROMINOES[action].value}"
        return self.codec.describe(action)

    def is_terminal(self) -> bool:
        return self.game is not None and self.game.over and not self.game.needs_card()

    def __str__(self) -> str:
        if self.game is None:
            return f"dealing: {len(self.first_cards)} of 2 opening cards"
        game = self.game
        towers = ["\n".join(t.rows()) for t in game.towers]
        minos = [turn.minos for turn in self.turns]
        return "\n\n".join(towers) + f"\nround {game.round} scores {game.scores()} minos {minos}"


class TowerObserver:
    """OpenSpiel's observer interface over ``TowerCodec.observe``: nothing of the deck below NEXT,
    nothing of another seat's choice before the round resolves.

    With ``perfect_recall`` (information states) the string is the player's whole history: the
    cards dealt, every resolved round's actions (public once resolved), its own minos this round
    and who has chosen. Otherwise it is what the player sees now.
    """

    def __init__(self, codec: TowerCodec, params: dict[str, Any] | None, perfect_recall: bool = False) -> None:
        if params:
            raise ValueError(f"observation parameters are not supported: {params}")
        self.codec = codec
        self.perfect_recall = perfect_recall
        self.tensor = np.zeros(codec.obs_size, dtype=np.float32)
        self.dict = {"observation": self.tensor}

    def set_from(self, state: TowerSpielState, player: int) -> None:
        if state.game is None:
            self.tensor[:] = 0.0
        else:
            self.tensor[:] = self.codec.observe(state.game, player, state.turns[player])

    def string_from(self, state: TowerSpielState, player: int) -> str:
        game = state.game
        if game is None:
            return f"p{player} dealing: {len(state.first_cards)} of 2 opening cards"
        turn = state.turns[player]
        chosen = "".join("1" if game.submitted(s) or state.turns[s].done else "0" for s in range(state.n))
        if self.perfect_recall:
            cards = "".join(c.value for c in game.dealt())
            rounds = ";".join(
                ",".join("-" if a is None else json.dumps(a.to_dict(), sort_keys=True) for a in r)
                for r in game.rounds
            )
            return f"p{player} cards {cards} rounds {rounds} minos {turn.minos} chosen {chosen}"
        play = game.play_card.value if game.play_card else "-"
        nxt = game.next_card.value if game.next_card else "-"
        rows = "\n".join(game.towers[player].rows())
        return f"p{player}\n{rows}\nPLAY {play} NEXT {nxt} minos {turn.minos} chosen {chosen} scores {game.scores()}"


pyspiel.register_game(TOWER_GAME_TYPE, TowerSpielGame)
