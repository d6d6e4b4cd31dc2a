"""Registers ``tabletris/Dice-v0`` and ``tabletris/Tower-v0`` with Gymnasium, cheaply.

Three ways in, because Gymnasium changed how it finds third-party environments:

- ``gymnasium.make("tabletris:tabletris/Dice-v0")`` with no import: Gymnasium (1.x) imports the
  module named before the colon, and importing ``tabletris`` registers.
- The ``gymnasium.envs`` entry point in pyproject (``register_envs``): Gymnasium 0.26-0.29 load
  it when they are imported, so ``gymnasium.make("tabletris/Dice-v0")`` works with no import
  there. Gymnasium 1.0 removed that plugin loader, which is why the import hook stays.
- ``import tabletris`` runs ``install()``. Importing Gymnasium costs about as much as starting the
whole command line, so it is not imported here: if Gymnasium is already loaded the environments
are registered at once, otherwise a one-shot import hook registers them the moment Gymnasium is
imported. Either way ``gymnasium.make("tabletris/Dice-v0")`` works after ``import tabletris``.
The entry points are strings, so nothing of the environments is imported until one is made.
Nothing here may break importing tabletris: a missing or broken Gymnasium is ignored.
"""

from __future__ import annotations

import contextlib
import importlib.util
import sys
from collections.abc import Sequence
from types import ModuleType
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import importlib.machinery

ENVIRONMENTS: dict[str, str] = {
    "tabletris/Dice-v0": "tabletris.envs.gym:DiceEnv",
    "tabletris/Tower-v0": "tabletris.envs.gym:TowerEnv",
    "tabletris/Game-v0": "tabletris.envs.game_env:GameEnv",
}


VECTOR_ENVIRONMENTS: dict[str, str] = {
    "tabletris/Dice-v0": "tabletris.envs.vector:DiceVectorEnv",
    "tabletris/Tower-v0": "tabletris.envs.tower_vector:TowerVectorEnv",
}
"""``gymnasium.make_vec`` builds these (N games in one batch) instead of N wrapped envs."""


def register_envs(gymnasium: Any = None) -> None:
    """Register every tabletris environment with ``gymnasium`` (imported if not given)."""
    if gymnasium is None:
        import gymnasium
    for env_id, entry_point in ENVIRONMENTS.items():
        if env_id not in gymnasium.registry:
            gymnasium.register(  # env checker on
                id=env_id, entry_point=entry_point, vector_entry_point=VECTOR_ENVIRONMENTS.get(env_id)
            )


class _GymnasiumHook:
    """A meta path finder (duck-typed: ``importlib.abc`` costs more to import than all of
    this saves) that finds nothing itself; when ``gymnasium`` is being imported, registers after it loads."""

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        if fullname != "gymnasium":
            return None
        if self in sys.meta_path:
            sys.meta_path.remove(self)  # one shot, and no recursion through find_spec below
        spec = importlib.util.find_spec(fullname)
        loader = spec.loader if spec is not None else None
        if loader is None or not hasattr(loader, "exec_module"):
            return spec
        original = loader.exec_module

        def exec_module(module: ModuleType) -> None:
            original(module)
            with contextlib.suppress(Exception):  # a broken Gymnasium must not break its import
                register_envs(module)

        loader.exec_module = exec_module  # type: ignore[method-assign]
        return spec


def install() -> None:
    """Register now if Gymnasium is loaded, else when it is; never raises."""
    try:
        module = sys.modules.get("gymnasium")
        if module is not None:
            register_envs(module)
        elif not any(isinstance(f, _GymnasiumHook) for f in sys.meta_path):
            sys.meta_path.insert(0, _GymnasiumHook())
    except Exception:  # importing tabletris must never fail because of Gymnasium
        pass
