"""``typing.cast(T, v)`` returns ``v`` at run time, so a cast added or dropped around a value
changes nothing a test can observe, where evaluating ``T`` cannot fail: a string, or a name
the module binds once, before the function, at its top level. jinja's ``optimizeconst``, a
decorator every importer runs at import, went from ``update_wrapper(t.cast(F, new_func),
f)`` to ``update_wrapper(new_func, f)``: reks ran the whole suite, testmon 356 of 764."""

from __future__ import annotations

import pytest

from .helpers import edit, run, write

pytest_plugins = ["pytester"]

_DECORATOR = """
import typing as t
from functools import update_wrapper

F = t.TypeVar("F")


def traced(f):
    def new_func(*args):
        return t.cast(int, f(*args)) + 1

    return update_wrapper(t.cast(F, new_func), f)
"""


@pytest.fixture
def casting(pytester: pytest.Pytester) -> pytest.Pytester:
    write(pytester, "deco.py", _DECORATOR)
    write(
        pytester,
        "engine.py",
        """
        from deco import traced


        class Gen:
            @traced
            def visit(self, x):
                return x


        def plain(x):
            return x * 2
        """,
    )
    write(
        pytester,
        "test_engine_case.py",
        """
        from engine import Gen, plain


        def test_visit():
            assert Gen().visit(1) == 2


        def test_plain():
            assert plain(2) == 4
        """,
    )
    assert run(pytester) == {"test_visit", "test_plain"}
    return pytester


def test_a_cast_dropped_changes_nothing(casting: pytest.Pytester) -> None:
    edit(casting, "deco.py", "t.cast(F, new_func)", "new_func")
    assert run(casting) == set()


def test_a_cast_to_a_string_type_added_changes_nothing(casting: pytest.Pytester) -> None:
    edit(casting, "deco.py", "t.cast(F, new_func)", 't.cast("Callable", t.cast(F, new_func))')
    assert run(casting) == set()


def test_a_cast_to_an_unbound_name_selects_the_callers(casting: pytest.Pytester) -> None:
    edit(casting, "deco.py", "t.cast(int, ", "t.cast(G, ")
    assert run(casting) == {"test_visit"}


def test_a_cast_to_a_builtin_dropped_changes_nothing(casting: pytest.Pytester) -> None:
    edit(casting, "deco.py", "t.cast(int, f(*args))", "f(*args)")
    assert run(casting) == set()


def test_a_cast_to_a_name_bound_only_for_type_checkers_selects_the_callers(
    casting: pytest.Pytester,
) -> None:
    edit(casting, "deco.py", "t.cast(int, ", "t.cast(Number, ")
    text = (casting.path / "deco.py").read_text()
    write(casting, "deco.py", text + "\nif t.TYPE_CHECKING:\n    Number = int\n")
    assert run(casting) == {"test_visit"}


def test_a_cast_of_another_module_counts(casting: pytest.Pytester) -> None:
    write(casting, "checks.py", "def cast(kind, value):\n    return [value]\n")
    edit(casting, "deco.py", "import typing as t\n", "import typing as t\nimport checks\n")
    edit(casting, "deco.py", "t.cast(F, new_func)", "checks.cast(F, new_func)")
    run(casting)
    edit(casting, "deco.py", "checks.cast(F, new_func)", "new_func")
    assert run(casting) == {"test_visit", "test_plain"}
