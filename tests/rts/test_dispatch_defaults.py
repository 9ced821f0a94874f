"""A visitor that dispatches by a name built from data with a computed fallback
(``getattr(self, name, self.generic)``, the default an attribute load) looks
up only the names the data held: its tests depend on the handlers they reached, not on
every member of the class. A change to one handler selects only the tests that dispatched
to it; a change to the fallback selects the tests that fell back to it, and a new handler
under a name a test looked up and missed selects that test."""

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
                handler = getattr(self, name, self.generic)
                return handler(kind)

            def generic(self, kind):
                return "generic " + kind

            def NUMBER(self, kind):
                return "number"

            def STRING(self, kind):
                return "string"
        """,
    )
    write(
        pytester,
        "test_visitor_case.py",
        """
        from visitor import Visitor


        def test_number():
            assert Visitor().visit("number") == "number"


        def test_string():
            assert Visitor().visit("string") == "string"


        def test_fallback():
            assert Visitor().visit("list").startswith("generic")
        """,
    )
    assert run(pytester, flag="--reks-all") == {"test_number", "test_string", "test_fallback"}
    return pytester


def test_a_changed_handler_selects_only_the_tests_that_dispatched_to_it(
    project: pytest.Pytester,
) -> None:
    edit(project, "visitor.py", 'return "number"', 'return "num" + "ber"')
    assert run(project) == {"test_number"}


def test_a_changed_fallback_selects_the_test_that_fell_back(project: pytest.Pytester) -> None:
    edit(project, "visitor.py", 'return "generic " + kind', 'return "generic  " + kind')
    assert run(project) == {"test_fallback"}


def test_a_new_handler_no_test_looked_up_selects_nothing(project: pytest.Pytester) -> None:
    edit(
        project,
        "visitor.py",
        "    def NUMBER(self, kind):",
        "    TUPLE = generic\n\n    def NUMBER(self, kind):",
    )
    assert run(project) == set()


def test_a_new_handler_a_test_missed_selects_it(project: pytest.Pytester) -> None:
    edit(
        project,
        "visitor.py",
        "    def NUMBER(self, kind):",
        "    LIST = generic\n\n    def NUMBER(self, kind):",
    )
    assert run(project) == {"test_fallback"}


def test_a_new_getattr_hook_the_missed_lookup_now_meets_selects(
    project: pytest.Pytester,
) -> None:
    edit(
        project,
        "visitor.py",
        "    def NUMBER(self, kind):",
        "    def __getattr__(self, name):\n        return self.NUMBER\n\n    def NUMBER(self, kind):",
    )
    assert "test_fallback" in run(project)
