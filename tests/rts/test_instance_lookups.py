"""A method that reads its own instance's ``__dict__`` whole (jinja's ``Frame.copy``:
``rv.__dict__.update(self.__dict__)``) or sets an attribute by a computed name
(diskcache's ``Cache.reset``: ``setattr(self._disk, attr, value)``) finds class
attributes at most, never a module's global; storing an attribute named like a lookup
builtin (jinja's ``Template._from_namespace``: ``t.globals = globals``) finds nothing:
their tests depend on the classes' members, not on every binding (a version bump reran
all 243 tests of diskcache, a change of an unrun function every test of jinja). A class
attribute that such code may now find still selects."""

from __future__ import annotations

import sys

import pytest

from .helpers import edit, run, write

pytest_plugins = ["pytester"]


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    write(
        pytester,
        "store.py",
        """
        __version__ = "1.0"


        class Box:
            pass


        class Settings:
            limit = 3

            def __init__(self):
                self.size = 1

            def copy(self):
                new = object.__new__(type(self))
                new.__dict__.update(self.__dict__)
                return new

            def reset(self, target, key, value):
                setattr(target, key, value)
                return target

            def share(self, target):
                target.globals = self.size
                return target

            @classmethod
            def fields(cls):
                return sorted(k for k in cls.__dict__ if not k.startswith("_"))
        """,
    )
    write(
        pytester,
        "test_store_case.py",
        """
        import store


        def test_copy():
            assert store.Settings().copy().size == 1


        def test_reset():
            store.Settings().reset(store.Box(), "".join(["si", "ze"]), 3)


        def test_fields():
            assert store.Settings.fields() == ["copy", "fields", "limit", "reset", "share"]


        def test_share():
            assert getattr(store.Settings().share(store.Box()), "globals") == 1


        def test_version():
            assert store.__version__.startswith("1.")
        """,
    )
    everything = {"test_copy", "test_reset", "test_fields", "test_share", "test_version"}
    assert run(pytester, flag="--reks-all") == everything
    return pytester


def test_a_version_bump_selects_only_its_reader(project: pytest.Pytester) -> None:
    edit(project, "store.py", '__version__ = "1.0"', '__version__ = "1.1"')
    # ``self.__dict__`` may be a module's (``Settings.copy(module)``): 3.12's LINE events
    # tell it is not; before 3.12 nothing does, and the method reads every name.
    untold = set() if sys.version_info >= (3, 12) else {"test_copy", "test_fields"}
    assert run(project) == {"test_version"} | untold


def test_a_property_the_computed_setattr_now_meets_selects(project: pytest.Pytester) -> None:
    edit(project, "store.py", "class Box:\n    pass", "class Box:\n    size = property(len)")
    assert "test_reset" in run(project)


def test_a_class_attribute_the_class_dict_now_holds_selects(project: pytest.Pytester) -> None:
    edit(project, "store.py", "    limit = 3\n", "    limit = 3\n    extra = 4\n")
    assert "test_fields" in run(project)
