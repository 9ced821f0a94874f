"""``ProcessEngine``: the refactoring engine with rope in worker processes per root.

The language server's process keeps what is cheap (editor buffers, paths, applying and
announcing results); every rope call runs in a long-lived ``rope_process`` child per
workspace root, started through the sandbox (its own session, killed as a group), so a
rename that keeps rope busy for seconds never holds the server's interpreter lock.

- Unsaved buffers: the parent's ``RopeWorkspace`` records what changed (``set_overlay``,
  ``mark_changed``); each message to the worker carries the changes since the previous one
  (a fresh worker gets every buffer), so the worker refactors what the editor shows.
- Cancellation: cancelling a task's job sends ``{"cancel": id}``, which stops rope's task
  handle in the worker; a worker that has not answered ``rope_worker.CANCEL_GRACE`` seconds later is
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

import logging
import os
import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

from lsp_server.jobs import Job
from lsp_server.refactor.engine import PrepareResult, RefactorEngine
from lsp_server.refactor.model import RefactoringResult, RefactorRequest
from lsp_server.refactor.result_wire import decode_prepare, decode_result, encode_request
from lsp_server.refactor.rope_spare import IN_PROCESS_ENV, start_worker, take_early
from lsp_server.refactor.rope_thread import RopeJob
from lsp_server.refactor.rope_worker import RopeProcess
from lsp_server.refactor.workspace import RopeWorkspace
from lsp_server.sandbox import SandboxProcess

log = logging.getLogger(__name__)

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
