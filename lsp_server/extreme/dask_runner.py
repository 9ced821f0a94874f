"""Running the transformations on a Dask distributed cluster (``--scheduler ADDRESS``).

Each Dask worker keeps warm pytest workers of its own (one per worker thread), started by a
worker plugin when it joins and stopped when it leaves; a task hands one transformation to
an idle one and returns its reply. Results stream back as they complete. Dask moves the
tasks of a worker that died to the others; a task whose pytest worker died is retried
(``RETRIES``). The project must be at the same path on every Dask worker (one machine, or
a shared file system), so runs that write files of the project are held and run again
alone as on the local pool (``project_writes.SharedFiles``). ``distributed`` is an
optional dependency (the ``dask`` extra).
"""

from __future__ import annotations

import queue
import uuid
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

from distributed import Client, WorkerPlugin, as_completed, get_worker

from lsp_server.extreme.pool import Worker, WorkerPool
from lsp_server.extreme.project_writes import SharedFiles
from lsp_server.extreme.request_table import RequestTable
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
        self,
        name: str,
        root: str,
        python: str | None,
        pytest_args: Sequence[str],
        files: list[str],
        table: RequestTable | None = None,
    ) -> None:
        self.name = name
        self.root = root
        self.python = python
        self.pytest_args = list(pytest_args)
        self.files = files
        self.table = table  # of the tasks' requests, sent compact (``request_table``)
        self.pool: WorkerPool | None = None

    def setup(self, worker: Any) -> None:
        self.idle: queue.Queue[Worker] = queue.Queue()  # made here: a queue does not pickle
        threads = int(getattr(worker.state, "nthreads", 1) or 1)
        self.pool = WorkerPool(Path(self.root), threads, self.python, self.pytest_args)
        self.pool.start(Job())
        self.pool.prepare(self.files)
        self.told: set[int] = set()  # the pytest workers given the table (by channel)
        for each in self.pool.workers:
            self.idle.put(each)

    def teardown(self, worker: Any) -> None:
        if self.pool is not None:
            self.pool.close()
            self.pool = None

    def run(self, request: dict[str, Any]) -> dict[str, Any]:
        pytest_worker = self.idle.get()
        channel = pytest_worker.process.fileno()
        try:
            table, told = self.table, channel in self.told  # the first request brings it
            pytest_worker.send(table.bringing(request) if table and not told else request)
            self.told.add(channel)
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
    table: RequestTable | None = None,
) -> Iterator[dict[str, Any]]:
    """Every request run on the cluster at ``address``, each reply yielded as it arrives;
    sent compact by ``table``, which each Dask worker keeps (``request_table``)."""
    name = f"reks-extreme-{uuid.uuid4().hex[:12]}"
    try:
        client = Client(address, timeout=CONNECT_TIMEOUT)
    except OSError as exc:
        raise DaskUnavailable(f"cannot reach the Dask scheduler at {address}: {exc}") from exc
    with client:
        plugin = WarmPytestWorkers(name, str(root), python, pytest_args, files, table)
        client.register_plugin(plugin, name=name)
        flying: dict[Any, dict[str, Any]] = {}  # future -> its request
        try:
            yield from _gated(client, name, requests, flying, job, table)
        finally:
            client.cancel(list(flying))
            client.unregister_worker_plugin(name)


def _gated(
    client: Client,
    name: str,
    requests: Iterable[dict[str, Any]],
    flying: dict[Any, dict[str, Any]],
    job: Job,
    table: RequestTable | None,
) -> Iterator[dict[str, Any]]:
    """The replies to ``requests``, as many running at once as the cluster has threads,
    by the local pool's rule for runs that write files of the project (``SharedFiles``:
    the Dask workers share the project's directory too)."""
    capacity = max(1, sum(client.nthreads().values()))
    pending, more = iter(requests), True
    shared = SharedFiles()
    completed = as_completed()
    sent = 0  # a request run again alone needs a key of its own
    while more or flying or shared.reruns:
        job.check()
        while (more or shared.reruns) and len(flying) < capacity and shared.may_send(len(flying)):
            request = shared.next_request() or next(pending, None)
            if request is None:
                more = False
                break
            sent += 1
            key = f"{name}-{request['id']}-{sent}"
            wire = request if table is None else table.compact(request)
            future = client.submit(_run_on_worker, name, wire, key=key, retries=RETRIES)
            flying[future] = request
            shared.sent(request)
            completed.add(future)
        if flying:
            future = next(completed)
            yield from shared.replied(flying.pop(future), future.result())
