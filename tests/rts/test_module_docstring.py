"""A module's docstring is a unit of its own, the binding of ``__doc__``: editing it selects
the tests whose code reads ``__doc__`` (or ``inspect.getdoc``, ``help``, ``pydoc``) and the
module's doctests, not every test importing the module (glom's docs edits reran all)."""

from __future__ import annotations

import pytest

from .helpers import edit, run, write

pytest_plugins = ["pytester"]


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    write(
        pytester,
        "mod.py",
        '''
        """Tools of the module.

        >>> 1 + 1
        2
        """
        import inspect

        SUMMARY = __doc__.splitlines()[0]


        def one():
            return 1


        def usage():
            return __doc__
        ''',
    )
    write(
        pytester,
        "test_mod.py",
        """
        import inspect

        import mod


        def test_one():
            assert mod.one() == 1


        def test_attribute():
            assert mod.__doc__.startswith("Tools")


        def test_getdoc():
            assert inspect.getdoc(mod).startswith("Tools")


        def test_usage():
            assert mod.usage().startswith("Tools")


        def test_summary():
            assert mod.SUMMARY.startswith("Tools")
        """,
    )
    return pytester


_READERS = {"test_attribute", "test_getdoc", "test_usage", "test_summary"}


def test_a_module_docstring_edit_selects_the_tests_reading_it(project: pytest.Pytester) -> None:
    assert run(project) == {"test_one", *_READERS}
    edit(project, "mod.py", "Tools of the module.", "Tools of this module.")
    assert run(project) == _READERS


def test_a_module_docstring_edit_selects_its_doctests(project: pytest.Pytester) -> None:
    assert run(project, "--doctest-modules") == {"test_one", *_READERS, "mod"}
    edit(project, "mod.py", ">>> 1 + 1\n2", ">>> 1 + 1\n3")
    assert run(project, "--doctest-modules") == {*_READERS, "mod"}


def test_a_lookup_by_a_computed_name_does_not_read_the_module_docstring(
    project: pytest.Pytester,
) -> None:
    """As a function's docstring: code reading docstrings spells ``__doc__`` or
    ``getdoc``."""
    write(
        project,
        "test_lookup.py",
        """
        import mod


        def test_lookup():
            assert getattr(mod, "o" + "ne")() == 1
        """,
    )
    assert run(project) == {"test_one", *_READERS, "test_lookup"}
    edit(project, "mod.py", "Tools of the module.", "Tools of this module.")
    assert run(project) == _READERS
