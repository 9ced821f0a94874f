"""A singleton the first test that needs it builds (sqlparse's ``Lexer._default_instance``):
a later test reading it depends on what ran while it was built and on the tests that
changed it since, not on everything the building test ran (sqlparse a51df6d9e2, a
reindent edit: 468 tests against testmon's 45)."""

from __future__ import annotations

import sys

import pytest

from .helpers import edit, run, write

pytest_plugins = ["pytester"]

pytestmark = pytest.mark.skipif(sys.version_info < (3, 12), reason="spans need sys.monitoring")


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    write(pytester, "pkg/__init__.py", "")
    write(pytester, "pkg/tables.py", 'WORDS = {"select": "keyword"}\n')
    write(
        pytester,
        "pkg/lexer.py",
        """
        import re

        from pkg import tables


        class Lexer:
            _default = None

            @classmethod
            def get(cls):
                if cls._default is None:
                    cls._default = cls()
                    cls._default.load()
                return cls._default

            def load(self):
                self.words = dict(tables.WORDS)
                self.number = re.compile("[0-9]+").match  # a bound builtin method


            def add(self, word, kind):
                self.words[word] = kind

            def lex(self, text):
                return [
                    "number" if self.number(word) else self.words.get(word, "name")
                    for word in text.split()
                ]
        """,
    )
    write(
        pytester,
        "pkg/pretty.py",
        """
        from pkg.lexer import Lexer


        def indent(text):
            return ["  " + kind for kind in Lexer.get().lex(text)]
        """,
    )
    write(
        pytester,
        "test_order.py",
        """
        from pkg import pretty
        from pkg.lexer import Lexer


        def test_1_indent():
            assert pretty.indent("select a") == ["  keyword", "  name"]


        def test_2_lex():
            assert Lexer.get().lex("select") == ["keyword"]


        def test_3_add():
            Lexer.get().add("from", "keyword")


        def test_4_lex_after_add():
            assert Lexer.get().lex("from") == ["keyword"]
        """,
    )
    return pytester


_ALL = {"test_1_indent", "test_2_lex", "test_3_add", "test_4_lex_after_add"}


def test_a_reader_does_not_depend_on_the_rest_of_the_building_test(
    project: pytest.Pytester,
) -> None:
    assert run(project) == _ALL
    edit(project, "pkg/pretty.py", '"  " + kind', '"    " + kind')
    assert run(project) == {"test_1_indent"}


def test_a_reader_depends_on_the_build_and_what_it_read(project: pytest.Pytester) -> None:
    assert run(project) == _ALL
    edit(project, "pkg/lexer.py", "dict(tables.WORDS)", "dict(tables.WORDS, where='keyword')")
    assert run(project) == _ALL
    edit(project, "pkg/tables.py", '"keyword"', '"kw"')
    assert run(project) == _ALL


def test_a_reader_depends_on_the_tests_that_changed_the_object(
    project: pytest.Pytester,
) -> None:
    """``test_3_add`` changed the lexer's words; the old rule (rebinders of the name only)
    missed it."""
    assert run(project) == _ALL
    edit(project, "pkg/lexer.py", "self.words[word] = kind", "self.words[word] = kind[:2]")
    assert run(project) == {"test_3_add", "test_4_lex_after_add"}
