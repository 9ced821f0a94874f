"""Transformations on a real Dask cluster (``--scheduler``): the same verdicts as the local
pool, also when a Dask worker dies in the middle of the run."""

from __future__ import annotations

import os
import signal
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from lsp_server.extreme.analysis import Options, analyse
from lsp_server.jobs import Job

from .conftest import INC_MODULE
from .test_shared_files import REWRITES_DATA

distributed = pytest.importorskip("distributed")

PROJECT = {
    "calc.py": """
        def add(a, b):
            total = a + b
            return total

        def is_even(n):
            even = n % 2 == 0
            return even

        def describe(n):
            word = "even" if is_even(n) else "odd"
            return word

        def log(message):
            line = "> " + message
            return line
    """,
    "test_calc.py": """
        from calc import add, describe, is_even, log

        def test_add():
            assert add(2, 3) == 5

        def test_even():
            assert is_even(4)

        def test_describe():
            assert describe(3) == "odd"

        def test_log_runs():
            log("x")
    """,
}


@pytest.fixture(scope="module")
def cluster() -> Iterator[object]:
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0"
    ) as local:
        yield local


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[tuple[str, str], str]]:
    """The project and its verdicts from the local pool."""
    root = tmp_path_factory.mktemp("dask") / "project"
    for name, text in PROJECT.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(textwrap.dedent(text))
    return root, _verdicts(root, Options(jobs=1, incremental=False))


def _verdicts(root: Path, options: Options, job: Job | None = None) -> dict[tuple[str, str], str]:
    analysis = analyse(root, options, job)
    return {
        (r.transformation.function, r.transformation.body): r.verdict.value
        for r in analysis.results
    }


def test_verdicts_on_a_cluster_equal_the_local_pools(
    project: tuple[Path, dict[tuple[str, str], str]], cluster: object
) -> None:
    root, local = project
    address = cluster.scheduler_address  # type: ignore[attr-defined]
    assert _verdicts(root, Options(incremental=False, scheduler=address)) == local
    assert "undetected" in local.values() and "detected" in local.values()


def test_a_failure_caused_by_a_run_on_another_dask_worker_writing_a_project_file_is_no_detection(
    tmp_path: Path, cluster: object
) -> None:
    # The two transformations of ``inc`` run at once on the two Dask workers, in the same
    # project directory: one run reads the data file while the other has it truncated.
    # Before the kill test: with one worker left nothing would run at once.
    root = tmp_path / "project"
    rewrites = REWRITES_DATA.replace("range(25)", "range(100)")  # 2 s: the runs overlap
    files = {"m.py": INC_MODULE, "test_m.py": rewrites, "data.txt": "hello\n"}
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(textwrap.dedent(text))
    address = cluster.scheduler_address  # type: ignore[attr-defined]
    verdicts = _verdicts(root, Options(incremental=False, scheduler=address))
    assert len(verdicts) == 2
    assert set(verdicts.values()) == {"undetected"}, verdicts
    assert (root / "data.txt").read_text() == "hello\n"


def test_a_worker_killed_mid_run_changes_no_verdict(
    project: tuple[Path, dict[tuple[str, str], str]], cluster: object
) -> None:
    root, local = project
    address = cluster.scheduler_address  # type: ignore[attr-defined]
    with distributed.Client(address) as client:
        pids = sorted(client.run(os.getpid).values())
    killed: list[int] = []

    def kill_one(done: int, total: int | None, message: str) -> None:
        # After the first transformation's result: the other tasks are queued or running.
        if total and done == 1 and not killed and "running" not in message:
            os.kill(pids[0], signal.SIGKILL)
            killed.append(pids[0])

    job = Job()
    job.on_progress = kill_one
    assert _verdicts(root, Options(incremental=False, scheduler=address), job) == local
    assert killed
