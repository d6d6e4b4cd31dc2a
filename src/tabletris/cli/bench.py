"""``tabletris bench``: the engine's speed on this machine, both engines side by side.

Every benchmark runs in this one process (one core), first on the pure-Python engine (the
reference, ``engine/board.py``) and then on the compiled core when it is built, on the same
boards, positions and seeds, so the speed-up column compares like with like in the same run:

- ``placements``: all placements of one rolled shape (every orientation, mirrors included, as the
  dice game's ``free`` orientation asks) on fixed mid-game 10x20 boards, per access mode and shape;
- ``batch``: ``engine.batch.legal_anchors`` on 240 boards at once, all seven shapes;
- ``expert``: the median time of one expert dice decision over fixed mid-game positions (on the
  compiled core: in the dice kernel, and the Python expert beside it);
- ``simulate``: whole 2-player dice games, expert against greedy, per second (on the compiled
  core: wholly in the dice kernel as ``simulate`` plays them, and through the engine beside it);
- ``dice-games``: whole 4-player dice games between random bots, per second;
- ``playouts``: whole 2-player dice games, random vs random and greedy vs random, through the
  engine (``Table``, as ``simulate`` plays them) and in the dice kernel (``engine.fastdice``:
  the whole turn in C, the very same games), per second;
- ``tower-games``: whole 4-player tower games (``advanced`` preset) between random bots, per second
  (on the compiled core also in the tower core: the same games, as the lab plays them);
- ``tower-expert``: the median time of one expert tower decision over fixed mid-game views (on the
  compiled core: in the tower core, and the Python expert beside it);
- ``tower-simulate``: whole 2-player tower games, expert against expert, per second (in the tower
  core as ``simulate`` plays them, and through the table beside it);
- ``tower-env``: ``tabletris/Tower-v0`` steps per second against a random opponent, and
  ``CartPole-v1`` in the same run, in turns (their ratio); the Python env beside it;
- ``tower-vector``: ``TowerVectorEnv`` (16 games) steps per second, in one process and in two;
- ``env``: ``tabletris/Dice-v0`` steps per second, random legal actions against a random opponent
  (on the compiled core: the kernel's fast path, and the Python env without it);
- ``vector``: ``DiceVectorEnv`` (16 games stepped together) steps per second, in one process and
  in two worker processes (one per core).

Times are this process's CPU time (``time.process_time``), not wall time: on a machine shared
with other busy processes a benchmark's own work is measured, not its wait for a core (the figure
a quiet machine gives, about). Figures are printed, never asserted: tests check the command, not
the machine.
"""

from __future__ import annotations

import json
import math
import os
import platform
import random
import statistics
import time
from collections.abc import Callable
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.table import Table

from tabletris.bots.registry import make_bot
from tabletris.engine import board as board_module
from tabletris.engine.board import ACCESS_MODES, Board
from tabletris.engine.dice import DiceGame
from tabletris.engine.shapes import Shape
from tabletris.engine.tower import TowerGame
from tabletris.table.driver import Table as GameTable

DIE_SHAPES = (Shape.I, Shape.O, Shape.T, Shape.S, Shape.L)
TOWER_PLAYERS = ("P1", "P2", "P3", "P4")


engine = board_module.engine


def midgame_boards(count: int = 24, seed: int = 2026) -> list[Board]:
    """Boards from random 4-player games stopped between turns 15 and 30: the same every run."""
    rng = random.Random(seed)
    boards: list[Board] = []
    while len(boards) < count:
        game = DiceGame(["A", "B", "C", "D"], seed=rng.getrandbits(32))
        bot = make_bot("random", seed=rng.getrandbits(32))
        stop = rng.randint(15, 30)
        table = GameTable(game, [bot] * 4)
        while not game.over and game.turn < stop:
            table.play_bots(max_actions=1)
        if not game.over:
            boards.append(game.board.copy())
    return boards


def midgame_positions(count: int = 24, seed: int = 2027) -> list[DiceGame]:
    """2-player positions with the die rolled, after 5-40 turns of greedy play: the same every run."""
    rng = random.Random(seed)
    positions: list[DiceGame] = []
    while len(positions) < count:
        game = DiceGame(["A", "B"], seed=rng.getrandbits(32))
        table = GameTable(game, [make_bot("greedy", seed=1), make_bot("greedy", seed=2)])
        stop = rng.randint(5, 40)
        while not game.over and game.turn < stop:
            table.play_bots(max_actions=1)
        if not game.over and game.roll_face is None:
            game.roll()
        if not game.over:
            positions.append(game.view())
    return positions


def _best_time(fn: Callable[[], object], calls: int) -> float:
    """The best of three timings of ``calls`` calls: the least disturbed (caches, interrupts)."""
    best = float("inf")
    for _ in range(3):
        t0 = time.process_time()
        for _ in range(calls):
            fn()
        best = min(best, (time.process_time() - t0) / calls)
    return best


Engines = list[tuple[str, bool]]
"""The engines a run measures: (label, native) pairs, pure Python first."""


def bench_placements(seconds: float, engines: Engines) -> dict[str, dict[str, Any]]:
    """Median time to generate every placement of one shape, per access mode and per shape, on
    every engine; the figures per engine label.

    Measured in turns: each board, shape and access mode on every engine back to back. A ratio
    of two microsecond figures is what the goal asks for, and on a shared machine whose speed
    drifts for seconds at a time (busy neighbours) two passes one after the other gave ratios
    from 7x to 18x for the same builds; in turns, a slow spell slows both sides of a ratio."""
    boards = midgame_boards()
    calls: dict[str, int] = {}
    for label, native in engines:
        # Calibrate the repeat count on each engine so each spends about ``seconds``.
        with engine(native):
            t0 = time.process_time()
            for board in boards:
                for shape in DIE_SHAPES:
                    for access in ACCESS_MODES:
                        board.placements(shape, "free", access)
            once = time.process_time() - t0
        calls[label] = max(1, int(seconds / (3 * max(once, 1e-9))))
    times: dict[str, dict[str, dict[str, list[float]]]] = {label: {a: {s.value: [] for s in DIE_SHAPES} for a in ACCESS_MODES} for label, _ in engines}
    counts: dict[str, dict[str, list[int]]] = {label: {a: [] for a in ACCESS_MODES} for label, _ in engines}
    for access in ACCESS_MODES:
        for board in boards:
            for shape in DIE_SHAPES:
                for label, native in engines:
                    with engine(native):
                        counts[label][access].append(len(board.placements(shape, "free", access)))
                        times[label][access][shape.value].append(
                            _best_time(lambda b=board, s=shape, a=access: b.placements(s, "free", a), calls[label])  # type: ignore[misc]
                        )
    result: dict[str, dict[str, Any]] = {}
    for label, _ in engines:
        figures: dict[str, Any] = {"boards": len(boards)}
        for access in ACCESS_MODES:
            per_shape = times[label][access]
            everything = [t for ts in per_shape.values() for t in ts]
            figures[access] = {
                "median_us": round(statistics.median(everything) * 1e6, 2),
                "per_shape_median_us": {k: round(statistics.median(v) * 1e6, 2) for k, v in per_shape.items()},
                "mean_placements": round(statistics.mean(counts[label][access]), 1),
            }
        result[label] = figures
    return result


def bench_batch(seconds: float) -> dict[str, Any]:
    """``engine.batch.legal_anchors``: every placement of all seven shapes (slide, free
    orientation) for a batch of 240 mid-game boards into one NumPy array; boards per second."""
    from tabletris.engine.batch import Layout, legal_anchors

    boards = [b.occupied for b in midgame_boards()] * 10
    layout = Layout(10, 20)
    calls = 0
    start = time.process_time()
    while not calls or time.process_time() - start < seconds:
        legal_anchors(boards, layout)
        calls += 1
    elapsed = time.process_time() - start
    return {"batch": len(boards), "calls": calls, "boards_per_s": round(calls * len(boards) / elapsed, 1)}


def bench_expert(seconds: float) -> dict[str, Any]:
    """The expert's dice decision time over fixed positions: median and 90th percentile. On the
    compiled core the bot decides in the dice kernel (``_dice_expert.c``, the same decisions:
    tests/test_fastexpert.py); its Python decision on the native board is timed beside it."""
    from tabletris.bots.expert import ExpertBot
    from tabletris.engine import fastdice

    positions = midgame_positions()

    def timed(fast_path: bool) -> dict[str, Any]:
        bot = make_bot("expert", seed=3)
        assert isinstance(bot, ExpertBot)
        bot.fast_path = fast_path
        times: list[float] = []
        start = time.process_time()
        while not times or time.process_time() - start < seconds:
            for game in positions:
                t0 = time.process_time()
                bot.choose_dice(game)
                times.append(time.process_time() - t0)
        times.sort()
        return {
            "decisions": len(times),
            "median_ms": round(statistics.median(times) * 1e3, 3),
            "p90_ms": round(times[int(0.9 * (len(times) - 1))] * 1e3, 3),
        }

    result = timed(True)
    if fastdice.supports(positions[0].rules):
        python = timed(False)
        result["python_path_median_ms"] = python["median_ms"]
        result["python_path_p90_ms"] = python["p90_ms"]
    return result


def _games_per_second(seconds: float, play_one: Callable[[int], int]) -> dict[str, Any]:
    rng = random.Random(7)
    games = steps = 0
    start = time.process_time()
    while not games or time.process_time() - start < seconds:
        steps += play_one(rng.getrandbits(32))
        games += 1
    elapsed = time.process_time() - start
    return {
        "games": games,
        "seconds": round(elapsed, 2),
        "games_per_s": round(games / elapsed, 2),
        "mean_turns": round(steps / games, 1),
    }


def bench_simulate(seconds: float) -> dict[str, Any]:
    """Expert against greedy, 2-player standard dice games back to back (``simulate``'s work).
    On the compiled core ``simulate`` plays them wholly in the dice kernel (the same games:
    tests/test_fastexpert_lab.py); the engine's turns with the expert's decision in C, and with
    the Python expert, are timed beside it (each gets ``seconds``)."""
    from tabletris.bots.expert import ExpertBot
    from tabletris.bots.heuristics import DEFAULT_WEIGHTS, weights_tuple
    from tabletris.engine import fastdice

    def engine_game(seed: int, fast_path: bool = True) -> int:
        game = DiceGame(["expert", "greedy"], seed=seed)
        expert = make_bot("expert", seed=seed)
        assert isinstance(expert, ExpertBot)
        expert.fast_path = fast_path
        GameTable(game, [expert, make_bot("greedy", seed=seed + 1)]).play_bots()
        return game.turn

    if not fastdice.supports(DiceGame(["expert", "greedy"]).rules):
        return _games_per_second(seconds, engine_game)
    weights = weights_tuple(DEFAULT_WEIGHTS)
    params = ExpertBot().kernel_params()

    def kernel_game(seed: int) -> int:
        game = DiceGame(["expert", "greedy"], seed=seed)
        fastdice.playout(game, ["expert", "greedy"], [None, None], weights, expert=params)
        return game.turn

    result = _games_per_second(seconds, kernel_game)
    result["engine_games_per_s"] = _games_per_second(seconds, engine_game)["games_per_s"]
    result["python_path_games_per_s"] = _games_per_second(seconds, lambda seed: engine_game(seed, False))["games_per_s"]
    return result


def bench_dice_games(seconds: float) -> dict[str, Any]:
    """Random-bot 4-player dice games back to back."""

    def play(seed: int) -> int:
        game = DiceGame(["P0", "P1", "P2", "P3"], seed=seed)
        GameTable(game, [make_bot("random", seed=seed)] * 4).play_bots()
        return game.turn

    return _games_per_second(seconds, play)


PLAYOUT_PAIRS = {"random": ("random", "random"), "greedy": ("greedy", "random")}


def bench_playouts(seconds: float) -> dict[str, Any]:
    """Whole 2-player dice games per second for each pairing of ``PLAYOUT_PAIRS``: through the
    engine in use (``Table`` and the bots) and, on the compiled core, in the dice kernel (the same
    games: tests/test_fastdice.py). Each gets ``seconds``."""
    from tabletris.bots.heuristics import DEFAULT_WEIGHTS, weights_tuple
    from tabletris.engine import fastdice

    weights = weights_tuple(DEFAULT_WEIGHTS)
    result: dict[str, Any] = {}
    for key, seats in PLAYOUT_PAIRS.items():

        def engine_game(seed: int, seats: tuple[str, str] = seats) -> int:
            game = DiceGame(list(seats), seed=seed)
            GameTable(game, [make_bot(b, seed=seed + i) for i, b in enumerate(seats)]).play_bots()
            return game.turn

        def kernel_game(seed: int, seats: tuple[str, str] = seats) -> int:
            game = DiceGame(list(seats), seed=seed)
            rngs = [random.Random(seed + i) if b == "random" else None for i, b in enumerate(seats)]
            fastdice.playout(game, seats, rngs, weights)
            return game.turn

        here = _games_per_second(seconds, engine_game)
        figures = {"engine_games_per_s": here["games_per_s"], "mean_turns": here["mean_turns"]}
        if fastdice.supports(DiceGame(list(seats)).rules):
            figures["kernel_games_per_s"] = _games_per_second(seconds, kernel_game)["games_per_s"]
        result[key] = figures
    return result


def play_random_tower_game(seed: int, preset: str = "advanced") -> TowerGame:
    """One 4-player tower game of random bots (seeded), each seeing only its seat's view, so the
    figure includes making views, generating drops, checking every action and resolving rounds
    with the achievement checks of the ``advanced`` preset's two cards."""
    rng = random.Random(seed)
    game = TowerGame(TOWER_PLAYERS, {"preset": preset}, seed=rng.getrandbits(32))
    GameTable(game, [make_bot("random", seed=rng.getrandbits(32)) for _ in TOWER_PLAYERS]).play_bots()
    return game


def bench_tower_games(seconds: float) -> dict[str, Any]:
    """Random-bot 4-player tower games back to back (advanced preset: two achievement cards);
    on the compiled core also the same games in the tower core (``lab/tower_playout.py``)."""
    from tabletris.engine import fasttower
    from tabletris.lab.tower_playout import fast_playout

    result = _games_per_second(seconds, lambda seed: len(play_random_tower_game(seed).rounds))
    if fasttower.core_module() is None:
        return result

    def core_game(seed: int) -> int:
        rng = random.Random(seed)
        game = TowerGame(TOWER_PLAYERS, {"preset": "advanced"}, seed=rng.getrandbits(32))
        bots = [make_bot("random", seed=rng.getrandbits(32)) for _ in TOWER_PLAYERS]
        if not fast_playout(game, bots):
            GameTable(game, bots).play_bots()
        return len(game.rounds)

    result["core_games_per_s"] = _games_per_second(seconds, core_game)["games_per_s"]
    return result


def bench_env(seconds: float) -> dict[str, Any]:
    """``tabletris/Dice-v0`` (one env) stepped with random legal actions against a random bot:
    as made (the kernel's fast path on the compiled core, ``envs/dice_fast.py``) and, on the
    compiled core, with the fast path off (the Python env on the native board)."""
    result = {"steps_per_s": _env_rate(seconds, fast=True)}
    if board_module.native_module() is not None:
        result["python_path_steps_per_s"] = _env_rate(seconds, fast=False)
    return result


def _env_rate(seconds: float, fast: bool) -> float:
    import gymnasium
    import numpy as np

    import tabletris.envs  # noqa: F401 - registers the environments

    env = gymnasium.make("tabletris/Dice-v0")
    inner: Any = env.unwrapped
    inner.fast_path = inner.fast_path and fast
    rng = np.random.default_rng(5)
    obs, _ = env.reset(seed=5)
    steps = 0
    start = time.process_time()
    while not steps or time.process_time() - start < seconds:
        for _ in range(100):
            legal = np.flatnonzero(obs["action_mask"])
            obs, _, terminated, truncated, _ = env.step(int(rng.choice(legal)))
            steps += 1
            if terminated or truncated:
                obs, _ = env.reset()
    elapsed = time.process_time() - start
    env.close()
    return round(steps / elapsed, 1)


VECTOR_GAMES = 16


def _vector_rate(seconds: float, native: bool = True, fast: bool = True) -> dict[str, Any]:
    """One process stepping ``DiceVectorEnv`` (``VECTOR_GAMES`` games) with random legal actions;
    learner steps (games x batch steps) per CPU-second of this process. ``fast``: the kernel's
    fast path when it can (off: the games through the Python env)."""
    import numpy as np

    from tabletris.envs.vector import DiceVectorEnv

    with engine(native):
        vec = DiceVectorEnv(VECTOR_GAMES, action_mask=False)
        vec.fast_path = vec.fast_path and fast
        rng = np.random.default_rng(5)
        vec.reset(seed=5)
        steps = 0
        sampling = 0.0
        start = time.process_time()
        while not steps or time.process_time() - start < seconds:
            # A uniformly random legal action per game, drawn for the batch at once in NumPy
            # from ``action_masks()`` (as a learner samples its masked policy), not game by game
            # in a Python loop: ``sample_legal`` (one flat ``flatnonzero``, one uniform per game).
            before = time.process_time()
            actions = vec.sample_legal(rng)
            sampling += time.process_time() - before
            vec.step(actions)
            steps += VECTOR_GAMES
        elapsed = time.process_time() - start
        vec.close()
    return {
        "games": VECTOR_GAMES,
        "steps": steps,
        "steps_per_s": round(steps / elapsed, 1),
        "sampling_share": round(sampling / elapsed, 3),
    }


def bench_vector(seconds: float) -> dict[str, Any]:
    """``DiceVectorEnv`` steps per second: in this process, and in two worker processes at once
    (one per core of this machine), their CPU-time rates added: what both cores give when they
    are free for it (wall time on a shared machine would measure the other sessions' load)."""
    from concurrent.futures import ProcessPoolExecutor

    one = _vector_rate(seconds, board_module.native_module() is not None)
    native = board_module.native_module() is not None
    with ProcessPoolExecutor(max_workers=2) as pool:
        rates = list(pool.map(_vector_rate, [seconds, seconds], [native, native]))
    result = {**one, "two_cores_steps_per_s": round(sum(r["steps_per_s"] for r in rates), 1)}
    if native:
        result["python_path_steps_per_s"] = _vector_rate(seconds, True, fast=False)["steps_per_s"]
    return result


# ------------------------------------------------------------------ the tower game (issue 29)


def midgame_tower_views(count: int = 24, seed: int = 2029) -> list[TowerGame]:
    """Seat 0's view of 2-player standard tower games after 2-22 rounds of greedy play: the same
    positions every run (the expert's decisions are timed on them)."""
    rng = random.Random(seed)
    views: list[TowerGame] = []
    while len(views) < count:
        game = TowerGame(["A", "B"], seed=rng.getrandbits(32))
        table = GameTable(game, [make_bot("greedy", seed=1), make_bot("greedy", seed=2)])
        stop = rng.randint(2, 22)
        while not game.over and len(game.rounds) < stop:
            table.play_bots(max_actions=1)
        if not game.over and 0 in game.waiting_for():
            views.append(game.view(0))
    return views


def bench_tower_expert(seconds: float) -> dict[str, Any]:
    """The expert's tower decision time over fixed mid-game views: median and 90th percentile.
    On the compiled core the bot decides in the tower core (``bots/_tower_bots.c``, the same
    decisions: tests/test_fasttower.py); its Python decision is timed beside it."""
    from tabletris.bots.expert import ExpertBot
    from tabletris.engine import fasttower

    views = midgame_tower_views()

    def timed(fast_path: bool) -> dict[str, Any]:
        bot = make_bot("expert", seed=3)
        assert isinstance(bot, ExpertBot)
        bot.fast_path = fast_path
        times: list[float] = []
        start = time.process_time()
        while not times or time.process_time() - start < seconds:
            for view in views:
                t0 = time.process_time()
                bot.choose_tower(view)
                times.append(time.process_time() - t0)
        times.sort()
        return {
            "decisions": len(times),
            "median_ms": round(statistics.median(times) * 1e3, 3),
            "p90_ms": round(times[int(0.9 * (len(times) - 1))] * 1e3, 3),
        }

    result = timed(True)
    if fasttower.core_module() is not None:
        python = timed(False)
        result["python_path_median_ms"] = python["median_ms"]
        result["python_path_p90_ms"] = python["p90_ms"]
    return result


def bench_tower_simulate(seconds: float) -> dict[str, Any]:
    """Expert against expert, 2-player standard tower games back to back (``simulate tower
    --seats expert,expert``'s work): on the compiled core wholly in the tower core as the lab
    plays them (``lab/tower_playout.py``: the same games, tests/test_fasttower_lab.py), and
    through the table beside it, with the expert's decisions in C and with the Python expert."""
    from tabletris.bots.expert import ExpertBot
    from tabletris.engine import fasttower
    from tabletris.lab.tower_playout import fast_playout

    def experts(seed: int, fast_path: bool) -> list[ExpertBot]:
        bots = [make_bot("expert", seed=seed + i) for i in range(2)]
        for bot in bots:
            assert isinstance(bot, ExpertBot)
            bot.fast_path = fast_path
        return bots  # type: ignore[return-value]

    def engine_game(seed: int, fast_path: bool = True) -> int:
        game = TowerGame(["expert", "expert#2"], seed=seed)
        GameTable(game, experts(seed, fast_path)).play_out()
        return len(game.rounds)

    def core_game(seed: int) -> int:
        game = TowerGame(["expert", "expert#2"], seed=seed)
        if not fast_playout(game, experts(seed, True)):
            GameTable(game, experts(seed, True)).play_out()
        return len(game.rounds)

    if fasttower.core_module() is None:
        return _games_per_second(seconds, engine_game)
    result = _games_per_second(seconds, core_game)
    result["engine_games_per_s"] = _games_per_second(seconds, engine_game)["games_per_s"]
    result["python_path_games_per_s"] = _games_per_second(seconds, lambda seed: engine_game(seed, False))["games_per_s"]
    return result


def bench_tower_env(seconds: float) -> dict[str, Any]:
    """``tabletris/Tower-v0`` stepped with random legal actions against a random bot, and
    ``CartPole-v1`` with random actions, both made by ``gymnasium.make`` (its checkers on) and
    measured in turns (slices of a tenth of the budget, one after the other: a busy spell slows
    both), so their ratio is of the same run; on the compiled core the Tower-v0 fast path's,
    and the Python env's beside it."""
    from tabletris.engine import fasttower

    fast, cartpole = _in_turns(seconds, [_tower_steps(True), _cartpole_steps()])
    result = {
        "steps_per_s": fast,
        "cartpole_steps_per_s": cartpole,
        "cartpole_ratio": round(fast / cartpole, 3) if cartpole else 0.0,
    }
    if fasttower.core_module() is not None:
        result["python_path_steps_per_s"] = _in_turns(seconds, [_tower_steps(False)])[0]
    return result


StepFn = Callable[[int], int]
"""Plays about ``n`` steps of an env and says how many it played."""


def _tower_steps(fast: bool) -> StepFn:
    import gymnasium
    import numpy as np

    import tabletris.envs  # noqa: F401 - registers the environments

    env = gymnasium.make("tabletris/Tower-v0")
    inner: Any = env.unwrapped
    inner.fast_path = inner.fast_path and fast
    rng = np.random.default_rng(5)
    state = {"obs": env.reset(seed=5)[0]}

    def steps(n: int) -> int:
        obs = state["obs"]
        for _ in range(n):
            obs, _, terminated, truncated, _ = env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
            if terminated or truncated:
                obs, _ = env.reset()
        state["obs"] = obs
        return n

    return steps


def _cartpole_steps() -> StepFn:
    import gymnasium
    import numpy as np

    env = gymnasium.make("CartPole-v1")
    rng = np.random.default_rng(5)
    env.reset(seed=5)

    def steps(n: int) -> int:
        for _ in range(n):
            _, _, terminated, truncated, _ = env.step(int(rng.integers(2)))
            if terminated or truncated:
                env.reset()
        return n

    return steps


def _in_turns(seconds: float, runs: list[StepFn]) -> list[float]:
    """Steps per CPU-second of each run, measured in alternating slices of ``seconds / 10``."""
    counts = [0] * len(runs)
    spent = [0.0] * len(runs)
    for _ in range(10):
        for i, run_steps in enumerate(runs):
            start = time.process_time()
            while time.process_time() - start < seconds / 10 or not counts[i]:
                counts[i] += run_steps(200)
            spent[i] += time.process_time() - start
    return [round(c / t, 1) if t else 0.0 for c, t in zip(counts, spent, strict=True)]


def _tower_vector_rate(seconds: float, native: bool = True, fast: bool = True) -> dict[str, Any]:
    """One process stepping ``TowerVectorEnv`` (``VECTOR_GAMES`` games, random opponents) with
    random legal actions drawn for the batch at once (``sample_legal``); learner steps per
    CPU-second of this process."""
    import numpy as np

    from tabletris.envs.tower_vector import TowerVectorEnv

    with engine(native):
        vec = TowerVectorEnv(VECTOR_GAMES, action_mask=False)
        vec.fast_path = vec.fast_path and fast
        rng = np.random.default_rng(5)
        vec.reset(seed=5)
        steps = 0
        start = time.process_time()
        while not steps or time.process_time() - start < seconds:
            vec.step(vec.sample_legal(rng))
            steps += VECTOR_GAMES
        elapsed = time.process_time() - start
        vec.close()
    return {"games": VECTOR_GAMES, "steps": steps, "steps_per_s": round(steps / elapsed, 1)}


def bench_tower_vector(seconds: float) -> dict[str, Any]:
    """``TowerVectorEnv`` steps per second: in this process, and in two worker processes at once
    (their CPU-time rates added, as ``vector`` adds the dice batch's)."""
    from concurrent.futures import ProcessPoolExecutor

    from tabletris.engine import fasttower

    native = board_module.native_module() is not None
    one = _tower_vector_rate(seconds, native)
    with ProcessPoolExecutor(max_workers=2) as pool:
        rates = list(pool.map(_tower_vector_rate, [seconds, seconds], [native, native]))
    result = {**one, "two_cores_steps_per_s": round(sum(r["steps_per_s"] for r in rates), 1)}
    if fasttower.core_module() is not None:
        result["python_path_steps_per_s"] = _tower_vector_rate(seconds, True, fast=False)["steps_per_s"]
    return result


def each_engine(bench: Callable[[float], dict[str, Any]]) -> Callable[[float, Engines], dict[str, dict[str, Any]]]:
    """A benchmark of one engine run on each engine in turn, back to back: a machine whose load
    drifts (other processes) then disturbs both figures of a row alike. (``bench_placements``
    measures the engines in turns itself, board by board.)"""

    def both(seconds: float, engines: Engines) -> dict[str, dict[str, Any]]:
        figures: dict[str, dict[str, Any]] = {}
        for label, native in engines:
            with engine(native):
                try:
                    figures[label] = bench(seconds)
                except ModuleNotFoundError as e:
                    figures[label] = {"error": f"not available: {e.name}"}
        return figures

    return both


BENCHES: dict[str, Callable[[float, Engines], dict[str, dict[str, Any]]]] = {
    "placements": bench_placements,
    "batch": each_engine(bench_batch),
    "expert": each_engine(bench_expert),
    "simulate": each_engine(bench_simulate),
    "dice-games": each_engine(bench_dice_games),
    "playouts": each_engine(bench_playouts),
    "tower-games": each_engine(bench_tower_games),
    "env": each_engine(bench_env),
    "vector": each_engine(bench_vector),
    "tower-expert": each_engine(bench_tower_expert),
    "tower-simulate": each_engine(bench_tower_simulate),
    "tower-env": each_engine(bench_tower_env),
    "tower-vector": each_engine(bench_tower_vector),
}
"""Every benchmark by name: its figures per engine label."""


def run(names: list[str], seconds: float) -> dict[str, Any]:
    """Every benchmark of ``names`` on each engine this machine has, pure Python first."""
    from tabletris.engine import fasttower

    figures: dict[str, Any] = {
        "python": platform.python_version(),
        "machine": platform.machine(),
        "engine": board_module.engine_name(),
        "tower_engine": fasttower.engine_name(),
        "load_average": [round(x, 2) for x in os.getloadavg()],
        "engines": {},
    }
    engines: Engines = [("pure", False)] + ([("native", True)] if board_module.native_available() else [])
    for label, _ in engines:
        figures["engines"][label] = {}
    for name in names:
        for label, one in BENCHES[name](seconds, engines).items():
            figures["engines"][label][name] = one
    figures["load_average_after"] = [round(x, 2) for x in os.getloadavg()]
    return figures


def register(app: typer.Typer) -> None:
    @app.command()
    def bench(
        only: Annotated[
            list[str] | None, typer.Option("--only", help=f"Run only these: {', '.join(BENCHES)}.")
        ] = None,
        seconds: Annotated[
            float, typer.Option(help="Time budget per benchmark and engine, in seconds (more than 0).")
        ] = 2.0,
        as_json: Annotated[bool, typer.Option("--json", help="Print the figures as JSON.")] = False,
    ) -> None:
        """Measure the engine's speed on this machine (one process, one core): the pure-Python
        engine and the compiled core side by side, with the speed-up."""
        if not (seconds > 0 and math.isfinite(seconds)):
            typer.echo(
                f"error: --seconds {seconds:g}: the time budget per benchmark must be a number of "
                "seconds greater than 0 (for example --seconds 0.5)",
                err=True,
            )
            raise typer.Exit(2)
        names = only or list(BENCHES)
        for name in names:
            if name not in BENCHES:
                typer.echo(f"error: unknown benchmark {name!r}: expected {', '.join(BENCHES)}", err=True)
                raise typer.Exit(2)
        figures = run(names, seconds)
        if as_json:
            typer.echo(json.dumps(figures, indent=2))
            return
        print_figures(figures, Console(highlight=False, no_color=bool(os.environ.get("NO_COLOR"))))


GOALS: dict[str, tuple[float, str]] = {
    "placements/drop/median_us": (2.0, "≤ 2 µs, ≥ 10x"),
    "placements/slide/median_us": (2.0, "≤ 2 µs, ≥ 10x"),
    "placements/free/median_us": (2.0, "≤ 2 µs, ≥ 10x"),
    "expert/median_ms": (1.0, "≤ 1 ms"),
    "simulate/games_per_s": (100.0, "≥ 100/s"),
    "env/steps_per_s": (20_000.0, "≥ 20,000/s"),
    "vector/two_cores_steps_per_s": (100_000.0, "≥ 100,000/s"),
    "tower-expert/median_ms": (5.0, "issue 29: ≤ 5 ms"),
    "tower-simulate/games_per_s": (50.0, "issue 29: ≥ 50/s"),
    "tower-env/steps_per_s": (20_000.0, "issue 29: ≥ 20,000/s"),
    "tower-env/cartpole_ratio": (0.16, "issue 29: ≥ 0.16x"),
    "tower-vector/two_cores_steps_per_s": (100_000.0, "issue 29: ≥ 100,000/s"),
}
"""Issue 19's goals (and issue 29's for the tower game, worded with its number), per figure: the
bound and how the table words it (placements also ask for a 10x speed-up over the pure engine)."""


def goal_status(path: str, pure: float | None, native: float | None, lower_is_better: bool) -> str:
    """``met`` or ``not met`` for a figure with a goal (the engine in use, native when built);
    empty for a figure without one."""
    if path not in GOALS:
        return ""
    bound, words = GOALS[path]
    value = native if native is not None else pure
    if value is None:
        return ""
    ok = value <= bound if lower_is_better else value >= bound
    if path.startswith("placements/"):
        ok = ok and bool(pure and native and pure / native >= 10)
    return f"{words}: {'met' if ok else 'not met'}"


def _ratio(pure: float | None, native: float | None, lower_is_better: bool) -> str:
    if not pure or not native:
        return ""
    r = pure / native if lower_is_better else native / pure
    return f"{r:.1f}x"


def _rows(names: list[str], engines: dict[str, Any]) -> list[tuple[str, str, bool]]:
    """(label, path into an engine's figures, lower is better) for every figure printed."""
    rows: list[tuple[str, str, bool]] = []
    if "placements" in names:
        for access in ACCESS_MODES:
            rows.append((f"placements, {access}: median of all shapes (µs)", f"placements/{access}/median_us", True))
            for s in DIE_SHAPES:
                rows.append((f"  {access}, {s.value} (µs)", f"placements/{access}/per_shape_median_us/{s.value}", True))
    labels = {
        "batch": ("batch: all shapes' placements, 240 boards to NumPy (boards/s)", "batch/boards_per_s", False),
        "expert": ("expert dice decision, median (ms)", "expert/median_ms", True),
        "simulate": ("simulate expert vs greedy, dice (games/s)", "simulate/games_per_s", False),
        "dice-games": ("dice, 4 random bots (games/s)", "dice-games/games_per_s", False),
        "tower-games": ("tower, 4 random bots, through the table (games/s)", "tower-games/games_per_s", False),
        "env": ("tabletris/Dice-v0 vs random, one env (steps/s)", "env/steps_per_s", False),
    }
    for n in names:
        if n in labels:
            rows.append(labels[n])
        if n == "expert":
            rows.append((
                "  the same with the C decision off (ms; native: the Python expert, native board)",
                "expert/median_ms>expert/python_path_median_ms",
                True,
            ))
        if n == "simulate":
            rows.append((
                "  through the engine, the expert's decision in C (games/s; pure column: the pure engine's)",
                "simulate/games_per_s>simulate/engine_games_per_s",
                False,
            ))
            rows.append((
                "  through the engine, the Python expert (games/s; native: the native board)",
                "simulate/games_per_s>simulate/python_path_games_per_s",
                False,
            ))
        if n == "env":
            rows.append((
                "  the same with the kernel's fast path off (steps/s; native: Python env, native board)",
                "env/steps_per_s>env/python_path_steps_per_s",
                False,
            ))
        if n == "playouts":
            for key, (a, b) in PLAYOUT_PAIRS.items():
                rows.append((f"playouts {a} vs {b}, dice, engine (games/s)", f"playouts/{key}/engine_games_per_s", False))
                rows.append((
                    "  the same games in the dice kernel (games/s; pure column: the pure engine's)",
                    f"playouts/{key}/engine_games_per_s>playouts/{key}/kernel_games_per_s",
                    False,
                ))
        if n == "tower-games":
            rows.append((
                "  the same games in the tower core (games/s; pure column: through the table)",
                "tower-games/games_per_s>tower-games/core_games_per_s",
                False,
            ))
        if n == "tower-expert":
            rows.append(("expert tower decision, median (ms)", "tower-expert/median_ms", True))
            rows.append((
                "  the same with the C decision off (ms; native: the Python expert, native board)",
                "tower-expert/median_ms>tower-expert/python_path_median_ms",
                True,
            ))
        if n == "tower-simulate":
            rows.append(("simulate expert vs expert, tower (games/s)", "tower-simulate/games_per_s", False))
            rows.append((
                "  through the table, the expert's decisions in C (games/s; pure column: the pure engine's)",
                "tower-simulate/games_per_s>tower-simulate/engine_games_per_s",
                False,
            ))
            rows.append((
                "  through the table, the Python expert (games/s; native: the native board)",
                "tower-simulate/games_per_s>tower-simulate/python_path_games_per_s",
                False,
            ))
        if n == "tower-env":
            rows.append(("tabletris/Tower-v0 vs random, one env (steps/s)", "tower-env/steps_per_s", False))
            rows.append(("  CartPole-v1 in the same run, in turns (steps/s)", "tower-env/cartpole_steps_per_s", False))
            rows.append(("  Tower-v0 / CartPole-v1", "tower-env/cartpole_ratio", False))
            rows.append((
                "  the same with the core's fast path off (steps/s; native: Python env, native board)",
                "tower-env/steps_per_s>tower-env/python_path_steps_per_s",
                False,
            ))
        if n == "tower-vector":
            rows.append((f"TowerVectorEnv, {VECTOR_GAMES} games, one process (steps/s)", "tower-vector/steps_per_s", False))
            rows.append(("TowerVectorEnv, two processes (steps/s, CPU-time rates added)", "tower-vector/two_cores_steps_per_s", False))
            rows.append((
                f"  {VECTOR_GAMES} games, one process, the core's fast path off (steps/s)",
                "tower-vector/steps_per_s>tower-vector/python_path_steps_per_s",
                False,
            ))
        if n == "vector":
            rows.append((f"DiceVectorEnv, {VECTOR_GAMES} games, one process (steps/s)", "vector/steps_per_s", False))
            rows.append(("DiceVectorEnv, two processes (steps/s, CPU-time rates added)", "vector/two_cores_steps_per_s", False))
            rows.append((
                f"  {VECTOR_GAMES} games, one process, the kernel's fast path off (steps/s)",
                "vector/steps_per_s>vector/python_path_steps_per_s",
                False,
            ))
    return rows


def _get(figures: dict[str, Any], path: str) -> Any:
    value: Any = figures
    for key in path.split("/"):
        if not isinstance(value, dict) or key not in value:
            return None
        value = value[key]
    return value


def print_figures(figures: dict[str, Any], console: Console) -> None:
    engines = figures["engines"]
    names = list(next(iter(engines.values())))
    console.print(
        f"Python {figures['python']} on {figures['machine']}, one process; "
        f"engine: {figures['engine']}; tower core: {figures['tower_engine']}; CPU time of this process; "
        f"load average {figures['load_average'][0]}"
    )
    title = (
        "Speed, both engines on the same boards and seeds"
        if "native" in engines
        else "Speed of the pure-Python engine (the compiled core is not in use)"
    )
    table = Table(title=title, header_style="bold")
    table.add_column("measure")
    for label in engines:
        table.add_column("pure Python" if label == "pure" else "native", justify="right")
    if "native" in engines:
        table.add_column("speed-up", justify="right", style="green")
    table.add_column("goal (issue 19)")
    for label, path, lower in _rows(names, engines):
        # "a>b": the pure column reads a, the native column b (the kernel against the pure
        # engine); without the compiled core there is nothing to put beside a
        if ">" in path and "native" not in engines:
            continue
        paths = path.split(">") if ">" in path else [path, path]
        values = [_get(engines[e], paths[min(i, 1)]) for i, e in enumerate(engines)]
        cells = ["" if v is None else f"{v:g}" for v in values]
        if "native" in engines:
            cells.append(_ratio(values[0], values[1], lower))
        cells.append(goal_status(path, values[0], values[1] if len(values) > 1 else None, lower))
        table.add_row(label, *cells)
    console.print(table)
    for label, results in engines.items():
        for name, f in results.items():
            if "error" in f:
                console.print(f"{name} ({label}): {f['error']}")
