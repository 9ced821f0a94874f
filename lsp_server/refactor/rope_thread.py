"""The one thread rope runs on.

rope is not thread-safe, so every rope call of a workspace goes through one ``Worker``.
Requests (rename, resolve of a code action) run before background work (pre-warm), which
is submitted in small slices so that a request waits for at most one slice.
Cancellation: each task gets a ``Job``; cancelling the job stops the rope ``TaskHandle``
the task registered, so rope raises ``InterruptedTaskError`` at its next check.
"""

from __future__ import annotations

import itertools
import queue
import threading
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeVar

from lsp_server.jobs import Cancelled, Job

if TYPE_CHECKING:
    from rope.base.taskhandle import TaskHandle

T = TypeVar("T")

REQUEST = 0
"""Priority of work a user waits for."""
BACKGROUND = 10
"""Priority of pre-warming and other work nobody waits for."""


class RopeJob(Job):
    """A ``Job`` whose cancellation also stops the rope task handle of the running task.

    The handle is made when rope first asks for it (in the process that runs rope): the
    language server makes a job per request and never imports rope (issue 15)."""

    def __init__(self, on_progress: Any = None) -> None:
        if on_progress is None:
            super().__init__()
        else:
            super().__init__(on_progress=on_progress)
        self._handle: TaskHandle | None = None
        self._handle_lock = threading.Lock()

    @property
    def handle(self) -> TaskHandle:
        with self._handle_lock:
            if self._handle is None:
                from rope.base.taskhandle import TaskHandle

                self._handle = TaskHandle("reks")
                if self.cancelled:
                    self._handle.stop()
            return self._handle

    def cancel(self) -> None:
        super().cancel()
        with self._handle_lock:
            handle = self._handle
        if handle is not None:
            handle.stop()


@dataclass(order=True)
class _Item:
    priority: int
    seq: int
    fn: Callable[[], Any] = field(compare=False)
    future: Future[Any] = field(compare=False)
    job: Job | None = field(compare=False, default=None)


class Worker:
    """A single daemon thread executing submitted callables by priority, then FIFO."""

    def __init__(self, name: str = "reks-rope") -> None:
        self._queue: queue.PriorityQueue[_Item] = queue.PriorityQueue()
        self._seq = itertools.count()
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)
        self._started = False
        self._lock = threading.Lock()
        self._stopped = False

    def submit(
        self, fn: Callable[[], T], *, priority: int = REQUEST, job: Job | None = None
    ) -> Future[T]:
        """Run ``fn`` on the worker thread; a job cancelled before it starts never runs."""
        with self._lock:
            if self._stopped:
                raise RuntimeError("worker stopped")
            if not self._started:
                self._thread.start()
                self._started = True
        future: Future[T] = Future()
        self._queue.put(_Item(priority, next(self._seq), fn, future, job))
        return future

    def call(self, fn: Callable[[], T], *, job: Job | None = None) -> T:
        """Run ``fn`` on the worker and wait for it (from any thread but the worker)."""
        if threading.current_thread() is self._thread:
            return fn()
        return self.submit(fn, job=job).result()

    @property
    def on_worker(self) -> bool:
        return threading.current_thread() is self._thread

    def stop(self) -> None:
        """Stop after the running task; queued tasks are cancelled (their futures end)."""
        with self._lock:
            self._stopped = True
            started = self._started
        while True:
            try:
                item = self._queue.get_nowait()
            except queue.Empty:
                break
            if item.job is not None:
                item.job.cancel()
            if item.future.set_running_or_notify_cancel():
                item.future.set_exception(Cancelled())
        if started:
            self._queue.put(_Item(-1, -1, lambda: None, Future()))

    def _run(self) -> None:
        while True:
            item = self._queue.get()
            if item.seq == -1:
                return
            if not item.future.set_running_or_notify_cancel():
                continue
            if item.job is not None and item.job.cancelled:
                item.future.set_exception(Cancelled())
                continue
            try:
                item.future.set_result(item.fn())
            except BaseException as exc:  # handed to the waiting thread
                item.future.set_exception(exc)
