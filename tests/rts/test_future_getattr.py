"""A package ``__init__``'s module ``__getattr__`` and ``from __future__`` imports are units
of their own: editing or removing them selects the tests that can see the difference, not
every test that imports the package (itsdangerous dropped both in one commit: every test
ran where none needed to)."""

from __future__ import annotations

import sys

import pytest

from .helpers import edit, run, write

pytest_plugins = ["pytester"]

_INIT = """
from __future__ import annotations

import typing as t

from .core import double as double
from .shapes import Box as Box


def __getattr__(name: str) -> t.Any:
    if name == "legacy":
        return "old"
    raise AttributeError(name)
"""


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    write(pytester, "pkg/__init__.py", _INIT)
    write(pytester, "pkg/core.py", "def double(x):\n    return 2 * x\n")
    write(
        pytester,
        "pkg/shapes.py",
        """
        from __future__ import annotations

        def area(width: Width, height: int) -> int:
            return width * height


        def perimeter(width, height):
            return 2 * (width + height)


        class Box:
            size: int = 1
        """,
    )
    write(
        pytester,
        "test_pkg.py",
        """
        from pkg import Box, double, shapes


        def test_double():
            assert double(2) == 4


        def test_legacy():
            import pkg

            assert pkg.legacy == "old"


        def test_missing():
            import pkg

            assert getattr(pkg, "missing", None) is None


        def test_perimeter():
            assert shapes.perimeter(1, 2) == 6


        def test_area():
            assert shapes.area(2, 3) == 6


        def test_area_hints():
            assert shapes.area.__annotations__["height"] == "int"


        def test_box_fields():
            assert Box.__annotations__ == {"size": "int"}


        def test_core_missing():
            import pkg.core

            assert getattr(pkg.core, "nope", None) is None
        """,
    )
    write(pytester, "test_other.py", "def test_other():\n    assert True\n")
    assert len(run(pytester, flag="--reks-all")) == 9
    return pytester


def test_removing_getattr_and_future_selects_the_tests_that_ran_getattr(
    project: pytest.Pytester,
) -> None:
    """itsdangerous 31f46a3: the ``__future__`` import, ``typing`` and the deprecated
    ``__getattr__`` removed from ``__init__``: only the tests whose lookups fell through to
    ``__getattr__`` can see it (collection looks attributes up on the module objects a test
    module holds: the tests here import ``pkg`` inside the test)."""
    write(
        project,
        "pkg/__init__.py",
        "from .core import double as double\nfrom .shapes import Box as Box\n",
    )
    assert run(project) == {"test_legacy", "test_missing"}


def test_editing_getattr_selects_the_tests_that_ran_it(project: pytest.Pytester) -> None:
    """The edited branch serves ``legacy`` alone: ``test_missing`` asked another name
    (``rts.getattr_branches``); the fall-through serves it. Before 3.12 the tracers do not
    tell the names asked: every run of the function depends on all of it."""
    edit(project, "pkg/__init__.py", 'return "old"', 'return "new"')
    told = sys.version_info >= (3, 12)
    assert run(project) == ({"test_legacy"} if told else {"test_legacy", "test_missing"})
    edit(project, "pkg/__init__.py", "raise AttributeError(name)", "raise AttributeError(name, 1)")
    assert run(project) == {"test_legacy", "test_missing"}


def test_adding_getattr_selects_every_importer(project: pytest.Pytester) -> None:
    """A new module ``__getattr__`` answers lookups that used to fail (``getattr(m, name,
    default)``, ``hasattr``), which ran no code of the module to record."""
    edit(
        project,
        "pkg/core.py",
        "return 2 * x\n",
        "return 2 * x\n\n\ndef __getattr__(name):\n    return 0\n",
    )
    selected = run(project)
    assert "test_core_missing" in selected and "test_other" not in selected


def test_removing_future_annotations_selects_what_evaluates_annotations(
    project: pytest.Pytester,
) -> None:
    """Without ``from __future__ import annotations`` the annotations of ``area``'s ``def``
    and of ``Box``'s body are evaluated (``Width`` is undefined: importing fails);
    ``perimeter``, with none, compiles to the same code."""
    edit(project, "pkg/shapes.py", "def area(width: Width,", "def area(width: int,")
    assert run(project) == {"test_area", "test_area_hints"}
    edit(project, "pkg/shapes.py", "from __future__ import annotations\n", "")
    assert run(project) == {"test_area", "test_area_hints", "test_box_fields"}
