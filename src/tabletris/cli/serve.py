"""``tabletris serve``: the online table (game server and web client) on uvicorn."""

from __future__ import annotations

import os
from typing import Annotated

import typer


def register(app: typer.Typer) -> None:
    @app.command()
    def serve(
        host: Annotated[str, typer.Option(help="Address to listen on (127.0.0.1: this machine only).")] = "127.0.0.1",
        port: Annotated[int, typer.Option(help="TCP port.")] = 8000,
        db: Annotated[
            str | None,
            typer.Option(
                help="Database URL, e.g. sqlite+aiosqlite:///games.sqlite3 or postgresql+asyncpg://... "
                "[default: $TABLETRIS_DB, else ./tabletris.sqlite3 in the current directory]"
            ),
        ] = None,
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
        ws_deflate: Annotated[
            bool,
            typer.Option(help="Compress websocket messages (saves bandwidth on slow links, costs CPU per message)."),
        ] = False,
    ) -> None:
        """Run the game server: lobby, rooms, live games and replays in the browser."""
        import uvicorn

        from tabletris.server.app import create_app, default_db_url

        if allow_ext:
            commands = [c if c.startswith("ext:") else f"ext:{c}" for c in allow_ext]
            os.environ["TABLETRIS_EXT_ALLOW"] = ",".join(commands)
        url = db or default_db_url()
        if "://" not in url:
            url = "sqlite+aiosqlite:///" + url
        typer.echo(f"tabletris: serving http://{host}:{port}/ (database {url})", err=True)
        uvicorn.run(
            create_app(url, bot_delay=bot_delay),
            host=host,
            port=port,
            log_level=log_level,
            ws_max_size=1024 * 1024,
            ws_per_message_deflate=ws_deflate,
        )
