"""Shared fixtures for the engine and dice tests; reusable helpers live in ``tests/helpers.py``."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

# Make ``import helpers`` work from every test module, whatever directory pytest runs from.
sys.path.insert(0, str(Path(__file__).parent))

from helpers import board_from_rows
from tabletris.engine.board import Board
from tabletris.engine.dice import DiceGame


@pytest.fixture
def empty_board() -> Board:
    """The dice game's standard 10x20 board, empty."""
    return Board(10, 20)


@pytest.fixture
def overhang_board() -> Board:
    """A 6x5 board with a shelf at row 2 over columns 0-4: the space under it opens on column 5.

    A vertical I can go down column 5 and anything narrow enough can slide left under the shelf;
    a horizontal I cannot pass the one-cell gap, so the space under the shelf is closed to it.
    """
    return board_from_rows(
        [
            "......",
            "......",
            "#####.",
            "......",
            "......",
        ]
    )


@pytest.fixture
def two_player_game() -> DiceGame:
    """A standard two-player dice game with a fixed seed."""
    return DiceGame(["Ann", "Bob"], seed=7)


# ------------------------------------------------------------------ PostgreSQL and Redis

from collections.abc import Callable, Iterator  # noqa: E402
from contextlib import AbstractContextManager  # noqa: E402

from services import ServiceMissing, new_database, postgres_server, redis_server  # noqa: E402

DATABASES = ["sqlite", "postgresql"]
"""The databases the storage-touching server tests run against (``db_url``)."""


def _service(variable: str, start: Callable[[], AbstractContextManager[str]]) -> Iterator[str]:
    """The URL ``.ci/run`` exported in ``variable``, else a server of this session's own."""
    given = os.environ.get(variable)
    if given:
        yield given
        return
    try:
        with start() as url:
            yield url
    except ServiceMissing as e:
        pytest.fail(str(e))


@pytest.fixture(scope="session")
def postgres_cluster() -> Iterator[str]:
    """``TABLETRIS_TEST_POSTGRES`` (from .ci/run), else a cluster of this session's own."""
    yield from _service("TABLETRIS_TEST_POSTGRES", postgres_server)


@pytest.fixture(scope="session")
def redis_url() -> Iterator[str]:
    """``TABLETRIS_TEST_REDIS`` (from .ci/run), else a redis-server of this session's own."""
    yield from _service("TABLETRIS_TEST_REDIS", redis_server)


@pytest.fixture(params=DATABASES)
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A fresh database for one test: a SQLite file, or a new database on the PostgreSQL cluster."""
    if request.param == "sqlite":
        return f"sqlite+aiosqlite:///{tmp_path / 'server.sqlite3'}"
    return new_database(request.getfixturevalue("postgres_cluster"))
