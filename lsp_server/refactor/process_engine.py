"""``ProcessEngine``: the refactoring engine with rope in worker processes per root.

The language server's process keeps what is cheap (editor buffers, paths, applying and
announcing results); every rope call runs in a long-lived ``rope_process`` child per
workspace root, started through the sandbox (its own session, killed as a group), so a
rename that keeps rope busy for seconds never holds the server's interpreter lock.

- Unsaved buffers: the parent's ``RopeWorkspace`` records what changed (``set_overlay``,
  ``mark_changed``); each message to the worker carries the changes since the previous one
  (a fresh worker gets every buffer), so the worker refactors what the editor shows.
- Cancellation: cancelling a task's job sends ``{"cancel": id}``, which stops rope's task
  handle in the worker; a worker that has not answered ``CANCEL_GRACE`` seconds later is
  killed (and restarted by the next request).
- A worker that dies fails every task it held with a ``RefactoringError`` saying so
  (never a hang), and the next request starts a new one (warmed again when it had been).
- Two lanes per root (issue 15): rope runs one task at a time, and a rename of thousands
  of uses in a long module keeps its worker for minutes. Requests on a module of
  ``HEAVY_CHARS`` or more go to the root's main worker (the warm one). Any other request
  goes there too unless the main worker is held up (it holds a heavy request, or one asked
  for ``HELD_UP_AFTER`` seconds ago); then it goes to a second worker, the helper, unless
  that is held up too: then to the one holding fewer requests and no heavy one. The helper
  starts with the first heavy request (to be up by the time it is needed) and ends when
  idle for ``HELPER_IDLE_EXIT`` seconds. Workers only compute: the server's process alone
  writes (``apply``), and a result whose files changed since it was computed is refused
  there, whichever worker computed it.
"""

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
from lsp_server.refactor.engine import PrepareResult, RefactorEngine
from lsp_server.refactor.model import RefactoringError, RefactoringResult, RefactorRequest
from lsp_server.refactor.result_wire import decode_prepare, decode_result, encode_request
from lsp_server.refactor.rope_spare import IN_PROCESS_ENV, start_worker, take_early
from lsp_server.refactor.rope_thread import RopeJob
from lsp_server.refactor.workspace import RopeWorkspace
from lsp_server.sandbox import ChannelError, SandboxProcess

log = logging.getLogger(__name__)

CANCEL_GRACE_ENV = "REKS_ROPE_CANCEL_GRACE"
CANCEL_GRACE = float(os.environ.get(CANCEL_GRACE_ENV) or 10.0)
"""Seconds a worker has to stop a cancelled task before it is killed. rope checks for
cancellation between files, not while it parses one, and a killed worker must parse the
whole project again: only a worker stuck for this long is worth that."""
HEAVY_CHARS = 100_000
"""A request on a module this long (about 2,500 lines) may keep rope busy for minutes (a
rename of thousands of uses): it goes to the main worker, never to the helper, so that the
requests on other modules do not wait behind it."""
HELD_UP_ENV = "REKS_ROPE_HELD_UP_AFTER"
HELD_UP_AFTER = float(os.environ.get(HELD_UP_ENV) or 2.0)
"""Seconds after which a request still in the main worker's hands makes the next one go to
the helper: a short module's rename can be long too (a name used in every file)."""
HELPER_IDLE_EXIT = 15.0
"""Seconds after its last answer an idle helper ends: it holds the trees of every module
its renames searched (about 850 MB on a copy of the standard library, most of it not
freed by dropping rope's module cache), worth keeping between the requests of a busy
stretch, not for a minute after it: a helper started again costs about a second, and
only a request the main worker would have held up waits for it."""


def server_engine() -> RefactorEngine:
    """The language server's engine: rope in worker processes, unless ``IN_PROCESS_ENV``."""
    if os.environ.get(IN_PROCESS_ENV) == "1":
        return RefactorEngine()
    return ProcessEngine()


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
    heavy: bool = False  # on a module of HEAVY_CHARS or more
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


class ProcessEngine(RefactorEngine):
    """A ``RefactorEngine`` whose rope work runs in one worker process per root."""

    def __init__(self) -> None:
        super().__init__()
        self.processes: dict[str, RopeProcess] = {}
        """The main worker of each root (the warm one: the prewarm goes to it)."""
        self.helpers: dict[str, RopeProcess] = {}
        """The second worker of each root, for the requests the main one would hold up."""
        self._spare_lock = threading.Lock()
        self._starter = ThreadPoolExecutor(max_workers=1, thread_name_prefix="reks-rope-start")
        """Starts helpers ahead, off the caller's thread (the server's message loop)."""
        spare, self._spare_root = take_early()
        self._spare: SandboxProcess | None = spare or start_worker()
        """Started already (``reks serve`` starts it before importing the server, and may
        have told it the root of the client's ``initialize``: ``_spare_root``) or now, so
        that it imports rope while the server starts: the first folder's worker is ready
        sooner."""

    def _take_worker(self, root: str) -> tuple[SandboxProcess, bool]:
        """The spare for ``root`` (told that root already, or no root yet), else a new
        worker. A spare told another root is of no use to any other folder: it ends."""
        with self._spare_lock:
            spare, self._spare = self._spare, None
            spare_root, self._spare_root = self._spare_root, None
        usable = spare_root is None or os.path.realpath(spare_root) == root
        if spare is not None and usable and spare.alive():
            return spare, spare_root is not None
        if spare is not None:
            spare.close(grace=0)
        return start_worker(), False

    def add_root(self, root: str) -> RopeWorkspace:
        workspace = super().add_root(root)
        if workspace.root not in self.processes:
            self.processes[workspace.root] = RopeProcess(workspace, self._take_worker)
            self.helpers[workspace.root] = RopeProcess(workspace, idle_exit=HELPER_IDLE_EXIT)
        return workspace

    def remove_root(self, root: str) -> None:
        real = os.path.realpath(root)
        for lanes in (self.processes, self.helpers):
            process = lanes.pop(real, None)
            if process is not None:
                process.close()
        super().remove_root(root)

    def process_for(self, path: str) -> RopeProcess:
        """The main worker of the root holding ``path``."""
        return self.processes[self.workspace_for(path).root]

    def _lane(self, path: str) -> tuple[RopeProcess, bool]:
        """The worker a request on ``path`` goes to, and whether the request is heavy (see
        the module docstring)."""
        workspace = self.workspace_for(path)
        main, helper = self.processes[workspace.root], self.helpers[workspace.root]
        if _module_size(workspace, path) >= HEAVY_CHARS:
            self._starter.submit(helper.start_ahead)
            return main, True
        if not main.held_up(HELD_UP_AFTER):
            return main, False
        if not helper.held_up(HELD_UP_AFTER):
            return helper, False
        # Both held up: behind the fewer requests, and never behind a heavy one.
        main_heavy, main_count = main.in_hand()
        helper_count = helper.in_hand()[1]
        return (helper if main_heavy or helper_count <= main_count else main), False

    def _call(
        self, path: str, op: str, payload: dict[str, Any], job: Job, decode: Callable[[Any], Any]
    ) -> Future[Any]:
        process, heavy = self._lane(path)
        return process.call(op, payload, job, decode, heavy)

    def submit(
        self, request: RefactorRequest, job: RopeJob | None = None
    ) -> Future[RefactoringResult]:
        payload = {"request": encode_request(request)}
        job = job if job is not None else RopeJob()
        return self._call(request.path, "compute", payload, job, decode_result)

    def compute(self, request: RefactorRequest, job: RopeJob | None = None) -> RefactoringResult:
        return self.submit(request, job).result()

    def submit_prepare_rename(
        self, path: str, offset: int, job: RopeJob | None = None
    ) -> Future[PrepareResult]:
        payload = {"path": path, "offset": offset}
        job = job if job is not None else RopeJob()
        return self._call(path, "prepare", payload, job, decode_prepare)

    def prepare_rename(self, path: str, offset: int) -> PrepareResult:
        return self.submit_prepare_rename(path, offset).result()

    def submit_module_move(
        self, old_path: str, new_path: str, job: RopeJob | None = None
    ) -> Future[RefactoringResult]:
        payload = {"old": old_path, "new": new_path}
        job = job if job is not None else RopeJob()
        return self._call(old_path, "module-move", payload, job, decode_result)

    def prewarm(self, root: str, job: Job | None = None) -> Future[None]:
        workspace = self.add_root(root)
        job = job if job is not None else Job()
        return self.processes[workspace.root].call("prewarm", {}, job, lambda _: None)

    def close(self) -> None:
        self._starter.shutdown(wait=False, cancel_futures=True)
        for process in [*self.processes.values(), *self.helpers.values()]:
            process.close()
        self.processes.clear()
        self.helpers.clear()
        with self._spare_lock:
            spare, self._spare = self._spare, None
        if spare is not None:
            spare.close()
        super().close()


def _module_size(workspace: RopeWorkspace, path: str) -> int:
    """The length of ``path``'s editor buffer, else of the file (0 when there is none)."""
    text = workspace.overlay(path)
    if text is not None:
        return len(text)
    try:
        return os.path.getsize(path)
    except OSError:
        return 0
