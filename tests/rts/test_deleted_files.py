"""A deleted file's units: every test that could see the deletion runs once, and then the
store forgets them (``store.deleted_files``). Kept, they counted as changed at every
later run, and every rule firing on any change (a listing of the session's state,
``rts.session_listings``) reran its tests at every commit: typeguard's
``tests/pep695.py``, deleted at ``1cd7638``, reran 8 tests at each of the later commits.
The guards: a test that depended on the file, or a listing test, which the run handling
the deletion did not rerun (deselected with ``-k``, or left by ``-x``) runs next time."""

from __future__ import annotations

import pytest

from .helpers import ran_and_failed, run, write

pytest_plugins = ["pytester"]

LIB = """
class Marker:
    def __init__(self, name):
        self.name = name
"""

LISTING_TEST = """
import gc

import lib


def test_listing():
    found = sorted(o.name for o in gc.get_objects() if type(o) is lib.Marker)
    assert {check}
"""
"""A test listing every ``Marker`` the session made: ``other.py`` makes one."""

OTHER = "import lib\n\nKEPT = [lib.Marker('b')]\nVALUE = 1\n"


def _recorded(pytester: pytest.Pytester, check: str) -> None:
    """A listing test (asserting ``check`` of the markers ``found``), a test importing
    ``other`` at its top, one importing it as it runs, and one that sees none of it."""
    write(pytester, "lib.py", LIB)
    write(pytester, "other.py", OTHER)
    write(pytester, "keep.py", "VALUE = 1\n")
    write(pytester, "test_listing.py", LISTING_TEST.format(check=check))
    write(pytester, "test_other.py", "import other\n\n\ndef test_other():\n    assert other\n")
    write(
        pytester,
        "test_a_dep.py",
        "def test_dep():\n    import other\n\n    assert other.VALUE == 1\n",
    )
    write(pytester, "test_keep.py", "import keep\n\n\ndef test_keep():\n    assert keep.VALUE\n")
    ran, failed = ran_and_failed(pytester)
    assert ran == {"test_listing", "test_other", "test_dep", "test_keep"}
    assert not failed


def _delete(pytester: pytest.Pytester, *paths: str) -> None:
    for path in paths:
        (pytester.path / path).unlink()


def test_a_deleted_module_selects_its_listing_test_once(pytester: pytest.Pytester) -> None:
    """Precision: ``other.py`` and every test importing it deleted; the listing test (which
    passes either way) runs once, then nothing runs."""
    _recorded(pytester, "set(found) <= {'b'}")
    _delete(pytester, "other.py", "test_other.py", "test_a_dep.py")
    assert run(pytester) == {"test_listing"}
    assert run(pytester) == set()


def test_a_deleted_module_its_importer_handles_runs_nothing_after(
    pytester: pytest.Pytester,
) -> None:
    """Precision: the importer stays and passes without it (a fallback), so it is no
    failure that selects it: once it and the listing test ran, nothing runs."""
    _recorded(pytester, "set(found) <= {'b'}")
    write(
        pytester,
        "test_a_dep.py",
        "def test_dep():\n    try:\n        import other\n    except ImportError:\n"
        "        other = None\n    assert getattr(other, 'VALUE', 1) == 1\n",
    )
    assert ran_and_failed(pytester) == ({"test_dep", "test_listing"}, set())
    _delete(pytester, "other.py", "test_other.py")
    assert ran_and_failed(pytester) == ({"test_dep", "test_listing"}, set())
    assert run(pytester) == set()


def test_deselected_dependents_of_a_deleted_module_run_next_time(
    pytester: pytest.Pytester,
) -> None:
    """Guard: the run after the deletion runs ``test_keep`` alone (``-k``, and ``keep``
    changed so that it is selected): the listing test and ``test_dep`` did not see the
    deletion, and fail at it."""
    _recorded(pytester, "found == ['b']")
    _delete(pytester, "other.py", "test_other.py")
    write(pytester, "keep.py", "VALUE = 2\n")
    assert run(pytester, "-k", "keep") == {"test_keep"}
    assert ran_and_failed(pytester) == ({"test_listing", "test_dep"},) * 2


def test_a_run_stopped_early_leaves_a_deleted_module_unhandled(
    pytester: pytest.Pytester,
) -> None:
    """Guard: ``-x`` stops the run at ``test_dep``'s failure, before the listing test
    (its file comes later): the listing test did not see the deletion."""
    _recorded(pytester, "found == ['b']")
    _delete(pytester, "other.py", "test_other.py")
    assert ran_and_failed(pytester, "-x") == ({"test_dep"}, {"test_dep"})
    assert ran_and_failed(pytester) == ({"test_listing", "test_dep"},) * 2


def test_a_deleted_module_created_again_with_other_content(pytester: pytest.Pytester) -> None:
    """Guard: handled and forgotten, ``other.py`` comes back with another value: the tests
    importing it are new or changed files, and the one importing it as it runs (recorded
    without it) fails until it is back, so it runs; the listing test sees its marker."""
    _recorded(pytester, "found in ([], ['b'])")
    _delete(pytester, "other.py", "test_other.py")
    assert ran_and_failed(pytester) == ({"test_dep", "test_listing"}, {"test_dep"})
    write(pytester, "other.py", OTHER.replace("'b'", "'c'").replace("= 1", "= 2"))
    assert ran_and_failed(pytester) == ({"test_dep", "test_listing"},) * 2


def test_a_deleted_module_back_while_the_run_ran(pytester: pytest.Pytester) -> None:
    """Guard: the run after the deletion writes ``other.py`` back before ``test_dep``
    imports it. The session runs against the deletion its selection saw, so the record
    lacks ``other``'s units: ``test_dep`` is stale, and runs (failing) once ``other``
    changes."""
    _recorded(pytester, "found in ([], ['b'])")
    _delete(pytester, "other.py", "test_other.py")
    write(
        pytester,
        "test_a0_restore.py",
        f"""
        import importlib
        import pathlib


        def test_restore():
            pathlib.Path(__file__).with_name("other.py").write_text({OTHER!r})
            importlib.invalidate_caches()
        """,
    )
    ran, failed = ran_and_failed(pytester)
    assert {"test_restore", "test_dep"} <= ran
    assert not failed
    write(pytester, "other.py", OTHER.replace("= 1", "= 2"))
    ran, failed = ran_and_failed(pytester)
    assert "test_dep" in failed


def test_xdist_workers_handle_a_deletion_once(pytester: pytest.Pytester) -> None:
    """Precision with xdist: each worker's first write finds the deletion; the first
    handles it, the other finds it handled, and the listing test runs once."""
    _recorded(pytester, "set(found) <= {'b'}")
    # Recorded again with every plugin (xdist's too): the environment the runs below see.
    pytester.runpytest("--reks", "-n", "2").assert_outcomes(passed=4)
    _delete(pytester, "other.py", "test_other.py", "test_a_dep.py")
    pytester.runpytest("--reks", "-n", "2").assert_outcomes(passed=1)
    pytester.runpytest("--reks", "-n", "2").assert_outcomes()
    assert run(pytester, every_plugin=True) == set()
