"""Lookups by a name held in a variable (``getattr(module, name)`` over a table, as
``toolz._signatures`` does at import) depend on the names they really read, recorded at
run time, not on every binding of every module: a value change to a name never looked up
selects only the tests that read it otherwise; a change to a name looked up, a new binding
of a name looked up and found missing, and a change to the table select every test whose
modules ran the lookups."""

from __future__ import annotations

import pytest

from .helpers import edit, run, write

pytest_plugins = ["pytester"]


def _project(pytester: pytest.Pytester) -> None:
    write(
        pytester,
        "pkg/__init__.py",
        """
        from . import sigs
        from .core import curry, other, uses_limit

        sigs.create_registry()
        """,
    )
    write(
        pytester,
        "pkg/sigs.py",
        """
        from importlib import import_module

        TABLE = {"pkg.core": ["curry", "missing_name"]}
        registry = {}


        def create_registry(table=TABLE):
            for module, names in table.items():
                module = import_module(module)
                for name in names:
                    if hasattr(module, name):
                        registry[name] = getattr(module, name)
        """,
    )
    write(
        pytester,
        "pkg/core.py",
        """
        LIMIT = 3


        def curry():
            return 1


        def other():
            return 2


        def uses_limit():
            return LIMIT
        """,
    )
    write(
        pytester,
        "test_pkg.py",
        """
        from pkg import other, uses_limit


        def test_other():
            assert other() == 2


        def test_limit():
            assert uses_limit() == 3
        """,
    )
    assert run(pytester, flag="--reks-all") == {"test_other", "test_limit"}


def test_a_name_never_looked_up_selects_only_its_readers(pytester: pytest.Pytester) -> None:
    _project(pytester)
    edit(pytester, "pkg/core.py", "LIMIT = 3", "LIMIT = 4")
    assert run(pytester) == {"test_limit"}


def test_a_new_binding_of_a_name_never_looked_up_selects_nothing(
    pytester: pytest.Pytester,
) -> None:
    _project(pytester)
    edit(pytester, "pkg/core.py", "LIMIT = 3", "LIMIT = 3\nUNUSED = 5")
    assert run(pytester) == set()


def test_a_changed_binding_of_a_name_looked_up_selects_every_importer(
    pytester: pytest.Pytester,
) -> None:
    _project(pytester)
    edit(pytester, "pkg/core.py", "def curry():", "def curry(a=0):")
    assert run(pytester) == {"test_other", "test_limit"}


def test_a_new_binding_of_a_name_found_missing_selects_every_importer(
    pytester: pytest.Pytester,
) -> None:
    _project(pytester)
    edit(pytester, "pkg/core.py", "LIMIT = 3", "LIMIT = 3\nmissing_name = 5")
    assert run(pytester) == {"test_other", "test_limit"}


def test_a_changed_table_selects_every_importer(pytester: pytest.Pytester) -> None:
    _project(pytester)
    edit(pytester, "pkg/sigs.py", '"missing_name"]', '"missing_name", "LIMIT"]')
    assert run(pytester) == {"test_other", "test_limit"}


def test_a_lookup_in_a_test_depends_on_the_names_it_read(pytester: pytest.Pytester) -> None:
    write(
        pytester,
        "mod.py",
        """
        LIMIT = 3
        OTHER = 4


        def lookup(name):
            return getattr(__import__("sys").modules[__name__], name)


        def find(obj, name):
            return getattr(obj, name)
        """,
    )
    write(
        pytester,
        "test_mod.py",
        """
        import mod


        def test_find():
            assert mod.find(mod, "OT" + "HER") == 4


        def test_lookup():
            assert mod.lookup("OT" + "HER") == 4
        """,
    )
    assert run(pytester, flag="--reks-all") == {"test_find", "test_lookup"}
    # ``lookup`` reads ``sys.modules`` (a lookup by string of any module): conservative.
    edit(pytester, "mod.py", "LIMIT = 3", "LIMIT = 5")
    assert run(pytester) == {"test_lookup"}
    edit(pytester, "mod.py", "OTHER = 4", "OTHER = 6")
    assert run(pytester) == {"test_find", "test_lookup"}


def test_a_lookup_whose_name_is_not_a_plain_variable_stays_conservative(
    pytester: pytest.Pytester,
) -> None:
    write(
        pytester,
        "mod.py",
        """
        LIMIT = 3
        OTHER = 4


        def find(obj, names, i):
            return getattr(obj, names[i])
        """,
    )
    write(
        pytester,
        "test_mod.py",
        """
        import mod


        def test_find():
            assert mod.find(mod, ["OTHER"], 0) == 4
        """,
    )
    assert run(pytester, flag="--reks-all") == {"test_find"}
    edit(pytester, "mod.py", "LIMIT = 3", "LIMIT = 5")
    assert run(pytester) == {"test_find"}
