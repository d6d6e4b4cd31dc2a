"""The FastAPI application: the lobby, and the routers that serve it.

``create_app(db_url)`` builds an app around one ``Lobby``; the lobby is opened in the app's
lifespan, which replays every live stored room, so a server restarted after a crash resumes
every game where its last acknowledged move left it. The routes are in their own modules: the
HTTP API (``api``), the pages and catalogs (``pages``), the websocket protocol (``sockets``)
and the operations checks (``ops``); what every request passes first is ``guard``.

Every limit is in ``server/limits.py`` and answered with ``{"error": CODE, "message": TEXT}``.
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from pathlib import Path

from fastapi import FastAPI

from tabletris.server.accounts.core import Accounts
from tabletris.server.accounts.routes import accounts_router
from tabletris.server.api import api_router, install_error_handlers, install_openapi
from tabletris.server.bus import Bus, LocalBus, RedisBus
from tabletris.server.errors import STATUS, error_body
from tabletris.server.guard import Guard, uvicorn_options
from tabletris.server.leases import Leases, LocalLeases, RedisLeases
from tabletris.server.limits import Limits
from tabletris.server.lobby import Lobby
from tabletris.server.logs import install_log_redaction
from tabletris.server.mail.config import MailConfig
from tabletris.server.mail.routes import mail_router
from tabletris.server.mail.sender import Mailer
from tabletris.server.me_api import me_router
from tabletris.server.ops import (
    GC_THRESHOLDS,
    DatabaseCheck,
    ReadyCheck,
    RedisCheck,
    ops_router,
    paced_gc,
)
from tabletris.server.pages import STATIC, StaticFiles, pages_router
from tabletris.server.players_api import players_router
from tabletris.server.playnow import PlayNow, queue_router
from tabletris.server.sockets import socket_router
from tabletris.server.storage import Storage
from tabletris.server.tutorials import tutorial_router
from tabletris.server.your_games import your_games_router


def default_db_url() -> str:
    """``TABLETRIS_DB`` if set, else ``tabletris.sqlite3`` in the current directory."""
    return os.environ.get("TABLETRIS_DB") or "sqlite+aiosqlite:///" + str(Path("tabletris.sqlite3").resolve())


def create_app(
    db_url: str | None = None,
    bot_delay: float = 0.4,
    limits: Limits | None = None,
    origins: Sequence[str] = (),
    redis_url: str | None = None,
    lease_ttl: float = 5.0,
    metrics_token: str | None = None,
    warm_workers: bool = True,
    mail: MailConfig | None = None,
    debug_time: bool = False,
    commit_delay: float | None = None,
) -> FastAPI:
    """The server application, storing its rooms at ``db_url`` (see ``default_db_url``).

    ``limits``: see ``server/limits.py``. ``origins``: websocket origins allowed besides the
    server's own (``https://table.example`` behind a proxy that rewrites the Host header).
    ``redis_url``: one of several instances sharing the database: room changes fan out through
    Redis pub/sub, and bots and timers run under Redis leases of ``lease_ttl`` seconds
    (docs/api.md, "Several instances").
    ``metrics_token``: a bearer token that opens ``/metrics`` to other machines (default
    ``$TABLETRIS_METRICS_TOKEN``; without one, only this machine may read it: see ``ops``).
    ``warm_workers``: start the bot and replay worker processes at start-up, in the background
    (off: on first use).
    ``mail``: the SMTP server and From address of the your-turn mail (``server/mail``); None:
    the server sends no mail. ``debug_time``: tests may move this server's clocks ahead
    (``POST /debug/time`` from this machine; ``server/timesource.py``). ``commit_delay``:
    seconds a commit waits for more writes when they come often (None: ``storage.COMMIT_DELAY``)."""
    limits = limits or Limits()
    storage = Storage(db_url or default_db_url(), commit_delay=commit_delay)
    bus: Bus = LocalBus()
    leases: Leases = LocalLeases(lease_ttl)
    if redis_url:
        bus = RedisBus(redis_url)
        leases = RedisLeases(redis_url, bus.instance, lease_ttl)
    lobby = Lobby(storage, bot_delay=bot_delay, limits=limits, bus=bus, leases=leases)
    mailer = None if mail is None else Mailer(storage, mail, lobby.rooms, lobby.spawn, lobby.metrics)
    playnow = PlayNow(lobby, limits)
    install_log_redaction()

    database_check = DatabaseCheck(storage)
    redis_check = RedisCheck(redis_url) if redis_url else None
    ready_checks: dict[str, ReadyCheck] = {"database": database_check}
    if redis_check is not None:
        ready_checks["redis"] = redis_check

    @asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        await lobby.open()
        if mailer is not None:
            await mailer.start()
            lobby.turn_watchers.append(mailer.turn_began)
        if warm_workers:
            lobby.bots.warm()  # the bot and replay workers start now, not on the first replay
        database_check.remember()
        playnow.start()
        try:
            with paced_gc():
                yield
        finally:
            if mailer is not None:
                await mailer.close()
            await playnow.stop()
            await lobby.close()
            if redis_check is not None:
                await redis_check.close()

    app = FastAPI(
        title="tabletris",
        version="1",
        summary="The online table for the dice and tower Tetris games.",
        description="Rooms, seats with secret tokens, moves checked by the game engine, records and replays. "
        "Live play uses the websocket at /ws/{room_id}; see docs/api.md.",
        lifespan=lifespan,
        # No /docs or /redoc: FastAPI's pages load Swagger UI and ReDoc from a CDN, third-party
        # script on the origin that keeps seat tokens. The OpenAPI document stays.
        docs_url=None,
        redoc_url=None,
    )
    app.state.lobby = lobby
    app.state.accounts = Accounts(storage, limits, origins)
    app.state.mailer = mailer
    app.state.playnow = playnow
    app.state.ready_checks = ready_checks
    """What ``/readyz`` asks, by name; a component added later (a Redis bus) registers its own."""
    app.add_middleware(Guard, limits=limits, ledger=lobby.ledger)
    install_error_handlers(app)
    install_openapi(app, limits)
    app.include_router(ops_router(
        lobby, ready_checks, metrics_token or os.environ.get("TABLETRIS_METRICS_TOKEN") or None, debug_time=debug_time,
    ))
    app.include_router(api_router(lobby, limits))
    app.include_router(accounts_router())
    app.include_router(mail_router())
    app.include_router(players_router(storage))
    app.include_router(queue_router())
    app.include_router(me_router(lobby))
    app.include_router(your_games_router(lobby))
    app.include_router(pages_router())
    app.include_router(tutorial_router())
    app.mount("/static", StaticFiles(directory=STATIC), name="static")
    app.include_router(socket_router(lobby, limits, origins))
    return app


__all__ = [
    "GC_THRESHOLDS", "STATUS", "RedisCheck", "create_app", "default_db_url", "error_body", "paced_gc", "uvicorn_options",
]
