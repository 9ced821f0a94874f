"""A plain class whose body has statements with effects (reading the environment, an
``if`` filling a set, a ``del``) stays in its module unit for those statements, but its
plain bindings are members of their own: an alias added next to the methods
(``B = A = handler``, the shape of a visitor's node-kind table) selects only the tests
that look the new names up (a ``getattr(self, kind)`` dispatch that missed them), not
every importer. Where splitting could change what a test sees, the class stays whole:
guards below."""

from __future__ import annotations

import pytest

from .helpers import edit, run, write

pytest_plugins = ["pytester"]

_VISITOR = """
import os


class Visitor:
    extras = set()
    _custom = os.environ.get("VISITOR_EXTRAS")
    if _custom:
        extras.update(_custom.split(","))
    del _custom

    def tag(self):
        return "tag"

    def visit(self, kind):
        name = kind.upper()
        handler = getattr(self, name, None)
        return "generic" if handler is None else handler()

    def visit_computed(self, kind):
        return getattr(self, kind.lower(), None)

    def NUMBER(self):
        return "number"

    STRING = NUMBER
"""

_TESTS = """
from visitor import Visitor


def test_number():
    assert Visitor().visit("number") == "number"


def test_string():
    assert Visitor().visit("string") in ("number", "tag")


def test_missed():
    assert Visitor().visit("list") == "generic"


def test_tag():
    assert Visitor().tag() == "tag"


def test_extras():
    assert Visitor.extras == set()


def test_computed():
    assert Visitor().visit_computed("x") is None
"""

_EVERY = {"test_number", "test_string", "test_missed", "test_tag", "test_extras", "test_computed"}


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    write(pytester, "visitor.py", _VISITOR)
    write(pytester, "test_visitor.py", _TESTS)
    assert run(pytester, flag="--reks-all") == _EVERY
    return pytester


def test_an_alias_added_selects_only_the_tests_that_looked_it_up(
    project: pytest.Pytester,
) -> None:
    edit(
        project,
        "visitor.py",
        "    STRING = NUMBER\n",
        "    STRING = NUMBER\n    LIST = TUPLE = NUMBER\n",
    )
    # A lookup by a name computed at the call (not told at run time) may find any member.
    assert run(project) == {"test_missed", "test_computed"}


def test_an_alias_changed_selects_its_readers(project: pytest.Pytester) -> None:
    edit(project, "visitor.py", "    STRING = NUMBER\n", "    STRING = tag\n")
    selected = run(project)
    assert {"test_string", "test_computed"} <= selected
    # Names are kept per lookup site over the session (a superset of each test's): a
    # test dispatching after ``test_string`` may count STRING; those before it do not.
    assert not {"test_number", "test_tag", "test_extras"} & selected
