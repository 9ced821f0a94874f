"""A conftest's ``pytest_collection_modifyitems`` runs once, after every file is collected
and before any test: it may skip, mark or reorder any test. Every test depends on what ran
in it (``rts.recorder``)."""

from __future__ import annotations

import pytest

from .helpers import edit, run, write

pytest_plugins = ["pytester"]


def test_a_changed_collection_hook_selects_the_tests_it_may_change(
    pytester: pytest.Pytester,
) -> None:
    write(
        pytester,
        "conftest.py",
        """
        import pytest


        def pytest_collection_modifyitems(items):
            for item in items:
                if "slow" in item.name:
                    item.add_marker(pytest.mark.skip(reason="slow"))
        """,
    )
    write(
        pytester,
        "test_a.py",
        """
        def test_slow():
            assert False


        def test_fast():
            pass
        """,
    )
    assert run(pytester, flag="--reks-all") == {"test_slow", "test_fast"}  # one skipped
    edit(pytester, "conftest.py", '"slow" in', '"fast" in')
    assert run(pytester) == {"test_slow", "test_fast"}


def test_a_collection_hook_changes_nothing_when_it_stays_the_same(
    pytester: pytest.Pytester,
) -> None:
    write(
        pytester,
        "conftest.py",
        """
        def pytest_collection_modifyitems(items):
            items.sort(key=lambda item: item.name)
        """,
    )
    write(pytester, "mod.py", "def one():\n    return 1\n\n\ndef two():\n    return 2\n")
    write(
        pytester,
        "test_a.py",
        """
        import mod


        def test_one():
            assert mod.one() == 1


        def test_two():
            assert mod.two() == 2
        """,
    )
    assert run(pytester, flag="--reks-all") == {"test_one", "test_two"}
    edit(pytester, "mod.py", "return 2", "return 1 + 1")
    assert run(pytester) == {"test_two"}
