"""A new ``from module import name`` below a statement of the same file that surely
imports ``module`` already (``import package``, whose ``__init__`` imports it at its top)
runs no module code where it stands: it only binds names. tenacity 44eaefb added ``from
tenacity.retry import retry_all, retry_any`` below ``import tenacity`` in a test file
that calls at import, and every test importing that file ran (143 against testmon's 136):
``rts.import_statements`` took the import's moment as seen. Real pytest sessions.

Guards: the module is not imported by the package (it runs there now, after the file read
a registry it fills), or the statement importing it comes below the new one (it runs
earlier now, before the file reads the registry): the test seeing the change runs and
fails at the child."""

from __future__ import annotations

import pytest

from .helpers import edit, ran_and_failed, write

pytest_plugins = ["pytester"]

TESTS = """
import registry

LATE = list(registry.SEEN)

import pkg


def test_late():
    assert LATE == []


def test_seen():
    assert registry.SEEN == ["extra"]


def test_helper():
    assert pkg.helper() == 1
"""

ALL = {"test_late", "test_seen", "test_helper"}


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    write(pytester, "registry.py", "SEEN = []\n")
    write(pytester, "pkg/__init__.py", "from .core import helper\nfrom .extra import thing\n")
    write(pytester, "pkg/core.py", "def helper():\n    return 1\n")
    write(pytester, "pkg/extra.py", 'import registry\n\nregistry.SEEN.append("extra")\nthing = 1\n')
    write(pytester, "pkg/other.py", 'import registry\n\nregistry.SEEN.append("other")\nvalue = 2\n')
    write(pytester, "test_app.py", TESTS)
    assert ran_and_failed(pytester) == (ALL, set())
    return pytester


def test_a_from_import_of_a_module_imported_above_selects_no_test(
    project: pytest.Pytester,
) -> None:
    edit(project, "test_app.py", "import pkg\n", "import pkg\nfrom pkg.extra import thing\n")
    assert ran_and_failed(project) == (set(), set())


def test_a_from_import_of_a_module_not_imported_above_selects_its_importers(
    project: pytest.Pytester,
) -> None:
    edit(project, "test_app.py", "import pkg\n", "import pkg\nfrom pkg.other import value\n")
    ran, failed = ran_and_failed(project)
    assert "test_seen" in ran
    assert failed == {"test_seen"}


def test_a_from_import_above_the_statement_importing_its_module_selects_its_importers(
    project: pytest.Pytester,
) -> None:
    edit(project, "test_app.py", "LATE = list(", "from pkg.extra import thing\n\nLATE = list(")
    ran, failed = ran_and_failed(project)
    assert "test_late" in ran
    assert failed == {"test_late"}
