"""``typing``'s own class hooks make no class hooked (``rts.class_hooks``).

A generic class (``class Box(t.Generic[V])``) or a protocol runs ``Generic``'s
``__init_subclass__`` (and ``Protocol``'s metaclass) when its statement runs: code that
checks the bases and stores on the new class alone, whatever its members are. Counted as
hooks, they put the class's whole digest in a ``C.<hooks>`` unit every importer depends on,
so a method added to a generic class, or a protocol removed, reran every test importing
its module (click ``f36d58bb``: a removed ``Protocol`` subclass selected 496 tests through
``<hooks>``). A hook of the project's own in such a hierarchy keeps the class hooked: it
may refuse a member, and then importing the module fails."""

from __future__ import annotations

import pytest

from .helpers import edit, run, write

pytest_plugins = ["pytester"]

SHAPES = """
import typing as t

V = t.TypeVar("V")


class Box(t.Generic[V]):
    def __init__(self, value: V) -> None:
        self.value = value

    def get(self) -> V:
        return self.value


class Sized(t.Protocol):
    def size(self) -> int: ...


def area(w, h):
    return w * h
"""

LISTING = """
import typing as t

V = t.TypeVar("V")


class Listed(t.Generic[V]):
    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if "bad" in vars(cls):
            raise TypeError("no member may be called bad")


class Kept(Listed[V]):
    def first(self):
        return 1


def unrelated():
    return 2
"""

TESTS = """
import shapes


def test_area():
    assert shapes.area(2, 3) == 6


def test_box():
    assert shapes.Box(1).get() == 1
"""

LISTING_TESTS = """
def test_unrelated():
    import listing  # here, so that a failing import fails this test, not the collection

    assert listing.unrelated() == 2
"""


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    write(pytester, "shapes.py", SHAPES)
    write(pytester, "test_box_use.py", TESTS)
    write(pytester, "listing.py", LISTING)
    write(pytester, "test_listing.py", LISTING_TESTS)
    assert run(pytester, flag="--reks-all") == {"test_area", "test_box", "test_unrelated"}
    return pytester


def test_a_method_added_to_a_generic_class_selects_no_test_that_does_not_use_it(
    project: pytest.Pytester,
) -> None:
    added = "    def put(self, v):\n        pass\n\n    def get(self) -> V:"
    edit(project, "shapes.py", "    def get(self) -> V:", added)
    assert run(project) == set()


def test_a_removed_protocol_selects_no_test_that_does_not_use_it(
    project: pytest.Pytester,
) -> None:
    edit(project, "shapes.py", "class Sized(t.Protocol):\n    def size(self) -> int: ...\n", "")
    assert run(project) == set()


def test_a_member_a_hook_of_the_project_refuses_selects_the_importers(
    project: pytest.Pytester,
) -> None:
    added = "    def bad(self):\n        pass\n\n    def first(self):"
    edit(project, "listing.py", "    def first(self):", added)
    assert run(project) == {"test_unrelated"}
