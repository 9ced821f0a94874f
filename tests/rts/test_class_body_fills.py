"""A class body that adds a constant to a set it built itself (a table of well-known keys
checked before a slow lookup: ``_popular = {"COM", "ORG"}`` then ``_popular.add("ONION")``)
fills only the class's own value: a test that never reads the class depends on neither
statement, a test that reads the filled name runs."""

from __future__ import annotations

import pytest

from .helpers import edit, run, write

pytest_plugins = ["pytester"]


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    write(
        pytester,
        "tld.py",
        """
        from typing import Optional, Set


        class _Known:
            _full: Optional[Set[str]] = None
            _popular = {"COM", "ORG"}

            @classmethod
            def check(cls, tld):
                return tld in cls._popular


        def known(name):
            return _Known.check(name.rsplit(".", 1)[-1].upper())


        def length(name):
            return len(name)
        """,
    )
    write(
        pytester,
        "test_tld.py",
        """
        import tld


        def test_known():
            assert tld.known("a.com")


        def test_length():
            assert tld.length("a.b") == 3
        """,
    )
    assert run(pytester, flag="--reks-all") == {"test_known", "test_length"}
    return pytester


def test_a_new_constant_fill_selects_only_the_readers(project: pytest.Pytester) -> None:
    edit(project, "tld.py", '"ORG"}\n', '"ORG"}\n    _popular.add("ONION")\n')
    assert run(project) == {"test_known"}
