"""Issue 27 item 12: playing and serving need only the core dependencies; the print kit, the AI
interfaces, the charts and the scale-out storage are extras, and a command that needs a missing
extra says the one line that installs it.

The commands run in fresh processes with every optional package made unimportable
(tests/fixtures/noextras/sitecustomize.py), as on a plain ``pip install -e .``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import tomllib
from pathlib import Path

import httpx
import pytest

from server_helpers import free_port
from tabletris.cli.extras import EXTRA_OF_MODULE, NUMPY_EXTRA_OF_COMMAND, PACKAGE_OF_MODULE

ROOT = Path(__file__).resolve().parent.parent
TABLETRIS = str(Path(sys.executable).parent / "tabletris")
BLOCKER = Path(__file__).resolve().parent / "fixtures" / "noextras"
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


def bare_env() -> dict[str, str]:
    env = {**os.environ, "PYTHONPATH": str(BLOCKER), "NO_COLOR": "1", "TABLETRIS_LANG": "en", "LANG": "C.UTF-8"}
    env.pop("TABLETRIS_GAMES", None)
    return env


def run(*args: str, stdin: str = "", cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([TABLETRIS, *args], input=stdin, capture_output=True, text=True, env=bare_env(), timeout=120, cwd=cwd)


def _name(requirement: str) -> str:
    for mark in "[<>=!~ ;":
        requirement = requirement.split(mark)[0]
    return requirement.strip().lower()


def test_the_blocker_really_blocks() -> None:
    """The fixture itself: numpy is not importable under it (a blocker that blocks nothing proves nothing)."""
    done = subprocess.run([sys.executable, "-c", "import numpy"], capture_output=True, text=True, env=bare_env(), timeout=60)
    assert done.returncode == 1 and "No module named 'numpy'" in done.stderr


def test_the_core_dependencies_hold_no_optional_package() -> None:
    core = {_name(r) for r in PYPROJECT["project"]["dependencies"]}
    extras = PYPROJECT["project"]["optional-dependencies"]
    optional = {PACKAGE_OF_MODULE.get(m, m).lower() for m in EXTRA_OF_MODULE} | {"numpy"}
    assert core & optional == set()
    for module, extra in EXTRA_OF_MODULE.items():
        assert PACKAGE_OF_MODULE.get(module, module).lower() in {_name(r) for r in extras[extra]}, (module, extra)
    for extra in set(NUMPY_EXTRA_OF_COMMAND.values()):
        assert "numpy" in {_name(r) for r in extras[extra]}
    assert "tabletris[all]" in extras["test"]


def test_playing_simulating_and_replaying_need_no_extra(tmp_path: Path) -> None:
    assert run("--help").returncode == 0
    record = tmp_path / "game.json"
    played = run("play", "dice", "--plain", "--no-color", "--seats", "random,greedy", "--seed", "4", "--save", str(record))
    assert played.returncode == 0, played.stderr
    assert json.loads(record.read_text())["game"] == "dice"
    replayed = run("replay", str(record), "--json")
    assert replayed.returncode == 0 and json.loads(replayed.stdout)["over"] is True
    person = run("play", "tower", "--plain", "--no-color", "--seats", "human,random", stdin="quit\n")
    assert person.returncode == 0 and "Stopped (quit)" in person.stdout
    simulated = run("simulate", "tower", "--games", "3")
    assert simulated.returncode == 0 and "3 games" in simulated.stdout


def test_serving_on_sqlite_needs_no_extra(tmp_path: Path) -> None:
    port = free_port()
    env = bare_env()
    server = subprocess.Popen(
        [TABLETRIS, "serve", "--host", "127.0.0.1", "--port", str(port), "--db", str(tmp_path / "t.db")],
        env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )
    try:
        deadline, body = time.monotonic() + 60, None
        while time.monotonic() < deadline and server.poll() is None:
            try:
                body = httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=2).json()
                break
            except httpx.HTTPError:
                time.sleep(0.2)
        assert body == {"status": "ok"}, server.stdout.read() if server.poll() is not None and server.stdout else body
        room = httpx.post(f"http://127.0.0.1:{port}/api/rooms", json={"game": "dice", "seats": [{"kind": "random"}] * 2}, timeout=10)
        assert room.status_code == 201, room.text
    finally:
        server.terminate()
        server.wait(30)


@pytest.mark.parametrize(
    ("args", "package", "extra"),
    [
        (("kit", "--size", "mini", "--out", "{tmp}/kit"), "numpy", "kit"),
        (("--lang", "en", "kit", "--out", "{tmp}/kit"), "numpy", "kit"),  # the command found past an option's value
        (("simulate", "dice", "--games", "2", "--out", "{tmp}/sim"), "matplotlib", "charts"),
    ],
)
def test_a_command_without_its_extra_says_the_line_that_installs_it(tmp_path: Path, args: tuple[str, ...], package: str, extra: str) -> None:
    done = run(*(a.format(tmp=tmp_path) for a in args))
    assert done.returncode == 1
    assert done.stderr.strip() == f"error: this needs the optional package {package}: pip install 'tabletris[{extra}]'"
    assert "Traceback" not in done.stderr and "games in" not in done.stdout  # said before any game was played


def test_serving_on_postgresql_without_the_scale_extra_says_so() -> None:
    done = run("serve", "--port", str(free_port()), "--db", "postgresql://someone@127.0.0.1:1/db")
    assert done.returncode != 0 and "Traceback" not in done.stderr
    assert "PostgreSQL needs the asyncpg package: pip install 'tabletris[scale]'" in done.stderr
