"""A class body reading ``__doc__`` by name reads its own docstring, never a function's, on
real pytest sessions. toolz's ``Compose`` and ``excepts`` pass ``classval=__doc__`` to a
decorator (here a default value): counted as a read of docstrings, it tied every test
using them to the docstring of every function they depend on, and a typo fixed in
``join``'s docstring (e78db447eb) reran all 204 tests (testmon: 10)."""

from __future__ import annotations

import pytest

from .helpers import edit, run, write

pytest_plugins = ["pytester"]

PROPS = '''
import functools


def describe(obj):
    """Docstrings read as attributes elsewhere in the module."""
    return obj.__doc__


def keep(value):
    return value


class Excepts:
    """Catch exceptions."""

    @keep
    def name(self, doc=__doc__):
        return helper()

    def doc(self):
        return describe(type(self))


class Ordered:
    """Calling a function at import: no binding, the class is in the module unit."""

    tag = functools.reduce(keep, [1])

    def __eq__(self, other, doc=__doc__):
        return helper() == 1

    def __lt__(self, other):
        return False


class Undocumented:
    label = __doc__


def helper():
    """Return one."""
    return 1
'''


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    write(pytester, "props.py", '"""The module."""\n' + PROPS)
    write(
        pytester,
        "test_props.py",
        """
        import props


        def test_name():
            assert props.Excepts().name() == 1


        def test_class_doc():
            assert props.Excepts().doc() == "Catch exceptions."


        def test_ordered():
            assert props.Ordered() == props.Ordered()


        def test_label():
            assert props.Undocumented.label == "The module."
        """,
    )
    assert run(pytester) == {"test_name", "test_class_doc", "test_ordered", "test_label"}
    return pytester


def test_a_function_docstring_edit_selects_no_class_reading_its_own(
    project: pytest.Pytester,
) -> None:
    edit(project, "props.py", '"""Return one."""', '"""Return 1."""')
    assert run(project) == set()


def test_the_class_docstring_edit_selects_the_users_of_the_class(
    project: pytest.Pytester,
) -> None:
    edit(project, "props.py", '"""Catch exceptions."""', '"""Catch errors."""')
    assert run(project) == {"test_name", "test_class_doc"}


def test_a_class_without_docstring_reads_the_module_docstring(project: pytest.Pytester) -> None:
    edit(project, "props.py", '"""The module."""', '"""The package."""')
    # ``describe`` reads docstrings as attributes: any, the module's too.
    assert run(project) == {"test_label", "test_class_doc"}
