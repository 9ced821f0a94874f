"""A test that no longer exists (renamed, removed, a parametrize id that changed) leaves
the store when its file is collected whole again: otherwise ``reks affected`` and the
editor count it among the affected tests forever, and time-stamped ids pile up."""

from __future__ import annotations

import pytest

from lsp_server.rts.select import select_affected_tests
from lsp_server.rts.store import DependencyStore

from .helpers import edit, run, write

pytest_plugins = ["pytester"]


def _project(pytester: pytest.Pytester) -> None:
    write(pytester, "mod.py", "def f(x):\n    return x + 1\n")
    write(
        pytester,
        "test_a.py",
        """
        from mod import f


        def test_one():
            assert f(1) == 2


        def test_other():
            assert f(2) == 3
        """,
    )


def _affected(pytester: pytest.Pytester) -> set[str]:
    with DependencyStore(pytester.path) as store:
        return set(select_affected_tests(pytester.path, store, None).selected)


def test_a_renamed_test_leaves_the_store(pytester: pytest.Pytester) -> None:
    _project(pytester)
    assert run(pytester) == {"test_one", "test_other"}
    edit(pytester, "test_a.py", "def test_one", "def test_two")
    assert run(pytester) == {"test_two"}
    edit(pytester, "mod.py", "x + 1", "1 + x")
    assert _affected(pytester) == {"test_a.py::test_two", "test_a.py::test_other"}


def test_a_file_collected_in_part_keeps_its_other_tests(pytester: pytest.Pytester) -> None:
    _project(pytester)
    assert run(pytester) == {"test_one", "test_other"}
    assert run(pytester, "--reks-all", "test_a.py::test_one") == {"test_one"}
    edit(pytester, "mod.py", "x + 1", "1 + x")
    assert _affected(pytester) == {"test_a.py::test_one", "test_a.py::test_other"}


def test_a_file_that_fails_to_collect_keeps_its_tests(pytester: pytest.Pytester) -> None:
    _project(pytester)
    assert run(pytester) == {"test_one", "test_other"}
    edit(pytester, "test_a.py", "from mod import f", "from mod import f, missing")
    run(pytester, "--reks-all")
    edit(pytester, "test_a.py", "from mod import f, missing", "from mod import f")
    edit(pytester, "mod.py", "x + 1", "1 + x")
    assert _affected(pytester) == {"test_a.py::test_one", "test_a.py::test_other"}


def test_a_deleted_test_file_leaves_the_store(pytester: pytest.Pytester) -> None:
    """A deleted test file is never collected again: its tests leave the store with the
    run that handles the deletion (``store.deleted_files``), or they count as affected
    (their file deleted, or stale) forever."""
    _project(pytester)
    write(pytester, "test_b.py", "from mod import f\n\n\ndef test_b():\n    assert f(0) == 1\n")
    assert run(pytester) == {"test_one", "test_other", "test_b"}
    (pytester.path / "test_b.py").unlink()
    edit(pytester, "mod.py", "x + 1", "1 + x")
    assert run(pytester) == {"test_one", "test_other"}
    assert _affected(pytester) == set()
