"""The latency probe under attack (issue 12): does any one client stall or bloat the server?

Starts ``tabletris serve`` on 127.0.0.1 with a fresh SQLite database (from this checkout, or
from ``--src`` another tree's ``src`` folder, to measure the code before a change), then, for each
attack, times ``GET /api/rooms`` every 100 ms while the attack runs and prints the probe's
p50 / p99 / max, the requests the attack got answered and how, and the server's resident memory
(RSS) before, at its peak and a few seconds after the attack ends. Every loop is bounded.

    .venv/bin/python benchmarks/abuse_probe.py                      # every attack
    .venv/bin/python benchmarks/abuse_probe.py --attack slow-readers --attack replay
    .venv/bin/python benchmarks/abuse_probe.py --src /tmp/old/src   # the code before

Attacks (each from one address, as one person could):
  big-room      POST /api/rooms: dice 40x100, garbage 5000, supply 100000, two bots
  big-rules     30 rooms whose rules are ~0.5 MB (a die of 100,000 faces), then the lobby list
  replay        POST /api/replay of a record with ~10,000 moves, and of one with ~2,000
  expert-bots   4 bot-only rooms of expert bots on the largest board the server allows (20x40)
  slow-readers  20 websockets that ask for the state 20 times a second and never read
  ext-bots      4 rooms of an external bot that takes 1.5 s a move (processes counted after)
  idle-conns    200 TCP connections that never send a byte (counted after the header timeout)
  ws-junk       deep JSON nesting and a 5000-digit integer on a websocket (close frame?)
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import contextlib
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parent.parent
SLOW_BOT = '''import json, sys, time
for line in sys.stdin:
    r = json.loads(line)
    if r.get("type") == "hello":
        print(json.dumps({"type": "ready", "id": r["id"], "name": "slow"}), flush=True)
    elif r.get("type") == "quit":
        break
    else:
        time.sleep(1.5)
        print(json.dumps({"id": r["id"], "option": 0}), flush=True)
'''


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def rss_mib(pid: int) -> float:
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


def children(pid: int) -> int:
    """Processes whose parent is ``pid`` (external bots)."""
    count = 0
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    if int(f.read().rsplit(")", 1)[1].split()[1]) == pid:
                        count += 1
            except (OSError, ValueError, IndexError):
                pass
    return count


def open_sockets(pid: int) -> int:
    try:
        return sum(1 for fd in os.listdir(f"/proc/{pid}/fd") if os.readlink(f"/proc/{pid}/fd/{fd}").startswith("socket:"))
    except OSError:
        return -1


class Server:
    def __init__(self, src: Path | None, workdir: Path, bot_delay: float, extra: list[str]) -> None:
        self.port = free_port()
        env = {**os.environ, "PYTHONUNBUFFERED": "1"}
        if src is not None:
            env["PYTHONPATH"] = str(src)
        self.log = open(workdir / "server.log", "w")  # noqa: SIM115
        self.proc = subprocess.Popen(
            [
                sys.executable, "-c", "from tabletris.cli.app import main; main()", "serve",
                "--host", "127.0.0.1", "--port", str(self.port), "--db", str(workdir / "probe.sqlite3"),
                "--bot-delay", str(bot_delay), "--log-level", "warning", *extra,
            ],
            cwd=str(workdir), env=env, stdout=self.log, stderr=self.log,
        )
        deadline = time.time() + 60
        while time.time() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError((workdir / "server.log").read_text())
            try:
                if httpx.get(self.url + "/api/meta", timeout=1).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            time.sleep(0.2)
        raise RuntimeError("the server did not start")

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(15)
        except subprocess.TimeoutExpired:
            self.proc.kill()
        self.log.close()


class Probe:
    """GET /api/rooms every 100 ms in a thread; keeps each round trip (and the status codes)."""

    def __init__(self, url: str, pid: int) -> None:
        self.url = url
        self.pid = pid
        self.times: list[float] = []
        self.codes: dict[int, int] = {}
        self.peak_rss = 0.0
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self.run, daemon=True)

    def run(self) -> None:
        with httpx.Client(timeout=30) as client:
            while not self.stop.is_set():
                t0 = time.perf_counter()
                try:
                    code = client.get(self.url + "/api/rooms?limit=20").status_code
                except httpx.HTTPError:
                    code = 0
                self.times.append(time.perf_counter() - t0)
                self.codes[code] = self.codes.get(code, 0) + 1
                self.peak_rss = max(self.peak_rss, rss_mib(self.pid))
                self.stop.wait(max(0.0, 0.1 - (time.perf_counter() - t0)))

    def __enter__(self) -> Probe:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop.set()
        self.thread.join(60)


# ---------------------------------------------------------------------- attacks


def dice_room(url: str, body: dict[str, Any]) -> httpx.Response:
    return httpx.post(url + "/api/rooms", json=body, timeout=120)


def attack_big_room(url: str, _pid: int, note: Callable[[str], None]) -> None:
    body = {"game": "dice", "rules": {"width": 40, "height": 100, "garbage": 5000, "supply": 100000},
            "seats": [{"kind": "random"}, {"kind": "random"}]}
    r = dice_room(url, body)
    note(f"create: {r.status_code} {r.text[:120]}")
    time.sleep(8)


def attack_big_rules(url: str, _pid: int, note: Callable[[str], None]) -> None:
    rules = {"die": ["I"] * 100_000}
    codes: dict[int, int] = {}
    for _ in range(30):
        r = dice_room(url, {"game": "dice", "rules": rules, "seats": [{"kind": "open"}, {"kind": "open"}]})
        codes[r.status_code] = codes.get(r.status_code, 0) + 1
    t0 = time.perf_counter()
    size = len(httpx.get(url + "/api/rooms", timeout=60).content)
    note(f"creates: {codes}; lobby list {size / 1e6:.1f} MB in {time.perf_counter() - t0:.2f} s")


def long_record(moves: int) -> dict[str, Any]:
    """A legal dice record of ``moves`` moves: a die of I only on a 4-wide board with
    clear_rows, where each piece laid flat clears its row, so the game never ends."""
    cache = Path(tempfile.gettempdir()) / f"tabletris-probe-record-{moves}.json"
    if cache.exists():
        return dict(json.loads(cache.read_text()))
    from tabletris.engine.dice import DiceGame

    try:
        from tabletris.engine.records import record_of
    except ImportError:  # the code before issue 10 (benchmarked with --src)
        record_of = DiceGame.to_record  # type: ignore[attr-defined]

    rules = {"width": 4, "height": 8, "die": ["I"], "clear_rows": True, "target": 10**6, "supply": 10**6}
    game = DiceGame(["A", "B"], rules, seed=1)
    while len(game.moves) < moves and not game.over:
        if game.roll_face is None:
            game.roll()
        flat = [o for o in game.turn_options() if len({y for _, y in o.placement.cells}) == 1]
        option = min(flat, key=lambda o: o.placement.cells[0][1])
        game.play(option.placement, shape=option.shape, take=option.take)
    record = record_of(game)
    cache.write_text(json.dumps(record))
    return dict(record)


def attack_replay(url: str, _pid: int, note: Callable[[str], None]) -> None:
    for n in (10_000, 2_000):
        record = long_record(n)
        t0 = time.perf_counter()
        r = httpx.post(url + "/api/replay", json=record, timeout=120)
        note(f"{len(record['moves'])} moves: {r.status_code}, {len(r.content) / 1e6:.1f} MB in {time.perf_counter() - t0:.2f} s")


def attack_expert_bots(url: str, _pid: int, note: Callable[[str], None]) -> None:
    ids = []
    for _ in range(4):  # the largest board the server takes
        for rules in ({"width": 40, "height": 100}, {"width": 20, "height": 40}):
            r = dice_room(url, {"game": "dice", "rules": rules, "seats": [{"kind": "expert"}, {"kind": "expert"}]})
            if r.status_code == 201:
                ids.append(r.json()["id"])
                break
    time.sleep(12)
    moves = sum(httpx.get(f"{url}/api/rooms/{i}", timeout=30).json()["seq"] for i in ids)
    note(f"{len(ids)} rooms on {rules['width']}x{rules['height']}, {moves} moves in 12 s")


def ws_handshake(port: int, path: str) -> socket.socket:
    """A websocket opened by hand, with a small receive buffer, that will never be read."""
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    s.connect(("127.0.0.1", port))
    key = base64.b64encode(os.urandom(16)).decode()
    s.sendall(
        f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n".encode()
    )
    return s


def ws_frame(text: str) -> bytes:
    data = text.encode()
    mask = os.urandom(4)
    n = len(data)
    head = bytes([0x81]) + (bytes([0x80 | n]) if n < 126 else bytes([0x80 | 126]) + n.to_bytes(2, "big"))
    return head + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(data))


def attack_slow_readers(url: str, pid: int, note: Callable[[str], None]) -> None:
    port = int(url.rsplit(":", 1)[1])
    ids = []
    for _ in range(4):  # the largest board the server takes
        for rules in ({"width": 40, "height": 100}, {"width": 20, "height": 40}):
            r = dice_room(url, {"game": "dice", "rules": rules, "seats": [{"kind": "random"}, {"kind": "random"}]})
            if r.status_code == 201:
                ids.append(r.json()["id"])
                break
    note(f"rooms: {len(ids)}, board {rules['width']}x{rules['height']}")
    socks = []
    for i in range(20):
        s = ws_handshake(port, f"/ws/{ids[i % 4]}")
        s.sendall(ws_frame('{"type":"hello"}'))
        socks.append(s)
    # Each asks for the state 20 times a second (the message rate limit) and reads none of it.
    end = time.monotonic() + 15
    while time.monotonic() < end:
        for s in socks:
            with contextlib.suppress(OSError):  # closed by the server: that is its answer
                s.sendall(ws_frame('{"type":"state"}'))
        time.sleep(0.05)
    note(f"RSS with 20 stuck readers: {rss_mib(pid):.0f} MiB; server sockets {open_sockets(pid)}")
    for s in socks:
        s.close()


def attack_ext_bots(url: str, pid: int, note: Callable[[str], None]) -> None:
    rooms = [
        dice_room(url, {"game": "dice", "rules": {"width": 5, "height": 5},
                        "seats": [{"kind": "ext:" + str(EXT_BOT)}, {"kind": "random"}]})
        for _ in range(4)
    ]
    note(f"creates: {[r.status_code for r in rooms]}; bot processes {children(pid)}")
    time.sleep(12)
    note(f"after 12 s: bot processes {children(pid)}")


def attack_idle_conns(url: str, pid: int, note: Callable[[str], None]) -> None:
    port = int(url.rsplit(":", 1)[1])
    before = open_sockets(pid)
    socks = [socket.create_connection(("127.0.0.1", port)) for _ in range(200)]
    time.sleep(2)
    during = open_sockets(pid)
    time.sleep(13)
    after = open_sockets(pid)
    for s in socks:
        s.close()
    note(f"server sockets: {before} before, {during} after 2 s, {after} after 15 s")


def attack_ws_junk(url: str, _pid: int, note: Callable[[str], None]) -> None:
    import websockets

    room = dice_room(url, {"game": "dice", "seats": [{"kind": "open"}, {"kind": "open"}]}).json()["id"]

    async def one(payload: str) -> str:
        async with websockets.connect(f"ws://127.0.0.1:{url.rsplit(':', 1)[1]}/ws/{room}") as ws:
            await ws.send('{"type":"hello"}')
            await ws.send(payload)
            got = []
            try:
                while True:
                    msg = json.loads(await asyncio.wait_for(ws.recv(), 3))
                    if msg.get("type") == "error":
                        got.append(msg.get("error"))
            except Exception as e:
                got.append(type(e).__name__ + (f"({ws.close_code})" if ws.close_code else ""))
            return ",".join(got)

    for name, payload in (("deep", "[" * 15000 + "]" * 15000), ("digits", '{"type":"move","turn":' + "9" * 5000 + "}")):
        note(f"{name}: {asyncio.run(one(payload))}")


ATTACKS: dict[str, Callable[[str, int, Callable[[str], None]], None]] = {
    "big-room": attack_big_room,
    "big-rules": attack_big_rules,
    "replay": attack_replay,
    "expert-bots": attack_expert_bots,
    "slow-readers": attack_slow_readers,
    "ext-bots": attack_ext_bots,
    "idle-conns": attack_idle_conns,
    "ws-junk": attack_ws_junk,
}
EXT_BOT = Path(tempfile.gettempdir()) / "tabletris-probe-slow-bot.py"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--attack", action="append", choices=sorted(ATTACKS), help="repeatable; default: all")
    parser.add_argument("--src", type=Path, help="a src folder to serve from (the code before a change)")
    parser.add_argument("--settle", type=float, default=5.0, help="seconds after an attack before RSS is read")
    args = parser.parse_args()
    EXT_BOT.write_text(SLOW_BOT)
    EXT_BOT.chmod(0o755)
    print(f"{'attack':<13} {'p50 ms':>7} {'p99 ms':>7} {'max ms':>8} {'probes':>6} {'RSS MiB before/peak/after':>26}")
    for name in args.attack or list(ATTACKS):
        with tempfile.TemporaryDirectory() as tmp:
            server = Server(args.src, Path(tmp), 0.05, ["--allow-ext", str(EXT_BOT)])
            notes: list[str] = []
            try:
                time.sleep(1)
                before = rss_mib(server.proc.pid)
                with Probe(server.url, server.proc.pid) as probe:
                    time.sleep(0.5)
                    try:
                        ATTACKS[name](server.url, server.proc.pid, notes.append)
                    except Exception as e:  # the attack's own failure is a finding, not a crash
                        notes.append(f"attack failed: {type(e).__name__}: {str(e)[:160]}")
                    time.sleep(args.settle)
                after = rss_mib(server.proc.pid)
                ms = sorted(t * 1000 for t in probe.times)
                p99 = ms[min(len(ms) - 1, int(len(ms) * 0.99))] if ms else float("nan")
                codes = {k: v for k, v in probe.codes.items() if k != 200}
                print(
                    f"{name:<13} {statistics.median(ms):7.1f} {p99:7.1f} {ms[-1]:8.1f} {len(ms):6d} "
                    f"{before:8.0f} / {probe.peak_rss:5.0f} / {after:5.0f}" + (f"  non-200 probes: {codes}" if codes else "")
                )
                for line in notes:
                    print(f"{'':13}   {line}")
                sys.stdout.flush()
            finally:
                server.stop()


if __name__ == "__main__":
    main()
