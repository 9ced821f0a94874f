"""``$/progress`` for long server jobs, behind the same ``Job`` the packages already take.

A job runs on a worker thread and reports through ``Job.report``; ``ClientProgress`` turns
those reports into throttled ``WorkDoneProgressReport`` notifications sent from the message
loop, and turns the client cancelling the progress into ``Job.cancel``. Clients without
work-done progress get a plain ``Job``: the work is the same, only unseen.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import importlib
import time
import uuid
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

from lsprotocol import types

from lsp_server.jobs import Job

if TYPE_CHECKING:
    from pygls.lsp.server import LanguageServer

T = TypeVar("T")

PROGRESS_INTERVAL = 0.2
"""Seconds between two reports: enough for a moving bar, few enough not to flood the client."""


class ClientProgress:
    """One ``$/progress`` token and the ``Job`` that reports to it."""

    def __init__(
        self,
        server: LanguageServer,
        token: str | None,
        loop: asyncio.AbstractEventLoop,
        unit: str = "",
    ) -> None:
        self.server = server
        self.token = token
        self.loop = loop
        self.unit = unit
        self.job = Job(on_progress=self._report)
        self.cancel_requested = asyncio.Event()
        """Set (on the message loop) when the client cancels: for jobs awaited there."""
        self._last = 0.0

    @classmethod
    async def begin(
        cls,
        server: LanguageServer,
        title: str,
        *,
        message: str | None = None,
        cancellable: bool = True,
        unit: str = "",
    ) -> ClientProgress:
        """Create the token (when the client supports it) and send the begin notification."""
        loop = asyncio.get_running_loop()
        caps = server.client_capabilities
        token: str | None = None
        if caps.window and caps.window.work_done_progress:
            token = f"reks-{uuid.uuid4()}"
            try:
                await server.work_done_progress.create_async(token)
            except Exception:  # the client refused the token: work on without progress
                token = None
        progress = cls(server, token, loop, unit)
        if token is not None:
            server.work_done_progress.begin(
                token,
                types.WorkDoneProgressBegin(
                    title=title, message=message, cancellable=cancellable, percentage=0
                ),
            )
            cancel = server.work_done_progress.tokens.get(token)
            if cancel is not None:
                cancel.add_done_callback(progress._on_token_done)
        return progress

    def _on_token_done(self, future: concurrent.futures.Future[Any]) -> None:
        if future.cancelled():
            self.job.cancel()
            self.cancel_requested.set()

    def _report(self, done: int, total: int | None, message: str) -> None:
        # Called from worker threads: throttle here, send from the message loop.
        now = time.monotonic()
        if self.token is None or (now - self._last < PROGRESS_INTERVAL and done != total):
            return
        self._last = now
        percentage = int(100 * done / total) if total else None
        text = f"{done}/{total} {message or self.unit}".rstrip() if total else message
        value = types.WorkDoneProgressReport(message=text[:200], percentage=percentage)
        self.loop.call_soon_threadsafe(self.server.work_done_progress.report, self.token, value)

    def end(self, message: str = "done") -> None:
        if self.token is not None:
            self.server.work_done_progress.end(
                self.token, types.WorkDoneProgressEnd(message=message)
            )
            self.token = None


async def import_off_loop(*modules: str) -> None:
    """Import ``modules`` on a thread: the packages of the analyses are loaded by their
    first command (not with the server), and never on the message loop."""

    def load() -> None:
        for module in modules:
            importlib.import_module(module)

    await asyncio.to_thread(load)


async def run_on_thread(job: Job, work: Callable[..., T], *args: Any) -> T:
    """``work(*args, job)`` on a thread of the default executor; the request being
    cancelled cancels the job (the work stops at its next check)."""
    future = asyncio.get_running_loop().run_in_executor(None, lambda: work(*args, job))
    try:
        return await future
    except asyncio.CancelledError:
        job.cancel()
        raise
