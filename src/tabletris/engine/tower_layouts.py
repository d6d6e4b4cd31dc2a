"""The tower layouts (rules.md section 3): the icons printed on each end of the four towers, the
eight shipped layouts, and the custom layouts a record or a house rule may give.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

from tabletris.engine.errors import RulesError
from tabletris.engine.errors import error_text as _text
from tabletris.engine.shapes import Cell, Shape
from tabletris.engine.texts import N_, Message

LAYOUT_NAMES: tuple[str, ...] = ("1a", "1b", "2a", "2b", "3a", "3b", "4a", "4b")
LEGACY_SUFFIX = "@v1"
"""The first release's layouts (``b`` ends not yet ``a`` turned 180 degrees), kept as ``2b@v1``
so the records that name them replay as they were played."""
LEGACY_LAYOUT_NAMES: tuple[str, ...] = tuple(n + LEGACY_SUFFIX for n in LAYOUT_NAMES)


@dataclass(frozen=True)
class Layout:
    """The icons printed on one tower end: bonus icons (cell -> shape) and diamonds.

    ``name`` is the library name (``1a`` ...) or None for a custom layout.
    """

    bonus: Mapping[Cell, Shape]
    diamonds: frozenset[Cell]
    name: str | None = None

    def to_spec(self) -> str | dict[str, Any]:
        """How a record writes this layout: its name, or the full icon lists."""
        if self.name is not None:
            return self.name
        return self.to_dict()

    def to_record(self) -> dict[str, Any]:
        """How a record writes this layout: its icons, and its name when it has one (the record
        is the game: it replays whatever the layout files later say)."""
        return {"name": self.name, **self.to_dict()} if self.name is not None else self.to_dict()

    @property
    def tower(self) -> int | None:
        """The physical tower (1-4) of a shipped layout, None for a custom one."""
        if self.name is None or self.name[:2] not in LAYOUT_NAMES:
            return None
        return int(self.name[0])

    def to_dict(self) -> dict[str, Any]:
        bonus = sorted(self.bonus.items(), key=lambda kv: (kv[0][1], kv[0][0]))
        return {
            "bonus": [{"cell": [x, y], "shape": s.value} for (x, y), s in bonus],
            "diamonds": [[x, y] for x, y in sorted(self.diamonds, key=lambda c: (c[1], c[0]))],
        }

    def clipped(self, width: int, height: int) -> Layout:
        """The icons that fit a ``width`` x ``height`` tower, as a custom layout (other sizes)."""
        inside = lambda c: 0 <= c[0] < width and 0 <= c[1] < height  # noqa: E731
        return Layout(
            {c: s for c, s in self.bonus.items() if inside(c)},
            frozenset(c for c in self.diamonds if inside(c)),
        )


@cache
def library_layout(name: str) -> Layout:
    """One of the eight shipped layouts, read from ``engine/layouts/NAME.json`` (a first-release
    layout ``NAME@v1`` from ``engine/layouts/v1/NAME.json``)."""
    if name not in LAYOUT_NAMES and name not in LEGACY_LAYOUT_NAMES:
        raise RulesError(Message(N_("unknown layout {name!r}: expected one of {names}"), name=name, names=" ".join(LAYOUT_NAMES)))
    folder = resources.files("tabletris.engine").joinpath("layouts")
    if name in LEGACY_LAYOUT_NAMES:
        folder = folder.joinpath("v1")
    text = folder.joinpath(f"{name[:2]}.json").read_text("utf-8")
    data = json.loads(text)
    layout = parse_layout({"bonus": data["bonus"], "diamonds": data["diamonds"]}, f"layout {name}", 8, 15)
    return Layout(layout.bonus, layout.diamonds, name)


def parse_layout(spec: Any, where: str, width: int, height: int) -> Layout:
    """A layout from a record's ``towers`` entry; RulesError naming the entry and the fault."""
    if isinstance(spec, str):
        layout = library_layout(spec) if spec in LAYOUT_NAMES or spec in LEGACY_LAYOUT_NAMES else None
        if layout is None:
            raise RulesError(Message(
                N_("{where}: unknown layout {name!r}: expected one of {names} or an object"),
                where=where, name=spec, names=" ".join(LAYOUT_NAMES),
            ))
        _check_fits(layout, where, width, height)
        return layout
    if not isinstance(spec, Mapping):
        raise RulesError(Message(N_("{where}: expected a layout name or {form}"), where=where, form='{"bonus": [...], "diamonds": [...]}'))
    unknown = set(spec) - {"bonus", "diamonds", "name"}
    if unknown:
        raise RulesError(Message(N_("{where}: unknown key in a layout (known: bonus, diamonds, name)"), where=f"{where}.{sorted(unknown)[0]}"))
    name = spec.get("name")
    if name is not None and (not isinstance(name, str) or not name.strip()):
        raise RulesError(Message(N_("{where}: expected the layout's name as a string"), where=f"{where}.name"))
    bonus: dict[Cell, Shape] = {}
    raw_bonus = spec.get("bonus", [])
    if not isinstance(raw_bonus, list):
        raise RulesError(Message(N_("{where}: expected a list of {form}"), where=f"{where}.bonus", form='{"cell": [x, y], "shape": S}'))
    for i, item in enumerate(raw_bonus):
        at = f"{where}.bonus[{i}]"
        if not isinstance(item, Mapping) or set(item) != {"cell", "shape"}:
            raise RulesError(Message(N_("{where}: expected {form}"), where=at, form='{"cell": [x, y], "shape": S}'))
        cell = _cell(item["cell"], f"{at}.cell", width, height)
        shape_text = item["shape"]
        if not isinstance(shape_text, str):
            raise RulesError(Message(N_("{where}: expected a tetromino letter"), where=f"{at}.shape"))
        try:
            shape = Shape.parse(shape_text)
        except ValueError as e:
            raise RulesError(Message(N_("{where}: {error}"), where=f"{at}.shape", error=_text(e))) from None
        if not shape.is_tetromino:
            raise RulesError(Message(N_("{where}: a bonus icon shows a tetromino, not M"), where=f"{at}.shape"))
        if cell in bonus:
            raise RulesError(Message(N_("{where}: two bonus icons at {cell}"), where=at, cell=str(list(cell))))
        bonus[cell] = shape
    raw_diamonds = spec.get("diamonds", [])
    if not isinstance(raw_diamonds, list):
        raise RulesError(Message(N_("{where}: expected a list of [x, y] cells"), where=f"{where}.diamonds"))
    diamonds: set[Cell] = set()
    for i, item in enumerate(raw_diamonds):
        cell = _cell(item, f"{where}.diamonds[{i}]", width, height)
        if cell in diamonds:
            raise RulesError(Message(N_("{where}: two diamonds at {cell}"), where=f"{where}.diamonds[{i}]", cell=str(list(cell))))
        if cell in bonus:
            raise RulesError(Message(N_("{where}: {cell} already has a bonus icon"), where=f"{where}.diamonds[{i}]", cell=str(list(cell))))
        diamonds.add(cell)
    return Layout(bonus, frozenset(diamonds), name)


def _cell(value: Any, where: str, width: int, height: int) -> Cell:
    if (
        not isinstance(value, list | tuple)
        or len(value) != 2
        or not all(isinstance(v, int) and not isinstance(v, bool) for v in value)
    ):
        raise RulesError(Message(N_("{where}: expected a cell [x, y] with integer x and y"), where=where))
    x, y = int(value[0]), int(value[1])
    if not (0 <= x < width and 0 <= y < height):
        raise RulesError(Message(N_("{where}: [{x}, {y}] is outside the {width}x{height} tower"), where=where, x=x, y=y, width=width, height=height))
    return (x, y)


def _check_fits(layout: Layout, where: str, width: int, height: int) -> None:
    for x, y in [*layout.bonus, *layout.diamonds]:
        if not (0 <= x < width and 0 <= y < height):
            raise RulesError(Message(
                N_("{where}: layout {name} has an icon at [{x}, {y}], outside the {width}x{height} tower"),
                where=where, name=layout.name, x=x, y=y, width=width, height=height,
            ))
