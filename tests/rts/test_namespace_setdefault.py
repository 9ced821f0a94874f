"""``X.__dict__.setdefault("name", default)`` reads (or stores) the one attribute its
constant names, as ``X.__dict__.get("name")`` does: no lookup by a computed string.
click's ``push_context`` (``_local.__dict__.setdefault("stack", [])``), run by every test
invoking a command, made every click test depend on every binding of its modules, so a
new entry in ``shell_completion._available_shells`` reran all 1,927 tests (pytest-testmon:
63). A computed key stays a lookup of any name. Real pytest sessions."""

from __future__ import annotations

import pytest

from .helpers import edit, run, write

pytest_plugins = ["pytester"]

_CONTEXTS = """
import threading

_local = threading.local()


def push(value, key="stack"):
    _local.__dict__.setdefault(KEY, []).append(value)
    return len(_local.stack)


class Shell:
    __slots__ = ("name",)


KEY = "stack"
"""


def _project(pytester: pytest.Pytester, module: str) -> None:
    write(pytester, "contexts.py", module)
    write(
        pytester,
        "test_contexts.py",
        """
        import contexts


        def test_push():
            assert contexts.push(1) >= 1
        """,
    )
    assert run(pytester) == {"test_push"}


def test_a_setdefault_by_a_constant_name_reads_that_name_alone(
    pytester: pytest.Pytester,
) -> None:
    _project(pytester, _CONTEXTS.replace("setdefault(KEY,", 'setdefault("stack",'))
    edit(pytester, "contexts.py", '("name",)', '("name", "path")')
    assert run(pytester) == set()


def test_a_setdefault_by_a_computed_name_reads_any_name(pytester: pytest.Pytester) -> None:
    _project(pytester, _CONTEXTS.replace("setdefault(KEY,", "setdefault(key,"))
    edit(pytester, "contexts.py", '("name",)', '("name", "path")')
    assert run(pytester) == {"test_push"}
