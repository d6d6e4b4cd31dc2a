"""Builds the optional compiled core; everything else is in pyproject.toml.

``optional=True``: when the C compiler or Python headers are missing the build says so and the
install goes on without it; the engine then runs its pure-Python reference (``tabletris bench``
says which engine it runs).
"""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension(
            "tabletris.engine._native",
            ["src/tabletris/engine/_native.c"],
            optional=True,
            extra_compile_args=["-O2", "-std=c99", "-ffp-contract=off"],
        )
    ]
)
