"""Issue 24's structure, kept: one registry of games, and no shared code that names a game.

A shared module (any module that is not a game's own) may ask the spec (``GAMES``), the ``Game``
protocol and the game's own front-end modules, and must never branch on which game it holds:
no ``isinstance`` against a game's classes, no comparison with a game's name. A game's own
modules are those whose file name starts or ends with the game's name (``dice.py``,
``dice_screen.py``, ``line_tower.py``, ``views/tower.js``), so a third game gets its own and
touches none of the shared ones (tests/test_third_game.py plays one through every layer).
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

from tabletris.engine.games import GAME_NAMES

SRC = Path(__file__).resolve().parent.parent / "src" / "tabletris"
GAME_CLASS = re.compile(r"^({})[A-Z]\w*$".format("|".join(n.capitalize() for n in GAME_NAMES)))


def own_module(path: Path) -> bool:
    """Whether ``path`` is a game's own module (or lives in a folder of one)."""
    parts = [path.stem, *path.relative_to(SRC).parts[:-1]]
    return any(p.startswith(g) or p.endswith(g) for p in parts for g in GAME_NAMES)


def _names(node: ast.expr) -> list[str]:
    items = node.elts if isinstance(node, ast.Tuple) else [node]
    out = []
    for item in items:
        while isinstance(item, ast.Attribute):
            out.append(item.attr)
            break
        if isinstance(item, ast.Name):
            out.append(item.id)
        if isinstance(item, ast.BinOp):  # A | B
            out.extend(_names(item.left) + _names(item.right))
    return out


def python_branches(path: Path, text: str | None = None) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8") if text is None else text)
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "isinstance" and len(node.args) == 2:
            classes = [n for n in _names(node.args[1]) if GAME_CLASS.match(n)]
            if classes:
                found.append(f"{path.relative_to(SRC)}:{node.lineno}: isinstance(..., {', '.join(classes)})")
        if isinstance(node, ast.Compare):
            operands = [node.left, *node.comparators]
            names = [o.value for o in operands if isinstance(o, ast.Constant) and o.value in GAME_NAMES]
            sets = [
                e.value
                for o in operands
                if isinstance(o, ast.Tuple | ast.List | ast.Set)
                for e in o.elts
                if isinstance(e, ast.Constant) and e.value in GAME_NAMES
            ]
            if names or sets:
                found.append(f"{path.relative_to(SRC)}:{node.lineno}: compares with {(names or sets)[0]!r}")
    return found


NAMES = "|".join(GAME_NAMES)
JS_COMPARE = re.compile(rf"""[!=]==?\s*["'`]({NAMES})["'`]|["'`]({NAMES})["'`]\s*[!=]==?""")


def js_branches(path: Path) -> list[str]:
    return [
        f"{path.relative_to(SRC)}:{i}: {line.strip()[:80]}"
        for i, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if JS_COMPARE.search(line)
    ]


def test_no_shared_module_branches_on_which_game_it_holds() -> None:
    found = []
    for path in sorted(SRC.rglob("*.py")):
        if not own_module(path):
            found += python_branches(path)
    for path in sorted((SRC / "server" / "static").rglob("*.js")):
        if not own_module(path):
            found += js_branches(path)
    assert found == [], "\n".join(found)


def test_the_checker_sees_both_kinds_of_branch() -> None:
    """The checker itself finds an isinstance and name comparisons (a checker that cannot fail
    proves nothing), and tells a game's own modules from shared ones."""
    shared = SRC / "table" / "probe.py"
    text = "def f(game, name):\n    return isinstance(game, DiceGame | int) or name == 'tower' or name in ('dice',)\n"
    assert len(python_branches(shared, text)) == 3
    assert not own_module(shared) and own_module(SRC / "tui" / "dice_screen.py") and own_module(SRC / "cli" / "line_tower.py")
    assert JS_COMPARE.search('if (g.game === "dice") {') and not JS_COMPARE.search('const name = "dice";')


def test_every_front_end_lists_exactly_the_registered_games() -> None:
    """One registry: the server's adapters, its meta (what the web client builds its game list
    from: no JS file names a game), the records, the rules texts and the terminal's form all read
    ``GAMES``, so a game registered later (the test's pile game) appears in each at once and
    leaves each when it goes."""
    from fastapi.testclient import TestClient

    import pile_game
    from tabletris.engine import records
    from tabletris.engine.games import GAMES, spec
    from tabletris.server.app import create_app
    from tabletris.server.games import ADAPTERS
    from tabletris.tui import setup

    def served() -> list[str]:
        return [name for name, s in GAMES.items() if s.has_front_end("server")]

    pile_game.install()
    try:
        assert "pile" in GAMES and list(ADAPTERS) == served() == [*GAME_NAMES, "pile"]
        with TestClient(create_app("sqlite+aiosqlite:///:memory:")) as client:
            assert list(client.get("/api/meta").json()["games"]) == served()
        game = spec("pile").new(["Ann", "Bob"], seed=1)
        assert records.replay(records.record_of(game)).players == ["Ann", "Bob"]
        assert "pile game" in spec("pile").rules_text().lower()
    finally:
        pile_game.uninstall()
    assert list(ADAPTERS) == served() == list(GAME_NAMES)
    assert tuple(n for n in GAME_NAMES if spec(n).has_front_end("tui")) == setup.GAMES
    literal = re.compile(r"""["'`]({})["'`]""".format("|".join(GAME_NAMES)))
    for path in sorted((SRC / "server" / "static").rglob("*.js")):
        if not own_module(path):
            assert not literal.search(path.read_text(encoding="utf-8")), f"{path.name} names a game"
