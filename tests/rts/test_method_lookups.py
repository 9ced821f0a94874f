"""A call of an attribute-lookup method spelled as an attribute (``self.__getattr__(item)``,
``ModuleType.__getattribute__(module, name)``) reads the names its arguments hold, recorded
as it runs on every Python reks supports: before 3.12 the instrumented tracer watches the
instructions of the frame holding such a call (a profile hook sees a Python ``__getattr__``
called, but no slot wrapper). tinydb's ``Query.__getitem__`` (``self.__getattr__(item)``)
made every query test read every name under 3.11, so its ``__version__`` bumps (ad63e2e670,
10644a0e07) selected 84 tests that 3.12 left alone."""

from __future__ import annotations

import pytest

from .helpers import edit, run, write

pytest_plugins = ["pytester"]

MODULE = """
import types

LIMIT = 3
OTHER = 1


class Query:
    def __getattr__(self, name):
        return ("path", name)

    def __getitem__(self, item):
        # As tinydb's: a field named like a method is still a field.
        return self.__getattr__(item)


def read(module, name):
    return types.ModuleType.__getattribute__(module, name)
"""

TESTS = """
import mod


def test_query():
    assert mod.Query()["field"] == ("path", "field")


def test_read():
    # A name no code spells: only the lookup's run tells it.
    assert mod.read(mod, "".join(["LIM", "IT"])) == 3
"""


@pytest.fixture
def recorded(pytester: pytest.Pytester) -> pytest.Pytester:
    write(pytester, "mod.py", MODULE)
    write(pytester, "test_mod.py", TESTS)
    assert run(pytester, flag="--reks-all") == {"test_query", "test_read"}
    return pytester


def test_a_forwarded_lookup_reads_only_the_name_it_was_handed(
    recorded: pytest.Pytester,
) -> None:
    edit(recorded, "mod.py", "OTHER = 1", "OTHER = 2")
    assert run(recorded) == set()


def test_a_slot_wrapper_called_by_name_reads_the_name_it_was_handed(
    recorded: pytest.Pytester,
) -> None:
    # ``ModuleType.__getattribute__`` is a slot wrapper: no profile hook sees it called.
    edit(recorded, "mod.py", "LIMIT = 3", "LIMIT = 4")
    assert run(recorded) == {"test_read"}


def test_a_forwarded_lookup_in_a_comprehension_stays_sound(pytester: pytest.Pytester) -> None:
    write(
        pytester,
        "mod.py",
        """
        import types

        LIMIT = 3


        def read_all(module, names):
            return [types.ModuleType.__getattribute__(module, n) for n in names]
        """,
    )
    write(
        pytester,
        "test_mod.py",
        """
        import mod


        def test_read_all():
            assert mod.read_all(mod, ["".join(["LIM", "IT"])]) == [3]
        """,
    )
    assert run(pytester, flag="--reks-all") == {"test_read_all"}
    edit(pytester, "mod.py", "LIMIT = 3", "LIMIT = 4")
    assert run(pytester) == {"test_read_all"}


def test_another_tools_trace_function_leaves_the_lookups_unknown(
    pytester: pytest.Pytester,
) -> None:
    # A debugger's or coverage's trace function stays: the frame cannot be traced, so its
    # code reads every name (before 3.12; the CALL event sees the call whatever traces).
    write(
        pytester,
        "conftest.py",
        """
        import sys

        import pytest


        def _foreign(frame, event, arg):
            return None


        @pytest.fixture(autouse=True)
        def foreign_tracer():
            before = sys.gettrace()
            sys.settrace(_foreign)
            yield
            sys.settrace(before)
        """,
    )
    write(pytester, "mod.py", MODULE)
    write(pytester, "test_mod.py", TESTS)
    assert run(pytester, flag="--reks-all") == {"test_query", "test_read"}
    edit(pytester, "mod.py", "LIMIT = 3", "LIMIT = 4")
    assert "test_read" in run(pytester)
