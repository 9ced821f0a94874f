"""A plain class's docstring is a unit of its own (``C.<doc>``), on real pytest sessions:
editing it selects the tests that read docstrings or run it as a doctest, not every test
of a package that imports the class (toolz 142e9ee966 fixed a typo in the docstring of
``EqualityHashKey``, re-exported by ``toolz.sandbox``: all 204 tests ran)."""

from __future__ import annotations

import pytest

from .helpers import edit, run, write

pytest_plugins = ["pytester"]


ALL = {"test_twice", "test_key", "test_key_doc", "test_tagged", "test_by_string", "pkg.core.Key"}


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    write(pytester, "pkg/__init__.py", "from .core import Key, Tagged, twice\n")
    write(
        pytester,
        "pkg/core.py",
        '''
        import abc


        class Key(object):
            """A key with a containter.

            >>> Key(1).value
            1
            """

            def __init__(self, value):
                self.value = value


        class Tagged(abc.ABC):
            """Its metaclass is no plain type: the docstring stays in the class."""


        def twice(x):
            return 2 * x
        ''',
    )
    write(
        pytester,
        "test_pkg.py",
        """
        import pkg


        def test_twice():
            assert pkg.twice(2) == 4


        def test_key():
            assert pkg.Key(3).value == 3


        def test_key_doc():
            assert "key" in pkg.Key.__doc__


        def test_tagged():
            assert pkg.Tagged.__name__ == "Tagged"


        def test_by_string():  # may read any name: every binding unit of pkg.core
            name = "twice"
            assert getattr(pkg, name)(1) == 2
        """,
    )
    assert run(pytester, "--doctest-modules") == ALL
    return pytester


def test_a_docstring_edit_selects_its_readers_only(project: pytest.Pytester) -> None:
    edit(project, "pkg/core.py", "containter", "container")
    assert run(project, "--doctest-modules") == {"test_key_doc", "pkg.core.Key"}


def test_a_library_metaclass_keeps_the_docstring_in_the_class(project: pytest.Pytester) -> None:
    edit(project, "pkg/core.py", "no plain type", "not a plain type")
    assert run(project, "--doctest-modules") == {"test_tagged", "test_by_string"}


def test_a_class_body_storing_its_docstring_reads_no_docstring(
    pytester: pytest.Pytester,
) -> None:
    # A class body binds ``__doc__`` (its own docstring) by name: toolz's classes whose
    # bodies run in every importer's footprint (a project decorator on a method keeps
    # them out of plain bindings) made every test read every function's docstring.
    write(
        pytester,
        "mod.py",
        '''
        def noted(function):
            return function


        class Box:
            """A box."""

            @noted
            def get(self):
                return 1


        def helper():
            """Help."""
            return 1


        def other():
            return 2 if helper else 0  # reads the name: depends on the def, not its body
        ''',
    )
    write(
        pytester,
        "test_mod.py",
        "from mod import other\n\n\ndef test_other():\n    assert other() == 2\n",
    )
    assert run(pytester, flag="--reks-all") == {"test_other"}
    edit(pytester, "mod.py", '"""Help."""', '"""Helps."""')
    assert run(pytester) == set()


def test_a_docstring_added_to_a_plain_class_selects_its_readers_only(
    pytester: pytest.Pytester,
) -> None:
    # A plain class without a docstring has an empty docstring unit: adding one is no
    # change to the class (cachetools 45776b23b1 documented ``_DefaultSize``, which every
    # cache's constructor reads: 242 of 249 tests ran).
    write(pytester, "box.py", "class Box:\n    size = 1\n\n    def get(self):\n        return 1\n")
    write(
        pytester,
        "test_box.py",
        """
        import box


        def test_get():
            assert box.Box().get() == 1


        def test_doc():
            assert box.Box.__doc__ is None or "box" in box.Box.__doc__
        """,
    )
    assert run(pytester) == {"test_get", "test_doc"}
    edit(pytester, "box.py", "class Box:\n", 'class Box:\n    """A box."""\n\n')
    assert run(pytester) == {"test_doc"}
    edit(pytester, "box.py", '    """A box."""\n\n', "")
    assert run(pytester) == {"test_doc"}
