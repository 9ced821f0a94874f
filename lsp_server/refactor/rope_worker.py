"""``RopeProcess``: the server's side of one rope worker process (``rope_process`` is the
child's side). It starts the worker on first use and after a death, sends each call with the
buffer changes since the last one, delivers answers to their futures, kills a worker that
does not stop a cancelled task within ``CANCEL_GRACE`` seconds, fails every call a dead
worker held with a ``RefactoringError`` saying so, and ends a worker idle for ``idle_exit``
seconds. ``ProcessEngine`` (``process_engine``) decides which worker a request goes to."""

from __future__ import annotations

import itertools
import logging
import os
import subprocess
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, replace
from typing import Any

from lsp_server.jobs import Cancelled, Job
from lsp_server.refactor.model import RefactoringError
from lsp_server.refactor.rope_spare import start_worker
from lsp_server.refactor.workspace import RopeWorkspace
from lsp_server.sandbox import ChannelError, SandboxProcess

log = logging.getLogger(__name__)

CANCEL_GRACE_ENV = "REKS_ROPE_CANCEL_GRACE"
CANCEL_GRACE = float(os.environ.get(CANCEL_GRACE_ENV) or 10.0)
"""Seconds a worker has to stop a cancelled task before it is killed. rope checks for
cancellation between files, not while it parses one, and a killed worker must parse the
whole project again: only a worker stuck for this long is worth that."""

StartWorker = Callable[[str], tuple[SandboxProcess, bool]]
"""Starts (or hands over) a worker for a root: the process, and whether it was told that
root already (else its first message must name it)."""


def _fresh_worker(root: str) -> tuple[SandboxProcess, bool]:
    return start_worker(), False


@dataclass
class _Call:
    future: Future[Any]
    job: Job
    decode: Callable[[Any], Any]
    process: SandboxProcess | None  # None until sent (``_dispatch``)
    message: dict[str, Any]  # op and payload, to send again (``_resend``)
    heavy: bool = False  # on a module of ``process_engine.HEAVY_CHARS`` or more
    asked: float = 0.0  # time.monotonic() when first asked for
    resent: bool = False

    @property
    def is_request(self) -> bool:
        """Asked for by a user (a prewarm is background work, in slices between requests)."""
        return self.message["op"] != "prewarm"


def _settle(future: Future[Any], value: Any = None, error: BaseException | None = None) -> None:
    """End ``future`` unless its waiter cancelled it already (an awaiting task cancelled
    by ``$/cancelRequest`` cancels the future it waits on)."""
    if not future.set_running_or_notify_cancel():
        return
    if error is not None:
        future.set_exception(error)
    else:
        future.set_result(value)


class RopeProcess:
    """The worker process of one root, started on first use and after a death."""

    def __init__(
        self,
        workspace: RopeWorkspace,
        start: StartWorker | None = None,
        idle_exit: float | None = None,
    ) -> None:
        self.workspace = workspace
        self._start: StartWorker = start if start is not None else _fresh_worker
        self.idle_exit = idle_exit
        """Seconds after which a worker holding nothing ends (None: it lives on); the next
        request starts another."""
        self._activity = 0
        """Counts the tasks handed out and answered: an idle timer finding it changed since
        it was set leaves the worker alone."""
        self._lock = threading.Lock()
        self._process: SandboxProcess | None = None
        self._pending: dict[int, _Call] = {}
        self._ids = itertools.count(1)
        self._warm_wanted = False
        self._closed = False
        self._killed_for_cancel: set[int] = set()
        """pids of workers killed because a cancelled task ran on past ``CANCEL_GRACE``."""
        self._synced: tuple[SandboxProcess | None, int] = (None, 0)
        """The worker the buffer changes were last sent to, and up to which change
        (``RopeWorkspace.changes_since``); the outbox thread's alone."""
        self._outbox = ThreadPoolExecutor(max_workers=1, thread_name_prefix="reks-rope-send")
        """Sends in order, off the caller's thread (the server's message loop): a message
        with a large buffer waits for the worker to read it."""

    @property
    def pid(self) -> int | None:
        """The running worker's process id (None before the first task or after a death)."""
        with self._lock:
            return None if self._process is None else self._process.pid

    def call(
        self,
        op: str,
        payload: dict[str, Any],
        job: Job,
        decode: Callable[[Any], Any],
        heavy: bool = False,
    ) -> Future[Any]:
        """Send ``op`` to the worker; the future ends with its decoded answer."""
        future: Future[Any] = Future()
        message = {"op": op, **payload}
        self._dispatch(_Call(future, job, decode, None, message, heavy, time.monotonic()))
        return future

    def held_up(self, after: float) -> bool:
        """The worker holds a request a next one would wait behind for long: one on a
        heavy module, or one asked for ``after`` seconds ago or more."""
        now = time.monotonic()
        with self._lock:
            return any(
                call.is_request and (call.heavy or now - call.asked >= after)
                for call in self._pending.values()
            )

    def in_hand(self) -> tuple[bool, int]:
        """Whether the worker holds a heavy request, and how many requests it holds."""
        with self._lock:
            requests = [call for call in self._pending.values() if call.is_request]
        return any(call.heavy for call in requests), len(requests)

    def start_ahead(self) -> None:
        """Start the worker now (if it is not running), before the first request for it.
        The process starts outside the lock, which every request's choice of lane takes
        (``held_up``) on the server's message loop."""
        with self._lock:
            if self._closed or self._alive():
                return
        process, bound = self._start(self.workspace.root)
        with self._lock:
            unused = self._closed or self._alive()  # one started meanwhile, for a request
            if not unused:
                self._adopt(process, bound)
                if self._warm_wanted:
                    self._send(process, {"id": next(self._ids), "op": "prewarm"})
                if self.idle_exit is not None:
                    self._retire_when_idle(process)  # ends unless a request comes meanwhile
        if unused:
            process.close(grace=0)

    def _dispatch(self, call: _Call) -> None:
        """Send ``call`` to the live worker (started if need be: a fresh one gets the prewarm
        asked for before it) and record it until its answer comes."""
        with self._lock:
            if self._closed:
                raise RefactoringError("the refactoring engine is shut down")
            op = call.message["op"]
            process = self._live(op)
            call_id = next(self._ids)
            self._pending[call_id] = replace(call, process=process)
            self._activity += 1
            self._send(process, {"id": call_id, **call.message})
            self._warm_wanted = self._warm_wanted or op == "prewarm"
        # Outside the lock: a job cancelled already calls back at once, and _cancel takes it.
        call.job.when_cancelled(lambda: self._cancel(process, call_id))

    def _live(self, op: str | None) -> SandboxProcess:
        """The live worker; a fresh one is asked for the prewarm asked of the one before
        (unless ``op`` is that prewarm). Called with the lock held."""
        process, fresh = self._running()
        if fresh and self._warm_wanted and op != "prewarm":
            self._send(process, {"id": next(self._ids), "op": "prewarm"})
        return process

    def _alive(self) -> bool:
        """Whether a worker runs. Called with the lock held."""
        return self._process is not None and self._process.alive()

    def _running(self) -> tuple[SandboxProcess, bool]:
        """The live worker, and whether it was just started. Called with the lock held."""
        if self._process is not None and self._alive():
            return self._process, False
        process, bound = self._start(self.workspace.root)
        self._adopt(process, bound)
        return process, True

    def _adopt(self, process: SandboxProcess, bound: bool) -> None:
        """Make ``process`` the worker: told its root (unless ``bound``), read from. Called
        with the lock held."""
        self._process = process
        if not bound:
            self._outbox.submit(self._post, process, {"root": self.workspace.root})
        threading.Thread(
            target=self._read, args=(process,), name="reks-rope-reader", daemon=True
        ).start()

    def _send(self, process: SandboxProcess, message: dict[str, Any]) -> None:
        """Queue ``message`` for the outbox, which adds the buffer changes since the
        previous message to ``process`` (every buffer for a worker told nothing yet) when
        it sends it."""

        def send() -> None:
            told, mark = self._synced
            mark, changes = self.workspace.changes_since(mark if told is process else None)
            self._synced = (process, mark)
            self._post(process, {**message, "sync": changes})

        self._outbox.submit(send)

    def _post(self, process: SandboxProcess, message: dict[str, Any]) -> None:
        """On the outbox thread. A worker that died is its reader's to report."""
        try:
            process.send(message)
        except ChannelError:
            log.warning("the rope worker %s died before a message reached it", process.pid)

    def _cancel(self, process: SandboxProcess, call_id: int) -> None:
        with self._lock:
            if self._closed or call_id not in self._pending or self._process is not process:
                return
            self._outbox.submit(self._post, process, {"cancel": call_id})
        timer = threading.Timer(CANCEL_GRACE, self._kill_if_pending, (process, call_id))
        timer.daemon = True
        timer.start()

    def _kill_if_pending(self, process: SandboxProcess, call_id: int) -> None:
        with self._lock:
            if call_id not in self._pending or self._process is not process:
                return
            self._process = None  # a request arriving before it is dead starts a new one
            self._killed_for_cancel.add(process.pid)
        log.warning("the rope worker %s ignored a cancellation: killed", process.pid)
        process.kill()  # the reader sees the end and fails what it held

    def _read(self, process: SandboxProcess) -> None:
        while True:
            try:
                message = process.receive()
            except ChannelError as exc:
                self._died(process, str(exc))
                return
            try:
                self._deliver(message)
            except Exception:  # the reader must live on: every later answer comes through it
                log.exception("cannot deliver a rope worker's answer")

    def _deliver(self, message: dict[str, Any]) -> None:
        call_id = message.get("id")
        progress = message.get("progress")
        with self._lock:
            if progress is not None:
                call = self._pending.get(call_id)  # type: ignore[arg-type]
            else:
                call = self._pending.pop(call_id, None)  # type: ignore[arg-type]
                self._activity += 1
                if not self._pending and self.idle_exit is not None and call is not None:
                    self._retire_when_idle(call.process)
        if call is None:
            return  # a task nobody waits for (a restart's prewarm)
        if progress is not None:
            call.job.report(*progress)
        elif "ok" in message:
            try:
                value = call.decode(message["ok"])
            except Exception as exc:  # a reply we cannot read
                _settle(call.future, error=RefactoringError(f"unreadable worker reply: {exc}"))
            else:
                _settle(call.future, value)
        elif message.get("why") == "cancelled":
            _settle(call.future, error=Cancelled())
        elif message.get("why") == "refactoring":
            _settle(call.future, error=RefactoringError(message["error"]))
        else:
            error = f"internal error in the refactoring worker: {message['error']}"
            _settle(call.future, error=RefactoringError(error))

    def _retire_when_idle(self, process: SandboxProcess | None) -> None:
        """Called with the lock held, when ``process`` has just answered its last task (or
        was started ahead)."""
        assert self.idle_exit is not None
        timer = threading.Timer(self.idle_exit, self._retire_if_idle, (process, self._activity))
        timer.daemon = True
        timer.start()

    def _retire_if_idle(self, process: SandboxProcess, activity: int) -> None:
        """End ``process`` unless it was handed a task since the timer was set (the answer
        to that task sets a timer of its own)."""
        with self._lock:
            if self._closed or self._process is not process or self._activity != activity:
                return
            self._process = None  # the next request starts another
            # after what is queued for it: its end of input, its cue to exit
            self._outbox.submit(process.channel.close_sending)
        log.info("the idle rope worker %s ends", process.pid)

    def _resend(self, call: _Call) -> None:
        """Send ``call`` again, to the live worker (a new one after a death)."""
        try:
            self._dispatch(replace(call, resent=True))
        except RefactoringError as exc:  # shut down meanwhile
            _settle(call.future, error=exc)

    def _died(self, process: SandboxProcess, reason: str) -> None:
        """The reader of ``process`` reached its end: fail what it held, free it."""
        with self._lock:
            if self._process is process:
                self._process = None
            failed = [c for c in self._pending.values() if c.process is process]
            self._pending = {k: c for k, c in self._pending.items() if c.process is not process}
            closing = self._closed
            on_purpose = process.pid in self._killed_for_cancel
            self._killed_for_cancel.discard(process.pid)
        process.close(grace=0)
        if on_purpose and not closing:
            # The other tasks it held did nothing wrong: a computation has no effect to
            # undo, so each goes once to the new worker instead of failing (issue 15).
            again = [c for c in failed if not c.job.cancelled and not c.resent]
            failed = [c for c in failed if c not in again]
            for call in again:
                self._resend(call)
        if failed and not closing:
            log.warning("the rope worker of %s stopped: %s", self.workspace.root, reason)
        first_line = (reason.strip().splitlines() or ["no reason given"])[0]
        for call in failed:
            if call.job.cancelled:
                _settle(call.future, error=Cancelled())
            elif closing:
                _settle(call.future, error=RefactoringError("the refactoring engine shut down"))
            else:
                _settle(
                    call.future,
                    error=RefactoringError(
                        f"the refactoring worker stopped before answering ({first_line}); "
                        "it is restarted for the next request: try again"
                    ),
                )

    def close(self, grace: float = 2.0) -> None:
        """End the worker: end of input, then a kill after ``grace`` seconds. Its reader
        fails what it still held and frees it."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
            process = self._process
            if process is not None:  # after what is queued: the worker's cue to exit
                self._outbox.submit(process.channel.close_sending)
        self._outbox.shutdown(wait=False)
        if process is None:
            return
        try:
            process.process.wait(timeout=grace)
        except subprocess.TimeoutExpired:
            process.kill()
