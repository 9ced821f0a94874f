"""A top-level ``if`` on ``sys.version_info`` or ``sys.platform`` (``rts.version_guards``):
the branch that runs is code of the module like its other top-level statements (a binding
there selects its readers), the branch that does not run is no unit's text; the condition
is the ``DEAD`` unit's (``test_guard_headers``). typeguard 5b4e934 added ``Required`` to
both branches of ``if sys.version_info >= (3, 11): from typing import (...)`` / ``else:
from typing_extensions import (...)``: every test ran (500 of 500; testmon 369)."""

from __future__ import annotations

import pytest

from .helpers import edit, ran_and_failed, run, write

pytest_plugins = ["pytester"]

ALL = {"test_helper", "test_limit", "test_greet", "test_other", "test_version_name"}


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    return util_project(pytester)


def util_project(pytester: pytest.Pytester) -> pytest.Pytester:
    """``util.py`` with version guards and a test of each function, recorded."""
    write(
        pytester,
        "util.py",
        """
        import os
        import sys

        if sys.version_info >= (3, 8):
            from typing import (
                List,
                Optional,
            )

            LIMIT = 10
        else:
            from typing import List, Optional

            LIMIT = 20

        if sys.platform == "no-such-platform":
            GREETING = "hi"
        else:
            GREETING = "hello"

        if os.getenv("REKS_NO_SUCH_VARIABLE"):
            SEPARATOR = "-"
        else:
            SEPARATOR = "+"


        def helper(x: Optional[int] = None) -> List[int]:
            return [1]


        def limit():
            return LIMIT


        def greet():
            return GREETING


        def other():
            return 2


        if sys.version_info >= (99, 0):

            def version_name():
                return "future"
        elif sys.version_info >= (3, 0):

            def version_name():
                return "three"
        else:

            def version_name():
                return "old"
        """,
    )
    write(
        pytester,
        "test_util.py",
        """
        def test_helper():
            import util

            assert util.helper() == [1]


        def test_limit():
            import util

            assert util.limit() == 10


        def test_greet():
            import util

            assert util.greet() == "hello"


        def test_other():
            import util

            assert util.other() == 2


        def test_version_name():
            import util

            assert util.version_name() == "three"
        """,
    )
    assert run(pytester) == ALL
    return pytester


def test_a_name_added_to_a_stdlib_import_of_the_branch_that_runs(project: pytest.Pytester) -> None:
    edit(project, "util.py", "        Optional,\n", "        Optional,\n        Dict,\n")
    assert run(project) == set()


def test_the_branch_that_does_not_run_edited(project: pytest.Pytester) -> None:
    edit(project, "util.py", "    from typing import List, Optional\n", "    import missing\n")
    edit(project, "util.py", "LIMIT = 20", "LIMIT = 30")
    edit(project, "util.py", 'GREETING = "hi"', 'GREETING = "hey"')
    assert run(project) == set()


def test_the_definitions_of_an_elif_chain_that_do_not_run(project: pytest.Pytester) -> None:
    edit(project, "util.py", 'return "future"', 'return "later"')
    edit(project, "util.py", 'return "old"', 'return "older"')
    assert run(project) == set()


def test_the_definition_of_an_elif_chain_that_runs(project: pytest.Pytester) -> None:
    edit(project, "util.py", 'return "three"', 'return "3"')
    assert ran_and_failed(project) == ({"test_version_name"}, {"test_version_name"})


def test_a_binding_of_the_branch_that_runs_selects_its_readers(project: pytest.Pytester) -> None:
    edit(project, "util.py", "LIMIT = 10", "LIMIT = 11")
    assert ran_and_failed(project) == ({"test_limit"}, {"test_limit"})


def test_a_binding_of_an_else_that_runs_selects_its_readers(project: pytest.Pytester) -> None:
    edit(project, "util.py", 'GREETING = "hello"', 'GREETING = "hey"')
    assert ran_and_failed(project) == ({"test_greet"}, {"test_greet"})


def test_a_changed_condition_selects_the_readers_of_what_runs_now(
    project: pytest.Pytester,
) -> None:
    # The ``else`` runs now: its ``LIMIT = 20`` is a changed binding (its imports read the
    # same as the ``if``'s once layout is set aside).
    edit(project, "util.py", ">= (3, 8)", ">= (3, 99)")
    assert ran_and_failed(project) == ({"test_limit"}, {"test_limit"})


def test_an_else_added_that_runs_selects_the_readers(project: pytest.Pytester) -> None:
    edit(
        project,
        "util.py",
        "\n\ndef helper",
        "\nif sys.version_info < (3, 0):\n    LIMIT = 0\nelse:\n    LIMIT = 40\n\n\ndef helper",
    )
    ran, failed = ran_and_failed(project)
    assert "test_limit" in ran and failed == {"test_limit"}


def test_a_stdlib_name_that_does_not_exist_selects_every_importer(
    project: pytest.Pytester,
) -> None:
    edit(project, "util.py", "        Optional,\n", "        Optional,\n        NoSuchName,\n")
    assert ran_and_failed(project) == (ALL, ALL)


def test_a_third_party_name_in_the_branch_that_runs_selects_every_importer(
    project: pytest.Pytester,
) -> None:
    added = "    from pluggy import HookimplMarker\n    LIMIT = 10\n"
    edit(project, "util.py", "    LIMIT = 10\n", added)
    assert run(project) == ALL  # a new third-party import
    edit(project, "util.py", "import HookimplMarker", "import HookimplMarker, NoSuchMarker")
    assert ran_and_failed(project) == (ALL, ALL)


def test_a_statement_with_effects_in_the_branch_that_runs(project: pytest.Pytester) -> None:
    edit(project, "util.py", "    LIMIT = 10\n", "    LIMIT = 10\n    os.environ['X'] = '1'\n")
    assert run(project) == ALL


def test_a_condition_the_fingerprint_does_not_fix_keeps_its_branches(
    project: pytest.Pytester,
) -> None:
    edit(project, "util.py", 'SEPARATOR = "-"', 'SEPARATOR = "*"')
    assert run(project) == ALL


COMPAT = """
import os
import sys

if sys.version_info >= (3, 0):
    NAME = "three"
else:
    NAME = "two"

if sys.platform == "no-such-platform":

    def greeting():
        return "hi"
else:

    def greeting():
        return "hello"
"""


def compat_project(pytester: pytest.Pytester, tests: str) -> set[str]:
    """A module of version guards, the test file ``tests``, recorded: the tests that ran."""
    write(pytester, "compat.py", COMPAT)
    write(pytester, "test_compat.py", tests)
    return run(pytester)


RELOADING_TESTS = """
import importlib
import sys

import compat


def test_now():
    assert compat.NAME == "three"


def test_old(monkeypatch):
    monkeypatch.setattr(sys, "version_info", (2, 7, 0, "final", 0))
    try:
        assert importlib.reload(compat).NAME == "two"
    finally:
        monkeypatch.undo()
        importlib.reload(compat)
"""
"""Two tests of ``compat``: one as imported, one reloading it under Python 2.7."""


def test_a_test_that_reloads_the_module_under_another_version_runs_its_other_branch(
    pytester: pytest.Pytester,
) -> None:
    # The dead branch is dead for the import only: a test patching ``sys.version_info``
    # and reloading the module runs it (compatibility code is tested this way).
    recorded = compat_project(
        pytester,
        RELOADING_TESTS,
    )
    assert recorded == {"test_now", "test_old"}
    edit(pytester, "compat.py", 'NAME = "two"', 'NAME = "2"')
    assert ran_and_failed(pytester) == ({"test_old"}, {"test_old"})


def test_a_test_that_reloads_the_module_under_another_platform_runs_its_other_branch(
    pytester: pytest.Pytester,
) -> None:
    recorded = compat_project(
        pytester,
        """
        import importlib
        import sys

        import compat


        def test_greeting():
            assert compat.greeting() == "hello"


        def test_other_platform(monkeypatch):
            monkeypatch.setattr(sys, "platform", "no-such-platform")
            other = importlib.reload(compat)
            monkeypatch.undo()
            try:
                assert other.greeting() == "hi"
            finally:
                importlib.reload(compat)
        """,
    )
    assert recorded == {"test_greeting", "test_other_platform"}
    edit(pytester, "compat.py", 'return "hi"', 'return "hey"')
    assert ran_and_failed(pytester) == ({"test_other_platform"}, {"test_other_platform"})


def test_a_module_run_by_runpy_under_another_version_runs_its_other_branch(
    pytester: pytest.Pytester,
) -> None:
    recorded = compat_project(
        pytester,
        """
        import runpy
        import sys


        def test_now():
            assert runpy.run_path("compat.py")["NAME"] == "three"


        def test_old(monkeypatch):
            monkeypatch.setattr(sys, "version_info", (2, 7, 0, "final", 0))
            assert runpy.run_path("compat.py")["NAME"] == "two"
        """,
    )
    assert recorded == {"test_now", "test_old"}
    edit(pytester, "compat.py", 'NAME = "two"', 'NAME = "2"')
    assert ran_and_failed(pytester) == ({"test_old"}, {"test_old"})


def test_a_module_imported_under_another_version_keeps_its_other_branch_for_later_tests(
    pytester: pytest.Pytester,
) -> None:
    # The module object made under other values holds the other branch's bindings: a
    # later test reading them sees the dead text (the marker is part of the module's
    # import footprint, not only of the test that ran it).
    recorded = compat_project(
        pytester,
        """
        import sys


        def test_import_old(monkeypatch):
            monkeypatch.setattr(sys, "version_info", (2, 7, 0, "final", 0))
            import compat

            assert compat.NAME == "two"


        def test_read_later():
            import compat

            assert compat.NAME == "two"
        """,
    )
    assert recorded == {"test_import_old", "test_read_later"}
    edit(pytester, "compat.py", 'NAME = "two"', 'NAME = "2"')
    both = {"test_import_old", "test_read_later"}
    assert ran_and_failed(pytester) == (both, both)


def test_a_value_patched_and_restored_before_the_reload(pytester: pytest.Pytester) -> None:
    # Precision: the module ran under the session's own values, its dead branch did not run.
    recorded = compat_project(
        pytester,
        """
        import importlib
        import sys

        import compat


        def test_restored(monkeypatch):
            monkeypatch.setattr(sys, "version_info", (2, 7, 0, "final", 0))
            monkeypatch.undo()
            assert importlib.reload(compat).NAME == "three"
        """,
    )
    assert recorded == {"test_restored"}
    edit(pytester, "compat.py", 'NAME = "two"', 'NAME = "2"')
    assert run(pytester) == set()


def test_a_test_that_reads_the_module_source_sees_its_dead_branch(
    pytester: pytest.Pytester,
) -> None:
    recorded = compat_project(
        pytester,
        """
        import inspect

        import compat


        def test_source():
            assert 'NAME = "two"' in inspect.getsource(compat)
        """,
    )
    assert recorded == {"test_source"}
    edit(pytester, "compat.py", 'NAME = "two"', 'NAME = "2"')
    assert ran_and_failed(pytester) == ({"test_source"}, {"test_source"})


def test_a_test_that_runs_the_module_in_another_interpreter(pytester: pytest.Pytester) -> None:
    # The child process runs the dead branch; the parent imported the module itself (as
    # on 21db5d3, where the module unit covered the whole file, the test is selected).
    recorded = compat_project(
        pytester,
        """
        import subprocess
        import sys

        import compat

        OLD = (
            "import sys; sys.version_info = (2, 7, 0, 'final', 0); "
            "import compat; print(compat.NAME)"
        )


        def test_child():
            assert compat.NAME == "three"
            child = subprocess.run(
                [sys.executable, "-c", OLD], capture_output=True, text=True, check=True
            )
            assert child.stdout.strip() == "two"
        """,
    )
    assert recorded == {"test_child"}
    edit(pytester, "compat.py", 'NAME = "two"', 'NAME = "2"')
    assert ran_and_failed(pytester) == ({"test_child"}, {"test_child"})


def test_a_file_analysed_while_a_conftest_patches_the_version(pytester: pytest.Pytester) -> None:
    # Analysed under patched values (the conftest's, for the whole session), the guard is
    # resolved the other way, and the analysis is kept by content (``rts.analysis_cache``):
    # recorded once the patch is gone, the test depends on what that analysis calls the
    # branch that runs (the dead one now). An edit of the file is analysed again: the
    # module unit's marker of which branch ran changes, and every importer is selected.
    write(
        pytester,
        "conftest.py",
        """
        import sys

        REAL = sys.hexversion
        sys.hexversion = 0x7F000000


        def pytest_unconfigure(config):
            sys.hexversion = REAL
        """,
    )
    write(
        pytester,
        "legacy.py",
        """
        import sys

        if sys.hexversion >= 0x7F000000:
            WHEN = "future"
        else:
            WHEN = "now"
        """,
    )
    write(
        pytester,
        "test_legacy.py",
        """
        import legacy


        def test_when():
            assert legacy.WHEN in ("future", "now")
        """,
    )
    assert run(pytester) == {"test_when"}
    edit(pytester, "conftest.py", "sys.hexversion = 0x7F000000", "")
    assert run(pytester) == {"test_when"}  # the conftest changed
    edit(pytester, "legacy.py", 'WHEN = "now"', 'WHEN = "later"')
    assert ran_and_failed(pytester) == ({"test_when"}, {"test_when"})


def test_a_test_that_starts_a_process_sees_the_dead_branches_of_loaded_modules(
    pytester: pytest.Pytester,
) -> None:
    # The child may import any module loaded here (another test imported ``compat``) and
    # run its other branch: the process started stands for their dead branches
    # (``rts.process_starts``); the test that only imported it is not selected.
    recorded = compat_project(
        pytester,
        """
        import subprocess
        import sys


        def test_import():
            import compat

            assert compat.NAME == "three"


        def test_child():
            subprocess.run([sys.executable, "-c", "pass"], check=True)
        """,
    )
    assert recorded == {"test_import", "test_child"}
    edit(pytester, "compat.py", 'NAME = "two"', 'NAME = "2"')
    assert run(pytester) == {"test_child"}
