"""A module moved into a new subpackage, its old file deleted (python-validators
``4973c49``): the tests that imported the package, and so ran the old module at import, do
not run when the old module and the new ones were quiet at import; the tests reading the
moved name do. A deleted module that did something at import, one imported by a name in a
string or still imported by a file, one whose own import ran a file that runs nowhere now,
and a new module that does something at import still select those tests, each failing."""

from __future__ import annotations

import pytest

from .helpers import ran_and_failed, run, write

pytest_plugins = ["pytester"]

_OLD = """
import re

from .base import PATTERN


def old_check(value):
    return bool(re.fullmatch(PATTERN, value))
"""


def _project(pytester: pytest.Pytester, old: str = _OLD, other_test: str = "") -> None:
    write(
        pytester, "pkg/__init__.py", "from .old import old_check\nfrom .other import other_check\n"
    )
    write(pytester, "pkg/base.py", 'PATTERN = "a+"\n')
    write(pytester, "pkg/old.py", old)
    write(pytester, "pkg/other.py", "def other_check(value):\n    return value == 'x'\n")
    write(
        pytester,
        "test_old.py",
        "from pkg import old_check\n\n\ndef test_old():\n    assert old_check('aa')\n",
    )
    write(
        pytester,
        "test_other.py",
        other_test
        or "from pkg import other_check\n\n\ndef test_other():\n    assert other_check('x')\n",
    )
    assert run(pytester) == {"test_old", "test_other"}


def _move(pytester: pytest.Pytester, new: str = _OLD) -> None:
    """``pkg/old.py`` becomes ``pkg/sub/old.py`` (``new``), taken through ``pkg/sub``."""
    (pytester.path / "pkg" / "old.py").unlink()
    write(pytester, "pkg/sub/__init__.py", "from .old import old_check\n")
    write(pytester, "pkg/sub/old.py", new.replace("from .base", "from ..base"))
    write(
        pytester, "pkg/__init__.py", "from .sub import old_check\nfrom .other import other_check\n"
    )


def test_a_quiet_module_moved_into_a_new_subpackage_runs_its_readers_alone(
    pytester: pytest.Pytester,
) -> None:
    _project(pytester)
    _move(pytester)
    assert run(pytester) == {"test_old"}


@pytest.mark.parametrize(
    "where",
    [
        "old_check.__module__ == 'pkg.old'",
        "inspect.getfile(old_check).endswith(os.path.join('pkg', 'old.py'))",
    ],
)
def test_a_test_reading_where_the_moved_function_lives_is_selected(
    pytester: pytest.Pytester, where: str
) -> None:
    """Guard: the moved function keeps its text and its name in the package, but its
    module and its file changed."""
    head = "import inspect\nimport os\n\nfrom pkg import old_check\n\n\n"
    test = f"{head}def test_other():\n    assert {where}\n"
    _project(pytester, other_test=test)
    _move(pytester)
    ran, failed = ran_and_failed(pytester)
    assert failed == {"test_other"}
    assert "test_old" in ran


def test_a_deleted_module_that_filled_another_at_import_selects_its_importers(
    pytester: pytest.Pytester,
) -> None:
    write(pytester, "pkg/registry.py", "NAMES = []\n")
    registering = _OLD + "\nfrom .registry import NAMES\n\nNAMES.append('check')\n"
    test = (
        "import pkg.registry\n\n\ndef test_other():\n    assert pkg.registry.NAMES == ['check']\n"
    )
    _project(pytester, registering, test)
    _move(pytester)
    ran, failed = ran_and_failed(pytester)
    assert (ran, failed) == ({"test_old", "test_other"}, {"test_other"})


def test_a_deleted_module_imported_by_name_selects_that_test(pytester: pytest.Pytester) -> None:
    """The module binds only what it takes from another: nothing but its import's units."""
    write(pytester, "pkg/__init__.py", "")
    write(pytester, "pkg/base.py", 'PATTERN = "a+"\n')
    write(pytester, "pkg/again.py", "from .base import PATTERN\n")
    write(
        pytester,
        "test_again.py",
        "import importlib\n\n\ndef test_again():\n"
        "    assert importlib.import_module('pkg.again').PATTERN == 'a+'\n",
    )
    write(pytester, "test_plain.py", "import pkg.base\n\n\ndef test_plain():\n    assert True\n")
    assert run(pytester) == {"test_again", "test_plain"}
    (pytester.path / "pkg" / "again.py").unlink()
    assert ran_and_failed(pytester) == ({"test_again"}, {"test_again"})


def test_a_deleted_module_still_imported_by_a_file_selects_its_importers(
    pytester: pytest.Pytester,
) -> None:
    write(pytester, "helper.py", "from pkg.old import PATTERN as again\n")
    # Imported as the test runs: a file failing to import at collection stops the session.
    test = "def test_other():\n    import helper\n\n    assert helper.again == 'a+'\n"
    _project(pytester, other_test=test)
    _move(pytester)
    ran, failed = ran_and_failed(pytester)
    assert (ran, failed) == ({"test_old", "test_other"}, {"test_other"})


def test_a_file_the_deleted_module_alone_ran_selects_its_importers(
    pytester: pytest.Pytester,
) -> None:
    """``pkg/side.py`` ran only through the old module; the new one does not import it."""
    write(pytester, "pkg/side.py", "import pkg.base\n\npkg.base.FLAG = True\n")
    test = "import pkg.base\n\n\ndef test_other():\n    assert getattr(pkg.base, 'FLAG', False)\n"
    _project(pytester, _OLD + "\nfrom . import side\n", test)
    _move(pytester)
    ran, failed = ran_and_failed(pytester)
    assert (ran, failed) == ({"test_old", "test_other"}, {"test_other"})


def test_a_new_module_doing_something_at_import_selects_the_importers(
    pytester: pytest.Pytester,
) -> None:
    write(pytester, "pkg/registry.py", "NAMES = []\n")
    test = "import pkg.registry\n\n\ndef test_other():\n    assert pkg.registry.NAMES == []\n"
    _project(pytester, other_test=test)
    registering = "\nfrom ..registry import NAMES as _registered\n\n_registered.append(1)\n"
    _move(pytester, _OLD + registering)
    ran, failed = ran_and_failed(pytester)
    assert (ran, failed) == ({"test_old", "test_other"}, {"test_other"})


def test_a_new_module_that_may_raise_at_import_selects_the_importers(
    pytester: pytest.Pytester,
) -> None:
    """The new subpackage's module fails at import: every importer of the package fails."""
    test = "def test_other():\n    import pkg\n\n    assert pkg.other_check('x')\n"
    _project(pytester, other_test=test)
    _move(pytester, _OLD + "\n_TABLE = {'a': 1}\nFIRST = _TABLE[PATTERN]\n")
    ran, failed = ran_and_failed(pytester, "--continue-on-collection-errors")
    assert (ran, failed) == ({"test_other"}, {"test_other"})


def test_a_quiet_module_moved_runs_nothing_at_the_next_run(pytester: pytest.Pytester) -> None:
    """The run recording the deletion leaves alone the tests selection proved unaffected
    by it (``test_other`` merely imported the old module): fails on c5205cb, where it ran
    again as stale ("pkg/old.py deleted")."""
    _project(pytester)
    _move(pytester)
    assert run(pytester) == {"test_old"}
    assert run(pytester) == set()


def test_a_quiet_module_moved_runs_its_deselected_readers_next_time(
    pytester: pytest.Pytester,
) -> None:
    """Guard: ``test_old`` reads the moved name, selected but deselected with ``-k``: its
    mark stays and it runs at the next run, alone, and fails (the moved check changed)."""
    _project(pytester)
    _move(pytester, _OLD.replace("return bool(", "return not bool("))
    assert run(pytester, "-k", "other") == set()
    assert ran_and_failed(pytester) == ({"test_old"}, {"test_old"})


def test_a_moved_module_filling_another_runs_its_deselected_importers_next_time(
    pytester: pytest.Pytester,
) -> None:
    """Guard: the old module filled a registry at import (not quiet): ``test_other``,
    selected but deselected with ``-k``, keeps its mark and fails at the next run."""
    write(pytester, "pkg/registry.py", "NAMES = []\n")
    registering = _OLD + "\nfrom .registry import NAMES\n\nNAMES.append('check')\n"
    test = (
        "import pkg.registry\n\n\ndef test_other():\n    assert pkg.registry.NAMES == ['check']\n"
    )
    _project(pytester, registering, test)
    _move(pytester)
    assert run(pytester, "-k", "old") == {"test_old"}
    assert ran_and_failed(pytester) == ({"test_other"}, {"test_other"})
