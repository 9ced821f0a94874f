"""``reks engine-test --scheduler ADDRESS``: the checks on a Dask distributed cluster.

Each Dask worker keeps one warm checker (its engines and program runner, built by a worker
plugin when it joins, closed when it leaves); a task checks one chunk of cases. Results
stream back as chunks complete; Dask moves a dead worker's chunks to the others and
retries a chunk whose checker failed (``RETRIES``). ``distributed`` is the ``dask`` extra.
"""

from __future__ import annotations

import threading
import time
import uuid
from typing import Any

from distributed import Client, WorkerPlugin, as_completed, get_worker

from lsp_server.astgen.check import Checker, CheckResult
from lsp_server.astgen.driver import (
    Config,
    RunOutcome,
    Task,
    check_chunk,
    chunk_size,
    chunks,
    finish,
    make_checker,
    tasks_of,
)
from lsp_server.jobs import Job

RETRIES = 3
CONNECT_TIMEOUT = 30.0


class WarmChecker(WorkerPlugin):
    """One checker per Dask worker (its threads take turns: a checker is not thread-safe)."""

    def __init__(self, config: Config) -> None:
        self.config = config
        self.checker: Checker | None = None

    def setup(self, worker: Any) -> None:
        self.lock = threading.Lock()  # made here: a lock does not pickle
        self.checker = make_checker(self.config)

    def teardown(self, worker: Any) -> None:
        if self.checker is not None:
            self.checker.close()
            self.checker = None


def _check_on_worker(name: str, tasks: list[Task]) -> tuple[list[CheckResult], float]:
    plugin = get_worker().plugins[name]
    assert isinstance(plugin, WarmChecker) and plugin.checker is not None
    with plugin.lock:
        return check_chunk(plugin.checker, tasks)


def run(config: Config, address: str, job: Job | None = None) -> RunOutcome:
    """``driver.run`` with the checks on the cluster at ``address``."""
    job = job if job is not None else Job()
    tasks = tasks_of(config)
    outcome = RunOutcome(config, len(tasks))
    wall = time.perf_counter()
    job.report(0, len(tasks), "checking")
    name = f"reks-engine-test-{uuid.uuid4().hex[:12]}"
    with Client(address, timeout=CONNECT_TIMEOUT) as client:
        workers = max(1, len(client.scheduler_info().get("workers", {})))
        client.register_plugin(WarmChecker(config), name=name)
        futures: list[Any] = []
        try:
            futures = [
                client.submit(_check_on_worker, name, chunk, key=f"{name}-{i}", retries=RETRIES)
                for i, chunk in enumerate(chunks(tasks, chunk_size(config, tasks, workers)))
            ]
            done: set[int] = set()
            for future in as_completed(futures):
                job.check()
                results, cpu = future.result()
                outcome.results.extend(results)
                outcome.cpu_seconds += cpu
                done.update(r.index for r in results)
                job.report(len(done), len(tasks), "checking")
        finally:
            client.cancel(futures)
            client.unregister_worker_plugin(name)
    outcome.wall_seconds = time.perf_counter() - wall
    return finish(outcome)
