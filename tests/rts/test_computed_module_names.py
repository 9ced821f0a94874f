"""``importlib.import_module`` with a name computed in the call (an f-string, a sum): on
3.12+ the CALL event hands over the first argument, so the module imported is known, and
the test depends on it, not on every binding of the modules its code refers to (tomli's
``test_types_import`` imports ``f"{tomllib.__name__}._types"`` and was selected by every
``__version__`` bump)."""

from __future__ import annotations

import sys

import pytest

from .helpers import edit, run, write

pytest_plugins = ["pytester"]


def _project(pytester: pytest.Pytester) -> None:
    write(
        pytester,
        "pkg/__init__.py",
        """
        __version__ = "1.0"

        from .core import twice
        """,
    )
    write(pytester, "pkg/core.py", "def twice(x):\n    return 2 * x\n")
    write(pytester, "pkg/_types.py", "Number = int\nLIMIT = 3\n")
    write(
        pytester,
        "test_pkg.py",
        """
        import importlib

        import pkg


        def test_types_import():
            module = importlib.import_module(f"{pkg.__name__}._types")
            assert module.Number is int


        def test_twice():
            assert pkg.twice(2) == 4
        """,
    )


@pytest.mark.skipif(sys.version_info < (3, 12), reason="the CALL event tells the argument")
def test_a_computed_module_name_reads_the_module_it_names_not_every_binding(
    pytester: pytest.Pytester,
) -> None:
    _project(pytester)
    assert run(pytester, flag="--reks-all") == {"test_types_import", "test_twice"}
    edit(pytester, "pkg/__init__.py", '"1.0"', '"1.1"')
    assert run(pytester) == set()
    edit(pytester, "pkg/_types.py", "Number = int", "Number = float")
    assert run(pytester) == {"test_types_import"}
