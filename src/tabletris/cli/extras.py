"""Which optional part of the install a missing module belongs to, so a command can say the one
line that installs it (``pip install 'tabletris[kit]'``) instead of a traceback.

Playing and serving on SQLite need only the core dependencies; the print kit, the AI interfaces,
the lab's charts and the scale-out storage are extras (pyproject.toml). ``numpy`` is in several
extras: the command that needs it names the one to install.
"""

from __future__ import annotations

EXTRA_OF_MODULE: dict[str, str] = {
    "manifold3d": "kit",
    "trimesh": "kit",
    "rectpack": "kit",
    "lxml": "kit",
    "networkx": "kit",
    "gymnasium": "ai",
    "pettingzoo": "ai",
    "matplotlib": "charts",
    "asyncpg": "scale",
    "redis": "scale",
    "pyspiel": "openspiel",
    "ray": "ray",
    "torch": "train",
    "stable_baselines3": "train",
    "sb3_contrib": "train",
}
"""Each optional top-level module (its import name) and the extra that installs it."""

PACKAGE_OF_MODULE: dict[str, str] = {"pyspiel": "open-spiel", "stable_baselines3": "stable-baselines3", "sb3_contrib": "sb3-contrib"}
"""The package's name on PyPI where it differs from the module's."""

NUMPY_EXTRA_OF_COMMAND: dict[str, str] = {"kit": "kit", "simulate": "charts", "leaderboard": "charts", "bench": "ai"}
"""The extra that brings NumPy for a command (NumPy is in the kit, ai and charts extras)."""


def extra_for(module: str | None, command: str | None = None) -> tuple[str, str] | None:
    """The PyPI package and the extra to install for a missing ``module`` (``ModuleNotFoundError.name``)
    while running ``command``, or None when the module is not an optional one (a real bug)."""
    if not module:
        return None
    top = module.split(".")[0]
    if top == "numpy":
        return "numpy", NUMPY_EXTRA_OF_COMMAND.get(command or "", "ai")
    extra = EXTRA_OF_MODULE.get(top)
    if extra is None:
        return None
    return PACKAGE_OF_MODULE.get(top, top), extra


__all__ = ["EXTRA_OF_MODULE", "NUMPY_EXTRA_OF_COMMAND", "PACKAGE_OF_MODULE", "extra_for"]
