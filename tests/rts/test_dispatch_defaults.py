"""A dispatcher that looks a handler up in a module by a name built from data, with a
computed fallback (``getattr(handlers, name, self.generic)``, the default an attribute
load), looks up only the names the data held: its tests depend on the handlers they
reached, not on every binding of the module. A new binding no test looked up selects
nothing; one under a name a test looked up and missed selects that test."""

from __future__ import annotations

import pytest

from .helpers import edit, run, write

pytest_plugins = ["pytester"]


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    write(
        pytester,
        "handlers.py",
        """
        def NUMBER(kind):
            return "number"


        def STRING(kind):
            return "string"
        """,
    )
    write(
        pytester,
        "visitor.py",
        """
        import handlers


        class Visitor:
            def generic(self, kind):
                return "generic " + kind


        def visit(visitor, kind):
            name = kind.upper()
            handler = getattr(handlers, name, visitor.generic)
            return handler(kind)
        """,
    )
    write(
        pytester,
        "test_visitor_case.py",
        """
        from visitor import Visitor, visit


        def test_number():
            assert visit(Visitor(), "number") == "number"


        def test_string():
            assert visit(Visitor(), "string") == "string"


        def test_fallback():
            assert visit(Visitor(), "list").startswith("generic")
        """,
    )
    assert run(pytester, flag="--reks-all") == {"test_number", "test_string", "test_fallback"}
    return pytester


def test_a_new_handler_no_test_looked_up_selects_nothing(project: pytest.Pytester) -> None:
    edit(project, "handlers.py", "def NUMBER(kind):", "TUPLE = None\n\n\ndef NUMBER(kind):")
    assert run(project) == set()


def test_a_new_handler_a_test_missed_selects_it(project: pytest.Pytester) -> None:
    edit(project, "handlers.py", "def NUMBER(kind):", "LIST = len\n\n\ndef NUMBER(kind):")
    assert run(project) == {"test_fallback"}
