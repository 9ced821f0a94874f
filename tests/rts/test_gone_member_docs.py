"""A method's docstring and default values go with their class (``unit_names.gone_with_class``).

Only the function object ``C.m`` had them, and a test reaches it through ``C``: by its
name (the class unit selects the test), or by running code that names it (that code's
unit does). A test that reads some ``run`` method's docstring anywhere (``__doc__`` of
another class's ``run``) depended on every ``run``'s ``.<doc>`` unit, so removing a
class selected it (click ``f36d58bb``: 1,352 tests through a removed class's
``__init__.<doc>``)."""

from __future__ import annotations

import pytest

from .helpers import edit, run, write

pytest_plugins = ["pytester"]

LIB = '''
class Old:
    def run(self, times=1):
        """Old run."""
        return times


class New:
    def run(self, times=2):
        """New run."""
        return times


def make_old():
    return Old()
'''

OLD = '''class Old:
    def run(self, times=1):
        """Old run."""
        return times


'''


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    write(pytester, "lib.py", LIB)
    write(
        pytester,
        "test_lib.py",
        """
        import lib


        def test_new():
            assert lib.New().run() == 2 and lib.New.run.__doc__ == "New run."


        def test_old_by_name():
            assert lib.Old.run.__doc__ == "Old run."


        def test_old_made():
            assert type(lib.make_old()).run.__doc__ == "Old run."
        """,
    )
    everything = {"test_new", "test_old_by_name", "test_old_made"}
    assert run(pytester, flag="--reks-all") == everything
    return pytester


def test_a_removed_class_selects_the_tests_that_reached_it_only(
    project: pytest.Pytester,
) -> None:
    edit(project, "lib.py", OLD, "")
    edit(project, "lib.py", "    return Old()", "    return New()")
    assert run(project) == {"test_old_by_name", "test_old_made"}
