"""A class hook (``__set_name__``, ``__init_subclass__``, a metaclass) that runs while a
module is imported may read every attribute of the classes built there, or register them:
a new class or attribute in those modules can matter to a test that reads none of their
names. It cannot reach other modules' bindings but by names its code spells (recorded) or
by lookups by string (which keep every module open). So only the modules whose class
statements ran with the hook are read whole (boltons: ``CachedInstancePartial.__set_name__``
ran for a class of ``test_funcutils.py``, and a changed method header of
``FunctionBuilder`` reran ``test_total_ordering``)."""

from __future__ import annotations

import pytest

from .helpers import edit, run, write

pytest_plugins = ["pytester"]

LIB = """
class Named:
    def __init__(self, f):
        self.f = f

    def __set_name__(self, owner, name):
        self.__name__ = name


def helper(x=1):
    return x


def unused(y=1):
    return y
"""


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    write(pytester, "lib.py", LIB)
    write(
        pytester,
        "holders.py",
        """
        import lib


        class Holder:
            item = lib.Named(len)
        """,
    )
    write(
        pytester,
        "test_lib.py",
        """
        import holders
        import lib


        def test_helper():
            assert lib.helper() == 1
        """,
    )
    assert run(pytester, flag="--reks-all") == {"test_helper"}
    return pytester


def test_a_module_no_hooked_class_is_in_is_not_read_whole(project: pytest.Pytester) -> None:
    edit(project, "lib.py", "def unused(y=1)", "def unused(y=2)")
    assert run(project) == set()


def test_a_new_class_where_the_hook_ran_selects_the_test(project: pytest.Pytester) -> None:
    edit(project, "holders.py", "class Holder:", "class Other:\n    x = 1\n\n\nclass Holder:")
    assert run(project) == {"test_helper"}


def test_a_new_attribute_of_a_hooked_class_selects_the_test(project: pytest.Pytester) -> None:
    edit(project, "holders.py", "item = lib.Named(len)", "item = lib.Named(len)\n    more = 2")
    assert run(project) == {"test_helper"}


def test_a_frame_global_read_by_a_constant_name_reads_that_name(
    pytester: pytest.Pytester,
) -> None:
    # boltons' ``make_sentinel``: ``sys._getframe(1).f_globals.get('__name__')``, run at
    # the import of every module making a sentinel, read every name of every module.
    write(
        pytester,
        "marks.py",
        """
        import sys


        def make(name):
            module = sys._getframe(1).f_globals.get("__name__")
            return (module, name)
        """,
    )
    write(pytester, "lib.py", LIB)
    write(
        pytester,
        "test_marks_case.py",
        """
        import lib
        import marks

        MARK = marks.make("m")


        def test_helper():
            assert lib.helper() == 1
        """,
    )
    assert run(pytester, flag="--reks-all") == {"test_helper"}
    edit(pytester, "lib.py", "def unused(y=1)", "def unused(y=2)")
    assert run(pytester) == set()
