"""A pool of several workers collects the tests once: the first worker collects, then forks
the others from its collected state; every worker serves requests and gives the verdicts a
pool of one gives."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from lsp_server.extreme.analysis import Options, analyse
from lsp_server.extreme.pool import WorkerPool
from lsp_server.jobs import Job

from .conftest import verdict_rows

COUNTING_CONFTEST = """
import os

def pytest_collection_finish(session):
    with open(os.path.join(os.path.dirname(__file__), "collections.log"), "a") as log:
        log.write("%d\\n" % os.getpid())
"""

FILES = {
    "conftest.py": COUNTING_CONFTEST,
    "m.py": """
        def double(x):
            y = x * 2
            return y

        def label(x):
            text = "n%d" % x
            return 1
    """,
    "test_m.py": """
        from m import double, label

        def test_double():
            assert double(2) == 4

        def test_label_runs():
            label(3)
    """,
}


@pytest.mark.slow  # ~4-6 s (three workers); every jobs=2 test runs forked workers too
def test_a_pool_of_three_collects_once_and_every_worker_serves(
    make_project: Callable[[dict[str, str]], Path],
) -> None:
    root = make_project(FILES)
    with WorkerPool(root, 3) as pool:
        pool.start(Job())
        pool.prepare(["m.py"])
        pids = {worker.process.pid for worker in pool.workers}
        assert len(pids) == 3 and 0 not in pids
        assert pool.nodeids == ["test_m.py::test_double", "test_m.py::test_label_runs"]
        observed = pool.observe()  # split over the three workers: each must answer
        assert set(observed["tests"]) == set(pool.nodeids)
    (collector,) = (root / "collections.log").read_text().split()
    assert int(collector) in pids


@pytest.mark.slow  # a whole analysis (~4-12 s); every jobs=2 test also runs forked workers
def test_a_forked_pool_gives_the_verdicts_of_a_single_worker(
    make_project: Callable[[dict[str, str]], Path],
) -> None:
    root = make_project(FILES)
    many = analyse(root, Options(jobs=2, incremental=False))
    assert len((root / "collections.log").read_text().split()) == 1
    # What one worker gives (tests/extreme/test_warm.py analyses the same functions).
    assert verdict_rows(many) == [
        ("double", "return 0", "detected"),
        ("double", "return 1", "detected"),
        ("label", "return 0", "undetected"),
        ("label", "return 1", "undetected"),
    ]
