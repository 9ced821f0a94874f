"""A changed warning filter reruns the tests a warning reached the filters for
(``rts.read_watch``, ``rts.option_reads``): each guard here is a shape where the warning
is not plainly in the test's own call, which must still run, and fails under ``error``."""

from __future__ import annotations

import pytest

from lsp_server.rts.file_units import Unit
from lsp_server.rts.option_rules import WARNED
from lsp_server.rts.store import DependencyStore
from lsp_server.rts.unit_names import NAMES

from .helpers import ERROR_FILTERS_INI, ran_and_failed, run, write

pytest_plugins = ["pytester"]


def test_warnings_the_default_filters_ignore_count(pytester: pytest.Pytester) -> None:
    write(pytester, "pytest.ini", "[pytest]\n")
    write(
        pytester,
        "test_w.py",
        """
        import warnings


        def test_resource():  # Python's default filters ignore it: pytest never sees it
            warnings.warn("left open", ResourceWarning)


        def test_explicit():
            warnings.warn_explicit("old", ImportWarning, "somewhere.py", 3)


        def test_quiet():
            assert True
        """,
    )
    assert run(pytester) == {"test_resource", "test_explicit", "test_quiet"}
    write(pytester, "pytest.ini", ERROR_FILTERS_INI)
    ran, failed = ran_and_failed(pytester)
    assert failed == {"test_resource", "test_explicit"}
    assert ran == failed


SHARED_FIXTURE = """
import warnings

import pytest


@pytest.fixture(scope="module")
def resource():
    warnings.warn("set up the old way", DeprecationWarning)
    return 1


def test_first(resource):
    assert resource == 1


def test_second(resource):  # the fixture was set up before: no warning in its set-up
    assert resource == 1


def test_quiet():
    assert True
"""


def test_a_warning_in_a_shared_fixtures_setup_reruns_every_test_using_it(
    pytester: pytest.Pytester,
) -> None:
    write(pytester, "pytest.ini", "[pytest]\n")
    write(pytester, "test_f.py", SHARED_FIXTURE)
    assert run(pytester) == {"test_first", "test_second", "test_quiet"}
    write(pytester, "pytest.ini", ERROR_FILTERS_INI)
    # Both set-ups fail (pytest keeps the fixture's error for the module): neither calls.
    assert run(pytester) == {"test_first", "test_second"}


IMPORTED_IN_TESTS = """
def test_before():  # ran before the import: an import failing later cannot reach it
    assert True


def test_imports():
    import oldhelper

    assert oldhelper.VALUE == 1


def test_imports_again():  # imported already: no warning here, but one once the first fails
    import oldhelper

    assert oldhelper.VALUE == 1
"""


def test_a_warning_as_a_module_is_imported_reruns_every_later_test(
    pytester: pytest.Pytester,
) -> None:
    write(pytester, "pytest.ini", "[pytest]\n")
    write(pytester, "oldhelper.py", "import warnings\n\nwarnings.warn('old')\nVALUE = 1\n")
    write(pytester, "test_i.py", IMPORTED_IN_TESTS)
    pytester.syspathinsert()
    assert run(pytester) == {"test_before", "test_imports", "test_imports_again"}
    write(pytester, "pytest.ini", ERROR_FILTERS_INI)
    ran, failed = ran_and_failed(pytester)
    assert failed == {"test_imports", "test_imports_again"}
    assert ran == failed


ONCE_PER_PLACE = """
import warnings


def old():
    warnings.warn("old")  # a UserWarning: shown once per place (an ignored one each time)


def test_one():
    old()


def test_two():  # the same place warns: shown once per process
    old()


def test_three():  # recording the first test parsed the file: nothing empties it before
    old()


def test_quiet():
    assert True
"""


def test_a_warning_at_a_place_that_warned_before_counts_again(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Without pytest's warnings plugin no ``catch_warnings`` empties the registry of
    warnings shown between tests: the second test's warning would not reach the filters
    again, though it does in a process where the first test did not run."""
    write(pytester, "pytest.ini", "[pytest]\naddopts = -p no:warnings\n")
    write(pytester, "test_o.py", ONCE_PER_PLACE)
    result = pytester.runpytest_subprocess("--reks")
    result.assert_outcomes(passed=4)
    monkeypatch.setenv("PYTHONWARNINGS", "error::UserWarning")
    result = pytester.runpytest_subprocess("--reks")
    result.assert_outcomes(failed=3)


def warned(pytester: pytest.Pytester) -> set[str]:
    """The tests the store notes a warning for (``WARNED``)."""
    store = DependencyStore(pytester.path, create=False, read_only=True)
    return {nodeid.partition("::")[2] for nodeid in store.tests_depending_on(Unit(NAMES, WARNED))}


def test_a_warning_as_a_file_is_collected_counts_for_its_tests(
    pytester: pytest.Pytester,
) -> None:
    """Under ``error`` the collector fails: the file's tests, and only them (a collection
    error stops the whole run, so the record is what can be checked)."""
    write(pytester, "pytest.ini", "[pytest]\n")
    write(
        pytester,
        "test_a.py",
        """
        class TestWithInit:  # pytest warns that it cannot collect it
            def __init__(self):
                pass


        def test_a():
            assert True
        """,
    )
    write(pytester, "test_b.py", "def test_b():\n    assert True\n")
    assert run(pytester) == {"test_a", "test_b"}
    assert warned(pytester) == {"test_a"}
    write(
        pytester,
        "conftest.py",
        """
        import warnings


        def pytest_collection_modifyitems(items):
            warnings.warn("reordering the old way")
        """,
    )
    assert run(pytester, "--reks-all") == {"test_a", "test_b"}
    assert warned(pytester) == {"test_a", "test_b"}  # outside any collector: every test


IN_A_THREAD = """
import threading
import warnings


def test_before():
    assert True


def test_late():  # which test a thread's warning lands in depends on timing
    worker = threading.Thread(target=warnings.warn, args=("from a thread",))
    worker.start()
    worker.join()


def test_after():
    assert True
"""

IN_A_COLLECTION = """
import gc
import warnings


class Leaky:
    def __init__(self):
        self.me = self  # a cycle: only a garbage collection finalizes it

    def __del__(self):
        warnings.warn("not closed", ResourceWarning)


def test_before():
    assert True


def test_late():  # which test a collection lands in depends on what ran before
    Leaky()
    gc.collect()


def test_after():
    assert True
"""


@pytest.mark.parametrize("tests", [IN_A_THREAD, IN_A_COLLECTION], ids=["thread", "gc"])
def test_a_warning_whose_test_depends_on_timing_counts_for_every_later_test(
    pytester: pytest.Pytester, tests: str
) -> None:
    write(pytester, "pytest.ini", "[pytest]\n")
    write(pytester, "test_t.py", tests)
    assert run(pytester) == {"test_before", "test_late", "test_after"}
    assert warned(pytester) == {"test_late", "test_after"}
    write(pytester, "pytest.ini", ERROR_FILTERS_INI)
    ran, failed = ran_and_failed(pytester)
    assert failed == {"test_late"}  # the thread's or finalizer's exception: an error now
    assert ran == {"test_late", "test_after"}
