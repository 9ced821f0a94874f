"""A lookup by a name held in a variable is recorded as it runs (``rts.runtime_lookups``):
the names each code object looked up, over the session. One of those naming a listing of
the session's state (``__subclasses__``) made the code a listing reader in every later test
that ran it: jinja's ``Environment.getattr`` looked up ``__subclasses__`` for a sandbox test,
and the 134 tests running it after that (every ``test_tests.py`` test) were selected by any
change anywhere. A test lists the session's state only where a listing name was looked up
while it ran (``rts.listing_marks``)."""

from __future__ import annotations

import sys

import pytest

from .helpers import edit, run, write

pytest_plugins = ["pytester"]

# Before 3.12 the tracers do not tell lookups apart per test the same way: not claimed there.
_CALLS_TOLD = pytest.mark.skipif(sys.version_info < (3, 12), reason="3.12's CALL events")

LIB = """
def lookup(obj, name):
    return getattr(obj, name)


class Base:
    pass


def helper():
    return 1
"""

# ``test_a`` runs first: its lookup of ``__subclasses__`` lists every subclass so far.
TESTS = """
import lib


def test_a_listing():
    found = lib.lookup(lib.Base, "__subclasses__")()
    assert found == []


def test_b_plain():
    assert lib.lookup(lib.Base, "__name__") == "Base"


def test_c_helper():
    assert lib.helper() == 1
"""


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    write(pytester, "lib.py", LIB)
    write(pytester, "test_lib.py", TESTS)
    write(pytester, "other.py", "VALUE = 1\n")
    write(
        pytester, "test_other.py", "import other\n\n\ndef test_other():\n    assert other.VALUE\n"
    )
    assert run(pytester) == {"test_a_listing", "test_b_plain", "test_c_helper", "test_other"}
    return pytester


@_CALLS_TOLD
def test_a_later_test_running_the_lookup_for_another_name_lists_nothing(
    project: pytest.Pytester,
) -> None:
    edit(project, "other.py", "VALUE = 1", "VALUE = 2")
    assert run(project) == {"test_a_listing", "test_other"}


def test_the_test_looking_up_a_listing_name_sees_any_change(project: pytest.Pytester) -> None:
    # A subclass made in a module only another test imports shows in its listing.
    edit(
        project,
        "other.py",
        "VALUE = 1",
        "import lib\n\n\nclass Sub(lib.Base):\n    pass\n\n\nVALUE = 1",
    )
    assert "test_a_listing" in run(project)
