"""Line numbers read only while a module was imported place only what ran then
(``rts.position_units``): the functions a test ran afterwards were on no stack then, so
their places reach it only through code that ran during the test. Real pytest sessions on
temporary projects.

typeguard be72808 added a test method far below most of ``_checkers.py``'s functions:
``@typechecked`` read ``co_firstlineno`` and AST ``lineno`` at the import of the tests'
dummy module, so every test importing it depended on the places of every function it
ran later, and 311 tests reran for lines that moved below them."""

from __future__ import annotations

import pytest

from .helpers import edit, ran_and_failed, run, write

pytest_plugins = ["pytester"]

REGISTRY = """
import sys

PLACES = {}


def mark(function):
    PLACES[function.__name__] = sys._getframe(1).f_lineno
    return function
"""

THINGS = "from registry import mark\n\n\n@mark\ndef a():\n    return 1\n"

CALC = """
def first():
    return 1


def add(a, b):
    return a + b
"""

TESTS = """
import registry
import things

import calc


def test_place():
    assert registry.PLACES == {"a": 4}


def test_add():
    assert calc.add(1, 2) == 3
"""


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    write(pytester, "registry.py", REGISTRY)
    write(pytester, "things.py", THINGS)
    write(pytester, "calc.py", CALC)
    write(pytester, "test_calc.py", TESTS)
    assert run(pytester) == {"test_place", "test_add"}
    return pytester


def test_a_function_moved_below_an_import_time_line_read_selects_no_test(
    project: pytest.Pytester,
) -> None:
    # Precision: ``add`` moves; the line read at ``things``' import saw ``things`` only.
    edit(project, "calc.py", "\n\ndef add", "\n\n# the sum\ndef add")
    assert run(project) == set()


def test_a_line_kept_at_import_moved_still_selects_its_reader(project: pytest.Pytester) -> None:
    # Guard: the place the import kept moves (``test_add`` imported ``things`` too).
    edit(project, "things.py", "from registry import mark\n", "from registry import mark\n# a\n")
    ran, failed = ran_and_failed(project)
    assert failed == {"test_place"} and ran >= failed


PROBE = """
import sys

frame = sys._getframe()
while not frame.f_code.co_filename.endswith("test_probe.py"):
    frame = frame.f_back
LINE = frame.f_lineno
"""

PROBE_TEST = """
import importlib
import sys


def test_probe():
    sys.modules.pop("probe", None)
    probe = importlib.import_module("probe")
    assert probe.LINE == 7
"""


def test_a_module_imported_by_the_test_reading_its_callers_line_selects_it(
    pytester: pytest.Pytester,
) -> None:
    # Guard: module code run during the test reads the line of the test function, which
    # spells no line read itself; the test function moves.
    write(pytester, "probe.py", PROBE)
    write(pytester, "test_probe.py", PROBE_TEST)
    assert run(pytester) == {"test_probe"}
    edit(pytester, "test_probe.py", "\n\ndef test_probe", "\n\n# moved\ndef test_probe")
    ran, failed = ran_and_failed(pytester)
    assert ran == failed == {"test_probe"}


WARNS = """
import warnings


def first():
    return 1


def noisy():
    warnings.warn("noisy", UserWarning)
"""

WARNS_TEST = """
import warnings

import registry
import things

import noisy


def test_noisy_line():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        noisy.noisy()
    assert [w.lineno for w in caught] == [9]
"""


def test_a_line_read_as_the_test_runs_beside_an_import_time_one_selects_it(
    pytester: pytest.Pytester,
) -> None:
    # Guard: the test reads the line of a warning ``noisy`` gave as it ran; the modules
    # it imports read lines at import too.
    write(pytester, "registry.py", REGISTRY)
    write(pytester, "things.py", THINGS)
    write(pytester, "noisy.py", WARNS)
    write(pytester, "test_noisy.py", WARNS_TEST)
    assert run(pytester) == {"test_noisy_line"}
    edit(pytester, "noisy.py", "\n\ndef noisy", "\n\n# loud\ndef noisy")
    ran, failed = ran_and_failed(pytester)
    assert ran == failed == {"test_noisy_line"}
