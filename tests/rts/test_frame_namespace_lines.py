"""A function reading a frame's namespace (jinja's ``debug.fake_traceback`` reads
``tb.tb_frame.f_locals`` only for a traceback through template code) looks up any name, but
only where that line runs: on Python 3.12+ a test whose run never took the branch does not
depend on every binding of its modules, and a new binding selects it only when the line ran
in it (sys.monitoring LINE events; before 3.12 the function counts whole). Real pytest
sessions."""

from __future__ import annotations

import sys

import pytest

from .helpers import edit, run, write

pytest_plugins = ["pytester"]

LINES_SEEN = sys.version_info >= (3, 12)


def _record_tests(pytester: pytest.Pytester) -> None:
    """Tests of ``debug.rewrite`` with and without a traceback, recorded."""
    write(
        pytester,
        "test_debug.py",
        """
        import debug


        def test_plain():
            found = debug.rewrite("e")
            assert found == {"error": "e"}


        def test_frame():
            try:
                raise ValueError("x")
            except ValueError as error:
                found = debug.rewrite(error, error.__traceback__)
            assert "found" not in found
        """,
    )
    assert run(pytester, flag="--reks-all") == {"test_plain", "test_frame"}


def test_a_frame_namespace_read_counts_only_where_its_line_ran(
    pytester: pytest.Pytester,
) -> None:
    write(
        pytester,
        "debug.py",
        """
        import sys

        LIMIT = 3


        def rewrite(error, tb=None):
            if tb is not None:
                return dict(tb.tb_frame.f_locals)
            return {"error": error}
        """,
    )
    _record_tests(pytester)
    edit(pytester, "debug.py", "LIMIT = 3", "LIMIT = 3\nOTHER = 4")
    assert run(pytester) == ({"test_frame"} if LINES_SEEN else {"test_plain", "test_frame"})


def test_a_frame_read_that_ran_does_not_count_a_code_read_that_did_not(
    pytester: pytest.Pytester,
) -> None:
    # Jinja's fake_traceback reads ``code.co_code`` only on old Pythons: the lines of the
    # two reads are told apart.
    write(
        pytester,
        "debug.py",
        """
        def helper():
            return 1


        def rewrite(error, tb=None, old=False):
            if old:
                return helper.__code__.co_code
            if tb is not None:
                return dict(tb.tb_frame.f_locals)
            return {"error": error}
        """,
    )
    _record_tests(pytester)
    edit(pytester, "debug.py", "return 1", "return 2")
    assert run(pytester) == (set() if LINES_SEEN else {"test_plain", "test_frame"})
