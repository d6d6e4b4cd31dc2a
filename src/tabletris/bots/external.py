"""External bots: a program in any language plays through JSON lines on its stdin and stdout.

``make_bot("ext:./mybot")`` (so ``--seats ext:./mybot,expert`` in ``play``, ``simulate`` and
server rooms) starts ``./mybot`` on the first decision and asks it for every decision of its
seat. The protocol is ``docs/external-bots.md``; ``examples/random_bot.py`` is a complete bot.

The table never trusts the program: every answer is checked against the engine on a copy of
the bot's view before it is returned, so a bad answer cannot touch the game. A bot that
crashes, does not answer within ``timeout`` seconds, prints something that is not a JSON
answer, or answers with an illegal move gets an ``ExternalBotError`` that says which and why;
then the ``fallback`` bot (made by the factory it was given; the registry's ``make_bot`` gives
``random`` by default) takes the seat for the rest of the game, or, with no fallback,
``BotForfeit`` is raised to the caller, which ends the game its own way (the game itself is
untouched). This module knows no registry: the caller decides the fallback, as ``chess.engine``
leaves policy to its caller.

Defaults can be set from the environment, since a seat string has no room for options:
``TABLETRIS_EXT_TIMEOUT`` (seconds, default 10) and ``TABLETRIS_EXT_FALLBACK`` (a bot name or
``forfeit``).
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import queue
import shlex
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import weakref
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import IO, Any

from tabletris.bots.base import Bot
from tabletris.engine.dice import DiceAction, DiceGame
from tabletris.engine.errors import IllegalMove
from tabletris.engine.tower import TowerAction, TowerGame

PROTOCOL = 1
PREFIX = "ext:"
DEFAULT_TIMEOUT = 10.0
FORFEIT = "forfeit"
STDERR_TAIL = 400
"""Characters of the program's standard error quoted in a crash message."""

log = logging.getLogger(__name__)


class ExternalBotError(RuntimeError):
    """An external bot failed: crashed, timed out, sent garbage or an illegal move."""


class BotForfeit(ExternalBotError):
    """An external bot failed and its seat forfeits (``fallback="forfeit"``); nothing was played."""


def _cells(cells: Any) -> list[list[int]]:
    return [[int(x), int(y)] for x, y in cells]


def _cell_set(raw: Any, what: str) -> frozenset[tuple[int, int]]:
    if not isinstance(raw, list) or not all(
        isinstance(c, list) and len(c) == 2 and all(isinstance(v, int) and not isinstance(v, bool) for v in c)
        for c in raw
    ):
        raise ValueError(f"'{what}' must be a list of [x, y] integer pairs, got {json.dumps(raw)[:80]}")
    return frozenset((c[0], c[1]) for c in raw)


# ----------------------------------------------------------- what bots see


def dice_request(game: DiceGame) -> tuple[dict[str, Any], list[DiceAction]]:
    """The JSON request for the pending roll of ``game`` (a view) and the options it lists."""
    options = game.turn_options()
    board = game.board
    state = {
        "players": list(game.players),
        "seat": game.to_move,
        "turn": game.turn,
        "roll": game.roll_face,
        "scores": list(game.scores),
        "supply": {s.value: k for s, k in game.supply.items()},
        "rules": game.rules.to_dict(),
        "board": {
            "width": board.width,
            "height": board.height,
            "rows": board.rows(),
            "stones": game.public_state()["stones"],
        },
    }
    listed = [
        {
            "shape": o.shape.value,
            "take": None if o.take is None else _cells(o.take.cells),
            "place": _cells(o.placement.cells),
            "rows": len(game.scoring_rows_after(o.placement, o.take)),
        }
        for o in options
    ]
    return {"type": "dice", "state": state, "options": listed}, options


def tower_request(view: TowerGame, seat: int) -> tuple[dict[str, Any], list[TowerAction]]:
    """The JSON request for ``seat``'s decision this round and the (mino-free) options it lists."""
    options = [TowerAction.drop(p) for p in view.legal_drops(seat)]
    if view.can_hold(seat):
        options.append(TowerAction.holding())
    tower = view.towers[seat]
    state = view.public_state()
    state["seat"] = seat
    state["players"] = list(view.players)
    state["rules"] = view.rules.to_dict()
    state["icons"] = {
        "bonus": [{"cell": list(c), "shape": s.value} for c, s in tower.layout.bonus.items()],
        "diamonds": [list(c) for c in sorted(tower.layout.diamonds)],
    }
    listed = [a.to_dict() for a in options]
    return {"type": "tower", "state": state, "minos": tower.minos, "options": listed}, options


# --------------------------------------------------------------- the process


def resolve_command(command: str) -> list[str]:
    """The argv for ``command``: a path or a command line; a ``.py`` file runs with this Python."""
    try:
        argv = shlex.split(command)
    except ValueError as e:
        raise ValueError(f"ext: cannot parse the command {command!r}: {e}") from None
    if not argv:
        raise ValueError("ext: needs a program, e.g. ext:./mybot or ext:'python3 bot.py'")
    program = argv[0]
    path = Path(program)
    if path.is_file():
        if not os.access(path, os.X_OK) or path.suffix == ".py":
            if path.suffix != ".py":
                raise ValueError(f"ext: {program} is not executable (chmod +x it, or name an interpreter)")
            return [sys.executable, str(path), *argv[1:]]
        return [str(path), *argv[1:]]
    if ("/" in program or os.sep in program) or shutil.which(program) is None:
        raise ValueError(f"ext: program {program!r} not found")
    return argv


class BotProcess:
    """One running bot program: send a JSON line, read a JSON line back within a deadline."""

    def __init__(self, argv: list[str], label: str) -> None:
        self.label = label
        # Kept open for the process's life (closed by _stop), so not a with-block.
        self.stderr: IO[str] = tempfile.TemporaryFile("w+", encoding="utf-8", errors="replace")  # noqa: SIM115
        try:
            self.proc = subprocess.Popen(
                argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=self.stderr,
                text=True,
                encoding="utf-8",
                errors="replace",
                bufsize=1,
            )
        except OSError as e:
            self.stderr.close()
            raise ExternalBotError(f"{label}: cannot start {argv[0]}: {e.strerror or e}") from None
        self.lines: queue.Queue[str | None] = queue.Queue()
        stdout = self.proc.stdout
        assert stdout is not None
        self._reader = threading.Thread(target=self._read, args=(stdout,), daemon=True)
        self._reader.start()
        self._finalizer = weakref.finalize(self, _stop, self.proc, self.stderr)

    def _read(self, stdout: IO[str]) -> None:
        for line in stdout:
            self.lines.put(line)
        self.lines.put(None)

    def stderr_tail(self) -> str:
        try:
            self.stderr.flush()
            self.stderr.seek(0)
            text = self.stderr.read()
            self.stderr.seek(0, os.SEEK_END)
        except (OSError, ValueError):
            return ""
        text = text.strip()
        return text[-STDERR_TAIL:]

    def _died(self) -> ExternalBotError:
        try:
            code = self.proc.wait(timeout=1.0)
        except subprocess.TimeoutExpired:
            code = None
        tail = self.stderr_tail()
        why = "closed its output" if code is None else f"exited with status {code}"
        return ExternalBotError(f"{self.label} crashed: it {why}" + (f"; its last words: {tail}" if tail else ""))

    def ask(self, message: dict[str, Any], timeout: float) -> dict[str, Any]:
        """Send ``message``; the first line back must be a JSON object. Errors say what failed."""
        stdin = self.proc.stdin
        assert stdin is not None
        try:
            stdin.write(json.dumps(message, separators=(",", ":")) + "\n")
            stdin.flush()
        except (BrokenPipeError, OSError, ValueError):
            raise self._died() from None
        deadline = time.monotonic() + timeout
        try:
            line = self.lines.get(timeout=max(0.0, deadline - time.monotonic()))
        except queue.Empty:
            self.stop()
            raise ExternalBotError(
                f"{self.label} timed out: no answer to {message.get('type')} request "
                f"{message.get('id')} within {timeout:g} s"
            ) from None
        if line is None:
            raise self._died()
        try:
            answer = json.loads(line)
        except json.JSONDecodeError:
            raise ExternalBotError(
                f"{self.label} sent garbage: {line.strip()[:80]!r} is not a JSON object "
                "(print logs to standard error, answers to standard output)"
            ) from None
        if not isinstance(answer, dict):
            raise ExternalBotError(f"{self.label} sent garbage: {line.strip()[:80]!r} is not a JSON object")
        return answer

    def stop(self) -> None:
        self._finalizer()

    @property
    def alive(self) -> bool:
        return self.proc.poll() is None


def _stop(proc: subprocess.Popen[str], stderr: IO[str]) -> None:
    """Ask the program to quit, then make sure it has; never raises (also runs at exit)."""
    try:
        if proc.poll() is None and proc.stdin is not None:
            try:
                proc.stdin.write('{"type":"quit"}\n')
                proc.stdin.flush()
                proc.stdin.close()
            except (OSError, ValueError):
                pass
            try:
                proc.wait(timeout=1.0)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(timeout=5.0)
    except Exception:  # the interpreter may be shutting down
        pass
    finally:
        with contextlib.suppress(Exception):
            stderr.close()


# ---------------------------------------------------------------- the bot


class ExternalBot(Bot):
    """A seat played by an outside program over the JSON-lines protocol (see the module docstring)."""

    name = "ext"

    def __init__(
        self,
        command: str,
        seed: int | None = None,
        strength: float | None = None,
        budget: float | None = None,
        timeout: float | None = None,
        fallback: Callable[[], Bot] | None = None,
    ) -> None:
        super().__init__(seed=seed, strength=strength, budget=budget)
        self.command = command
        self.name = f"{PREFIX}{command}"
        self.argv = resolve_command(command)
        if timeout is None:
            timeout = float(os.environ.get("TABLETRIS_EXT_TIMEOUT", DEFAULT_TIMEOUT))
            if budget is not None:
                timeout = max(timeout, 2 * budget + 1)
        if timeout <= 0:
            raise ValueError(f"ext: timeout must be positive, got {timeout}")
        self.timeout = timeout
        self.fallback = fallback
        self.seed = seed
        self.errors: list[str] = []
        """Every failure so far, in words (the fallback's reason)."""
        self.process: BotProcess | None = None
        self.replacement: Bot | None = None
        self._next_id = 0

    # ---------------------------------------------------------- plumbing

    def _start(self) -> BotProcess:
        if self.process is not None and self.process.alive:
            return self.process
        if self.process is not None:
            raise ExternalBotError(f"{self.name} is no longer running")
        process = BotProcess(self.argv, self.name)
        self.process = process
        hello = {
            "type": "hello",
            "protocol": PROTOCOL,
            "id": self._take_id(),
            "seed": self.seed,
            "strength": self.strength,
            "budget": self.budget,
            "timeout": self.timeout,
        }
        answer = process.ask(hello, self.timeout)
        if answer.get("type") != "ready":
            raise ExternalBotError(
                f"{self.name} sent garbage: expected {{\"type\": \"ready\"}} after hello, got {json.dumps(answer)[:80]}"
            )
        return process

    def _take_id(self) -> int:
        self._next_id += 1
        return self._next_id

    def _ask(self, request: dict[str, Any]) -> dict[str, Any]:
        process = self._start()
        request = {**request, "id": self._take_id()}
        answer = process.ask(request, self.timeout)
        if answer.get("id") != request["id"]:
            raise ExternalBotError(
                f"{self.name} sent garbage: answer id {answer.get('id')!r}, expected {request['id']}"
            )
        return answer

    def _fail(self, error: ExternalBotError) -> Bot:
        """Record ``error``, stop the program, and hand the seat over (or forfeit)."""
        self.errors.append(str(error))
        if self.process is not None:
            self.process.stop()
        if self.fallback is None:
            raise BotForfeit(f"{error}; the seat forfeits") from None
        self.replacement = self.fallback()
        log.warning("%s; %s takes the seat", error, self.replacement.name)
        return self.replacement

    def close(self) -> None:
        """Stop the program (it is sent ``{"type": "quit"}`` first)."""
        if self.process is not None:
            self.process.stop()

    # ---------------------------------------------------------- decisions

    def choose_dice(self, game: DiceGame) -> DiceAction:
        if self.replacement is not None:
            return self.replacement.choose(game)
        try:
            return self._dice(game)
        except ExternalBotError as e:
            return self._fail(e).choose(game)

    def _dice(self, game: DiceGame) -> DiceAction:
        request, options = dice_request(game)
        answer = self._ask(request)
        try:
            if "option" in answer:
                index = answer["option"]
                if not isinstance(index, int) or isinstance(index, bool) or not 0 <= index < len(options):
                    raise ValueError(f"option {index!r} is not one of 0-{len(options) - 1}")
                option = options[index]
            else:
                option = self._match_dice(answer, options)
            rewards = answer.get("rewards")
            if rewards is not None and not isinstance(rewards, list):
                raise ValueError("'rewards' must be a list of \"point\" or {\"remove\": cells}")
            decision = game.complete(replace(option, rewards=None if rewards is None else tuple(rewards)))
            game.view().act(decision)
        except (ValueError, TypeError, KeyError, IllegalMove) as e:
            raise ExternalBotError(f"{self.name} made an illegal move: {e}") from None
        return decision

    @staticmethod
    def _match_dice(answer: dict[str, Any], options: list[DiceAction]) -> DiceAction:
        if "place" not in answer:
            raise ValueError("an answer names an 'option' or gives 'place' (and 'shape'/'take' if needed)")
        place = _cell_set(answer["place"], "place")
        take = None if answer.get("take") is None else _cell_set(answer["take"], "take")
        shape = answer.get("shape")
        for option in options:
            t = option.take
            if shape is not None and str(shape).upper() != option.shape.value:
                continue
            if frozenset(option.placement.cells) != place:
                continue
            if (t is None) != (take is None) or (t is not None and frozenset(t.cells) != take):
                continue
            return option
        raise ValueError(
            f"place {sorted(place)} (shape {shape}, take {None if take is None else sorted(take)}) "
            "is not a legal placement for this roll"
        )

    def choose_tower(self, view: TowerGame) -> TowerAction:
        if self.replacement is not None:
            return self.replacement.choose(view)
        try:
            return self._tower(view)
        except ExternalBotError as e:
            return self._fail(e).choose(view)

    def _tower(self, view: TowerGame) -> TowerAction:
        seat = view.viewer
        if seat is None or seat < 0:
            raise ValueError("choose_tower needs a seat's view (TowerGame.view(seat))")
        request, options = tower_request(view, seat)
        answer = self._ask(request)
        try:
            if "option" in answer:
                index = answer["option"]
                if not isinstance(index, int) or isinstance(index, bool) or not 0 <= index < len(options):
                    raise ValueError(f"option {index!r} is not one of 0-{len(options) - 1}")
                action = options[index]
            else:
                action = TowerAction.from_dict({k: v for k, v in answer.items() if k not in ("id", "type")}, "answer")
            view.preview(seat, action)
        except (ValueError, TypeError, IllegalMove) as e:
            raise ExternalBotError(f"{self.name} made an illegal move: {e}") from None
        return action


def allowed_commands() -> list[str]:
    """External bot names a server operator allows in rooms (``TABLETRIS_EXT_ALLOW``).

    A room's seats come from remote clients, and an ``ext:`` seat runs a program on the server,
    so a server must only accept the commands its operator listed: ``TABLETRIS_EXT_ALLOW`` holds
    them comma-separated (``ext:./bots/mybot,ext:./bots/other``). Empty by default.
    """
    raw = os.environ.get("TABLETRIS_EXT_ALLOW", "")
    return [item.strip() for item in raw.split(",") if item.strip().startswith(PREFIX)]
