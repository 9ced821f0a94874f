"""``reks extreme`` leaves the reports of the user's sessions as they were: the worker's
pytest session (it collects, runs no test itself, and ends normally) loads the project's
``addopts`` and conftests, so without care it replaces ``junit.xml``, ``.coverage`` or
``coverage.xml`` with those of a run of no test, and a conftest's ``pytest_sessionfinish``
or ``pytest_configure`` rewrites its file."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from lsp_server.extreme.analysis import Options, analyse
from lsp_server.extreme.warm import WarmPools

from .conftest import INC_MODULE, plain_run, verdict_rows

TEST_INC = """
from inc import inc

def test_inc():
    assert inc(1) == 2
"""

WRITES_AT_SESSION_END = """
import time
from pathlib import Path

def pytest_sessionfinish(session):
    Path(__file__).with_name("session.txt").write_text(f"{session.testscollected} {time.time_ns()}")
"""

TRUNCATES_AT_CONFIGURE = """
import time
from pathlib import Path

def pytest_configure(config):
    Path(__file__).with_name("session.txt").write_text(f"started {time.time_ns()}")
"""


def _project(
    make_project: Callable[[dict[str, str]], Path], addopts: str, conftest: str = ""
) -> Path:
    files = {"inc.py": INC_MODULE, "test_inc.py": TEST_INC, "pytest.ini": ""}
    files["pytest.ini"] = f"[pytest]\naddopts = {addopts}\n"
    if conftest:
        files["conftest.py"] = conftest
    return make_project(files)


def _analysed_keeping(root: Path, report: str, warm: WarmPools | None = None) -> None:
    before = (root / report).read_bytes()
    analysis = analyse(root, Options(jobs=1, incremental=False, paths=[root / "inc.py"]), warm=warm)
    assert verdict_rows(analysis), analysis.errors  # the analysis ran its transformations
    assert {row[2] for row in verdict_rows(analysis)} == {"detected"}, verdict_rows(analysis)
    if warm is not None:
        warm.close()  # the warm workers end only now
    assert (root / report).read_bytes() == before


@pytest.mark.parametrize(
    ("addopts", "report"),
    [
        ("--junitxml=report.xml", "report.xml"),
        ("--cov=inc --cov-append --cov-report=", ".coverage"),
        ("--cov=inc --cov-report=xml", "coverage.xml"),
    ],
)
def test_a_report_of_the_addopts_is_left_as_the_users_run_wrote_it(
    make_project: Callable[[dict[str, str]], Path], addopts: str, report: str
) -> None:
    root = _project(make_project, addopts)
    plain_run(root)
    _analysed_keeping(root, report)


@pytest.mark.parametrize("conftest", [WRITES_AT_SESSION_END, TRUNCATES_AT_CONFIGURE])
def test_a_file_a_conftest_writes_in_the_session_is_left_as_it_was(
    make_project: Callable[[dict[str, str]], Path], conftest: str
) -> None:
    root = _project(make_project, "", conftest)
    plain_run(root)
    _analysed_keeping(root, "session.txt")


def test_warm_workers_that_end_after_the_analysis_leave_the_report(
    make_project: Callable[[dict[str, str]], Path],
) -> None:
    # The editor's workers outlive the analysis: their session ends when the pools close.
    root = _project(make_project, "", WRITES_AT_SESSION_END)
    plain_run(root)
    _analysed_keeping(root, "session.txt", WarmPools())
