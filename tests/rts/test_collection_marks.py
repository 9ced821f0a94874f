"""A test added with marks whose arguments only query the platform (``skipif`` on
``shutil.which(...)``, ``parametrize`` over ``pytest.param`` of constants) runs alone: such an
argument runs at collection, reads and changes nothing of the project, and decides only the
marked test's skip or parameters (click 2103e157's test_termui.py: the new tests changed the
module unit and every test of the module ran). Real pytest sessions."""

from __future__ import annotations

import pytest

from .helpers import edit, run, write

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


def test_a_test_over_constant_params_runs_alone(project: pytest.Pytester) -> None:
    _append(
        project,
        '@pytest.mark.parametrize(("x", "y"), [pytest.param(1, 2, id="one"), '
        'pytest.param(2, 4, id="two")])\n'
        "def test_new(x, y):\n    assert mod.double(x) == y\n",
    )
    assert run(project) == {"test_new[one]", "test_new[two]"}


def test_a_plain_test_runs_alone(project: pytest.Pytester) -> None:
    _append(project, "def test_new():\n    assert mod.double(3) == 6\n")
    assert run(project) == {"test_new"}
