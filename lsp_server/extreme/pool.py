"""Pytest workers as seen from reks: start them, hand out requests, collect replies.

Each worker is a ``lsp_server.sandbox`` process running ``extreme.pytest_worker`` in the
interpreter the analysis was given. Requests go to whichever worker is idle, one at a
time, so a slow transformation on one core never holds up the others. Cancellation and any
failure terminate every worker; a worker's SIGTERM handler kills its running child first.
"""

from __future__ import annotations

import os
import select
import sys
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lsp_server.extreme.bytecode import worker_environment
from lsp_server.extreme.fork_safety import worker_can_fork
from lsp_server.extreme.library_imports import PRELOAD_VARIABLE
from lsp_server.extreme.project_writes import SharedFiles
from lsp_server.extreme.request_table import RequestTable
from lsp_server.sandbox import ChannelTimeout, ProcessDied, SandboxProcess, SiblingProcess

if TYPE_CHECKING:  # the worker imports this module: it needs no jobs
    from lsp_server.jobs import Job

COLLECT_TIMEOUT = 600.0
"""Seconds a worker may take to start Python, import the project and collect its tests."""
SCOPE_VARIABLE = "REKS_WORKER_SCOPE"
"""Set for a worker that waits, before it collects, for the test files to leave out."""
BEFORE_PYTEST_VARIABLE = "REKS_WORKER_BEFORE_PYTEST"
"""Set for a scoped worker that waits for them before pytest starts (no plugin, conftest
or project file loaded yet): a spare of a project whose conftest imports the project."""


class WorkerError(RuntimeError):
    """A worker could not start or answered with an error."""


@dataclass
class Worker:
    process: SandboxProcess | SiblingProcess
    tests: int = 0
    busy: dict[str, Any] | None = field(default=None)

    def send(self, message: dict[str, Any]) -> None:
        try:
            self.process.send(message)
        except ProcessDied as exc:
            raise WorkerError(f"a test worker exited unexpectedly: {exc}") from exc

    def receive(self, timeout: float | None = None, doing: str = "") -> dict[str, Any]:
        try:
            message: dict[str, Any] = self.process.receive(timeout)
        except ProcessDied as exc:
            raise WorkerError(f"a test worker exited unexpectedly: {exc}") from exc
        except ChannelTimeout as exc:
            tail = self.process.log_tail()
            raise WorkerError(
                f"{doing or 'a test worker'} took more than {timeout:.0f} s\n{tail}"
            ) from exc
        if message.get("op") == "error":
            tail = self.process.log_tail()
            raise WorkerError(f"{message.get('message')}\n{tail}".rstrip())
        return message


def _send_request(
    worker: Worker, request: dict[str, Any], table: RequestTable | None, told: set[int]
) -> None:
    """Send ``request`` to ``worker``: compact by ``table``, which the first request of the
    batch to each worker (not yet in ``told``, by channel) brings; as it is without one."""
    if table is None:
        worker.send(request)
        return
    wire = table.compact(request)
    channel = worker.process.fileno()
    worker.send(wire if channel in told else table.bringing(wire))
    told.add(channel)


def _digest_for_the_fork() -> None:
    """Hash reks's analysis code (``analysis_cache``) before forking a worker: it inherits
    the digest, which its import recording needs at once, instead of reading and hashing
    the same ~200 files again (15 ms of humanize's worker); the analysis needs it too (its
    ``discover``)."""
    from lsp_server.rts.analysis_digest import analysis_code_digest

    analysis_code_digest()


class WorkerPool:
    """``size`` warm workers over the project at ``root``."""

    def __init__(
        self,
        root: Path,
        size: int,
        python: str | None = None,
        pytest_args: Iterable[str] = (),
        collect_timeout: float = COLLECT_TIMEOUT,
        scoped: bool = False,
        pre_import: bool = False,
        before_pytest: bool = False,
        preload: Sequence[str] = (),
    ) -> None:
        self.root = root
        self.scoped = scoped or before_pytest  # its workers wait for ``scope`` to collect
        self.before_pytest = before_pytest  # they wait before pytest starts
        self.preload = list(preload)  # library modules they import meanwhile
        self.libraries: set[str] = set()  # those they did import (``waiting``)
        # Library modules a worker's session imported before collecting, when it imported
        # project files too: what a spare of it waiting before pytest imports (``warm``).
        self.session_libraries: list[str] = []
        self.pre_import = pre_import  # ``pre_import`` workers: they collect per request
        self.preloaded: set[str] = set()  # project files a pre-import worker imported
        # Project files an in-place worker's session imported before it collected (a
        # conftest's imports): a spare that waits to collect would hold them (``warm``).
        self.session_imports: set[str] = set()
        self.spawned_ns = 0  # when a warm pre-import pool was spawned (``warm``)
        self.size = max(1, size)
        self.python = python or sys.executable
        self.python_arg = python  # as given (None: this interpreter)
        self.prepared: set[str] = set()
        self.snapshot: object = None  # the files its workers imported (kept by ``warm``)
        self.pytest_args = list(pytest_args)
        self.workers: list[Worker] = []
        self.nodeids: list[str] = []  # collected tests, in pytest's order
        self.collection_errors = 0
        self.collect_timeout = collect_timeout
        self.import_time: set[str] = set()  # function units that ran while importing
        self.import_returns: dict[str, set[str]] = {}
        self._ready = False  # every worker has collected the tests
        self._waiting: set[str] | None = None  # see ``waiting``
        self._unforked: list[Worker] = []  # forked by the first worker at the first prepare
        self.ending = False  # told to quit (``end_input``), not waited for yet

    def __enter__(self) -> WorkerPool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def start(self, job: Job) -> None:
        """Start the workers (unless ``spawn`` did) and wait until each has collected."""
        if self._ready:
            return  # a warm pool (see ``warm``) is started once
        self.spawn()
        self.waiting()
        for worker in self.workers:
            job.check()
            ready = worker.receive(self.collect_timeout, "collecting the tests")
            worker.tests = int(ready.get("tests", 0))
            self.nodeids = list(ready.get("nodeids", []))
            self.collection_errors = int(ready.get("collection_errors", 0))
            self.preloaded.update(ready.get("preloaded", []))
            self.session_imports.update(ready.get("session_imports", []))
            self.session_libraries = self.session_libraries or ready.get("session_libraries", [])
        self._ready = True

    def alive(self) -> bool:
        """It has workers and each of their processes is running (a kept pool's may have
        been killed meanwhile)."""
        return bool(self.workers) and all(w.process.alive() for w in self.workers)

    @property
    def started(self) -> bool:
        """Every worker has collected (``start`` returned; ``preloaded`` is known)."""
        return self._ready

    def spawn(self) -> None:
        """Start the workers without waiting for them: they import the project and collect
        its tests while this process does other work (``start`` waits). One process
        collects, imports the targets (``prepare``) and then forks the others from that
        state (where it can fork), so a pool of any size pays for one collection."""
        if self.workers:
            return
        env = worker_environment(self.root, os.environ)
        if self.scoped:
            env[SCOPE_VARIABLE] = "1"
        if self.before_pytest:
            env[BEFORE_PYTEST_VARIABLE] = "1"
            env[PRELOAD_VARIABLE] = ",".join(self.preload)
        module = "pre_import" if self.pre_import else "pytest_worker"
        args = ["-m", f"lsp_server.extreme.{module}", str(self.root), *self.pytest_args]
        forks = self.size - 1 if hasattr(os, "fork") else 0
        fork = worker_can_fork(self.root, env, self.python)  # what reks imported is reused
        if fork:
            _digest_for_the_fork()
        for _ in range(self.size - forks):
            # A session of its own: what the tests start dies with the worker's group.
            process = SandboxProcess(
                self.python,
                args,
                cwd=self.root,
                env=env,
                quiet=True,
                new_session=True,
                siblings=forks,
                fork=fork,
            )
            self.workers.append(Worker(process))
            self._unforked += [Worker(sibling) for sibling in process.siblings]

    def waiting(self) -> set[str]:
        """For a ``scoped`` pool: wait until its workers started pytest and wait for
        ``scope``; the project files they imported by then (a conftest's imports)."""
        if self.scoped and self._waiting is None:
            self._waiting = set()
            for worker in self.workers:
                message = worker.receive(self.collect_timeout, "starting pytest")
                self._waiting.update(message.get("imported", []))
                self.libraries.update(message.get("libraries", []))
        return self._waiting or set()

    def scope(self, ignored: list[str], wanted: Iterable[str] = ()) -> None:
        """Tell the workers of a ``scoped`` pool which test files (absolute paths) not to
        collect, and the only tests (node ids) to collect of the files that hold them;
        they start Python and pytest meanwhile (the forked ones inherit it)."""
        for worker in self.workers:
            worker.send({"op": "scope", "ignore": ignored, "only": list(wanted)})

    def prepare(self, files: list[str]) -> None:
        """Workers import ``files`` and index their live functions (once per file: a warm
        pool's workers follow later edits through ``refresh``)."""
        if set(files) <= self.prepared:
            return
        self.prepared.update(files)
        for worker in self.workers:
            worker.send({"op": "prepare", "files": files})
        replies = [w.receive(self.collect_timeout, "importing the targets") for w in self.workers]
        forked, self._unforked = self._unforked, []
        for worker in forked:  # forked at this first prepare, each answers as the first did
            replies.append(worker.receive(self.collect_timeout, "forking a worker"))
            if isinstance(worker.process, SiblingProcess):
                worker.process.pid = int(replies[-1].get("pid", 0))
            worker.tests = self.workers[0].tests
        self.workers += forked
        for prepared in replies:
            self.import_time.update(prepared.get("import_time", []))
            for unit, kinds in prepared.get("import_returns", {}).items():
                self.import_returns.setdefault(unit, set()).update(kinds)

    def refresh(self, files: dict[str, str]) -> str | None:
        """Make every worker follow the edits of ``files`` (path -> the text it imported);
        None when they all could, else why not (the pool must then be started afresh)."""
        for worker in self.workers:
            worker.send({"op": "refresh", "files": files})
        refusals = [worker.receive(self.collect_timeout, "refreshing") for worker in self.workers]
        return next((r.get("reason", "") for r in refusals if not r.get("ok")), None)

    def observe(
        self,
        tests: list[str] | None = None,
        timeout: float = 600.0,
        timeouts: dict[str, float] | None = None,
    ) -> dict[str, Any]:
        """The observation run of ``tests`` (default: all), split over every worker; a test
        running past its timeout (``timeouts`` by node id, else ``timeout``) is stopped
        and comes back with the outcome "hung"."""
        count = len(self.workers)
        for index, worker in enumerate(self.workers):
            worker.send(
                {
                    "op": "observe",
                    "shard": [index, count],
                    "tests": tests,
                    "timeout": timeout,
                    "timeouts": timeouts or {},
                }
            )
        parts = [worker.receive() for worker in self.workers]
        observed: dict[str, Any] = {}
        for part in parts:
            observed.update(part["tests"])
        # A shard's test can fail because another had a project file half-written: when
        # one wrote such a file, the tests that did not pass are observed again alone.
        again = [n for n, info in observed.items() if info["outcome"] != "passed"]
        if count > 1 and again and any(part.get("wrote") for part in parts):
            alone = {"op": "observe", "shard": [0, 1], "tests": again, "timeout": timeout}
            self.workers[0].send({**alone, "timeouts": timeouts or {}})
            parts.append(self.workers[0].receive())
            observed.update(parts[-1]["tests"])
        returns: dict[str, set[str]] = {}
        setup = 0.0
        for part in parts:
            setup = max(setup, float(part.get("setup", 0.0)))
            for unit, kinds in part["returns"].items():
                returns.setdefault(unit, set()).update(kinds)
        return {
            "tests": observed,
            "returns": {u: sorted(k) for u, k in returns.items()},
            "setup": setup,
        }

    def run_all(
        self, requests: Iterable[dict[str, Any]], job: Job, table: RequestTable | None = None
    ) -> Iterator[dict[str, Any]]:
        """Send every request, yielding each reply as it arrives; a request is taken from
        ``requests`` only when a worker is free for it (after the replies before it). With
        the ``table`` of the requests, each is sent compact (``request_table``)."""
        pending = iter(requests)
        more = True
        idle = list(self.workers)
        busy: dict[int, Worker] = {}
        shared = SharedFiles()  # runs that wrote files of the project run again alone
        told: set[int] = set()  # the workers ``table`` was sent to
        while more or busy or shared.reruns:
            job.check()
            while (more or shared.reruns) and idle and shared.may_send(len(busy)):
                request = shared.next_request() or next(pending, None)
                if request is None:
                    more = False
                    break
                worker = idle.pop()
                _send_request(worker, request, table, told)
                worker.busy = request
                shared.sent(request)
                busy[worker.process.fileno()] = worker
            ready, _, _ = select.select(list(busy), [], [], 0.2)
            for fd in ready:
                worker = busy.pop(fd)
                reply = worker.receive()
                request, worker.busy = worker.busy or {}, None
                idle.append(worker)
                yield from shared.replied(request, reply)

    def end_input(self) -> None:
        """End of input tells each worker to quit, without waiting for them (``close``
        does): a batch analysis saves its state while they end."""
        self.workers += self._unforked
        self._unforked = []
        self.ending = True
        for worker in self.workers:
            worker.process.channel.close_sending()

    def close(self) -> None:
        """End of input tells each worker to quit; one that lingers is terminated."""
        self.end_input()
        for worker in self.workers:
            worker.process.close(grace=2.0)
        self.workers = []
        self._ready = False
        self.ending = False

    def terminate(self) -> None:
        """Stop at once (cancellation): SIGTERM makes each worker kill its child."""
        self.workers += self._unforked
        self._unforked = []
        for worker in self.workers:
            worker.process.terminate()
        for worker in self.workers:
            worker.process.close(grace=5.0)
        self.workers = []
        self._ready = False
