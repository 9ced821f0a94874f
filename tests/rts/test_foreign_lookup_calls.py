"""A call spelled like a lookup function that calls a library's callable instead
(``monkeypatch.setattr(module, "name", value)``): on 3.12 the CALL event names the
callable, and the names it is handed are the strings among its arguments, as for a
lookup method. It made every test of a file with such an autouse fixture look names up
by string (structlog's ``_unimport_rich``: each traceback test depended on every class of
every module it imported). An argument the site computes still reads any name. Real
pytest sessions."""

from __future__ import annotations

import sys

import pytest

from .helpers import edit, run, write

pytest_plugins = ["pytester"]

pytestmark = pytest.mark.skipif(
    sys.version_info < (3, 12), reason="the CALL event names the callable from 3.12"
)

_SHAPES = """
flag = True


class Circle:
    def __init__(self, r):
        self.r = r

    def area(self):
        return 3 * self.r * self.r


class Square:
    def __init__(self, side):
        self.side = side

    def area(self):
        return self.side * self.side
"""

_TESTS = """
import pytest

import shapes


@pytest.fixture(autouse=True)
def _no_flag(monkeypatch):
    monkeypatch.setattr(shapes, {name}, None)


def test_circle():
    assert shapes.Circle(1).area() == 3
"""


def _project(pytester: pytest.Pytester, name: str) -> None:
    write(pytester, "shapes.py", _SHAPES)
    write(pytester, "test_circles.py", _TESTS.format(name=name))
    assert run(pytester) == {"test_circle"}


def test_a_library_call_spelled_setattr_reads_the_names_it_is_handed(
    pytester: pytest.Pytester,
) -> None:
    _project(pytester, '"flag"')
    edit(pytester, "shapes.py", "def __init__(self, side):", "def __init__(self, side=1):")
    assert run(pytester) == set()
    edit(pytester, "shapes.py", "flag = True", "flag = False")
    assert run(pytester) == {"test_circle"}


def test_a_computed_name_handed_to_it_still_reads_any_name(pytester: pytest.Pytester) -> None:
    _project(pytester, '"".join(["fl", "ag"])')
    edit(pytester, "shapes.py", "def __init__(self, side):", "def __init__(self, side=1):")
    assert run(pytester) == {"test_circle"}


def test_a_library_call_spelled_vars_handed_a_module_reads_any_name(
    pytester: pytest.Pytester,
) -> None:
    # One argument, no name among it: what it lists is not told (here ``dir``).
    write(pytester, "shapes.py", _SHAPES)
    write(
        pytester,
        "test_circles.py",
        """
        import types

        import shapes

        LISTING = types.SimpleNamespace(vars=dir)


        def test_listed():
            assert len([n for n in LISTING.vars(shapes) if n[0] != "_"]) == 3
        """,
    )
    assert run(pytester) == {"test_listed"}
    edit(pytester, "shapes.py", "flag = True", "flag = True\nlimit = 2")
    assert run(pytester) == {"test_listed"}
