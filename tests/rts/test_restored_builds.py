"""A lazily built singleton that a test changes and then rebuilds in place by calling the
object's own initializing method (sqlparse's ``Lexer.get_default_instance()
.default_initialization()`` "to reset the syntax for later tests"): a later test reading
the object depends on the rebuilding call, not on everything else the changing test ran
(sqlparse cd4c1b6: a grouping edit reran every splitting test after the reset, 431 tests
against testmon's 387)."""

from __future__ import annotations

import sys

import pytest

from .helpers import edit, run, write

pytest_plugins = ["pytester"]

pytestmark = pytest.mark.skipif(sys.version_info < (3, 12), reason="spans need sys.monitoring")


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    write(pytester, "pkg/__init__.py", "")
    write(
        pytester, "pkg/tables.py", 'WORDS = {"select": "keyword"}\nOTHER = {"select": "keyword"}\n'
    )
    write(
        pytester,
        "pkg/lexer.py",
        """
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

            def add(self, word, kind):
                self.words[word] = kind

            def lex(self, text):
                return [self.words.get(word, "name") for word in text.split()]
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
        from pkg import pretty, tables
        from pkg.lexer import Lexer


        def test_1_lex():
            assert Lexer.get().lex("select") == ["keyword"]


        def test_2_custom_then_rebuilt():
            lexer = Lexer.get()
            lexer.add("zorder", "keyword")
            out = pretty.indent("zorder")
            lexer.load()  # back to the default words for later tests
            assert out == ["  keyword"]


        def test_3_lex_after_rebuild():
            assert Lexer.get().lex("select zorder") == ["keyword", "name"]
        """,
    )
    return pytester


_ALL = {"test_1_lex", "test_2_custom_then_rebuilt", "test_3_lex_after_rebuild"}


def test_a_reader_does_not_depend_on_what_ran_before_the_rebuild(
    project: pytest.Pytester,
) -> None:
    assert run(project) == _ALL
    edit(project, "pkg/pretty.py", '"  " + kind', '"    " + kind')
    assert run(project) == {"test_2_custom_then_rebuilt"}


def test_a_reader_depends_on_the_rebuilding_call(project: pytest.Pytester) -> None:
    assert run(project) == _ALL
    edit(project, "pkg/lexer.py", "dict(tables.WORDS)", "dict(tables.WORDS, zorder='keyword')")
    assert run(project) == _ALL


def test_a_change_left_after_the_rebuild_keeps_the_whole_test(
    project: pytest.Pytester,
) -> None:
    """The test rebinds the words after the rebuild, from a table the rebuild never read:
    an equal dict, yet what the later reader sees comes from the test's own code."""
    edit(
        project,
        "test_order.py",
        "lexer.load()  #",
        "lexer.load(); lexer.words = dict(tables.OTHER)  #",
    )
    assert run(project) == _ALL
    edit(project, "pkg/tables.py", 'OTHER = {"select": "keyword"}', 'OTHER = {"zorder": "kw"}')
    assert run(project) == {"test_2_custom_then_rebuilt", "test_3_lex_after_rebuild"}


def test_a_change_without_a_rebuild_keeps_the_whole_test(project: pytest.Pytester) -> None:
    edit(
        project,
        "test_order.py",
        "lexer.load()  #",
        "lexer.words.pop('zorder'); lexer.add('x', 'y')  #",
    )
    assert run(project) == _ALL
    edit(project, "pkg/pretty.py", '"  " + kind', '"    " + kind')
    assert run(project) == {"test_2_custom_then_rebuilt", "test_3_lex_after_rebuild"}


def test_a_rebuild_that_keeps_the_changes_keeps_the_whole_test(
    project: pytest.Pytester,
) -> None:
    """The rebuilding method merges into what the object holds: the test's word survives
    the rebuild, so the later reader sees what the test did."""
    edit(
        project,
        "pkg/lexer.py",
        "self.words = dict(tables.WORDS)",
        "self.words = {**getattr(self, 'words', {}), **tables.WORDS}",
    )
    edit(project, "test_order.py", '["keyword", "name"]', '["keyword", "keyword"]')
    assert run(project) == _ALL
    edit(project, "pkg/pretty.py", '"  " + kind', '"    " + kind')
    assert run(project) == {"test_2_custom_then_rebuilt", "test_3_lex_after_rebuild"}
