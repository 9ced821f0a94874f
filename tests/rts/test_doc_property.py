"""A class whose body reads its docstring only to define ``__doc__`` itself, through
decorators that only wrap (toolz's ``excepts``: ``@instanceproperty(classval=__doc__)
def __doc__(self)``), shows its docstring only to whoever reads ``__doc__``: the
docstring is a unit of its own, as a plain class's. Kept in the class unit, a blank line
added to ``excepts``' docstring (toolz 85be7adaa0) reran all 204 tests (testmon: 87):
every test imports ``toolz.curried``, which curries ``excepts`` at import."""

from __future__ import annotations

import pytest

from .helpers import edit, run, write

pytest_plugins = ["pytester"]

WRAPPERS = """
from functools import partial


def instanceproperty(fget=None, fset=None, fdel=None, doc=None, classval=None):
    if fget is None:
        return partial(instanceproperty, fset=fset, fdel=fdel, doc=doc, classval=classval)
    return InstanceProperty(fget=fget, fset=fset, fdel=fdel, doc=doc, classval=classval)


class InstanceProperty(property):
    def __init__(self, fget=None, fset=None, fdel=None, doc=None, classval=None):
        self.classval = classval
        property.__init__(self, fget=fget, fset=fset, fdel=fdel, doc=doc)

    def __get__(self, obj, type=None):
        if obj is None:
            return self.classval
        return property.__get__(self, obj, type)


def describe(obj):
    return obj.__doc__


def shout(obj):
    return obj.__doc__.upper()
"""

EXCEPTS = '''
class excepts(object):
    """Catch exceptions."""

    def __init__(self, func):
        self.func = func

    def __call__(self, *args):
        return self.func(*args)

    @instanceproperty(classval=__doc__)
    def __doc__(self):
        return "wrapping " + self.func.__name__
'''


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    write(pytester, "props.py", WRAPPERS + EXCEPTS)
    write(pytester, "curried.py", "import props\n\nEXCEPTS = props.excepts\n")
    write(
        pytester,
        "test_props.py",
        """
        import curried
        import props


        def test_call():
            assert curried.EXCEPTS(len)([1]) == 1


        def test_class_doc():
            assert props.describe(props.excepts) == "Catch exceptions."


        def test_instance_doc():
            assert props.excepts(len).__doc__ == "wrapping len"
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
