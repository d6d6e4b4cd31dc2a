"""Where bots think: off the event loop, within a time budget.

Built-in bots think in worker processes (CPU-bound Python in a thread would hold the interpreter
lock against the event loop), the timer bot in a thread (it must move at once and thinks
little), an external program in a thread that waits on its pipe, one question at a time. The
worker processes also replay uploaded records. A spawned worker imports the plug-in games
(``TABLETRIS_GAMES``) before its first job, so it serves every game the server does.
"""

from __future__ import annotations

import asyncio
import multiprocessing
import secrets
import threading
import weakref
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor
from typing import Any

from tabletris.bots.base import Bot
from tabletris.bots.registry import make_bot
from tabletris.engine.games import load_plugins
from tabletris.server.games import adapter_for
from tabletris.server.limits import Limits
from tabletris.server.seats import TIMER_BOT


def bot_move_in_worker(
    game_name: str, bot_name: str, seed: int, strength: float | None, view: Any, seat: int
) -> dict[str, Any]:
    """A built-in bot's move, in a worker process: bots are CPU-bound Python, and in a thread
    they would hold the interpreter lock against the event loop (expert bots on a 20x40 board
    made the lobby wait 0.8 s). The bot is made afresh for each move; the view carries the game."""
    return adapter_for(game_name).bot_move(view, seat, make_bot(bot_name, seed=seed, strength=strength))


def _one_at_a_time(lock: threading.Lock, fn: Callable[..., Any], *args: Any) -> Any:
    """``fn(*args)`` holding ``lock``: an external bot is one program behind one pipe, so a
    question still running after its budget must end before the next one (or the stop) starts."""
    with lock:
        return fn(*args)


def _worker_ready() -> bool:
    """Run once in each new worker: the imports are done when it answers."""
    return True


class BotPool:
    """The threads and worker processes bots think in, shared by every room of a lobby."""

    def __init__(self, limits: Limits) -> None:
        self.limits = limits
        self._pool = ThreadPoolExecutor(max_workers=4, thread_name_prefix="tabletris-bot")
        self._procs: ProcessPoolExecutor | None = None
        self._bot_locks: weakref.WeakKeyDictionary[Bot, threading.Lock] = weakref.WeakKeyDictionary()
        self._procs_ready: asyncio.Future[Any] | None = None

    async def workers(self) -> ProcessPoolExecutor:
        """The worker processes for bots and replays, started on first use; the first caller
        waits for them to be up (imports take a second or two), outside any time budget."""
        if self._procs is None:
            self._procs = ProcessPoolExecutor(
                max_workers=2, mp_context=multiprocessing.get_context("spawn"), initializer=load_plugins
            )
            loop = asyncio.get_running_loop()
            self._procs_ready = asyncio.ensure_future(
                asyncio.gather(*(loop.run_in_executor(self._procs, _worker_ready) for _ in range(2)))
            )
        if self._procs_ready is not None:
            await asyncio.shield(self._procs_ready)
        return self._procs

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
        elif name == TIMER_BOT:
            # The timer bot must move at once (never wait for workers to start) and thinks
            # little: a random legal move, in a thread.
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
        """Stop the threads and worker processes (the lobby is closing)."""
        self._pool.shutdown(wait=False, cancel_futures=True)
        if self._procs is not None:
            self._procs.shutdown(wait=False, cancel_futures=True)


__all__ = ["BotPool", "bot_move_in_worker"]
