"""Alembic's environment: always online, on the connection ``Storage.open()`` hands over.

The server runs the migrations itself at start-up (``command.upgrade`` inside its own transaction),
so there is no alembic.ini and no URL here; ``config.attributes["connection"]`` is that
transaction's connection."""

from __future__ import annotations

from alembic import context

connection = context.config.attributes["connection"]
context.configure(connection=connection, render_as_batch=connection.dialect.name == "sqlite")
with context.begin_transaction():
    context.run_migrations()
