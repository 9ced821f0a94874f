"""``OutlineService``: outlines of the editor's documents, made in a worker process.

The language server asks for the outline of a document's current text and, while that is
being made, answers from the last one it has (``latest``): a code action on a long module
never waits for the module to be parsed again after each keystroke, and the server never
parses it at all (``refactor.outline``). One text at a time goes to the worker; of the
texts of one document waiting their turn only the newest is analysed (its waiters get
that one's outline, and see from the text it comes with that it is newer than theirs).
A worker that dies is started again, once per text; a second death fails the request.
"""

from __future__ import annotations

import itertools
import logging
import sys
import threading
from collections.abc import Callable
from concurrent.futures import Future, InvalidStateError
from dataclasses import dataclass, field

from lsp_server.refactor.outline import Outline, outline_from_wire
from lsp_server.sandbox import ChannelError, SandboxProcess
from lsp_server.sandbox.process import PACKAGE_PARENT

log = logging.getLogger(__name__)

Analysis = tuple[str, "Outline | None"]
"""A text and its outline (None: the text is not valid Python)."""


def start_outline_worker() -> SandboxProcess:
    # in the folder holding ``lsp_server``, not the workspace (see ``rope_spare``)
    return SandboxProcess(
        sys.executable, ["-m", "lsp_server.refactor.outline_process"], cwd=PACKAGE_PARENT
    )


@dataclass
class _Wanted:
    key: str
    text: str
    futures: list[Future[Analysis]] = field(default_factory=list)


def _settle(futures: list[Future[Analysis]], value: Analysis | BaseException) -> None:
    for future in futures:
        try:
            if isinstance(value, BaseException):
                future.set_exception(value)
            else:
                future.set_result(value)
        except InvalidStateError:  # its waiter gave up (cancelled) already
            pass


class OutlineService:
    """Outlines by document key (its URI), one worker process made on first use."""

    def __init__(self, start: Callable[[], SandboxProcess] | None = None) -> None:
        self._start = start_outline_worker if start is None else start
        self._cond = threading.Condition()
        self._queue: dict[str, _Wanted] = {}
        self._running: _Wanted | None = None
        self._latest: dict[str, Analysis] = {}
        self._process: SandboxProcess | None = None
        self._thread: threading.Thread | None = None
        self._ids = itertools.count(1)
        self._closed = False

    @property
    def pid(self) -> int | None:
        process = self._process
        return None if process is None else process.pid

    def latest(self, key: str) -> Analysis | None:
        """The last outline made for the document (of some earlier text, perhaps)."""
        with self._cond:
            return self._latest.get(key)

    def remember(self, key: str, analysis: Analysis) -> None:
        """An outline made elsewhere (a short text, outlined on the caller's thread)."""
        with self._cond:
            self._latest[key] = analysis

    def forget(self, key: str) -> None:
        with self._cond:
            self._latest.pop(key, None)

    def analyse(self, key: str, text: str) -> Future[Analysis]:
        """The outline of ``text`` (or of a newer text of the document asked for before
        this one's turn came)."""
        future: Future[Analysis] = Future()
        with self._cond:
            if self._closed:
                future.set_exception(ChannelError("the outline worker is shut down"))
                return future
            done = self._latest.get(key)
            if done is not None and (done[0] is text or done[0] == text):
                future.set_result(done)
                return future
            running = self._running
            if running is not None and running.key == key and running.text == text:
                running.futures.append(future)
                return future
            wanted = self._queue.setdefault(key, _Wanted(key, text))
            wanted.text = text
            wanted.futures.append(future)
            if self._thread is None:
                self._thread = threading.Thread(
                    target=self._serve, name="reks-outlines", daemon=True
                )
                self._thread.start()
            self._cond.notify()
        return future

    def _serve(self) -> None:
        while True:
            with self._cond:
                while not self._queue and not self._closed:
                    self._cond.wait()
                if self._closed:
                    return
                key = next(iter(self._queue))
                wanted = self._running = self._queue.pop(key)
            try:
                result: Analysis | BaseException = (wanted.text, self._ask(wanted.text))
            except Exception as exc:  # a worker that died twice, a malformed answer
                log.warning("outline of %s failed: %s", key, exc)
                result = exc
            with self._cond:
                self._running = None
                if not isinstance(result, BaseException) and not self._closed:
                    self._latest[key] = result
            _settle(wanted.futures, result)

    def _ask(self, text: str) -> Outline | None:
        for attempt in (1, 2):
            process = self._process
            if process is None:
                process = self._process = self._start()
            try:
                call_id = next(self._ids)
                process.send({"id": call_id, "text": text})
                reply = process.receive()
                if reply.get("id") != call_id:
                    raise ChannelError(f"answer {reply.get('id')} to request {call_id}")
                return outline_from_wire(reply["outline"])
            except ChannelError:
                self._process = None
                process.close(grace=0)
                if attempt == 2 or self._closed:
                    raise
        raise AssertionError("unreachable")

    def close(self) -> None:
        with self._cond:
            self._closed = True
            waiting = [f for wanted in self._queue.values() for f in wanted.futures]
            self._queue.clear()
            self._cond.notify_all()
        _settle(waiting, ChannelError("the outline worker is shut down"))
        process = self._process
        if process is not None:
            process.close(grace=1)
