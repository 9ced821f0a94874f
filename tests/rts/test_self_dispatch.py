"""A visitor that dispatches on its own instance by a name built from data
(``getattr(self, kind.upper())``) looks up only the names the data held, found or not:
its tests depend on the methods they reached or missed, not on every attribute of its
class (a method added to such a visitor reran every test that visited anything). Where
a lookup's name is not told at run time (computed at the call), the syntax's reading
holds: any class attribute."""

from __future__ import annotations

import pytest

from .helpers import edit, run, write

pytest_plugins = ["pytester"]


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    write(
        pytester,
        "visitor.py",
        """
        class Visitor:
            def visit(self, kind):
                name = kind.upper()
                handler = getattr(self, name, None)
                return "generic" if handler is None else handler()

            def visit_computed(self, kind):
                return getattr(self, kind.lower(), None)

            def NUMBER(self):
                return "number"

            def STRING(self):
                return "string"


        class Walker(Visitor):
            def LIST(self):
                return "walked list"
        """,
    )
    write(
        pytester,
        "test_visitor_case.py",
        """
        from visitor import Visitor, Walker


        def test_number():
            assert Visitor().visit("number") == "number"


        def test_string():
            assert Visitor().visit("string") == "string"


        def test_missed():
            assert Visitor().visit("list") == "generic"


        def test_walked():
            assert Walker().visit("list") == "walked list"


        def test_walked_number():
            assert Walker().visit("number") == "number"


        def test_computed():
            assert Visitor().visit_computed("x") is None
        """,
    )
    everything = {
        "test_number",
        "test_string",
        "test_missed",
        "test_walked",
        "test_walked_number",
        "test_computed",
    }
    assert run(pytester, flag="--reks-all") == everything
    return pytester


def test_a_new_method_no_test_looked_up_selects_only_the_computed_lookup(
    project: pytest.Pytester,
) -> None:
    edit(
        project,
        "visitor.py",
        "    def STRING(self):",
        "    def TUPLE(self):\n        return 't'\n\n    def STRING(self):",
    )
    assert run(project) == {"test_computed"}


def test_a_new_method_a_test_missed_selects_it(project: pytest.Pytester) -> None:
    edit(
        project,
        "visitor.py",
        "    def STRING(self):",
        "    def LIST(self):\n        return 'l'\n\n    def STRING(self):",
    )
    selected = run(project)
    assert {"test_missed", "test_computed"} <= selected
    # Names are kept per code object over the session (a superset of each test's): the
    # tests that ran before any lookup of LIST did not read it.
    assert not {"test_number", "test_string"} & selected


def test_a_method_a_subclass_now_shadows_selects_its_lookup(project: pytest.Pytester) -> None:
    edit(
        project,
        "visitor.py",
        '        return "walked list"',
        "        return \"walked list\"\n\n    def NUMBER(self):\n        return 'n'",
    )
    selected = run(project)
    assert {"test_walked_number", "test_computed"} <= selected
    assert not {"test_number", "test_string", "test_missed"} & selected  # never met Walker


def test_a_new_getattr_a_missed_lookup_now_meets_selects_it(project: pytest.Pytester) -> None:
    edit(
        project,
        "visitor.py",
        "    def STRING(self):",
        "    def __getattr__(self, name):\n        return lambda: name\n\n    def STRING(self):",
    )
    assert {"test_missed", "test_computed"} <= run(project)


def test_a_changed_method_selects_its_caller(project: pytest.Pytester) -> None:
    edit(project, "visitor.py", 'return "number"', 'return "Number"')
    assert run(project) == {"test_number", "test_walked_number"}
