"""A unit removed in an earlier session is not removed again by every later edit of its
file, on real pytest sessions. toolz 22dc024 moved ``from textwrap import dedent`` from
the top of ``functoolz.py`` into a method; every later edit of the file (85be7ad: a blank
line in a docstring) said ``functoolz.py::dedent removed`` and ran all 204 tests."""

from __future__ import annotations

import pytest

from .helpers import edit, run, write

pytest_plugins = ["pytester"]


def test_an_import_removed_earlier_selects_nothing_later(pytester: pytest.Pytester) -> None:
    write(
        pytester,
        "text.py",
        """
        from textwrap import dedent

        __all__ = ["shout", "indent"]


        def shout(s):
            return s.upper()


        def indent(s):
            return dedent(s)


        def attributes(obj):
            return obj.__dict__
        """,
    )
    # A star import of a module whose namespace may hold any name takes every name it had.
    write(pytester, "pkg.py", "from text import *\n")
    write(
        pytester,
        "test_text_units.py",
        """
        import pkg


        def test_shout():
            assert pkg.shout("a") == "A"


        def test_indent():
            assert pkg.indent("  a") == "a"
        """,
    )
    assert run(pytester) == {"test_shout", "test_indent"}
    edit(pytester, "text.py", "from textwrap import dedent\n", "")
    edit(
        pytester,
        "text.py",
        "    return dedent(s)",
        "    from textwrap import dedent\n\n    return dedent(s)",
    )
    assert "test_indent" in run(pytester)
    edit(pytester, "text.py", "s.upper()", "s.upper() + ''")
    assert run(pytester) == {"test_shout"}
