"""Lighthouse on the web client's pages (issue 27 item 10): a run, not a test.

Starts ``tabletris serve`` on 127.0.0.1 with a fresh SQLite database (from this checkout, or from
``--src`` another tree's ``src`` folder, to measure the code before a change), makes a dice room
and a tower room with a game under way (two people seated through the API, so the table shows)
and a finished dice game, then runs Lighthouse (npm ``lighthouse``, in Debian's Chromium:
``CHROME_PATH``) on the lobby, both rooms, the rules page and the finished game's replay. Prints
the four category scores per page and the metrics behind the performance score.

    .venv/bin/python benchmarks/lighthouse_pages.py
    .venv/bin/python benchmarks/lighthouse_pages.py --src /tmp/old/src      # the code before
    .venv/bin/python benchmarks/lighthouse_pages.py --lighthouse /tmp/lh/node_modules/.bin/lighthouse

Lighthouse's defaults (mobile, simulated slow 4G and a 4x slower CPU) are kept: the figures are
comparable with the issue's. Install it with ``npm install lighthouse@12`` (or have it on PATH).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx
from serving import free_port, wait_ready

CATEGORIES = ("performance", "accessibility", "best-practices", "seo")
METRICS = ("first-contentful-paint", "largest-contentful-paint", "total-blocking-time", "cumulative-layout-shift", "speed-index")


def playing_room(client: httpx.Client, game: str) -> str:
    """A room of ``game`` whose game has started: two people sat down through the API."""
    room = client.post("/api/rooms", json={"game": game, "seats": [{"kind": "open"}, {"kind": "open"}]})
    room.raise_for_status()
    rid = str(room.json()["id"])
    for name in ("Ann", "Bob"):
        client.post(f"/api/rooms/{rid}/join", json={"name": name}).raise_for_status()
    return rid


def finished_room(client: httpx.Client) -> str:
    room = client.post("/api/rooms", json={"game": "dice", "rules": {"width": 6, "height": 8}, "seats": [{"kind": "random"}, {"kind": "random"}]})
    room.raise_for_status()
    rid = str(room.json()["id"])
    deadline = time.monotonic() + 120
    while client.get(f"/api/rooms/{rid}").json()["room"]["status"] != "over":
        if time.monotonic() > deadline:
            sys.exit("the bots' dice game did not end in 120 s")
        time.sleep(0.2)
    return rid


def lighthouse(command: list[str], url: str, out: Path, chrome: str, tries: int = 3) -> dict[str, Any]:
    """One page's report; a run that Lighthouse itself gives up on (NO_NAVSTART on a busy machine)
    is run again, ``tries`` times in all."""
    for attempt in range(1, tries + 1):
        done = subprocess.run(
            [*command, url, "--output=json", f"--output-path={out}", "--quiet",
             f"--only-categories={','.join(CATEGORIES)}",
             "--chrome-flags=--headless=new --no-sandbox --disable-gpu"],
            env={**os.environ, "CHROME_PATH": chrome}, timeout=300, check=False,
        )
        if done.returncode == 0:
            report: dict[str, Any] = json.loads(out.read_text())
            return report
        print(f"lighthouse failed on {url} (try {attempt} of {tries})", file=sys.stderr)
    sys.exit(f"lighthouse failed {tries} times on {url}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--src", help="another tree's src folder (the code before a change)")
    parser.add_argument("--lighthouse", default=shutil.which("lighthouse") or "", help="the lighthouse command (default: on PATH)")
    parser.add_argument("--chrome", default=os.environ.get("CHROME_PATH", "/usr/bin/chromium"))
    parser.add_argument("--keep", help="a folder to keep each page's JSON report in")
    args = parser.parse_args()
    if not args.lighthouse:
        sys.exit("lighthouse is not installed: npm install lighthouse@12, then --lighthouse node_modules/.bin/lighthouse")
    if not Path(args.chrome).exists():
        sys.exit(f"no Chromium at {args.chrome}: apt-get install chromium")
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    if args.src:
        env["PYTHONPATH"] = args.src
    with tempfile.TemporaryDirectory() as tmp:
        proc = subprocess.Popen(
            [sys.executable, "-c", "from tabletris.cli.app import main; main()", "serve", "--host", "127.0.0.1",
             "--port", str(port), "--db", str(Path(tmp) / "pages.sqlite3"), "--log-level", "warning", "--no-client-limits", "--bot-delay", "0"],
            cwd=tmp, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )
        try:
            wait_ready(base, proc)
            with httpx.Client(base_url=base, timeout=10) as client:
                pages = {
                    "lobby": "/",
                    "dice room": f"/room/{playing_room(client, 'dice')}",
                    "tower room": f"/room/{playing_room(client, 'tower')}",
                    "rules": "/rules",
                    "replay": f"/replay/{finished_room(client)}",
                }
            keep = Path(args.keep) if args.keep else Path(tmp)
            keep.mkdir(parents=True, exist_ok=True)
            with open("/proc/loadavg") as f:
                print(f"load average before: {f.read().split()[:3]}; lighthouse {args.lighthouse}, Chromium {args.chrome}")
            print(f"{'page':<11} {'perf':>5} {'a11y':>5} {'best':>5} {'seo':>5}   {'FCP':>7} {'LCP':>7} {'TBT':>7} {'CLS':>6} {'SI':>7}")
            for name, path in pages.items():
                report = lighthouse(args.lighthouse.split(), base + path, keep / f"{name.replace(' ', '-')}.json", args.chrome)
                scores = [report["categories"][c]["score"] for c in CATEGORIES]
                audits = report["audits"]
                m = [audits[k]["numericValue"] for k in METRICS]
                failed = [k for k, a in audits.items() if a.get("score") is not None and a["score"] < 1 and a.get("scoreDisplayMode") in ("binary", "numeric", "metricSavings")]
                print(f"{name:<11} " + " ".join(f"{round(100 * s) if s is not None else '-':>5}" for s in scores)
                      + f"   {m[0]:>5.0f}ms {m[1]:>5.0f}ms {m[2]:>5.0f}ms {m[3]:>6.3f} {m[4]:>5.0f}ms")
                print(f"{'':<11} below 1: {', '.join(sorted(failed)[:12]) or 'none'}")
            with open("/proc/loadavg") as f:
                print(f"load average after: {f.read().split()[:3]}")
        finally:
            proc.terminate()
            proc.wait(15)


if __name__ == "__main__":
    main()
