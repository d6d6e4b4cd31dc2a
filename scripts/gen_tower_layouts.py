"""Generate the eight tower layouts ``1a`` ... ``4b`` shipped in ``engine/layouts``.

The real product's icon positions are not public (rules.md section 3), so the project ships its
own. Each layout gets the same icons: two bonus icons of each of the seven shapes (14) and six
diamonds, spread over every height so every part of the tower matters. End ``b`` is the same
printed tower as end ``a`` turned upside down (rules.md, tower Setup): each icon of ``Nb`` is the
icon of ``Na`` at ``(width-1-x, height-1-y)``, same shape, so both ends keep every height and
shape. The generator is seeded by the tower's name, so running it again writes the same files.

The layouts of the first release (``b`` ends drawn independently) stay in ``layouts/v1`` as
``1a@v1`` ... ``4b@v1``: records that name a layout without icons were written with those.

Usage: ``python scripts/gen_tower_layouts.py`` (from the project root).
"""

from __future__ import annotations

import json
import random
from pathlib import Path

WIDTH, HEIGHT = 8, 15
SHAPES = ("I", "O", "T", "S", "Z", "J", "L")
NAMES = ("1a", "1b", "2a", "2b", "3a", "3b", "4a", "4b")
DIAMONDS = 6
OUT = Path(__file__).resolve().parent.parent / "src" / "tabletris" / "engine" / "layouts"


def make_layout(name: str) -> dict[str, object]:
    """One layout: end ``a`` drawn, end ``b`` that end turned 180 degrees."""
    if name.endswith("b"):
        return turned(make_layout(name[:-1] + "a"), name)
    return draw_layout(name)


def turned(layout: dict[str, object], name: str) -> dict[str, object]:
    """``layout`` seen from the other end: ``(x, y)`` becomes ``(WIDTH-1-x, HEIGHT-1-y)``."""
    bonus = [
        {"cell": [WIDTH - 1 - b["cell"][0], HEIGHT - 1 - b["cell"][1]], "shape": b["shape"]}  # type: ignore[index]
        for b in layout["bonus"]  # type: ignore[attr-defined]
    ]
    diamonds = [[WIDTH - 1 - x, HEIGHT - 1 - y] for x, y in layout["diamonds"]]  # type: ignore[attr-defined]
    bonus.sort(key=lambda b: (b["cell"][1], b["cell"][0]))  # type: ignore[index]
    diamonds.sort(key=lambda c: (c[1], c[0]))
    return {"name": name, "bonus": bonus, "diamonds": diamonds}


def draw_layout(name: str) -> dict[str, object]:
    """One end: every row gets an icon, five rows get a second one, columns differ per row."""
    rng = random.Random(f"tabletris-layout-{name}")
    icons = [s for s in SHAPES for _ in range(2)] + ["*"] * DIAMONDS  # 20 icons
    rows = list(range(HEIGHT)) + rng.sample(range(HEIGHT), len(icons) - HEIGHT)
    rng.shuffle(icons)
    used: set[tuple[int, int]] = set()
    bonus: list[dict[str, object]] = []
    diamonds: list[list[int]] = []
    for icon, y in zip(icons, rows, strict=True):
        x = rng.choice([c for c in range(WIDTH) if (c, y) not in used])
        used.add((x, y))
        if icon == "*":
            diamonds.append([x, y])
        else:
            bonus.append({"cell": [x, y], "shape": icon})
    bonus.sort(key=lambda b: (b["cell"][1], b["cell"][0]))  # type: ignore[index]
    diamonds.sort(key=lambda c: (c[1], c[0]))
    return {"name": name, "bonus": bonus, "diamonds": diamonds}


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    for name in NAMES:
        layout = make_layout(name)
        lines = ["{", f'  "name": "{name}",', '  "bonus": [']
        bonus = layout["bonus"]
        assert isinstance(bonus, list)
        lines.append(",\n".join("    " + json.dumps(b) for b in bonus))
        lines.append("  ],")
        lines.append('  "diamonds": ' + json.dumps(layout["diamonds"]))
        lines.append("}")
        (OUT / f"{name}.json").write_text("\n".join(lines) + "\n", encoding="utf-8")
        print(f"wrote {OUT / (name + '.json')}")


if __name__ == "__main__":
    main()
