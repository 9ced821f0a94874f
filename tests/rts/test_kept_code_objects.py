"""A decorator that only keeps the code object of the function it is handed in a set
(jinja's ``internalcode``: ``internal_code.add(f.__code__)``, consulted later by identity)
reads no code: a test that may read any name of the module (a lookup by string) depends on
the functions' headers there, not on every body. Code
that reads into the code object (``f.__code__.co_consts``) still sees the bodies."""

from __future__ import annotations

import pytest

from .helpers import edit, run, write

pytest_plugins = ["pytester"]


def _project(pytester: pytest.Pytester, keep: str) -> None:
    write(
        pytester,
        "marks.py",
        f"""
        internal = set()


        def internalcode(f):
            {keep}
            return f
        """,
    )
    write(
        pytester,
        "engine.py",
        """
        import sys

        from marks import internal, internalcode


        @internalcode
        def render():
            assert sys._getframe().f_code in internal  # the kept object, by identity
            return "rendered"


        def parse():
            return "parsed"


        def by_name(name):
            # Looked up by a computed string: the test may read any name of the module.
            return globals()[name]
        """,
    )
    write(
        pytester,
        "test_engine_case.py",
        """
        import engine


        def test_render():
            assert engine.by_name("render")() == "rendered"


        def test_parse():
            assert engine.parse() == "parsed"
        """,
    )


def test_a_code_object_kept_in_a_set_shows_no_body(pytester: pytest.Pytester) -> None:
    _project(pytester, "internal.add(f.__code__)")
    assert run(pytester) == {"test_render", "test_parse"}
    edit(pytester, "engine.py", 'return "parsed"', 'return "parsed" if True else None')
    assert run(pytester) == {"test_parse"}
    edit(pytester, "engine.py", 'return "rendered"', 'return "rendered" if True else None')
    assert run(pytester) == {"test_render"}


def test_code_read_into_still_shows_every_body(pytester: pytest.Pytester) -> None:
    _project(pytester, "internal.add(f.__code__.co_consts)")
    assert run(pytester) == {"test_render", "test_parse"}
    edit(pytester, "engine.py", 'return "parsed"', 'return "parsed" if True else None')
    assert run(pytester) == {"test_render", "test_parse"}
