"""A factoring run (pytest over a few of the project's tests, with the factoring plugin)
leaves the reports of the user's own runs as they were: the project's ``addopts`` and
conftests apply to it, so without care its session writes ``report.xml`` or a conftest's
session file about a run of the few tests reks chose."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from lsp_server.factoring.runner import run_pytest
from lsp_server.project import Project

WRITES_AT_SESSION_END = """
import time
from pathlib import Path

def pytest_sessionfinish(session):
    Path(__file__).with_name("session.txt").write_text(f"{session.testscollected} {time.time_ns()}")
"""
TESTS = """
def test_one():
    assert 1 + 1 == 2

def test_two():
    assert 2 + 2 == 4
"""


def test_a_factoring_run_leaves_the_users_session_reports(tmp_path: Path) -> None:
    root = tmp_path / "project"
    root.mkdir()
    (root / "pytest.ini").write_text("[pytest]\naddopts = --junitxml=report.xml\n")
    (root / "conftest.py").write_text(WRITES_AT_SESSION_END)
    (root / "test_small.py").write_text(TESTS)
    plain = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider"],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert plain.returncode == 0, plain.stdout + plain.stderr
    before = {name: (root / name).read_bytes() for name in ("report.xml", "session.txt")}
    tests = run_pytest(Project.at(root), ["test_small.py::test_one"], {"time": True})["tests"]
    assert tests["test_small.py::test_one"]["outcome"] == "passed", tests
    after = {name: (root / name).read_bytes() for name in ("report.xml", "session.txt")}
    assert after == before
