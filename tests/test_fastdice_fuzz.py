"""Damaged copies and states never crash the dice kernel (issue 30).

Hypothesis damages real inputs: the bytes of env copies (``env_dump``: bytes flipped, cut short,
padded, ints of the header and the structs overwritten with extreme values, and one field at a
time by its name, from the core's own map of the bytes, ``env_layout``: nudged by a little,
given another element's value or an extreme) taken in every phase of a decision, with and
without the batch's generator, and the rules and position tuples the loaders read
(``kernel_rules``' pieces: a byte of a piece's cells changed; ``kernel_state``: counts, seats,
rolls, stones and their cells replaced or nudged). Every case either is
refused with a ValueError or OverflowError (a copy's: "the copy's bytes are damaged" or "another
build"), or loads into an env that then steps, resets in the batch, reports its game and copies
again without fault (a copy of what it then holds loads again: the kernel never reaches a
state it would refuse). Run under the CI's sanitizer step (``scripts/sanitize.sh``:
AddressSanitizer and UndefinedBehaviorSanitizer), any read or write out of bounds or undefined
arithmetic fails the run.
"""

from __future__ import annotations

import contextlib
import functools
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from kernel_reference import examples
from tabletris.bots.expert import ExpertBot
from tabletris.bots.heuristics import DEFAULT_WEIGHTS, weights_tuple
from tabletris.bots.registry import make_bot
from tabletris.engine import board as board_mod
from tabletris.engine import fastdice
from tabletris.engine.dice import DiceGame
from tabletris.envs.gym import DiceEnv

pytestmark = pytest.mark.skipif(not board_mod.native_available(), reason="the compiled core is not built here")

WEIGHTS = weights_tuple(DEFAULT_WEIGHTS)
HEAD = 64
"""The dump's header; the env's struct follows (its game's ints first)."""
EXTREMES = [0, 1, -1, 2, 3, 4, 7, 8, 9, 63, 64, 100, 200, 255, 256, 5000, 2**16, 2**28, 2**31 - 1, -(2**31)]
VARIANTS: list[dict[str, Any]] = [
    {},
    {"rules": {"supply": 1, "take": "any"}, "players": 3, "seat": 1},  # TAKE and TOKEN decisions
    {"rules": {"preset": "clear-stones", "target": 3, "width": 5, "height": 8}, "reward": "difference"},
    {"rules": {"must_close": True, "supply": 1, "width": 6, "height": 6}, "players": 4, "reward": "win"},
]


def nat() -> Any:
    module = board_mod.native_module()
    assert module is not None
    return module


@functools.cache
def dumps() -> list[tuple[bytes, int, int, int]]:
    """Copies of real envs at many points of their games: (bytes, obs size, actions, players)."""
    found = []
    for k, kwargs in enumerate(VARIANTS):
        env = DiceEnv(**kwargs)
        env.reset(seed=k)
        rng = np.random.default_rng(k)
        for step in range(60):
            if step % 4 == 0:
                assert env._fast is not None
                found.append((nat().env_dump(env._fast.capsule), env.codec.obs_size, env.codec.n_actions,
                              len(env.players)))
            _, _, terminated, truncated, _ = env.step(int(rng.choice(np.flatnonzero(env.action_masks()))))
            if terminated or truncated:
                env.reset()
    return found


@functools.cache
def layout() -> tuple[int, dict[str, int], dict[str, tuple[str, int, int, int, int, int]]]:
    """The core's map of a dump: header size, item size per section, and each field's place."""
    head, sections, fields = nat().env_layout()
    return head, dict(sections), {name: tuple(rest) for name, *rest in fields}


FIELDS = ["w", "h", "access", "nshapes", "nfaces", "nplayers", "flags", "clear", "target", "os.n", "os.ow", "os.oh",
          "os.dx", "os.dy", "nos", "face_shape", "wt", "rows", "scored", "nstones", "next_number", "supply", "scores",
          "rows_completed", "turn", "to_move", "roll", "over", "stuck", "rng.mt", "rng.index", "ngroups", "pool_used",
          "nmoves", "seat", "bot.index", "bot.mt", "n_actions", "obs_size", "full", "lay_face", "lay_to_move",
          "lay_supply", "lay_scores", "lay_phase", "lay_rows", "lay_tokens", "take_base", "token_base", "form_base",
          "form_row", "phase", "shape", "orient", "x", "y", "group", "ntakes", "n_tokens", "ntok", "tok", "scheme",
          "fresh_supply", "first_player", "stone.shape", "stone.owner", "stone.number", "stone.n", "stone.x",
          "stone.y", "group.shape", "group.take", "group.off", "group.count", "pool", "move.player", "move.face",
          "move.shape", "move.orient", "move.x", "move.y", "move.take_n", "move.take_x", "move.take_y",
          "move.ntokens", "move.tokens", "takes"]
"""Every field of the map (test_the_map_names_every_field holds it to the core's): a name, so a
failing example says which field's damage the core missed."""
SECTIONS = ["env", "stones", "groups", "pool", "moves", "takes"]


ORIENTED = {"os.n", "os.ow", "os.oh", "os.dx", "os.dy", "form_base", "form_row"}
"""Fields of each (shape, orientation): element ``8 * shape + orientation``."""
LIVE_COUNT = {"nos": "nshapes", "supply": "nshapes", "fresh_supply": "nshapes", "scores": "nplayers",
              "rows_completed": "nplayers", "bot.index": "nplayers", "bot.mt": "nplayers", "rows": "h", "scored": "h",
              "face_shape": "nfaces"}
"""Arrays whose elements in use the game counts (the rest is never read)."""
LIVE_INNER = {"os.dx": "os.n", "os.dy": "os.n", "stone.x": "stone.n", "stone.y": "stone.n",
              "move.take_x": "move.take_n", "move.take_y": "move.take_n", "move.tokens": "move.ntokens"}
"""Values of an element in use: as many as the element's count says."""


def read_at(data: bytes, place: tuple[int, int] | None) -> int | None:
    if place is None or place[0] + place[1] > len(data):
        return None
    return int.from_bytes(data[place[0]: place[0] + place[1]], "little", signed=place[1] > 1)


def field_place(data: bytes, name: str, element: int, inner: int, live: bool = False) -> tuple[int, int] | None:
    """Where value ``inner`` of element ``element`` of field ``name`` lies in ``data`` (offset, size);
    None where its section holds no item (a game without stones, moves, ...). ``live``: among the
    elements and values the game uses (its shapes' orientations, its seats, its rows, a stone's
    cells), read from ``data`` itself, where damage is hardest to see."""
    head, sizes, fields = layout()
    section, off, size, count, stride, inner_count = fields[name]
    counts = [1, *(int.from_bytes(data[24 + 8 * i: 32 + 8 * i], "little", signed=True) for i in range(5))]
    at = head
    for sec, n in zip(SECTIONS, counts, strict=True):
        if sec == section:
            break
        at += n * sizes[sec]
    items = count if section == "env" else counts[SECTIONS.index(section)]
    if items <= 0:
        return None
    element %= items
    if live and name in ORIENTED:
        nshapes = read_at(data, field_place(data, "nshapes", 0, 0)) or 0
        used = [8 * s + k for s in range(min(max(nshapes, 0), 8))
                for k in range(min(max(read_at(data, field_place(data, "nos", s, 0)) or 0, 0), 8))]
        element = used[element % len(used)] if used else element
    elif live and name in LIVE_COUNT:
        n = read_at(data, field_place(data, LIVE_COUNT[name], 0, 0)) or 0
        element %= n if 0 < n <= items else items
    if live and name in LIVE_INNER:
        n = read_at(data, field_place(data, LIVE_INNER[name], element, 0)) or 0
        inner %= n if 0 < n <= inner_count else inner_count
    return at + element * (stride if section == "env" else sizes[section]) + off + (inner % inner_count) * size, size


def field_value(data: bytes, name: str, element: int = 0, inner: int = 0) -> int:
    value = read_at(data, field_place(data, name, element, inner))
    assert value is not None, name
    return value


def damage_field(data: bytes, how: tuple[Any, ...]) -> bytes:
    _, name, element, inner, live, op, operand = how
    place = field_place(data, name, element, inner, live)
    if place is None:
        return data
    at, size = place
    current = int.from_bytes(data[at: at + size], "little", signed=size > 1)
    if op == "add":
        value = current + operand
    elif op == "copy":  # another value of the field (a cell twice, one stone's number on another)
        other = field_place(data, name, element if operand[0] is None else operand[0], operand[1], live)
        assert other is not None
        value = int.from_bytes(data[other[0]: other[0] + size], "little", signed=size > 1)
    else:
        value = operand
    bits = 8 * size
    value &= (1 << bits) - 1
    if size > 1 and value >= 1 << (bits - 1):
        value -= 1 << bits
    return data[:at] + value.to_bytes(size, "little", signed=size > 1) + data[at + size:]


def damage(data: bytes, how: tuple[Any, ...]) -> bytes:
    kind = how[0]
    if kind == "fields":
        for one in how[1]:
            data = damage_field(data, one)
        return data
    if kind == "flip":
        out = bytearray(data)
        for at, bits in how[1]:
            out[at % len(out)] ^= bits
        return bytes(out)
    if kind == "int32":
        _, at, value = how
        at = (at % ((len(data) - 4) // 4)) * 4
        return data[:at] + value.to_bytes(4, "little", signed=True) + data[at + 4:]
    if kind == "int64":
        _, index, value = how
        at = 24 + 8 * (index % 5)
        return data[:at] + value.to_bytes(8, "little", signed=True) + data[at + 8:]
    if kind == "cut":
        return data[: how[1] % (len(data) + 1)]
    return data + bytes(how[1])


near_front = st.integers(HEAD // 4, HEAD // 4 + 400)  # the header and the game's ints come first
raw_damages = st.one_of(
    st.tuples(st.just("flip"), st.lists(st.tuples(st.integers(0, 2**20), st.integers(1, 255)), min_size=1, max_size=8)),
    st.tuples(st.just("int32"), st.one_of(near_front, st.integers(0, 2**20)),
              st.one_of(st.sampled_from(EXTREMES), st.integers(-(2**31), 2**31 - 1))),
    st.tuples(st.just("int64"), st.integers(0, 4), st.one_of(st.sampled_from([2**62, 2**61 + 1, 2**32, -1]), st.integers(0, 2**40))),
    st.tuples(st.just("cut"), st.integers(0, 2**20)),
    st.tuples(st.just("pad"), st.binary(min_size=1, max_size=64)),
)


@st.composite
def field_damage(draw: st.DrawFn) -> tuple[Any, ...]:
    """One field of the map changed: nudged, given another of its values, or set to an extreme."""
    name = draw(st.sampled_from(FIELDS))
    element, inner = draw(st.integers(0, 2**16)), draw(st.integers(0, 2**10))
    live = draw(st.integers(0, 4)) > 0  # mostly a value the game uses
    op = draw(st.sampled_from(["add", "copy", "set"]))
    operand = draw({
        "add": st.one_of(st.sampled_from([-3, -2, -1, 1, 2, 3]), st.sampled_from([-64, 64, 2**31, -(2**31)]),
                         st.integers(-300, 300)),
        "copy": st.tuples(st.none() | st.integers(0, 2**16), st.integers(0, 2**10)),  # None: the same element
        "set": st.one_of(st.sampled_from(EXTREMES), st.integers(-(2**31), 2**31 - 1)),
    }[op])
    return ("field", name, element, inner, live, op, operand)


fields_damage = st.tuples(st.just("fields"), st.lists(field_damage(), min_size=1, max_size=3))
damages = st.integers(0, 2).flatmap(lambda k: fields_damage if k else raw_damages)
"""Two cases in three damage fields by name, one the bytes blindly."""


def exercise(cap: Any, obs_size: int, n_actions: int, players: int, rng: np.random.Generator, batch: bool) -> None:
    """What an env does: step (legal actions from its mask, sometimes none or an illegal one),
    reset in the batch, report its game, copy itself. Refusals are fine; faults are not."""
    obs = np.zeros(obs_size, dtype=np.float32)
    mask = np.zeros(n_actions, dtype=np.int8)
    status = np.zeros(4 + players, dtype=np.int32)
    rewards, seeds = np.zeros(1), np.zeros(1, dtype=np.int64)
    for k in range(25):
        legal = np.flatnonzero(mask)
        action = int(rng.choice(legal)) if len(legal) and k % 7 else int(rng.integers(-1, n_actions + 2))
        extra = (np.array([k % 5 == 4], dtype=np.uint8), rewards, seeds) if batch else ()
        with contextlib.suppress(ValueError, OverflowError):  # an illegal action, refused
            nat().env_step([cap], np.array([action], dtype=np.int64), obs, mask, status, *extra)
    nat().env_game(cap)
    again = nat().env_load(nat().env_dump(cap), None)
    nat().env_game(again)


@settings(max_examples=examples(3000), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(pick=st.integers(0, 10_000), how=damages, with_generator=st.booleans(), seed=st.integers(0, 2**32 - 1))
def test_a_damaged_copy_is_refused_or_plays_without_fault(pick: int, how: tuple[Any, ...], with_generator: bool,
                                                          seed: int) -> None:
    data, obs_size, n_actions, players = dumps()[pick % len(dumps())]
    owner = np.random.PCG64(seed) if with_generator else None
    try:
        cap = nat().env_load(damage(data, how), owner)
    except ValueError as e:
        assert "damaged" in str(e) or "another build" in str(e), str(e)
        event(f"{how[0]}: refused")
        return
    event(f"{how[0]}: loaded and played")
    exercise(cap, obs_size, n_actions, players, np.random.default_rng(seed), with_generator)


def test_the_undamaged_copies_load_and_play() -> None:
    """The fuzz's sources are good copies: each loads and plays (so a refusal above is the damage's)."""
    for k, (data, obs_size, n_actions, players) in enumerate(dumps()):
        exercise(nat().env_load(data, None), obs_size, n_actions, players, np.random.default_rng(k), False)
    assert len(dumps()) == 15 * len(VARIANTS)


def test_the_map_names_every_field() -> None:
    """The fuzz's map of a dump is the core's, and it points where the values are."""
    head, sizes, fields = layout()
    assert head == HEAD and list(sizes) == SECTIONS and sorted(fields) == sorted(FIELDS)
    env = DiceEnv(players=3, seat=2)
    env.reset(seed=5)
    rng = np.random.default_rng(5)
    for _ in range(3):
        assert not env.step(int(rng.choice(np.flatnonzero(env.action_masks()))))[2]
    assert env._fast is not None
    data = nat().env_dump(env._fast.capsule)

    def read(name: str, element: int = 0, inner: int = 0) -> int:
        return field_value(data, name, element, inner)

    game = env.game
    assert (read("w"), read("h"), read("nplayers"), read("seat")) == (10, 20, 3, 2)
    assert (read("n_actions"), read("obs_size")) == (env.codec.n_actions, env.codec.obs_size)
    assert [read("supply", s) for s in range(len(game.rules.shapes))] == [game.supply[s] for s in game.rules.shapes]
    assert read("turn") == game.turn and read("to_move") == game.to_move
    stones = sorted(game.board.stones.values(), key=lambda st_: st_.number)
    assert read("nstones") == len(stones) > 0
    for i, stone in enumerate(stones):
        assert read("stone.number", i) == stone.number
        assert {(read("stone.x", i, c), read("stone.y", i, c)) for c in range(read("stone.n", i))} == set(stone.cells)
    assert read("nmoves") == len(game.moves) and read("move.player", len(game.moves) - 1) == game.moves[-1].player


def horizontal_piece(data: bytes) -> int:
    """The map's element (8 * shape + orientation) of a piece one row high, of 2 cells or more."""
    for s in range(field_value(data, "nshapes")):
        for k in range(field_value(data, "nos", s)):
            if field_value(data, "os.oh", 8 * s + k) == 1 and field_value(data, "os.n", 8 * s + k) > 1:
                return 8 * s + k
    raise AssertionError("no such piece")


@pytest.mark.parametrize("case", ["a cell twice", "a row of ids wider than the board", "an unread token of no shape",
                                  "a reset's supply past the counts", "a move at x = INT_MAX",
                                  "token ids from INT_MAX"])
def test_what_the_fuzz_found_is_refused(case: str) -> None:
    """The defects the fuzz found, one example each; every one loaded on the code before the fix
    (and then faulted under the sanitizers: a shift past 64 bits decoding an id of the wider row,
    an int overflow adding the supply; the copy with a cell twice played, and its own copy then
    failed to load: "two stones on one cell"; the checks themselves overflowed, a move's x + width
    and the token ids' base + shapes)."""
    data = next(d for d, *_ in dumps() if field_value(d, "nmoves") > 0)
    assert field_value(data, "ntok") < 4
    how = {
        "a cell twice": ("field", "os.dx", horizontal_piece(data), 0, False, "copy", (None, 1)),
        "a row of ids wider than the board": ("field", "form_row", 0, 0, True, "add", 1),
        "an unread token of no shape": ("field", "tok", 3, 0, False, "set", 64),
        "a reset's supply past the counts": ("field", "fresh_supply", 0, 0, True, "set", 2**31 - 1),
        "a move at x = INT_MAX": ("field", "move.x", 0, 0, False, "set", 2**31 - 1),
        "token ids from INT_MAX": ("field", "token_base", 0, 0, False, "set", 2**31 - 1),
    }[case]
    damaged = damage(data, ("fields", [how]))
    assert damaged != data
    if case == "a cell twice":
        element = horizontal_piece(data)
        assert field_value(damaged, "os.dx", element, 0) == field_value(damaged, "os.dx", element, 1)
    with pytest.raises(ValueError, match="the copy's bytes are damaged"):
        nat().env_load(damaged, np.random.PCG64(1))


# ------------------------------------------------------------------ damaged positions from Python


@functools.cache
def positions() -> list[tuple[tuple[Any, ...], tuple[Any, ...], int]]:
    """Real positions with the die showing: (kernel rules, kernel state, players)."""
    found = []
    for k, kwargs in enumerate(VARIANTS):
        players = kwargs.get("players", 2)
        game = DiceGame([f"p{i}" for i in range(players)], kwargs.get("rules"), seed=k)
        rules = fastdice.kernel_rules(game.rules, players, WEIGHTS)
        bot = make_bot("random", seed=k)
        for _ in range(12):
            game.roll()
            if game.over:
                break
            found.append((rules, fastdice.kernel_state(game), players))
            view = game.view()
            game.act(view.complete(bot.choose_dice(view)))
    return found


values = st.one_of(st.sampled_from(EXTREMES), st.integers(-(2**40), 2**40), st.sampled_from([2**31, 2**32 + 1, 2**63]))


def near(current: Any) -> Any:
    """Another value for ``current``: any of ``values``, or (an int) a step or three away."""
    if isinstance(current, int):
        return st.one_of(values, st.sampled_from([-3, -2, -1, 1, 2, 3]).map(lambda d: current + d))
    return values


def damaged_spec(draw: st.DrawFn, spec: bytes) -> bytes:
    """A piece's orientations (n, width, height, then x y per cell, for each) with a byte changed:
    a small number (a count, a size, a coordinate), 255, or another byte of the spec (a cell
    given another's coordinate: a cell twice)."""
    out = bytearray(spec)
    at = draw(st.integers(0, len(out) - 1))
    out[at] = draw(st.one_of(st.integers(0, 9), st.just(255), st.sampled_from(sorted(set(spec)))))
    if draw(st.booleans()):  # or cut short / grown by a byte
        out = out[:-1] if draw(st.booleans()) else out + bytes([draw(st.integers(0, 9))])
    return bytes(out)


@st.composite
def damaged_states(draw: st.DrawFn) -> tuple[tuple[Any, ...], tuple[Any, ...], int, str]:
    """(rules, state, players, what was damaged) of a real position, one thing in it damaged."""
    rules, state, players = draw(st.sampled_from(positions()))
    if draw(st.integers(0, 3)) == 0:  # the rules: a piece's cells, or a number of them
        rules = list(rules)
        field = draw(st.sampled_from([0, 1, 2, 3, 3, 3, 4, 5, 6, 7, 8]))
        if field == 3:
            specs = list(rules[3])
            k = draw(st.integers(0, len(specs) - 1))
            specs[k] = damaged_spec(draw, specs[k])
            rules[3] = tuple(specs)
        elif field == 4:
            rules[4] = damaged_spec(draw, rules[4])  # the die's faces (shape indices, 255: '*')
        else:
            rules[field] = draw(near(rules[field]))
        return tuple(rules), state, players, "rules"
    state = list(state)
    field = draw(st.integers(0, len(state) - 1))
    if field == 0 and state[0]:
        stones = list(state[0])
        i = draw(st.integers(0, len(stones) - 1))
        stone = list(stones[i])
        part = draw(st.integers(0, 4))
        if part < 3:
            stone[part] = draw(near(stone[part]))
        elif part == 3:
            stone[3] = damaged_spec(draw, stone[3]) if draw(st.booleans()) else draw(st.binary(max_size=12))
        else:
            stones.append(tuple(stone))  # a stone twice
        stones[i] = tuple(stone) if part < 4 else stones[i]
        state[0] = stones
    elif field in (2, 3, 4):
        counts = list(state[field])
        k = draw(st.integers(0, len(counts) - 1))
        counts[k] = draw(near(counts[k]))
        state[field] = tuple(counts)
    elif field == 11:
        words = list(state[11])
        k = draw(st.sampled_from([0, 100, 623, 624]))
        words[k] = draw(near(words[k]))
        state[11] = tuple(words)
    else:
        state[field] = draw(near(state[field]))
    return rules, tuple(state), players, "state"


@settings(max_examples=examples(2000), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=damaged_states(), policy=st.integers(0, 2))
def test_a_damaged_position_is_refused_or_played_without_fault(case: tuple[Any, ...], policy: int) -> None:
    """Refused, or played; and what the kernel then holds it loads again, as it stored it."""
    rules, state, players, what = case
    params = fastdice._params(ExpertBot().kernel_params())
    seats, rngs = bytes([policy]) * players, (0,) * players
    try:
        _, after, _ = nat().dice_playout(rules, state, seats, rngs, 30, params)
    except (ValueError, OverflowError, TypeError) as e:
        event(f"{what}: refused ({type(e).__name__})")
    else:
        event(f"{what}: played")
        assert nat().dice_playout(rules, after, seats, rngs, 0, params)[1] == after
    with contextlib.suppress(ValueError, OverflowError, TypeError):
        nat().expert_decide(rules, state, params)
