"""A method looking up attributes of its own instance or class by a computed name
(``getattr(self, name)``, sqlparse's token types) can find any class attribute but no
module global: a test that ran it depends on the classes of its modules, not on every
binding (sqlparse: a ``__version__`` edit reran every test)."""

from __future__ import annotations

import pytest

from .helpers import edit, run, write

pytest_plugins = ["pytester"]


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    write(
        pytester,
        "kinds.py",
        """
        __version__ = "1.0"
        LIMIT = 3


        class Kind:
            short = "s"

            def pick(self, name):
                return getattr(self, name, None)


        def by_name(obj, name):
            # A name computed at the call: any binding (a name held in a variable is
            # recorded as it is looked up, see test_runtime_lookups.py).
            return getattr(obj, name.upper())
        """,
    )
    write(
        pytester,
        "test_kinds.py",
        """
        import kinds


        def test_pick():
            assert kinds.Kind().pick("short") == "s"


        def test_pick_missing():
            assert kinds.Kind().pick("lo" + "ng") is None  # no name a string spells


        def test_by_name():
            assert kinds.by_name(kinds, "limit") == 3
        """,
    )
    assert len(run(pytester, flag="--reks-all")) == 3
    return pytester


def test_a_module_global_is_not_found_by_getattr_on_self(project: pytest.Pytester) -> None:
    edit(project, "kinds.py", '"1.0"', '"1.1"')
    assert run(project) == {"test_by_name"}


def test_a_changed_class_attribute_selects_the_lookups_on_self(project: pytest.Pytester) -> None:
    edit(project, "kinds.py", 'short = "s"', 'short = "t"')
    assert run(project) == {"test_pick", "test_pick_missing", "test_by_name"}


def test_a_new_class_attribute_selects_the_lookups_on_self(project: pytest.Pytester) -> None:
    edit(project, "kinds.py", 'short = "s"', 'short = "s"\n    long = "l"')
    # The lookup that missed "long" and the one by a computed name; test_pick's looked up
    # "short" only (recorded as it ran: test_self_dispatch.py).
    assert run(project) == {"test_pick_missing", "test_by_name"}


def test_a_static_method_argument_is_no_instance(pytester: pytest.Pytester) -> None:
    write(
        pytester,
        "finder.py",
        """
        LIMIT = 3


        class Finder:
            @staticmethod
            def find(module, name):
                return getattr(module, name)
        """,
    )
    write(
        pytester,
        "test_finder.py",
        """
        import finder


        def test_find():
            assert finder.Finder.find(finder, "LIMIT") == 3
        """,
    )
    assert run(pytester, flag="--reks-all") == {"test_find"}
    edit(pytester, "finder.py", "LIMIT = 3", "LIMIT = 4")
    assert run(pytester) == {"test_find"}
