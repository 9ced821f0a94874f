"""The worker locates (pytest's ``item.location``, from ``reportinfo``) only the tests that
its requests run, each before forking the children that run it, so that they inherit it:
not every collected test when it prepares (``extreme.item_locations``)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from lsp_server.extreme.analysis import Options, analyse
from tests.support.reks import run_pytest

from .conftest import verdict_rows

# Each test's ``reportinfo`` writes its node id and the process asking to a log outside the
# project (a write inside it would make the analysis rerun the tests alone).
CONFTEST = """
import os

LOG = {log!r}

def pytest_collection_modifyitems(items):
    for item in items:
        def located(original=item.reportinfo, nodeid=item.nodeid):
            with open(LOG, "a") as log:
                log.write("%s %d\\n" % (nodeid, os.getpid()))
            return original()
        item.reportinfo = located
"""

FILES = {
    "m.py": """
        def double(x):
            y = x * 2
            return y
    """,
    "test_m.py": """
        from m import double

        def test_double():
            assert double(2) == 4

        def test_arithmetic():
            assert double(3) == 6
    """,
    "test_other.py": """
        def test_one():
            assert 1 + 1 == 2

        def test_two():
            assert "a" * 2 == "aa"
    """,
}


def _project(make_project: Callable[[dict[str, str]], Path], log: Path) -> Path:
    root = make_project({**FILES, "conftest.py": CONFTEST.format(log=str(log))})
    recorded = run_pytest(root, "--reks", "-p", "no:cacheprovider")
    assert recorded.returncode == 0, recorded.stdout
    log.unlink()  # the recording's own reports
    return root


def test_only_the_tests_a_transformation_runs_are_located_once_in_the_worker(
    make_project: Callable[[dict[str, str]], Path], tmp_path: Path
) -> None:
    log = tmp_path / "located.log"
    root = _project(make_project, log)
    analysis = analyse(root, Options(jobs=1, incremental=False))
    assert analysis.coverage_source == "store only"  # no observation run
    assert verdict_rows(analysis) == [
        ("double", "return 0", "detected"),
        ("double", "return 1", "detected"),
    ]
    rows = [line.split() for line in log.read_text().splitlines()]
    # test_double, which names the function, runs first and detects both transformations:
    # located once, in the worker, inherited by both children. test_arithmetic, collected
    # (it runs the function) but never run, is never located.
    assert [nodeid for nodeid, _ in rows] == ["test_m.py::test_double"]


def test_the_tests_of_an_observation_run_are_located_in_the_worker(
    make_project: Callable[[dict[str, str]], Path], tmp_path: Path
) -> None:
    log = tmp_path / "located.log"
    root = make_project({**FILES, "conftest.py": CONFTEST.format(log=str(log))})
    analysis = analyse(root, Options(jobs=1, incremental=False))  # no store: all observed
    assert analysis.coverage_source == "observation"
    assert [row[2] for row in verdict_rows(analysis)] == ["detected", "detected"]
    rows = [line.split() for line in log.read_text().splitlines()]
    assert sorted(nodeid for nodeid, _ in rows) == [
        "test_m.py::test_arithmetic",
        "test_m.py::test_double",
        "test_other.py::test_one",
        "test_other.py::test_two",
    ]
    assert len({pid for _, pid in rows}) == 1  # the worker's, before it forked
