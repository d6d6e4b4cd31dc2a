"""Alembic migrations of the server's database, run by ``Storage.open()`` through Alembic's API."""
