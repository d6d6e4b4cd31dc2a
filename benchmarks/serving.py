"""What the benchmark scripts that start ``tabletris serve`` share: a free loopback port, and
waiting until the server answers ``/healthz`` (or saying plainly that it never started)."""

from __future__ import annotations

import socket
import subprocess
import sys
import time

import httpx


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_ready(base: str, proc: subprocess.Popen[bytes], seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while True:
        try:
            if httpx.get(base + "/healthz", timeout=1).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        if time.monotonic() > deadline or proc.poll() is not None:
            sys.exit("tabletris serve did not start")
        time.sleep(0.1)
