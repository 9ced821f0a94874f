"""A test added with a mark whose argument only queries the platform (``skipif`` on
``shutil.which(...)``) runs alone: the argument runs at import, reads and changes nothing of
the project, cannot fail there (it succeeded in the analysis), and decides only the marked
test's skip (click 2103e157's test_termui.py: the new test changed the module unit and
every test of the module ran). A mark argument calling project code, or a query of a value
the module binds (not known to the analysis), still changes the module unit. Real pytest
sessions."""

from __future__ import annotations

import pytest

from .helpers import run, write

pytest_plugins = ["pytester"]

_MOD = """
def double(x):
    return x * 2
"""

_TESTS = """
import shutil

import pytest

import mod

LIMIT = 3


def test_double():
    assert mod.double(2) == 4


def test_limit():
    assert LIMIT == 3
"""


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    write(pytester, "mod.py", _MOD)
    write(pytester, "test_mod.py", _TESTS)
    assert run(pytester) == {"test_double", "test_limit"}
    return pytester


def _append(project: pytest.Pytester, text: str) -> None:
    path = project.path / "test_mod.py"
    path.write_text(path.read_text() + "\n\n" + text)


def test_a_test_skipped_on_a_missing_program_runs_alone(project: pytest.Pytester) -> None:
    _append(
        project,
        '@pytest.mark.skipif(shutil.which("sh") is None, reason="no shell")\n'
        "def test_new():\n    assert mod.double(3) == 6\n",
    )
    assert run(project) == {"test_new"}


def test_a_plain_test_runs_alone(project: pytest.Pytester) -> None:
    _append(project, "def test_new():\n    assert mod.double(3) == 6\n")
    assert run(project) == {"test_new"}


def test_a_mark_calling_project_code_runs_every_test(project: pytest.Pytester) -> None:
    _append(
        project,
        '@pytest.mark.skipif(mod.double(1) == 3, reason="odd")\n'
        "def test_new():\n    assert mod.double(3) == 6\n",
    )
    assert run(project) == {"test_double", "test_limit", "test_new"}


def test_a_query_of_a_module_value_runs_every_test(project: pytest.Pytester) -> None:
    _append(
        project,
        'PROGRAM = "sh"\n\n\n'
        '@pytest.mark.skipif(shutil.which(PROGRAM) is None, reason="no shell")\n'
        "def test_new():\n    assert mod.double(3) == 6\n",
    )
    assert run(project) == {"test_double", "test_limit", "test_new"}
