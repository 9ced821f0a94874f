"""A function put between two others leaves the module unit as it was: the dedents at its
start close the block before it (a decorated function's, kept in the module unit, whose body
ends in a nested block), not the new statement left out of the module unit. Before, they went
with it, the module unit changed, and every test of the module ran (a test added between two
skipif-marked ones, click 2103e157's test_termui.py). A statement that really moves out of a block
still changes it. Real pytest sessions."""

from __future__ import annotations

import pytest

from .helpers import edit, run, write

pytest_plugins = ["pytester"]

_MOD = """
def double(x):
    return x * 2


def triple(x):
    return x * 3
"""

_TESTS = """
import contextlib
import shutil

import pytest

import mod


@pytest.mark.skipif(shutil.which("sh") is None, reason="no shell")
def test_double():
    with contextlib.nullcontext():
        assert mod.double(2) == 4


@pytest.mark.skipif(shutil.which("sh") is None, reason="no shell")
def test_triple():
    assert mod.triple(2) == 6
"""


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    write(pytester, "mod.py", _MOD)
    write(pytester, "test_mod.py", _TESTS)
    assert run(pytester) == {"test_double", "test_triple"}
    return pytester


def test_a_function_put_between_two_others_selects_nothing(project: pytest.Pytester) -> None:
    edit(project, "mod.py", "def triple", "def half(x):\n    return x / 2\n\n\ndef triple")
    assert run(project) == set()


def test_a_test_put_between_two_others_runs_alone(project: pytest.Pytester) -> None:
    marked = '@pytest.mark.skipif(shutil.which("sh") is None, reason="no shell")\ndef test_triple'
    new_test = "def test_square():\n    assert mod.double(3) == 6\n\n\n" + marked
    edit(project, "test_mod.py", marked, new_test)
    assert run(project) == {"test_square"}


def test_a_statement_moved_out_of_a_block_still_changes_the_module(
    project: pytest.Pytester,
) -> None:
    # A loop, not ``if True:``: a constant condition is a version guard, whose text and
    # live branch are no module-unit text (``rts.version_guards``).
    edit(
        project,
        "mod.py",
        "    return x * 2\n",
        "    return x * 2\n\n\nfor _ in range(1):\n    LIMIT = 1\n",
    )
    assert run(project) == {"test_double", "test_triple"}
    edit(project, "mod.py", "    LIMIT = 1\n", "    pass\nLIMIT = 1\n")
    assert run(project) == {"test_double", "test_triple"}
