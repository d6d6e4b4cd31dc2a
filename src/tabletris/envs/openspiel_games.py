"""Both games as OpenSpiel Python games: ``python_tabletris_dice`` and ``python_tabletris_tower``.

Importing this module registers them::

    import pyspiel
    import tabletris.envs.openspiel_games  # noqa: F401
    game = pyspiel.load_game("python_tabletris_dice", {"players": 3, "preset": "long"})

The dice game is sequential with explicit chance: each turn starts at a chance node (the die;
one outcome per distinct face, weighted by how many faces show it) and continues at the player
to move, whose actions are ``tabletris.envs.dice_codec``'s. A roll that cannot be placed ends
the game (the engine decides). The tower game is simultaneous with explicit chance: chance deals
the cards one at a time (PLAY and NEXT before the first round, then one NEXT per round), then all
seats act at one simultaneous node with ``tabletris.envs.tower_codec``'s actions.

Parameters (OpenSpiel's parameter strings cannot hold JSON, so rules are written flat):
``players`` (int), ``preset`` (a preset name), ``rules`` (``"key:value;key:value"``, values in
JSON, e.g. ``"height:30;stuck_penalty:true"``; the dice ``die`` is a string of faces such as
``"IOTSZJL*"``), ``seed`` (the engine's setup seed: dice garbage, tower layouts and advanced
achievement cards; everything drawn during play is a chance node) and, for the dice game,
``max_turns`` (a safety cap: the game is cut off there, scores as they stand).
Returns are the scores; both games are general-sum. Rewards are score changes since the last
decision node (a chance node's change, e.g. the dice game's stuck penalty, is added to the move
before it, since OpenSpiel reads rewards at decisions and at the end).
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pyspiel

from tabletris.engine.achievements import ACHIEVEMENTS
from tabletris.engine.dice import DiceAction, DiceGame, DiceRules
from tabletris.engine.options import RulesError
from tabletris.engine.shapes import TETROMINOES, Shape
from tabletris.engine.tower import CARDS_PER_SHAPE, DECK_SIZE, TowerAction, TowerGame
from tabletris.engine.tower import MAX_PLAYERS as MAX_TOWER_PLAYERS
from tabletris.envs.dice_codec import DiceChoice, DiceCodec
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


# ------------------------------------------------------------------- dice

_DICE_DEFAULTS: dict[str, Any] = {
    "players": 2,
    "preset": "standard",
    "rules": "",
    "seed": 0,
    "max_turns": 1000,
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


class DiceSpielGame(pyspiel.Game):
    """The dice game's static facts for OpenSpiel: sizes, bounds, parameters."""

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        params = {**_DICE_DEFAULTS, **(params or {})}
        self.rules = DiceRules.from_dict(parse_flat_rules(params["preset"], params["rules"]))
        self.player_names = _players(params)
        self.setup_seed = int(params["seed"])
        self.max_turns = int(params["max_turns"])
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
        super().__init__(
            DICE_GAME_TYPE,
            pyspiel.GameInfo(
                num_distinct_actions=self.codec.n_actions,
                max_chance_outcomes=len(self.faces),
                num_players=len(self.player_names),
                min_utility=-1.0 if rules.stuck_penalty else 0.0,
                max_utility=float(top),
                utility_sum=None,
                max_game_length=self.max_turns,
            ),
            params,
        )

    def new_initial_state(self) -> DiceSpielState:
        return DiceSpielState(self)

    def make_py_observer(
        self, iig_obs_type: Any = None, params: dict[str, Any] | None = None
    ) -> DiceObserver:
        return DiceObserver(self.codec, params)


class DiceSpielState(pyspiel.State):
    """A dice game in progress; the engine's ``DiceGame`` does all the rule work."""

    def __init__(self, game: DiceSpielGame) -> None:
        super().__init__(game)
        # The state keeps what it needs itself: OpenSpiel clones states by pickling, and the
        # game object it pickles back is not this Python object.
        self.codec = game.codec
        self.faces = game.faces
        self.max_turns = game.max_turns
        self.game = DiceGame(game.player_names, game.rules, seed=game.setup_seed)
        self._choices: dict[int, DiceChoice] = {}
        self._rewards = np.zeros(len(game.player_names))

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
        if not self._choices:
            self._choices = self.codec.choices(self.game)
        return sorted(self._choices)

    def chance_outcomes(self) -> list[tuple[int, float]]:
        die = self.game.rules.die
        return [(i, die.count(face) / len(die)) for i, face in enumerate(self.faces)]

    def _apply_action(self, action: int) -> None:
        game = self.game
        before = list(game.scores)
        chance = self.is_chance_node()
        if chance:
            game.roll(self.faces[action])
        else:
            if not self._choices:
                self._choices = self.codec.choices(game)
            choice = self._choices[action]
            game.act(DiceAction(choice.shape, choice.placement, choice.take))
        self._choices = {}
        delta = np.array(game.scores, dtype=float) - np.array(before, dtype=float)
        # Rewards gather from one decision to the next: a chance node's (the stuck penalty)
        # adds to the move before it, as OpenSpiel reads rewards only at decisions and the end.
        self._rewards = self._rewards + delta if chance else delta

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            return f"roll {self.faces[action]}"
        return self.codec.describe(action)

    def is_terminal(self) -> bool:
        return self.game.over or self._cut_off()

    def rewards(self) -> list[float]:
        return [float(r) for r in self._rewards]

    def returns(self) -> list[float]:
        return [float(s) for s in self.game.scores]

    def __str__(self) -> str:
        game = self.game
        return "\n".join(
            [*game.board.rows(), f"scores {game.scores} turn {game.turn} roll {game.roll_face}"]
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
        self.tensor[:] = self.codec.observe(state.game, player)

    def string_from(self, state: DiceSpielState, player: int) -> str:
        return str(state)


pyspiel.register_game(DICE_GAME_TYPE, DiceSpielGame)


# ------------------------------------------------------------------ tower

_TOWER_DEFAULTS: dict[str, Any] = {"players": 2, "preset": "standard", "rules": "", "seed": 0}

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
    provides_information_state_string=False,
    provides_information_state_tensor=False,
    provides_observation_string=True,
    provides_observation_tensor=True,
    parameter_specification=_TOWER_DEFAULTS,
)


class TowerSpielGame(pyspiel.Game):
    """The tower game's static facts for OpenSpiel.

    Chance shuffles the deck at the start, as at the table: 27 chance nodes deal the cards in
    draw order (each outcome a shape, weighted by the cards of it left among the 28, so the
    removed card stays unseen). Players never observe a card before it is NEXT. Then come the
    simultaneous rounds (with mino sub-steps, see ``tower_codec``).
    """

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        params = {**_TOWER_DEFAULTS, **(params or {})}
        self.rules_spec = parse_flat_rules(params["preset"], params["rules"])
        self.player_names = _players(params)
        self.setup_seed = int(params["seed"])
        probe = TowerGame(self.player_names, self.rules_spec, seed=self.setup_seed)
        rules = probe.rules
        self.codec = TowerCodec(rules, len(self.player_names))
        icons = max(len(t.layout.bonus) for t in probe.towers)
        top = 2 * rules.height + icons + sum(ACHIEVEMENTS[c].points[0] for c in rules.achievements or ())
        super().__init__(
            TOWER_GAME_TYPE,
            pyspiel.GameInfo(
                num_distinct_actions=self.codec.n_actions,
                max_chance_outcomes=len(TETROMINOES),
                num_players=len(self.player_names),
                min_utility=0.0,
                max_utility=float(top),
                utility_sum=None,
                max_game_length=DECK_SIZE + rules.minos_in_box,
            ),
            params,
        )

    def new_initial_state(self) -> TowerSpielState:
        return TowerSpielState(self)

    def make_py_observer(
        self, iig_obs_type: Any = None, params: dict[str, Any] | None = None
    ) -> TowerObserver:
        return TowerObserver(self.codec, params)


class TowerSpielState(pyspiel.State):
    """A tower game in progress: cards dealt so far, then the engine's ``TowerGame``."""

    def __init__(self, game: TowerSpielGame) -> None:
        super().__init__(game)
        self.codec = game.codec
        self.player_names = game.player_names
        self.rules_spec = game.rules_spec
        self.setup_seed = game.setup_seed
        self.n = len(game.player_names)
        self.dealt: list[Shape] = []
        self.game: TowerGame | None = None
        self.turns = [SeatTurn() for _ in range(self.n)]
        self._rewards = np.zeros(self.n)

    def current_player(self) -> int:
        if self.game is None:
            return int(pyspiel.PlayerId.CHANCE)
        if self.game.over:
            return int(pyspiel.PlayerId.TERMINAL)
        return int(pyspiel.PlayerId.SIMULTANEOUS)

    def _legal(self, player: int) -> dict[int, Any]:
        assert self.game is not None
        return self.codec.legal(self.game, player, self.turns[player]) or {WAIT: None}

    def _legal_actions(self, player: int) -> list[int]:
        if self.game is None or self.game.over:
            return []
        return sorted(self._legal(player))

    def chance_outcomes(self) -> list[tuple[int, float]]:
        left = [CARDS_PER_SHAPE - self.dealt.count(s) for s in TETROMINOES]
        total = sum(left)
        return [(i, k / total) for i, k in enumerate(left) if k]

    def _apply_action(self, action: int) -> None:
        """A chance outcome: the next card of the deck."""
        self.dealt.append(TETROMINOES[action])
        if len(self.dealt) == DECK_SIZE:
            self.game = TowerGame(self.player_names, self.rules_spec, seed=self.setup_seed, deck=self.dealt)
        self._rewards = np.zeros(self.n)

    def _apply_actions(self, actions: list[int]) -> None:
        game = self.game
        assert game is not None
        before = game.scores()
        rounds = len(game.rounds)
        chosen = [self._legal(p)[a] for p, a in enumerate(actions)]
        for seat, value in enumerate(chosen):
            if isinstance(value, int):
                self.turns[seat].minos.append(value)
            elif isinstance(value, TowerAction):
                self.turns[seat].done = True
                game.submit(seat, value)
        if game.over or len(game.rounds) != rounds:
            self.turns = [SeatTurn() for _ in range(self.n)]
        self._rewards = np.array(game.scores(), dtype=float) - np.array(before, dtype=float)

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            return f"deal {TETROMINOES[action].value}"
        return self.codec.describe(action)

    def is_terminal(self) -> bool:
        return self.game is not None and self.game.over

    def rewards(self) -> list[float]:
        return [float(r) for r in self._rewards]

    def returns(self) -> list[float]:
        if self.game is None:
            return [0.0] * self.n
        return [float(s) for s in self.game.scores()]

    def __str__(self) -> str:
        if self.game is None:
            return f"dealing: {len(self.dealt)} of {DECK_SIZE} cards"
        game = self.game
        towers = ["\n".join(t.rows()) for t in game.towers]
        minos = [turn.minos for turn in self.turns]
        return "\n\n".join(towers) + f"\nround {game.round} scores {game.scores()} minos {minos}"


class TowerObserver:
    """OpenSpiel's observer interface over ``TowerCodec.observe``: nothing of the deck below NEXT."""

    def __init__(self, codec: TowerCodec, params: dict[str, Any] | None) -> None:
        if params:
            raise ValueError(f"observation parameters are not supported: {params}")
        self.codec = codec
        self.tensor = np.zeros(codec.obs_size, dtype=np.float32)
        self.dict = {"observation": self.tensor}

    def set_from(self, state: TowerSpielState, player: int) -> None:
        if state.game is None:
            self.tensor[:] = 0.0
        else:
            self.tensor[:] = self.codec.observe(state.game, player, state.turns[player])

    def string_from(self, state: TowerSpielState, player: int) -> str:
        if state.game is None:
            return f"dealing: {len(state.dealt)} of {DECK_SIZE} cards"
        game = state.game
        play = game.play_card.value if game.play_card else "-"
        nxt = game.next_card.value if game.next_card else "-"
        rows = "\n".join(game.towers[player].rows())
        return f"{rows}\nPLAY {play} NEXT {nxt} minos {state.turns[player].minos}"


pyspiel.register_game(TOWER_GAME_TYPE, TowerSpielGame)
