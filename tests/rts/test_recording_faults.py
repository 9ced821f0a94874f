"""An error of reks's own recording stops the recording, not the test session
(``rts.recording_faults``): the tests run on as plain pytest, the summary says where the
recording stopped, and the tests run unrecorded run again next time. The error here comes
from an object a project module puts in ``sys.modules`` whose every attribute raises: the
recorder asks each new module for its ``__file__``. Real pytest sessions."""

from __future__ import annotations

import pytest

from .helpers import edit, ran_and_failed, run, run_result, write

pytest_plugins = ["pytester"]

_GHOST = """
import sys


class Ghost:
    def __getattribute__(self, item):
        raise RuntimeError("no attribute of the ghost may be read")


sys.modules["haunt_ghost"] = Ghost()
"""


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    write(pytester, "haunt.py", "def double(x):\n    return 2 * x\n")
    write(
        pytester,
        "test_haunt.py",
        "import haunt\n\n\ndef test_double():\n    assert haunt.double(2) == 4\n",
    )
    write(pytester, "test_other.py", "def test_other():\n    assert True\n")
    assert run(pytester) == {"test_double", "test_other"}
    return pytester


def test_a_fault_of_the_recording_lets_the_tests_run_and_report(project: pytest.Pytester) -> None:
    edit(project, "haunt.py", "return 2 * x", "return 3 * x")
    (project.path / "haunt.py").write_text((project.path / "haunt.py").read_text() + _GHOST)
    result = run_result(project, "--reks")
    result.assert_outcomes(failed=1)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(
        ["reks: recording stopped by an internal error at test_haunt.py::test_double*"]
    )


def test_a_test_run_unrecorded_runs_again_next_time(project: pytest.Pytester) -> None:
    edit(project, "haunt.py", "return 2 * x", "return 3 * x")
    (project.path / "haunt.py").write_text((project.path / "haunt.py").read_text() + _GHOST)
    assert ran_and_failed(project) == ({"test_double"}, {"test_double"})
    assert ran_and_failed(project) == ({"test_double"}, {"test_double"})
