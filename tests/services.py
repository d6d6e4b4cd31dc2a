"""Real PostgreSQL and Redis servers (and HAProxy in front of instances) for the tests and the
load benchmark, on loopback.

``.ci/run`` starts one of each and exports their URLs (``TABLETRIS_TEST_POSTGRES``,
``TABLETRIS_TEST_REDIS``); without them (plain ``pytest`` on a dev machine) the session starts
its own, the same way: a throw-away PostgreSQL cluster (``initdb`` into a temp dir, run as the
``postgres`` user when we are root, as PostgreSQL refuses root) and a ``redis-server`` that saves
nothing. Missing binaries fail the tests that need them, saying what to install.
"""

from __future__ import annotations

import contextlib
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

PG_INSTALL = "PostgreSQL server binaries (initdb, pg_ctl) are missing: apt-get install postgresql"
REDIS_INSTALL = "redis-server is missing: apt-get install redis-server"
HAPROXY_INSTALL = "haproxy is missing: apt-get install haproxy (.ci/run installs it)"

HAPROXY_CFG = """\
global
    maxconn 8000

defaults
    mode http
    option redispatch
    option http-server-close
    retries 3
    timeout connect 2s
    timeout check 2s
    timeout client 60s
    timeout server 60s
    timeout tunnel 120s

frontend table
    bind 127.0.0.1:{port}
    http-request deny if {{ path_beg /metrics /debug/ }}
    http-request set-var(txn.room) path,field(3,/),bytes(0,4) if {{ path_reg ^/(ws|room|replay)/[A-Za-z0-9_-]+ }}
    http-request set-var(txn.room) path,field(4,/),bytes(0,4) if {{ path_reg ^/api/rooms/[A-Za-z0-9_-]+ }}
    http-request set-var(txn.room) rand if !{{ var(txn.room) -m found }}
    default_backend tabletris

backend tabletris
    balance hash var(txn.room)
    hash-type consistent
    option httpchk GET /readyz
{servers}
"""
"""docs/deploy.md's HAProxy configuration, without TLS, on loopback."""
SERVER_LINE = "    server {name} 127.0.0.1:{port} check inter 500 fall 2 rise 2 on-marked-down shutdown-sessions"


class ServiceMissing(RuntimeError):
    """A service binary the test needs is not installed (the message says what to install)."""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _pg_bin(name: str) -> str:
    found = shutil.which(name)
    if found:
        return found
    for folder in sorted(Path("/usr/lib/postgresql").glob("*/bin"), reverse=True):
        if (folder / name).exists():
            return str(folder / name)
    raise ServiceMissing(PG_INSTALL)


def _as_postgres() -> list[str]:
    """The prefix that runs a PostgreSQL binary as a non-root user."""
    if os.geteuid() != 0:
        return []
    return ["runuser", "-u", "postgres", "--"]


def _wait_port(port: int, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 0.5):
            return
        time.sleep(0.05)
    raise RuntimeError(f"{what} did not listen on 127.0.0.1:{port} within {timeout:g} s")


@contextlib.contextmanager
def postgres_server() -> Iterator[str]:
    """A fresh PostgreSQL cluster on a free loopback port; yields its URL (database postgres)."""
    initdb, pg_ctl = _pg_bin("initdb"), _pg_bin("pg_ctl")
    prefix = _as_postgres()
    folder = Path(tempfile.mkdtemp(prefix="tabletris-pg-"))
    data = folder / "data"
    if prefix:
        user = pwd.getpwnam("postgres")
        os.chown(folder, user.pw_uid, user.pw_gid)
    user_name = "postgres" if prefix else pwd.getpwuid(os.geteuid()).pw_name
    port = free_port()
    subprocess.run([*prefix, initdb, "-D", str(data), "-U", user_name, "-A", "trust", "--no-sync"],
                   check=True, capture_output=True)
    subprocess.run(
        [*prefix, pg_ctl, "-D", str(data), "-l", str(folder / "log"), "-w", "-t", "60", "-o",
         f"-c listen_addresses=127.0.0.1 -p {port} -c fsync=off -c unix_socket_directories={folder}"
         " -c max_connections=300",
         "start"],
        check=True, capture_output=True,
    )
    try:
        _wait_port(port, 30, "PostgreSQL")
        yield f"postgresql+asyncpg://{user_name}@127.0.0.1:{port}/postgres"
    finally:
        subprocess.run([*prefix, pg_ctl, "-D", str(data), "-m", "immediate", "stop"], capture_output=True)
        shutil.rmtree(folder, ignore_errors=True)


@contextlib.contextmanager
def redis_server() -> Iterator[str]:
    """A redis-server on a free loopback port that saves nothing; yields its URL."""
    binary = shutil.which("redis-server")
    if binary is None:
        raise ServiceMissing(REDIS_INSTALL)
    port = free_port()
    proc = subprocess.Popen(
        [binary, "--bind", "127.0.0.1", "--port", str(port), "--save", "", "--appendonly", "no"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    try:
        _wait_port(port, 20, "redis-server")
        yield f"redis://127.0.0.1:{port}/0"
    finally:
        proc.terminate()
        proc.wait(10)


@contextlib.contextmanager
def haproxy_server(ports: list[int]) -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    """HAProxy with docs/deploy.md's configuration in front of the instances on ``ports``, on a
    free loopback port; yields its URL (once it answers ``/api/meta``) and its process."""
    binary = shutil.which("haproxy")
    if binary is None:
        raise ServiceMissing(HAPROXY_INSTALL)
    folder = Path(tempfile.mkdtemp(prefix="tabletris-haproxy-"))
    port = free_port()
    lines = "\n".join(SERVER_LINE.format(name=f"i{k}", port=p) for k, p in enumerate(ports))
    (folder / "haproxy.cfg").write_text(HAPROXY_CFG.format(port=port, servers=lines))
    proc = subprocess.Popen([binary, "-f", str(folder / "haproxy.cfg")], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    url = f"http://127.0.0.1:{port}"
    try:
        import httpx

        deadline = time.monotonic() + 30
        while True:
            if proc.poll() is not None:
                raise RuntimeError(proc.stderr.read().decode() if proc.stderr else "haproxy exited")
            try:
                if httpx.get(url + "/api/meta", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError("haproxy did not answer")
            time.sleep(0.1)
        yield url, proc
    finally:
        proc.terminate()
        proc.wait(10)
        shutil.rmtree(folder, ignore_errors=True)


def new_database(server_url: str) -> str:
    """A new, empty database on the cluster at ``server_url`` (one per test); its URL."""
    import asyncpg  # the test dependency that ships with the server's PostgreSQL support

    name = "t_" + uuid.uuid4().hex[:16]
    plain = server_url.replace("postgresql+asyncpg://", "postgresql://")

    async def create() -> None:
        conn = await asyncpg.connect(plain)
        try:
            await conn.execute(f'CREATE DATABASE "{name}"')
        finally:
            await conn.close()

    import asyncio

    asyncio.run(create())
    return server_url.rsplit("/", 1)[0] + "/" + name


class PostgresCluster:
    """A throw-away PostgreSQL cluster that a fault test stops and starts again on the same port
    (``postgres_server`` is the session's, which other tests share: never stop that one)."""

    def __init__(self) -> None:
        self.initdb, self.pg_ctl = _pg_bin("initdb"), _pg_bin("pg_ctl")
        self.prefix = _as_postgres()
        self.folder = Path(tempfile.mkdtemp(prefix="tabletris-pg-fault-"))
        self.data = self.folder / "data"
        if self.prefix:
            user = pwd.getpwnam("postgres")
            os.chown(self.folder, user.pw_uid, user.pw_gid)
        self.user = "postgres" if self.prefix else pwd.getpwuid(os.geteuid()).pw_name
        self.port = free_port()
        subprocess.run([*self.prefix, self.initdb, "-D", str(self.data), "-U", self.user, "-A", "trust", "--no-sync"],
                       check=True, capture_output=True)

    @property
    def url(self) -> str:
        return f"postgresql+asyncpg://{self.user}@127.0.0.1:{self.port}/postgres"

    def start(self) -> None:
        subprocess.run(
            [*self.prefix, self.pg_ctl, "-D", str(self.data), "-l", str(self.folder / "log"), "-w", "-t", "60", "-o",
             f"-c listen_addresses=127.0.0.1 -p {self.port} -c fsync=off -c unix_socket_directories={self.folder}",
             "start"],
            check=True, capture_output=True,
        )
        _wait_port(self.port, 30, "PostgreSQL")

    def stop(self, mode: str = "fast") -> None:
        """Stop the server (``fast``: clients are disconnected, as in a restart)."""
        subprocess.run([*self.prefix, self.pg_ctl, "-D", str(self.data), "-m", mode, "-w", "stop"], capture_output=True)

    def remove(self) -> None:
        self.stop("immediate")
        shutil.rmtree(self.folder, ignore_errors=True)


class RedisProcess:
    """A redis-server a fault test stops and starts again on the same port (saves nothing)."""

    def __init__(self) -> None:
        binary = shutil.which("redis-server")
        if binary is None:
            raise ServiceMissing(REDIS_INSTALL)
        self.binary = binary
        self.port = free_port()
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        self.proc = subprocess.Popen(
            [self.binary, "--bind", "127.0.0.1", "--port", str(self.port), "--save", "", "--appendonly", "no"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )
        _wait_port(self.port, 20, "redis-server")

    def stop(self) -> None:
        if self.proc is not None:
            self.proc.terminate()
            self.proc.wait(10)
            self.proc = None
