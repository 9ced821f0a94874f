"""A test that read what another test file's code left in a registry depends on modules
outside its file's imports; what it read there is followed from its file's shared base
widened by those modules (``BindingReads.read``), kept for the next such test. The units
recorded must be those of following everything for each test: on a real pytest session,
a binding read only by the filling code selects the tests that read the entry it filled,
and no other test of their file."""

from __future__ import annotations

import pytest

from .helpers import edit, run, write

pytest_plugins = ["pytester"]


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    write(
        pytester,
        "catalog.py",
        """
        REGISTRY = {}


        def register(key, value):
            REGISTRY[key] = value


        def lookup(key):
            return REGISTRY[key]
        """,
    )
    write(
        pytester,
        "makers.py",
        """
        SIDE = 2
        UNUSED = 5


        def make():
            return SIDE * 2
        """,
    )
    write(
        pytester,
        "test_a_fill.py",
        """
        import makers
        import catalog


        def test_fill():
            catalog.register("square", makers.make())
        """,
    )
    write(
        pytester,
        "test_b_read.py",
        """
        from catalog import lookup


        def test_read_once():
            assert lookup("square") > 0


        def test_read_twice():
            assert lookup("square") == lookup("square")


        def test_other():
            assert lookup
        """,
    )
    return pytester


def test_a_binding_the_filling_code_read_selects_the_readers(project: pytest.Pytester) -> None:
    assert run(project) == {"test_fill", "test_read_once", "test_read_twice", "test_other"}
    edit(project, "makers.py", "SIDE = 2", "SIDE = 3")
    assert run(project) == {"test_fill", "test_read_once", "test_read_twice"}


def test_a_binding_nothing_read_selects_none_of_them(project: pytest.Pytester) -> None:
    run(project)
    edit(project, "makers.py", "UNUSED = 5", "UNUSED = 6")
    assert run(project) == set()
