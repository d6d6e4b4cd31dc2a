"""The compiled core's C sits in the layers of the Python it translates (issue 24).

One extension (``tabletris.engine._native``) holds the C of three layers, each file beside its
Python: the engine's board loops and dice kernel in ``engine/``, the expert's decision in
``bots/``, ``Dice-v0``'s fast path in ``envs/``. The import-linter contracts cannot see C, so this
test reads the files: a file names (calls, types, macros, includes) only what its own layer and
the layers below define, the layers' order being the import-linter contract's in
``pyproject.toml``. The one exception is a module's assembly, the part of a file after the line
that says ``the module: the layers put together`` (the includes of the upper layers' files and
the method table), which has to name them all.
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "src" / "tabletris"
ASSEMBLY = "the module: the layers put together"
"""The line after which a file puts the layers together (``engine/_native.c``)."""
ROOTS = ("engine/_native.c", "engine/_tower_core.c")
"""The extensions' files whose layers are checked: each with the files it includes (one
translation unit, one namespace). Another extension joins with its root here and the assembly
line before its includes of upper layers."""

_COMMENT = re.compile(r"/\*.*?\*/|//[^\n]*", re.S)
_STRING = re.compile(r'"(?:\\.|[^"\\])*"')
_DEFINED = (
    re.compile(r"^static\s[^;{(=]*?\b(\w+)\s*(?:\(|=|\[)", re.M),  # functions, tables, constants
    re.compile(r"^\}\s*(\w+)\s*;", re.M),  # typedef struct { ... } name;
    re.compile(r"^#define\s+(\w+)", re.M),
)
_ENUM = re.compile(r"\benum\s*\{([^}]*)\}")
_INCLUDE = re.compile(r'^#include\s+"([^"]+)"', re.M)


def layer_ranks() -> dict[str, int]:
    """Each top-level package's rank in the layers contract (0 for the lowest)."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    contract = config["tool"]["importlinter"]["contracts"][0]
    ranks: dict[str, int] = {}
    for rank, entry in enumerate(reversed(contract["layers"])):
        for module in entry.split("|"):
            ranks[module.strip().removeprefix("tabletris.")] = rank
    return ranks


def defined_names(code: str) -> set[str]:
    names = {m.group(1) for pattern in _DEFINED for m in pattern.finditer(code)}
    for body in _ENUM.findall(code):
        names |= {item.split("=")[0].strip() for item in body.split(",") if item.strip()}
    return names


def layering_faults(files: dict[str, str], ranks: dict[str, int]) -> list[str]:
    """``files``: path (``layer/name.c``) -> source. What each file names from a layer above it
    (outside its assembly part), as sentences; none when the layers hold."""
    bare = {path: _STRING.sub('""', _COMMENT.sub(" ", text)) for path, text in files.items()}
    defined = {path: defined_names(code) for path, code in bare.items()}
    faults = []
    for path, text in files.items():
        layer = path.split("/")[0]
        own = text.split(ASSEMBLY)[0] if ASSEMBLY in text else text
        for include in _INCLUDE.findall(own):
            target = "/".join(_normal(f"{layer}/{include}"))
            if target in files and ranks[target.split("/")[0]] > ranks[layer]:
                faults.append(f"{path} includes {target}, a layer above it")
        words = set(re.findall(r"\b\w+\b", _STRING.sub('""', _COMMENT.sub(" ", own))))
        for other, names in defined.items():
            if other == path or ranks[other.split("/")[0]] <= ranks[layer]:
                continue
            named = sorted((words & names) - defined[path])
            if named:
                faults.append(f"{path} names {', '.join(named)} of {other}, a layer above it")
    return faults


def _normal(path: str) -> list[str]:
    parts: list[str] = []
    for part in path.split("/"):
        if part == "..":
            parts.pop()
        elif part not in ("", "."):
            parts.append(part)
    return parts


def c_files(root: str) -> dict[str, str]:
    """``root`` and every project file it includes, transitively: one extension's C."""
    files: dict[str, str] = {}
    todo = [root]
    while todo:
        path = todo.pop()
        if path in files or not (PACKAGE / path).is_file():
            continue
        files[path] = (PACKAGE / path).read_text()
        layer = path.split("/")[0]
        todo += ["/".join(_normal(f"{layer}/{include}")) for include in _INCLUDE.findall(files[path])]
    return files


def test_each_c_file_names_only_its_layer_and_the_layers_below() -> None:
    for root in ROOTS:
        files = c_files(root)
        assert len(files) > 1, f"{root} includes no file of ours: the check would see nothing"
        assert layering_faults(files, layer_ranks()) == []


def test_the_dice_c_sits_beside_the_python_it_translates() -> None:
    """The env's fast path with the envs, the expert with the bots, the kernel with the engine;
    all three in the one extension (``_native.c`` includes them)."""
    files = c_files("engine/_native.c")
    homes = {
        "py_env_step": "envs/_dice_env.c",
        "py_env_load": "envs/_dice_env.c",
        "np_bitgen_t": "envs/_dice_env.c",
        "py_expert_decide": "bots/_dice_expert.c",
        "dx_choose": "bots/_dice_expert.c",
        "dk_options": "engine/_dice_kernel.c",
        "py_positions": "engine/_native.c",
    }
    for name, home in homes.items():
        where = [path for path, text in files.items() if name in defined_names(_COMMENT.sub(" ", text))]
        assert where == [home], f"{name} is defined in {where}, expected {home}"
    assembly = files["engine/_native.c"].split(ASSEMBLY)[1]
    assert set(_INCLUDE.findall(assembly)) == {"../bots/_dice_expert.c", "../envs/_dice_env.c"}


def test_the_check_finds_a_name_from_above() -> None:
    """The check itself can fail: the kernel calling the expert, an include of the env's file
    outside the assembly, and a bot naming the env are each reported; the assembly may."""
    ranks = layer_ranks()
    files = {
        "engine/kernel.c": "static int dk_turn(void) { return dx_choose(); }\n#include \"../envs/env.c\"\n",
        "bots/expert.c": "static int dx_choose(void) { return de_step(); } /* de_step in a comment is fine */\n",
        "envs/env.c": "static int de_step(void) { return dk_turn(); }\n",
        "engine/module.c": f"/* {ASSEMBLY} */\n#include \"../bots/expert.c\"\nstatic int m(void) {{ return dx_choose(); }}\n",
    }
    assert layering_faults(files, ranks) == [
        "engine/kernel.c includes envs/env.c, a layer above it",
        "engine/kernel.c names dx_choose of bots/expert.c, a layer above it",
        "bots/expert.c names de_step of envs/env.c, a layer above it",
    ]
