"""A version guard's own text (``if``/``elif`` with its condition, ``else``) is in the
``DEAD`` unit, not the module unit (``rts.version_guards``): the interpreter that records is
the one that selects, so for an importer the module is the branch that runs, whose
statements have units of their own. typeguard 2fde422 and 1cd7638 each added a guard
binding a name (``if sys.version_info >= (3, 15): from typing import NoExtraItems`` /
``else: from typing_extensions import NoExtraItems``): every test ran (505 and 509 tests;
pytest-testmon 373 and 397)."""

from __future__ import annotations

import pytest

from .helpers import edit, ran_and_failed, run, write
from .test_version_guards import ALL, RELOADING_TESTS, compat_project, util_project

pytest_plugins = ["pytester"]

AFTER_OTHER = "\n\ndef other():\n    return 2\n"


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    return util_project(pytester)


def _guard(body: str, orelse: str) -> str:
    return f"{AFTER_OTHER}\n\nif sys.version_info >= (99, 0):\n{body}\nelse:\n{orelse}\n"


def test_a_new_guard_binding_a_name_nobody_reads_selects_no_test(
    project: pytest.Pytester,
) -> None:
    edit(project, "util.py", AFTER_OTHER, _guard("    EXTRA = 1", "    EXTRA = 2"))
    assert ran_and_failed(project) == (set(), set())


def test_a_new_guard_importing_a_name_nobody_reads_selects_no_test(
    project: pytest.Pytester,
) -> None:
    branches = ("    from typing import Final as Marker", "    from typing import Final as Marker")
    edit(project, "util.py", AFTER_OTHER, _guard(*branches))
    assert ran_and_failed(project) == (set(), set())


def test_a_new_guard_whose_branch_that_runs_raises_selects_every_importer(
    project: pytest.Pytester,
) -> None:
    edit(project, "util.py", AFTER_OTHER, _guard("    EXTRA = 1", '    raise ImportError("no")'))
    assert ran_and_failed(project) == (ALL, ALL)


def test_a_new_guard_rebinding_a_name_read_selects_its_readers(project: pytest.Pytester) -> None:
    edit(project, "util.py", AFTER_OTHER, _guard("    LIMIT = 10", "    LIMIT = 11"))
    assert ran_and_failed(project) == ({"test_limit"}, {"test_limit"})


def test_a_new_guard_importing_a_missing_name_selects_every_importer(
    project: pytest.Pytester,
) -> None:
    branches = ("    from typing import Final as Marker", "    from typing import NoSuchMarker")
    edit(project, "util.py", AFTER_OTHER, _guard(*branches))
    assert ran_and_failed(project) == (ALL, ALL)


def test_a_changed_condition_that_runs_the_same_branch_selects_a_test_running_the_other(
    pytester: pytest.Pytester,
) -> None:
    # Native importers run the same branch; a test reloading the module under an older
    # version now runs the other one.
    recorded = compat_project(
        pytester,
        RELOADING_TESTS,
    )
    assert recorded == {"test_now", "test_old"}
    edit(pytester, "compat.py", ">= (3, 0)", ">= (2, 0)")
    assert ran_and_failed(pytester) == ({"test_old"}, {"test_old"})


def test_a_changed_condition_of_a_guard_with_no_else_selects_a_test_reading_the_source(
    pytester: pytest.Pytester,
) -> None:
    # No branch is dead there: the guard's text is still some unit's.
    write(pytester, "compat.py", 'import sys\n\nif sys.version_info >= (3, 0):\n    NAME = "x"\n')
    write(
        pytester,
        "test_compat.py",
        """
        import inspect

        import compat


        def test_source():
            assert "(3, 0)" in inspect.getsource(compat)
        """,
    )
    assert run(pytester) == {"test_source"}
    edit(pytester, "compat.py", ">= (3, 0)", ">= (3, 1)")
    assert ran_and_failed(pytester) == ({"test_source"}, {"test_source"})
