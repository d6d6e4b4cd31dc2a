"""``tabletris serve``: the online table (game server and web client) on uvicorn."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated

import typer


class DatabaseURLError(ValueError):
    """A ``--db`` value the server cannot use; the message is one line, password masked."""


def normalise_db_url(raw: str, allow_memory: bool = False) -> str:
    """The async SQLAlchemy URL for ``--db``: a plain path and ``sqlite:///`` map to
    aiosqlite, ``postgresql://`` to asyncpg. An in-memory database (every game lost when the
    server stops) is refused unless ``allow_memory``; a SQLite file's directory must exist."""
    from sqlalchemy.engine import make_url
    from sqlalchemy.exc import ArgumentError

    text = raw.strip()
    if not text:
        raise DatabaseURLError("--db is empty: give a file path or a database URL")
    if "://" not in text:
        text = "sqlite+aiosqlite:///" + str(Path(text).expanduser().resolve())
    try:
        url = make_url(text)
    except ArgumentError:
        raise DatabaseURLError(f"--db {mask_password(text)!r} is not a database URL") from None
    drivers = {"sqlite": "sqlite+aiosqlite", "postgresql": "postgresql+asyncpg", "postgres": "postgresql+asyncpg"}
    if url.drivername in drivers:
        url = url.set(drivername=drivers[url.drivername])
    shown = url.render_as_string(hide_password=True)
    if url.drivername not in ("sqlite+aiosqlite", "postgresql+asyncpg"):
        raise DatabaseURLError(
            f"--db {shown}: the server needs SQLite (sqlite:///path) or PostgreSQL (postgresql://...), not {url.drivername}"
        )
    if url.drivername.startswith("sqlite"):
        database = url.database or ""
        if database in ("", ":memory:") or database.startswith("file::memory:") or "mode=memory" in str(url.query):
            if not allow_memory:
                raise DatabaseURLError(
                    f"--db {shown} is an in-memory database: every game would be lost when the server "
                    "stops; give a file, or pass --db-memory to mean it"
                )
        else:
            folder = Path(database).expanduser().resolve().parent
            if not folder.is_dir():
                raise DatabaseURLError(f"--db {shown}: the folder {folder} does not exist")
    else:
        try:
            import asyncpg  # noqa: F401
        except ImportError:
            raise DatabaseURLError(f"--db {shown}: PostgreSQL needs the asyncpg package: pip install 'tabletris[scale]'") from None
    return url.render_as_string(hide_password=False)


def probe_database(url: str) -> None:
    """Connect once before serving, so an unreachable or unwritable database is one line now,
    not a traceback from the server's start-up after it said "serving"."""
    import asyncio

    from sqlalchemy import text
    from sqlalchemy.ext.asyncio import create_async_engine

    async def probe() -> None:
        engine = create_async_engine(url)
        try:
            async with engine.begin() as conn:
                await conn.execute(text("SELECT 1"))
        finally:
            await engine.dispose()

    try:
        asyncio.run(probe())
    except Exception as e:
        reason = str(getattr(e, "orig", None) or e).splitlines()[0][:200]
        raise DatabaseURLError(f"--db {mask_password(url)}: cannot open the database: {reason}") from None


def probe_redis(url: str) -> None:
    """Ping Redis once before serving (one line if it is not there)."""
    import asyncio

    import redis.asyncio as aioredis

    async def probe() -> None:
        client = aioredis.from_url(url)
        try:
            await client.ping()
        finally:
            await client.aclose()

    try:
        asyncio.run(probe())
    except Exception as e:
        raise DatabaseURLError(f"--redis {mask_password(url)}: cannot reach Redis: {str(e).splitlines()[0][:200]}") from None


def mask_password(text: str) -> str:
    """``scheme://user:***@host``: a URL as it may be printed."""
    from sqlalchemy.engine import make_url

    try:
        return make_url(text).render_as_string(hide_password=True)
    except Exception:
        import re

        return re.sub(r"(://[^:/@]*:)[^@]*@", r"\1***@", text)


def register(app: typer.Typer) -> None:
    @app.command()
    def serve(
        host: Annotated[str, typer.Option(help="Address to listen on (127.0.0.1: this machine only).")] = "127.0.0.1",
        port: Annotated[int, typer.Option(help="TCP port.")] = 8000,
        db: Annotated[
            str | None,
            typer.Option(
                help="Database: a file path, sqlite:///games.sqlite3 or postgresql://... (asyncpg) "
                "[default: $TABLETRIS_DB, else ./tabletris.sqlite3 in the current directory]"
            ),
        ] = None,
        db_memory: Annotated[
            bool, typer.Option("--db-memory", help="Allow an in-memory database (every game is lost at exit).")
        ] = False,
        bot_delay: Annotated[float, typer.Option(help="Seconds a bot waits before moving, so people can follow.")] = 0.4,
        log_level: Annotated[str, typer.Option(help="uvicorn log level.")] = "info",
        allow_ext: Annotated[
            list[str] | None,
            typer.Option(
                "--allow-ext",
                help="An external bot rooms may seat, e.g. ext:./bots/mybot (repeatable). "
                "Rooms are created by remote clients and an ext: seat runs a program here, so only listed ones are allowed.",
            ),
        ] = None,
        origin: Annotated[
            list[str] | None,
            typer.Option(
                "--origin",
                help="A websocket origin to allow besides the server's own, e.g. https://table.example "
                "behind a proxy (repeatable).",
            ),
        ] = None,
        client_limits: Annotated[
            bool,
            typer.Option(
                help="Per-address limits (request rate, rooms a minute, open rooms, sockets). Turn off only "
                "for a benchmark that plays every seat from one address.",
            ),
        ] = True,
        redis: Annotated[
            str | None,
            typer.Option(
                help="Run as one of several instances on one PostgreSQL database: redis://host:port/0 "
                "carries room changes between them and the leases of bots and timers (docs/api.md).",
            ),
        ] = None,
        lease_ttl: Annotated[
            float, typer.Option(help="Seconds a dead instance's rooms wait before another takes their bots and timers.")
        ] = 5.0,
        commit_delay: Annotated[
            float | None,
            typer.Option(
                min=0.0,
                help="The longest a commit waits for more moves (up to 4) when they come often (over ~200 a "
                "second), so that they share it: less CPU per move, each acknowledged that much later; "
                "0: never wait [default: 0.02].",
                show_default=False,
            ),
        ] = None,
        ws_deflate: Annotated[
            bool,
            typer.Option(help="Compress websocket messages (saves bandwidth on slow links, costs CPU per message)."),
        ] = False,
        debug_time: Annotated[
            bool,
            typer.Option(
                "--debug-time",
                help="Tests only: let this machine move the server's clocks ahead (POST /debug/time), "
                "so deadlines of hours or days pass at once. Never on a server people play on.",
            ),
        ] = False,
        log_format: Annotated[
            str | None,
            typer.Option(
                help="Log lines as text or json (one JSON object per event, for a log collector) "
                "[default: $TABLETRIS_LOG_FORMAT, else text].",
            ),
        ] = None,
        smtp: Annotated[
            str | None,
            typer.Option(
                help="Send your-turn mail through this SMTP server: smtp://host:port (STARTTLS when offered) or "
                "smtps://user:password@host:465; needs --mail-from [default: $TABLETRIS_SMTP, else no mail].",
            ),
        ] = None,
        mail_from: Annotated[
            str | None,
            typer.Option("--mail-from", help="The address the mails come from [default: $TABLETRIS_MAIL_FROM]."),
        ] = None,
    ) -> None:
        """Run the game server: lobby, rooms, live games and replays in the browser.

        Operations (docs/deploy.md): /healthz, /readyz, and /metrics (Prometheus; from this
        machine only, or with the bearer token in $TABLETRIS_METRICS_TOKEN)."""
        import uvicorn

        from tabletris.server.app import create_app, default_db_url, uvicorn_options
        from tabletris.server.limits import Limits
        from tabletris.server.logs import FORMATS, default_format, log_config
        from tabletris.server.metrics import instance_name

        fmt = (log_format or default_format()).strip().lower()
        if fmt not in FORMATS:
            typer.echo(f"tabletris serve: --log-format {fmt!r}: expected text or json", err=True)
            raise typer.Exit(2)
        os.environ.setdefault("TABLETRIS_INSTANCE", instance_name(port))

        if allow_ext:
            commands = [c if c.startswith("ext:") else f"ext:{c}" for c in allow_ext]
            os.environ["TABLETRIS_EXT_ALLOW"] = ",".join(commands)
        try:
            url = normalise_db_url(db or default_db_url(), allow_memory=db_memory)
            probe_database(url)
        except DatabaseURLError as e:
            typer.echo(f"tabletris serve: {e}", err=True)
            raise typer.Exit(2) from None
        if redis is not None:
            if not url.startswith("postgresql"):
                typer.echo("tabletris serve: --redis needs a shared database: --db postgresql://...", err=True)
                raise typer.Exit(2)
            try:
                probe_redis(redis)
            except DatabaseURLError as e:
                typer.echo(f"tabletris serve: {e}", err=True)
                raise typer.Exit(2) from None
        mail = None
        smtp = smtp or os.environ.get("TABLETRIS_SMTP") or None
        mail_from = mail_from or os.environ.get("TABLETRIS_MAIL_FROM") or None
        if smtp is not None or mail_from is not None:
            from tabletris.server.mail import MailConfig, MailConfigError

            try:
                if smtp is None:
                    raise MailConfigError("--mail-from needs --smtp URL: the server that sends the mails")
                mail = MailConfig.parse(smtp, mail_from)
            except MailConfigError as e:
                typer.echo(f"tabletris serve: {e}", err=True)
                raise typer.Exit(2) from None
        limits = Limits() if client_limits else Limits.unlimited_clients()
        typer.echo(f"tabletris: serving http://{host}:{port}/ (database {mask_password(url)})", err=True)
        if mail is not None:
            typer.echo(f"tabletris: your-turn mail through {mail.shown}", err=True)
        uvicorn.run(
            create_app(
                url, bot_delay=bot_delay, limits=limits, origins=origin or (), redis_url=redis, lease_ttl=lease_ttl,
                mail=mail, debug_time=debug_time, commit_delay=commit_delay,
            ),
            host=host,
            port=port,
            log_level=log_level,
            log_config=log_config(fmt, log_level),
            ws_per_message_deflate=ws_deflate,
            **uvicorn_options(limits),
        )
