"""A function made where a library call spelled like a lookup is handed it
(``monkeypatch.setattr("module.clock", lambda: 5)``), or a method of a builtin container
held by a local (``stamps.pop``), is no name: the call reads only the
strings it is handed, as when the function came from a local. Before, the lambda was a
computed argument, and the test read any name of every module it imported (funcy's
throttle and log_durations tests ran on every new import of any funcy module). A lambda
whose defaults are computed (code runs as it is made) still reads any name. Real pytest
sessions (3.12+: the CALL event names the callable)."""

from __future__ import annotations

import sys

import pytest

from .helpers import edit, run, write

pytest_plugins = ["pytester"]

pytestmark = pytest.mark.skipif(
    sys.version_info < (3, 12), reason="the CALL event names the callable from 3.12"
)

_SHAPES = """
import time


def clock():
    return time.time()


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
import types

import shapes


def test_circle(monkeypatch):
    start, label, stamps = 5, "hour", [5]
    holder = types.SimpleNamespace(label="".join(["Squ", "are"]))
    monkeypatch.setattr("shapes.clock", {value})
    assert shapes.Circle(1).area() == 3
"""


def _project(pytester: pytest.Pytester, value: str) -> None:
    write(pytester, "shapes.py", _SHAPES)
    write(pytester, "test_circles.py", _TESTS.format(value=value))
    assert run(pytester) == {"test_circle"}


@pytest.mark.parametrize(
    "value",
    ["lambda: 5", "lambda: start", "lambda now=5: now", "stamps.pop"],
    ids=["plain", "closure", "constant-default", "list-method"],
)
def test_a_function_made_at_the_call_names_nothing(pytester: pytest.Pytester, value: str) -> None:
    _project(pytester, value)
    edit(pytester, "shapes.py", "def __init__(self, side):", "def __init__(self, side=1):")
    assert run(pytester) == set()
    # The names it is handed are still read.
    edit(pytester, "shapes.py", "def clock():", "def clock(now=None):")
    assert run(pytester) == {"test_circle"}


def test_a_made_function_with_computed_defaults_still_reads_any_name(
    pytester: pytest.Pytester,
) -> None:
    # A default read from a local holding a string: mistaken for the name handed, it
    # would hide the one really handed.
    _project(pytester, "lambda now=label: now")
    edit(pytester, "shapes.py", "def __init__(self, side):", "def __init__(self, side=1):")
    assert run(pytester) == {"test_circle"}


def test_an_attribute_of_a_local_holding_no_builtin_container_still_reads_any_name(
    pytester: pytest.Pytester,
) -> None:
    # Its value may be a string the library reads as a name ("Square": joined, not
    # spelled, which would read it).
    _project(pytester, "holder.label")
    edit(pytester, "shapes.py", "def __init__(self, side):", "def __init__(self, side=1):")
    assert run(pytester) == {"test_circle"}
