#!/usr/bin/env python3
"""A complete external tabletris bot: picks a random listed option, for both games.

Run it as a seat:  tabletris play dice --seats human,ext:examples/random_bot.py
The protocol (docs/external-bots.md): one JSON object per line on stdin, one answer per line on
stdout. Anything for humans goes to stderr. Only the standard library is used, so the file can
be copied anywhere and serve as the skeleton of a bot in another language.
"""

import json
import random
import sys


def main() -> int:
    rng = random.Random()
    for line in sys.stdin:
        request = json.loads(line)
        kind = request.get("type")
        if kind == "hello":
            rng.seed(request.get("seed"))
            answer = {"type": "ready", "id": request["id"], "name": "example random bot"}
        elif kind in ("dice", "tower"):
            options = request["options"]
            if kind == "dice":
                # Prefer options that complete rows; otherwise any option.
                best = max(o["rows"] for o in options)
                choices = [i for i, o in enumerate(options) if o["rows"] == best]
            else:
                choices = list(range(len(options)))
            answer = {"id": request["id"], "option": rng.choice(choices)}
        elif kind == "quit":
            return 0
        else:
            print(f"unknown request type {kind!r}", file=sys.stderr)
            continue
        print(json.dumps(answer), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
