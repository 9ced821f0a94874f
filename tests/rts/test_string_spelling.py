"""A string literal respelled with the same value is layout: tomli b974fa13 (a formatter
writing ``"\\u000A"`` as ``"\\u000a"`` in a module-level table) reran the two tests that
read the table, testmon none. Quotes, a ``u`` prefix and escapes spelled otherwise make the
same constant, so no unit changes; a test reading source text still sees the new spelling
(the layout keeps each literal's quotes and prefix, and the whole literal where it holds a
backslash). A literal whose value changes (another character, bytes for str) selects as
before. Real pytest sessions on a temporary project."""

from __future__ import annotations

import pytest

from .helpers import edit, ran_and_failed, run, write

pytest_plugins = ["pytester"]


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    write(
        pytester,
        "escapes.py",
        r"""
        REPLACEMENTS = {"\\n": "\u000A", "\\t": "\u0009"}


        def quoted():
            return 'plain'


        def kind():
            return b"\x41"


        def escaped():
            return "A\x41"
        """,
    )
    write(
        pytester,
        "test_escapes.py",
        r"""
        import inspect

        import escapes


        def test_replacements():
            assert escapes.REPLACEMENTS["\\n"] == "\n"


        def test_quoted():
            assert escapes.quoted() == "plain"


        def test_kind():
            assert escapes.kind() == b"A"


        def test_escaped():
            assert escapes.escaped() == "AA"


        def test_quoted_source():
            assert "'plain'" in inspect.getsource(escapes.quoted)


        def test_escaped_source():
            assert 'return "A\\x41"' in inspect.getsource(escapes.escaped)
        """,
    )
    everything = {
        "test_replacements",
        "test_quoted",
        "test_kind",
        "test_escaped",
        "test_quoted_source",
        "test_escaped_source",
    }
    assert run(pytester, flag="--reks-all") == everything
    return pytester


def test_an_escape_respelled_in_a_table_selects_no_value_reader(project: pytest.Pytester) -> None:
    edit(project, "escapes.py", r'"\u000A"', r'"\u000a"')
    ran, failed = ran_and_failed(project)
    assert "test_replacements" not in ran and failed == set()


def test_other_quotes_select_only_source_readers(project: pytest.Pytester) -> None:
    edit(project, "escapes.py", "'plain'", '"plain"')
    ran, failed = ran_and_failed(project)
    assert "test_quoted" not in ran
    assert "test_quoted_source" in ran and failed == {"test_quoted_source"}


def test_bytes_respelled_select_no_value_reader(project: pytest.Pytester) -> None:
    edit(project, "escapes.py", r'b"\x41"', 'b"A"')
    ran, failed = ran_and_failed(project)
    assert "test_kind" not in ran and failed == set()


def test_an_escape_moved_within_the_same_value_selects_the_source_reader(
    project: pytest.Pytester,
) -> None:
    # "A\x41" and "\x41A" are both "AA": only the source text tells them apart.
    edit(project, "escapes.py", r'"A\x41"', r'"\x41A"')
    ran, failed = ran_and_failed(project)
    assert "test_escaped" not in ran
    assert "test_escaped_source" in ran and failed == {"test_escaped_source"}


def test_an_escape_for_another_character_selects(project: pytest.Pytester) -> None:
    edit(project, "escapes.py", r'"\u000A"', r'"\u000B"')
    ran, failed = ran_and_failed(project)
    assert "test_replacements" in ran and failed == {"test_replacements"}


def test_bytes_made_str_select(project: pytest.Pytester) -> None:
    edit(project, "escapes.py", r'b"\x41"', '"A"')
    ran, failed = ran_and_failed(project)
    assert "test_kind" in ran and failed == {"test_kind"}


def test_another_character_selects(project: pytest.Pytester) -> None:
    edit(project, "escapes.py", "'plain'", "'plain '")
    ran, failed = ran_and_failed(project)
    assert {"test_quoted", "test_quoted_source"} <= ran
    assert failed == {"test_quoted", "test_quoted_source"}


def test_an_escape_that_warns_at_compile_selects(pytester: pytest.Pytester) -> None:
    # "\d" and "\\d" are the same string, but compiling "\d" warns of an invalid escape:
    # where warnings are errors importing the module fails. (The session runs with the
    # default filters: the analysis must not depend on them.)
    write(pytester, "patterns.py", r'DIGITS = "\\d+"' + "\n")
    write(
        pytester,
        "test_patterns.py",
        r"""
        import warnings


        def test_digits():
            with warnings.catch_warnings():
                warnings.simplefilter("error")
                import patterns

            assert patterns.DIGITS == "\\d+"
        """,
    )
    assert run(pytester, flag="--reks-all") == {"test_digits"}
    edit(pytester, "patterns.py", r'"\\d+"', r'"\d+"')
    assert ran_and_failed(pytester) == ({"test_digits"}, {"test_digits"})
