"""Project functions alive before the tracer starts: a plugin module of the project named
with ``-p`` is imported while pytest parses its options, before the initial conftests and
so before recording begins. The tracer never sees that module executed, yet a test calling
its functions depends on them."""

from __future__ import annotations

import pytest

from .helpers import edit, run, write

pytest_plugins = ["pytester"]


def test_function_imported_before_tracing_is_recorded(pytester: pytest.Pytester) -> None:
    write(
        pytester,
        "early_plugin.py",
        """
        def helper():
            return 1


        def other():
            return 2
        """,
    )
    write(
        pytester,
        "test_early.py",
        """
        from early_plugin import helper, other


        def test_helper():
            assert helper() == 1


        def test_other():
            assert other() == 2
        """,
    )
    pytester.syspathinsert()
    assert run(pytester, "-p", "early_plugin") == {"test_helper", "test_other"}
    edit(pytester, "early_plugin.py", "return 1", "return 1 + 0")
    assert run(pytester, "-p", "early_plugin") == {"test_helper"}
