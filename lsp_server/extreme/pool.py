"""Worker processes as seen from reks: start them, hand out requests, collect replies.

Requests go to whichever worker is idle, one at a time, so a slow transformation on one
core never holds up the others. Cancellation and any failure terminate every worker;
a worker's SIGTERM handler kills its running child first.
"""

from __future__ import annotations

import contextlib
import json
import os
import select
import subprocess
import sys
import tempfile
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from lsp_server.jobs import Job


class WorkerError(RuntimeError):
    """A worker could not start or answered with an error."""


@dataclass
class Worker:
    process: subprocess.Popen[bytes]
    log: IO[bytes]
    tests: int = 0
    busy: dict[str, Any] | None = field(default=None)

    def send(self, message: dict[str, Any]) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write((json.dumps(message) + "\n").encode())
        self.process.stdin.flush()

    def receive(self) -> dict[str, Any]:
        assert self.process.stdout is not None
        line = self.process.stdout.readline()
        if not line:
            raise WorkerError(f"a test worker exited unexpectedly:\n{self.log_tail()}")
        message: dict[str, Any] = json.loads(line)
        if message.get("op") == "error":
            raise WorkerError(f"{message.get('message')}\n{self.log_tail()}".rstrip())
        return message

    def log_tail(self) -> str:
        try:
            self.log.flush()
            with open(self.log.name, "rb") as handle:
                return handle.read()[-3000:].decode("utf-8", "replace")
        except OSError:
            return ""


class WorkerPool:
    """``size`` warm workers over the project at ``root``."""

    def __init__(
        self, root: Path, size: int, python: str | None = None, pytest_args: Iterable[str] = ()
    ) -> None:
        self.root = root
        self.size = max(1, size)
        self.python = python or sys.executable
        self.pytest_args = list(pytest_args)
        self.workers: list[Worker] = []
        self.nodeids: list[str] = []  # collected tests, in pytest's order
        self.collection_errors = 0

    def __enter__(self) -> WorkerPool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def start(self, job: Job) -> None:
        env = dict(os.environ)
        env.setdefault("PYTHONDONTWRITEBYTECODE", "1")
        for _ in range(self.size):
            log = tempfile.NamedTemporaryFile(prefix="reks-extreme-", suffix=".log")  # noqa: SIM115
            process = subprocess.Popen(
                [self.python, "-m", "lsp_server.extreme.worker", str(self.root), *self.pytest_args],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=log,
                cwd=self.root,
                env=env,
            )
            self.workers.append(Worker(process, log))
        for worker in self.workers:
            job.check()
            ready = worker.receive()
            worker.tests = int(ready.get("tests", 0))
            self.nodeids = list(ready.get("nodeids", []))
            self.collection_errors = int(ready.get("collection_errors", 0))

    def prepare(self, files: list[str]) -> None:
        for worker in self.workers:
            worker.send({"op": "prepare", "files": files})
        for worker in self.workers:
            worker.receive()

    def observe(self, tests: list[str] | None = None) -> dict[str, Any]:
        """The observation run of ``tests`` (default: all), split over every worker."""
        count = len(self.workers)
        for index, worker in enumerate(self.workers):
            worker.send({"op": "observe", "shard": [index, count], "tests": tests})
        observed: dict[str, Any] = {}
        returns: dict[str, set[str]] = {}
        setup = 0.0
        for worker in self.workers:
            part = worker.receive()
            observed.update(part["tests"])
            setup = max(setup, float(part.get("setup", 0.0)))
            for unit, kinds in part["returns"].items():
                returns.setdefault(unit, set()).update(kinds)
        return {
            "tests": observed,
            "returns": {u: sorted(k) for u, k in returns.items()},
            "setup": setup,
        }

    def run_all(self, requests: list[dict[str, Any]], job: Job) -> Iterator[dict[str, Any]]:
        """Send every request, yielding each reply as it arrives."""
        pending = list(reversed(requests))
        idle = list(self.workers)
        busy: dict[int, Worker] = {}
        while pending or busy:
            job.check()
            while pending and idle:
                worker = idle.pop()
                request = pending.pop()
                worker.send(request)
                worker.busy = request
                assert worker.process.stdout is not None
                busy[worker.process.stdout.fileno()] = worker
            ready, _, _ = select.select(list(busy), [], [], 0.2)
            for fd in ready:
                worker = busy.pop(fd)
                reply = worker.receive()
                worker.busy = None
                idle.append(worker)
                yield reply

    def close(self) -> None:
        for worker in self.workers:
            if worker.process.poll() is None:
                with contextlib.suppress(OSError):
                    worker.send({"op": "quit"})
        for worker in self.workers:
            try:
                worker.process.wait(timeout=2)
            except subprocess.TimeoutExpired:
                worker.process.terminate()  # its handler kills the running child first
                try:
                    worker.process.wait(timeout=5)
                except subprocess.TimeoutExpired:
                    worker.process.kill()
                    worker.process.wait()
            for stream in (worker.process.stdin, worker.process.stdout):
                if stream is not None:
                    stream.close()
            worker.log.close()
        self.workers = []

    def terminate(self) -> None:
        """Stop at once (cancellation): SIGTERM makes each worker kill its child."""
        for worker in self.workers:
            if worker.process.poll() is None:
                worker.process.terminate()
        self.close()
