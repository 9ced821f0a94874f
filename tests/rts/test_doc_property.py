"""A class whose body reads its docstring only to define ``__doc__`` itself, through
decorators that only wrap (toolz's ``excepts``: ``@instanceproperty(classval=__doc__)
def __doc__(self)``), shows its docstring only to whoever reads ``__doc__``: the
docstring is a unit of its own, as a plain class's. Kept in the class unit, a blank line
added to ``excepts``' docstring (toolz 85be7adaa0) reran all 204 tests (testmon: 87):
every test imports ``toolz.curried``, which curries ``excepts`` at import."""

from __future__ import annotations

import pytest

from .helpers import edit, run, write
from .test_wrapping_decorators import PROPS

pytest_plugins = ["pytester"]

# PROPS' ``Excepts``: ``@instanceproperty(classval=__doc__) def __doc__``, "Catch exceptions."
READERS = """
def describe(obj):
    return obj.__doc__


def shout(obj):
    return obj.__doc__.upper()

"""


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    write(pytester, "props.py", READERS + PROPS)
    write(pytester, "curried.py", "import props\n\nEXCEPTS = props.Excepts\n")
    write(
        pytester,
        "test_props.py",
        """
        import curried
        import props


        def test_call():
            assert curried.EXCEPTS(len).func([1]) == 1


        def test_class_doc():
            assert props.describe(props.Excepts) == "Catch exceptions."


        def test_instance_doc():
            assert props.Excepts(len).__doc__ == "an instance's doc"
        """,
    )
    assert run(pytester) == {"test_call", "test_class_doc", "test_instance_doc"}
    return pytester


def test_a_docstring_edit_selects_its_readers_only(project: pytest.Pytester) -> None:
    edit(project, "props.py", '"""Catch exceptions."""', '"""Catch errors."""')
    # An instance's ``__doc__`` runs the property; counted as a read of docstrings too.
    assert run(project) == {"test_class_doc", "test_instance_doc"}


def test_a_docstring_read_otherwise_keeps_the_class_unit(project: pytest.Pytester) -> None:
    edit(
        project,
        "props.py",
        "    def __init__(self, func):",
        "    loud = shout(type('Doc', (), {'__doc__': __doc__}))\n\n    def __init__(self, func):",
    )
    assert run(project) == {"test_call", "test_class_doc", "test_instance_doc"}
    edit(project, "props.py", '"""Catch exceptions."""', '"""Catch errors."""')
    assert run(project) == {"test_call", "test_class_doc", "test_instance_doc"}
