"""Running the transformations on a Dask distributed cluster (``--scheduler ADDRESS``).

Each Dask worker keeps warm pytest workers of its own (one per worker thread), started by a
worker plugin when it joins and stopped when it leaves; a task hands one transformation to
an idle one and returns its reply. Results stream back as they complete. Dask moves the
tasks of a worker that died to the others; a task whose pytest worker died is retried
(``RETRIES``). The project must be at the same path on every Dask worker (one machine, or
a shared file system). ``distributed`` is an optional dependency (the ``dask`` extra).
"""

from __future__ import annotations

import queue
import uuid
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

from distributed import Client, WorkerPlugin, as_completed, get_worker

from lsp_server.extreme.pool import Worker, WorkerPool
from lsp_server.jobs import Job

RETRIES = 3
"""Times a task whose pytest worker failed is run again (on any Dask worker)."""
CONNECT_TIMEOUT = 30.0


class DaskUnavailable(RuntimeError):
    """The scheduler cannot be reached."""


class WarmPytestWorkers(WorkerPlugin):
    """The state a Dask worker keeps: warm pytest workers over one project (a Dask worker
    plugin; ``setup`` and ``teardown`` are called by Dask)."""

    def __init__(
        self, name: str, root: str, python: str | None, pytest_args: Sequence[str], files: list[str]
    ) -> None:
        self.name = name
        self.root = root
        self.python = python
        self.pytest_args = list(pytest_args)
        self.files = files
        self.pool: WorkerPool | None = None

    def setup(self, worker: Any) -> None:
        self.idle: queue.Queue[Worker] = queue.Queue()  # made here: a queue does not pickle
        threads = int(getattr(worker.state, "nthreads", 1) or 1)
        self.pool = WorkerPool(Path(self.root), threads, self.python, self.pytest_args)
        self.pool.start(Job())
        self.pool.prepare(self.files)
        for each in self.pool.workers:
            self.idle.put(each)

    def teardown(self, worker: Any) -> None:
        if self.pool is not None:
            self.pool.close()
            self.pool = None

    def run(self, request: dict[str, Any]) -> dict[str, Any]:
        pytest_worker = self.idle.get()
        try:
            pytest_worker.send(request)
            reply = pytest_worker.receive()
        except BaseException:
            # A worker in an unknown state is not reused; the task is retried elsewhere.
            assert self.pool is not None
            self.pool.workers.remove(pytest_worker)
            pytest_worker.process.close(grace=0.0)
            raise
        self.idle.put(pytest_worker)
        return reply


def _run_on_worker(name: str, request: dict[str, Any]) -> dict[str, Any]:
    """The task: one transformation on this Dask worker's warm pytest workers."""
    plugin = get_worker().plugins[name]
    assert isinstance(plugin, WarmPytestWorkers)
    return plugin.run(request)


def run_all(
    address: str,
    root: Path,
    python: str | None,
    pytest_args: Sequence[str],
    files: list[str],
    requests: Iterable[dict[str, Any]],
    job: Job,
) -> Iterator[dict[str, Any]]:
    """Every request run on the cluster at ``address``, each reply yielded as it arrives."""
    name = f"reks-extreme-{uuid.uuid4().hex[:12]}"
    try:
        client = Client(address, timeout=CONNECT_TIMEOUT)
    except OSError as exc:
        raise DaskUnavailable(f"cannot reach the Dask scheduler at {address}: {exc}") from exc
    with client:
        plugin = WarmPytestWorkers(name, str(root), python, pytest_args, files)
        client.register_plugin(plugin, name=name)
        futures: list[Any] = []
        try:
            futures = [
                client.submit(
                    _run_on_worker, name, request, key=f"{name}-{request['id']}", retries=RETRIES
                )
                for request in requests
            ]
            for future in as_completed(futures):
                job.check()
                yield future.result()
        finally:
            client.cancel(futures)
            client.unregister_worker_plugin(name)
