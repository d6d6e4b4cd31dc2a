"""Where bots think: off the event loop, within a time budget.

Built-in bots think in worker processes (CPU-bound Python in a thread would hold the interpreter
lock against the event loop), an external program in a thread that waits on its pipe, one
question at a time. A quick bot (``Bot.quick``: the random bot, which is also the timer bot)
chooses on the event loop: its draw costs about 0.1 ms, where pickling the seat's view for a
worker process alone cost 0.3 ms of the loop's time. The
worker processes also replay uploaded records. A spawned worker imports the plug-in games
(``TABLETRIS_GAMES``) before its first job, so it serves every game the server does.
"""

from __future__ import annotations

import asyncio
import gc
import json
import logging
import multiprocessing
import multiprocessing.connection
import os
import secrets
import threading
import time
import weakref
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor
from typing import Any

from tabletris.bots.base import Bot
from tabletris.bots.registry import BOTS, make_bot
from tabletris.engine.errors import IllegalMove, RecordError, RulesError
from tabletris.engine.games import load_plugins
from tabletris.engine.records import check_common, load
from tabletris.i18n import _
from tabletris.server.errors import ActionError
from tabletris.server.games import adapter_for
from tabletris.server.limits import Limits
from tabletris.server.seats import TIMER_BOT

log = logging.getLogger("tabletris.server")

QUICK_BOTS_KEPT = 64
"""Quick bots kept (``BotPool.move``) before they are all made anew."""


def bot_move_in_worker(
    game_name: str, bot_name: str, seed: int, strength: float | None, view: Any, seat: int
) -> dict[str, Any]:
    """A built-in bot's move, in a worker process: bots are CPU-bound Python, and in a thread
    they would hold the interpreter lock against the event loop (expert bots on a 20x40 board
    made the lobby wait 0.8 s). The bot is made afresh for each move; the view carries the game."""
    return adapter_for(game_name).bot_move(view, seat, make_bot(bot_name, seed=seed, strength=strength))


def replay_text(record: dict[str, Any]) -> str:
    """The replay answer to ``POST /api/replay`` and ``GET .../replay`` as JSON text (runs
    in a worker process: CPU-bound, and its answer is large)."""
    try:
        doc = load(record)
        game = check_common(doc)
        adapter = adapter_for(game)
        summary, frames = adapter.frames(doc)
    except (RecordError, RulesError, IllegalMove) as e:
        raise ActionError("bad_record", str(e)) from None
    except (RecursionError, ValueError, TypeError, KeyError) as e:
        raise ActionError("bad_record", _("the record is malformed: {kind}: {detail}").format(kind=type(e).__name__, detail=str(e)[:200])) from None
    out = {"game": game, "players": list(doc["players"]), "record": doc, "summary": summary, "frames": frames}
    return json.dumps(out, separators=(",", ":"))


def _one_at_a_time(lock: threading.Lock, fn: Callable[..., Any], *args: Any) -> Any:
    """``fn(*args)`` holding ``lock``: an external bot is one program behind one pipe, so a
    question still running after its budget must end before the next one (or the stop) starts."""
    with lock:
        return fn(*args)


def _worker_ready() -> bool:
    """Run once in each new worker: the imports are done when it answers."""
    return True


def _start_worker() -> None:
    """Each worker's initializer: the plug-in games, and (by running from this module) what a
    bot move or a replay needs, so no job pays an import; and a watch on the server."""
    load_plugins()
    parent = multiprocessing.parent_process()
    if parent is not None:
        threading.Thread(target=_end_with, args=(parent.sentinel,), name="tabletris-server-watch", daemon=True).start()


def _end_with(server: int) -> None:
    """End this worker when the server process ends, however it ends. A worker waits for jobs
    on the pool's queue, whose pipe every worker also holds open, so a server killed without
    shutting its pool down (kill -9, the out-of-memory killer) left its workers waiting for
    ever; the parent's sentinel is ready as soon as the server is gone."""
    multiprocessing.connection.wait([server])
    os._exit(0)


class BotPool:
    """The threads and worker processes bots think in, shared by every room of a lobby."""

    def __init__(self, limits: Limits) -> None:
        self.limits = limits
        self._pool = ThreadPoolExecutor(max_workers=4, thread_name_prefix="tabletris-bot")
        self._procs: ProcessPoolExecutor | None = None
        self._bot_locks: weakref.WeakKeyDictionary[Bot, threading.Lock] = weakref.WeakKeyDictionary()
        self._procs_ready: asyncio.Future[Any] | None = None
        self._warming: asyncio.Future[Any] | None = None
        self._quick: dict[tuple[str, float | None], Bot] = {}
        """The quick bots (``Bot.quick``), one per name and strength, seeded once: they keep no
        state between moves, and making one per move (its random generator seeded anew) cost
        a third of its move."""

    async def workers(self) -> ProcessPoolExecutor:
        """The worker processes for bots and replays, started on first use; the first caller
        waits for them to be up (imports take a second or two), outside any time budget."""
        if self._procs is None:
            self._procs = ProcessPoolExecutor(
                max_workers=2, mp_context=multiprocessing.get_context("spawn"), initializer=_start_worker
            )
            loop = asyncio.get_running_loop()
            self._procs_ready = asyncio.ensure_future(
                asyncio.gather(*(loop.run_in_executor(self._procs, _worker_ready) for _ in range(2)))
            )
        if self._procs_ready is not None:
            await asyncio.shield(self._procs_ready)
        return self._procs

    def warm(self) -> None:
        """Start the worker processes now, in the background (the server's start-up): spawned
        workers take seconds to import, and the first replay or bot move would wait for them."""
        task = asyncio.ensure_future(self.workers())
        task.add_done_callback(_log_failure)
        self._warming = task

    def ready(self) -> bool:
        """The worker processes are up (their imports done)."""
        return self._procs_ready is not None and self._procs_ready.done() and not self._procs_ready.cancelled() \
            and self._procs_ready.exception() is None

    async def move(
        self, game_name: str, view: Any, seat: int, name: str, strength: float | None, bot: Bot | None = None
    ) -> dict[str, Any]:
        """A bot's move off the event loop, within ``bot_budget`` (TimeoutError after it):
        built-in bots (``name``) in the worker processes, the timer bot in a thread; an external one (``bot``: a program
        behind pipes, which the bot object holds) in a thread that waits on its pipe."""
        loop = asyncio.get_running_loop()
        budget = self.limits.bot_budget
        if bot is not None:
            job = loop.run_in_executor(
                self._pool, _one_at_a_time, self._lock_of(bot), adapter_for(game_name).bot_move, view, seat, bot
            )
            # An external bot has its own time limit (it is stopped and replaced after it).
            budget = max(budget, float(getattr(bot, "timeout", 0.0)) + 1.0)
        elif getattr(BOTS.get(name), "quick", False):
            # A draw is cheaper here than the view's trip to a worker (the random bot, which is
            # the timer bot: it never waits for the workers to start either).
            quick = self._quick.get((name, strength))
            if quick is None:
                if len(self._quick) >= QUICK_BOTS_KEPT:  # strengths are the rooms' own numbers
                    self._quick.clear()
                quick = self._quick[name, strength] = make_bot(name, seed=secrets.randbits(64), strength=strength)
            return adapter_for(game_name).bot_move(view, seat, quick)
        elif name == TIMER_BOT:
            # The timer bot must move at once (never wait for workers to start) and thinks
            # little: in a thread.
            job = loop.run_in_executor(
                self._pool, bot_move_in_worker, game_name, name, secrets.randbits(64), strength, view, seat
            )
        else:
            job = loop.run_in_executor(
                await self.workers(), bot_move_in_worker, game_name, name, secrets.randbits(64), strength, view, seat
            )
        result: dict[str, Any] = await asyncio.wait_for(job, budget)
        return result

    async def think_long(self, fn: Callable[..., Any], *args: Any) -> Any:
        """``fn(*args)`` in a worker process (replays: CPU-bound, and their answer is large)."""
        loop = asyncio.get_running_loop()
        return await asyncio.wait_for(loop.run_in_executor(await self.workers(), fn, *args), 60.0)

    def _lock_of(self, bot: Bot) -> threading.Lock:
        lock = self._bot_locks.get(bot)
        if lock is None:
            lock = self._bot_locks[bot] = threading.Lock()
        return lock

    def close(self, bots: list[Bot]) -> None:
        """Stop bots that hold a process (external ones), off the loop: stopping waits for it
        (and for a question still running)."""
        closable = [b for b in bots if callable(getattr(b, "close", None))]
        if closable:
            loop = asyncio.get_running_loop()
            for bot in closable:
                loop.run_in_executor(self._pool, _one_at_a_time, self._lock_of(bot), bot.close)  # type: ignore[attr-defined]

    def shutdown(self) -> None:
        """Stop the threads and worker processes (the lobby is closing), and wait for the
        workers to exit: the pool's queues hold five named semaphores, released only when the
        pool is collected, and a server stopped by SIGTERM (which uvicorn raises again once it
        has shut down) would otherwise leave them to the resource tracker ("leaked semaphore
        objects" on every stop). A worker still busy after a few seconds is terminated."""
        self._pool.shutdown(wait=False, cancel_futures=True)
        procs, self._procs = self._procs, None
        if self._warming is not None:
            self._warming.cancel()
            self._warming = None
        if self._procs_ready is not None:
            self._procs_ready.cancel()
            self._procs_ready = None
        if procs is None:
            return
        processes = list((getattr(procs, "_processes", None) or {}).values())
        procs.shutdown(wait=False, cancel_futures=True)
        end = time.monotonic() + 3.0
        for process in processes:
            process.join(max(0.0, end - time.monotonic()))
            if process.is_alive():
                process.terminate()
                process.join(1.0)
        procs.shutdown(wait=True)
        del procs, processes
        gc.collect()  # the queues' semaphores are unlinked by their finalizers, now


def _log_failure(task: asyncio.Future[Any]) -> None:
    if not task.cancelled() and task.exception() is not None:
        log.error("the bot and replay worker processes did not start: %s", task.exception())


__all__ = ["BotPool", "bot_move_in_worker", "replay_text"]
