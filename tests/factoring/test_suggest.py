"""Boundary suggestions: where the test's time goes below the project's code."""

from __future__ import annotations

from pathlib import Path

from lsp_server.factoring.factor import suggest_boundaries
from tests.factoring.helpers import make_project

# A project module (the client) that spends its time in an external module (the socket of
# an HTTP client; here ``subprocess``, which waits for a child): the external module is the
# environment, the client is code under test that the factored test should still run.
CLIENT = """
import subprocess


def fetch(seconds):
    header = ",".join(str(i) for i in range(10))
    subprocess.run(["sleep", str(seconds)], check=True)
    return header
"""

LOGIC = """
from app import client


def work():
    return client.fetch(0.3).split(",")
"""

TESTS = """
from app import logic


def test_it():
    assert len(logic.work()) == 10
"""


def test_the_external_module_below_a_project_module_is_suggested_first(tmp_path: Path) -> None:
    root = make_project(tmp_path, LOGIC, TESTS)
    (root / "app" / "client.py").write_text(CLIENT, encoding="utf-8")
    ranked = suggest_boundaries(root, "tests/test_logic.py::test_it")
    by_name = {c.boundary: c for c in ranked}
    assert ranked[0].boundary == "subprocess", [(c.boundary, c.time_s) for c in ranked]
    assert ranked[0].time_s >= 0.3 and ranked[0].kind == "external"
    # The client's own time (what it does apart from waiting in subprocess) is small.
    client = by_name.get("app.client")
    assert client is None or client.time_s < 0.1, client


WAITING_CLIENT = """
import threading


def fetch(seconds):
    threading.Event().wait(seconds)
    return "0,1,2,3,4,5,6,7,8,9"
"""


def test_time_in_language_plumbing_stays_with_the_project_module(tmp_path: Path) -> None:
    """``threading`` is never a boundary: a project module waiting there is the candidate."""
    root = make_project(tmp_path, LOGIC, TESTS)
    (root / "app" / "client.py").write_text(WAITING_CLIENT, encoding="utf-8")
    ranked = suggest_boundaries(root, "tests/test_logic.py::test_it")
    assert ranked[0].boundary == "app.client", [(c.boundary, c.time_s) for c in ranked]
    assert ranked[0].time_s >= 0.3 and ranked[0].kind == "internal"


def test_an_external_module_aliased_under_the_project_is_named_by_its_own_name(
    tmp_path: Path,
) -> None:
    """requests puts urllib3's modules into ``sys.modules`` again as
    ``requests.packages.urllib3.*``: the time there is urllib3's, not requests'."""
    root = make_project(tmp_path, LOGIC, TESTS)
    aliasing = CLIENT + '\nimport sys\n\nsys.modules["app.packages.subprocess"] = subprocess\n'
    (root / "app" / "client.py").write_text(aliasing, encoding="utf-8")
    ranked = suggest_boundaries(root, "tests/test_logic.py::test_it")
    assert ranked[0].boundary == "subprocess", [(c.boundary, c.time_s) for c in ranked]


# E is ``subprocess``, but the child it starts runs the project's own module: a replay would
# answer the launch from the transcript and never run that code.
CHILD_RUNS_PROJECT = """
import subprocess
import sys


def fetch(seconds):
    subprocess.run([sys.executable, "-m", "app.worker", str(seconds)], check=True)
    return "0,1,2,3,4,5,6,7,8,9"
"""

WORKER = """
import sys
import time

time.sleep(float(sys.argv[1]))
"""


def test_a_launcher_whose_child_runs_the_project_is_not_offered(tmp_path: Path) -> None:
    root = make_project(tmp_path, LOGIC, TESTS)
    (root / "app" / "client.py").write_text(CHILD_RUNS_PROJECT, encoding="utf-8")
    (root / "app" / "worker.py").write_text(WORKER, encoding="utf-8")
    ranked = suggest_boundaries(root, "tests/test_logic.py::test_it")
    by_name = {c.boundary: c for c in ranked}
    assert "subprocess" in by_name, [(c.boundary, c.time_s) for c in ranked]
    assert "child process" in by_name["subprocess"].refused, by_name["subprocess"]
    assert "app.worker" in by_name["subprocess"].refused


# ``app/__init__.py`` waits: as a boundary, the package ``app`` is every module of the project,
# so the factored test would run none of T.
PACKAGE_INIT = """
import threading


def fetch(seconds):
    threading.Event().wait(seconds)
    return "0,1,2,3,4,5,6,7,8,9"
"""

LOGIC_USING_PACKAGE = """
import app


def work():
    return app.fetch(0.3).split(",")
"""


def test_a_package_holding_all_of_the_code_under_test_is_not_offered(tmp_path: Path) -> None:
    root = make_project(tmp_path, LOGIC_USING_PACKAGE, TESTS)
    (root / "app" / "__init__.py").write_text(PACKAGE_INIT, encoding="utf-8")
    ranked = suggest_boundaries(root, "tests/test_logic.py::test_it")
    by_name = {c.boundary: c for c in ranked}
    assert "app" in by_name, [(c.boundary, c.time_s) for c in ranked]
    assert "none of the project's own code" in by_name["app"].refused, by_name["app"]
    # A module of the package that leaves T outside it is still offered.
    assert not [c for c in ranked if not c.refused and c.boundary == "app"]


# ``datetime.strptime`` runs the ``_strptime`` module from C: the time is spent there, but T
# refers only to ``datetime``, so a boundary at ``_strptime`` would replace nothing.
PARSING = """
import datetime


def work():
    stamps = [datetime.datetime.strptime("2024-01-%02d" % (1 + i % 28), "%Y-%m-%d")
              for i in range(300)]
    return [str(len(stamps))] * 10
"""


def test_a_module_the_code_under_test_never_refers_to_is_not_offered(tmp_path: Path) -> None:
    root = make_project(tmp_path, PARSING, TESTS)
    ranked = suggest_boundaries(root, "tests/test_logic.py::test_it")
    by_name = {c.boundary: c for c in ranked}
    assert "_strptime" in by_name, [(c.boundary, c.time_s) for c in ranked]
    assert "never refers to" in by_name["_strptime"].refused, by_name["_strptime"]
