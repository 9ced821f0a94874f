"""The rope worker process: one warm ``RefactorEngine`` for one workspace root, served
over a sandbox channel (``python -m lsp_server.refactor.rope_process``, then
``{"root": path}`` as the first message).

rope is pure Python and holds the interpreter lock for seconds on a large rename; in a
process of its own it cannot delay the language server's message loop. The parent side
is ``process_engine``.

Messages in: ``{"id", "op", "sync", ...}`` with ``op`` one of ``compute`` (``request``),
``prepare`` (``path``, ``offset``), ``module-move`` (``old``, ``new``), ``prewarm``;
``sync`` maps paths changed since the last message to their editor buffer text (None:
read the disk), applied before the work starts. ``{"cancel": id}`` cancels a task.
Messages out: ``{"id", "ok": data}``, ``{"id", "error": message, "why": ...}`` with
``why`` one of ``refactoring`` (for the user), ``cancelled``, ``internal``, and
``{"id", "progress": [done, total, message]}``. End of input ends the process.
"""

from __future__ import annotations

import contextlib
import os
import sys
import threading
from collections.abc import Callable
from concurrent.futures import CancelledError, Future
from typing import Any

from rope.base import exceptions as rope_exceptions

from lsp_server.jobs import Cancelled
from lsp_server.refactor.engine import RefactorEngine
from lsp_server.refactor.model import RefactoringError
from lsp_server.refactor.result_wire import (
    decode_request,
    encode_prepare,
    encode_result,
)
from lsp_server.refactor.rope_thread import RopeJob
from lsp_server.sandbox import Channel, ChannelClosed, inherited_channel

Message = dict[str, Any]


def outcome(call_id: int, future: Future[Any], encode: Callable[[Any], Any]) -> Message:
    """The reply for a finished task."""
    try:
        return {"id": call_id, "ok": encode(future.result())}
    except (Cancelled, CancelledError, rope_exceptions.InterruptedTaskError):
        return {"id": call_id, "error": "cancelled", "why": "cancelled"}
    except RefactoringError as exc:
        return {"id": call_id, "error": str(exc), "why": "refactoring"}
    except Exception as exc:  # reported to the parent, which tells the user
        return {"id": call_id, "error": f"{type(exc).__name__}: {exc}", "why": "internal"}


class RopeServer:
    """Dispatches the messages of one channel to one engine holding one root."""

    def __init__(self, root: str, channel: Channel) -> None:
        self.engine = RefactorEngine()
        self.root = self.engine.add_root(root).root
        self.channel = channel
        self.jobs: dict[int, RopeJob] = {}
        self.tasks: dict[int, Future[Any]] = {}
        self._send_lock = threading.Lock()

    def send(self, message: Message) -> None:
        # OSError: the parent is gone; the main loop ends at its end of input.
        with self._send_lock, contextlib.suppress(OSError):
            self.channel.send(message)

    def serve(self) -> None:
        try:
            while True:
                try:
                    message = self.channel.receive()
                except ChannelClosed:
                    return
                self.handle(message)
        finally:
            for job in list(self.jobs.values()):
                job.cancel()

    def handle(self, message: Message) -> None:
        if "cancel" in message:
            job = self.jobs.get(message["cancel"])
            if job is not None:
                job.cancel()
            task = self.tasks.get(message["cancel"])
            if task is not None:
                task.cancel()  # still queued (behind a long task): answered now
            return
        for path, text in message.get("sync", {}).items():
            self.engine.set_overlay(path, text)
        call_id = int(message["id"])
        job = RopeJob(on_progress=lambda d, t, m: self.send({"id": call_id, "progress": [d, t, m]}))
        self.jobs[call_id] = job
        try:
            future, encode = self.start(message, job)
        except Exception as exc:  # a malformed message, a path in no workspace
            failed: Future[Any] = Future()
            failed.set_exception(exc)
            future, encode = failed, str

        def done(finished: Future[Any]) -> None:
            self.jobs.pop(call_id, None)
            self.tasks.pop(call_id, None)
            self.send(outcome(call_id, finished, encode))

        self.tasks[call_id] = future
        future.add_done_callback(done)

    def start(self, message: Message, job: RopeJob) -> tuple[Future[Any], Callable[[Any], Any]]:
        op = message["op"]
        engine = self.engine
        if op == "compute":
            return engine.submit(decode_request(message["request"]), job), encode_result
        if op == "prepare":
            path, offset = message["path"], message["offset"]
            return engine.submit_prepare_rename(path, offset, job), encode_prepare
        if op == "module-move":
            return engine.submit_module_move(message["old"], message["new"], job), encode_result
        if op == "prewarm":
            return engine.prewarm(self.root, job), lambda _: None
        raise ValueError(f"unknown operation {op!r}")


def preload() -> None:
    """Import what the first task needs (the operations, the semantic checks, the edit
    checks) while the worker waits for its root: it is idle then, and the first rename
    would otherwise import them while the user waits (issue 15)."""
    import lsp_server.refactor.changes
    import lsp_server.refactor.edit_check
    import lsp_server.refactor.rope_guard
    import lsp_server.refactor.semantics  # noqa: F401
    from lsp_server.refactor.engine import operations

    operations()


def main() -> int:
    """Serve the root named by the first message (``{"root": path}``): a worker can start,
    and import rope, before the server knows its workspace folders. Once it knows the
    root it reads the project's files in the background (``RopeWorkspace.read_ahead``)."""
    channel = inherited_channel()
    if channel is None:
        print("rope_process is started by reks, with a channel", file=sys.stderr)
        return 2
    preload()
    try:
        first = channel.receive()
    except ChannelClosed:
        return 0  # a spare worker nobody needed
    server = RopeServer(first["root"], channel)
    server.engine.workspace_for(server.root).read_ahead()
    server.serve()
    return 0


if __name__ == "__main__":
    code = main()
    sys.stderr.flush()
    # Now, without tearing down rope's objects (hundreds of MB for a large project, seconds
    # of work) or waiting for a task nobody will read: nothing of the worker needs saving.
    os._exit(code)
