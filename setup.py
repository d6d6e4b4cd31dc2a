"""Builds the optional compiled core and the translation catalogs; everything else is in pyproject.toml.

``optional=True``: when the C compiler or Python headers are missing the build says so and the
install goes on without it; the engine then runs its pure-Python reference (``tabletris bench``
says which engine it runs).

The ``.po`` catalogs are the source; ``build_py`` compiles them to ``.mo`` in the built package
(``tabletris.i18n`` compiles them in memory where no ``.mo`` exists, as in an editable checkout).
"""

import os
import shlex
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_py import build_py


class BuildWithCatalogs(build_py):
    def run(self) -> None:
        super().run()
        from babel.messages.mofile import write_mo
        from babel.messages.pofile import read_po

        for po in Path(self.build_lib, "tabletris", "i18n", "locale").glob("*/LC_MESSAGES/*.po"):
            with po.open("rb") as f:
                catalog = read_po(f, locale=po.parent.parent.name, domain=po.stem)
            with po.with_suffix(".mo").open("wb") as f:
                write_mo(f, catalog)


COMPILE_ARGS = ["-O2", *shlex.split(os.environ.get("CFLAGS", "")), "-std=c99", "-ffp-contract=off"]
"""The cores' compiler flags. setuptools puts ``extra_compile_args`` after the user's CFLAGS, so
CFLAGS are repeated after the project's default ``-O2``: ``CFLAGS="-O1 -fsanitize=..."`` then
really builds at -O1 (the CI's sanitizer step). Last, what the code's correctness needs, which
no CFLAGS may change: C99, and no fused multiply-add (the floats are the Python engine's)."""

EXTENSIONS = [
    Extension(
        "tabletris.engine._native",
        ["src/tabletris/engine/_native.c"],
        depends=[  # included by _native.c
            "src/tabletris/engine/_dice_kernel.c",
            "src/tabletris/bots/_dice_expert.c",
            "src/tabletris/envs/_dice_env.c",
        ],
        optional=True,
        extra_compile_args=COMPILE_ARGS,
    ),
    Extension(
        "tabletris.engine._tower",
        ["src/tabletris/engine/_tower_core.c"],
        depends=[  # included by _tower_core.c
            "src/tabletris/engine/_cpython_random.h",
            "src/tabletris/bots/_tower_bots.c",
            "src/tabletris/envs/_tower_env.c",
        ],
        optional=True,
        extra_compile_args=COMPILE_ARGS,
    ),
]
ONLY = os.environ.get("TABLETRIS_BUILD_ONLY", "")
"""Comma-separated extension names to build, all when unset: the sanitizer step
(scripts/sanitize.sh) builds only the one core whose tests it runs."""

setup(
    cmdclass={"build_py": BuildWithCatalogs},
    ext_modules=[e for e in EXTENSIONS if not ONLY or e.name in ONLY.split(",")],
)
