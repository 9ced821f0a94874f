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
        def test_known():
            import tld

            assert tld.known("a.com")


        def test_length():
            import tld

            assert tld.length("a.b") == 3
        """,
    )
    assert run(pytester, flag="--reks-all") == {"test_known", "test_length"}
    return pytester


def test_a_new_constant_fill_selects_only_the_readers(project: pytest.Pytester) -> None:
    edit(project, "tld.py", '"ORG"}\n', '"ORG"}\n    _popular.add("ONION")\n')
    assert run(project) == {"test_known"}


def test_a_changed_constant_fill_selects_the_readers(project: pytest.Pytester) -> None:
    edit(project, "tld.py", '"ORG"}\n', '"ORG"}\n    _popular.add("ONION")\n')
    run(project)
    edit(project, "tld.py", '"ONION"', '"COM"')
    assert run(project) == {"test_known"}


def test_a_fill_of_something_unhashable_selects_every_importer(project: pytest.Pytester) -> None:
    # ``set.add`` of a list raises when the module is imported: every importer fails.
    edit(project, "tld.py", '"ORG"}\n', '"ORG"}\n    _pairs = ["a"]\n    _popular.add(_pairs)\n')
    assert run(project) == {"test_known", "test_length"}


def test_a_fill_the_container_lacks_selects_every_importer(project: pytest.Pytester) -> None:
    # A list has no ``add``: the import raises ``AttributeError``.
    edit(project, "tld.py", '"ORG"}\n', '"ORG"}\n    _order = ["a"]\n    _order.add("b")\n')
    assert run(project) == {"test_known", "test_length"}


def test_a_new_constant_append_selects_only_the_readers(pytester: pytest.Pytester) -> None:
    write(
        pytester,
        "steps.py",
        """
        class Steps:
            _order = ["a"]

            def first(self):
                return self._order[0]


        def count():
            return 2
        """,
    )
    write(
        pytester,
        "test_steps.py",
        """
        import steps


        def test_first():
            assert steps.Steps().first() == "a"


        def test_count():
            assert steps.count() == 2
        """,
    )
    assert run(pytester, flag="--reks-all") == {"test_first", "test_count"}
    edit(pytester, "steps.py", '["a"]\n', '["a"]\n    _order.append("b")\n')
    assert run(pytester) == {"test_first"}
