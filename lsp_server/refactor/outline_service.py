"""``OutlineService``: outlines of the editor's documents, made in a worker process.

The language server asks for the outline of a document's current text and, while that is
being made, answers from the last one it has (``latest``): a code action on a long module
never waits for the module to be parsed again after each keystroke, and the server never
parses it at all (``refactor.outline``). One text at a time goes to the worker; of the
texts of one document waiting their turn only the newest is analysed (its waiters get
that one's outline, and see from the text it comes with that it is newer than theirs),
and the shortest waiting text goes first: a long module's outline takes a tenth of a
second or more, a short one's milliseconds, and a code action on a short document asked
while its outline is not made yet makes it on a thread of the server (``made_here``).
The worker is started ahead (``start_ahead``), before the first document opens: an
editor asks for its first code actions as it opens its documents, and a worker still
starting (an interpreter, imports) left every one of them to be outlined in the server,
the opening burst of issue 15's p99. A worker that dies is started again, once per text;
a second death fails the request.

Texts typed (``typed``: each ``didChange``) wait for their document to be quiet: a
30,000-line module took the worker 320 ms an outline, and with an outline asked for at
every keystroke the worker never rested while the user typed. A typed text is outlined
once no newer text of its document came for ``quiet`` seconds, or at the latest
``longest_wait`` seconds after the first text not outlined (typing without a pause still
gets an outline now and then); a document's first text, and a text asked for exactly
(``analyse``: a refactoring needs its outline), are outlined at once. A code action never
takes an outline of an earlier text for the current one: it sees which text an outline is
of (``latest``) and guesses where the text changed since.
"""

from __future__ import annotations

import contextlib
import itertools
import logging
import sys
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future, InvalidStateError, ThreadPoolExecutor
from dataclasses import dataclass, field

from lsp_server.refactor.outline import Outline, outline_from_wire, outline_of
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


QUIET = 0.3
"""Seconds without a newer text after which a typed text is outlined."""
LONGEST_WAIT = 2.0
"""Seconds after its first text not outlined by which a typed document is outlined."""


@dataclass
class _Wanted:
    key: str
    text: str
    futures: list[Future[Analysis]] = field(default_factory=list)
    due: float = 0.0
    """``time.monotonic()`` from which it is outlined (0: at once)."""
    since: float = 0.0
    """When its document was first typed in without being outlined since."""


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

    def __init__(
        self,
        start: Callable[[], SandboxProcess] | None = None,
        quiet: float = QUIET,
        longest_wait: float = LONGEST_WAIT,
    ) -> None:
        self._start = start_outline_worker if start is None else start
        self._quiet = quiet
        self._longest_wait = longest_wait
        self.made = 0
        """Texts the worker outlined (for tests and benchmarks)."""
        self.made_in_server = 0
        """Texts outlined on this process's thread (``made_here``)."""
        self._cond = threading.Condition()
        self._queue: dict[str, _Wanted] = {}
        self._running: _Wanted | None = None
        self._latest: dict[str, Analysis] = {}
        self._process: SandboxProcess | None = None
        self._thread: threading.Thread | None = None
        self._ids = itertools.count(1)
        self._closed = False
        self._here: dict[str, tuple[str, Future[Analysis]]] = {}
        """The outline being made on this process's thread per document, and of which text."""
        self._here_thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix="reks-outline")
        """One at a time: outlines made at once only take turns holding the interpreter lock,
        and each code action waiting for one waited for them all."""

    @property
    def pid(self) -> int | None:
        process = self._process
        return None if process is None else process.pid

    def latest(self, key: str) -> Analysis | None:
        """The last outline made for the document (of some earlier text, perhaps)."""
        with self._cond:
            return self._latest.get(key)

    def made_here(self, key: str, text: str) -> Future[Analysis]:
        """The outline of ``text`` (a short one) made on a thread of this process, for a
        document whose outline the worker has not made yet; made once however many code
        actions ask for it meanwhile."""
        with self._cond:
            done = self._latest.get(key)
            if done is not None and done[0] == text:
                made: Future[Analysis] = Future()
                made.set_result(done)
                return made
            making = self._here.get(key)
            if making is not None and making[0] == text:
                return making[1]
            future = self._here_thread.submit(self._make_here, key, text)
            self._here[key] = (text, future)
        return future

    def outline_short(self, key: str, text: str, grace: float) -> Future[Analysis]:
        """The outline of ``text`` (a short one) now: the worker's when it comes within
        ``grace`` seconds, else made here (``made_here``: the worker starved or stuck);
        made here at once when the worker is busy with a longer text (the shortest
        waiting text goes next, but only after it). Made in both at once, the worker's
        work was wasted and the server's held the interpreter lock the code actions of
        an opening burst waited for."""
        asked = self.analyse(key, text)
        if asked.done() and asked.exception() is None and asked.result()[0] == text:
            return asked
        with self._cond:
            running = self._running
            behind_longer = running is not None and len(running.text) > len(text)
        if behind_longer:
            return self.made_here(key, text)
        out: Future[Analysis] = Future()

        def take(made: Future[Analysis]) -> None:
            if made.cancelled() or made.exception() is not None or made.result()[0] != text:
                here()  # the worker failed, or outlined a newer text: made here
            elif not out.done():
                with contextlib.suppress(InvalidStateError):
                    out.set_result(made.result())

        def here() -> None:
            if not out.done():
                self.made_here(key, text).add_done_callback(settle)

        def settle(made: Future[Analysis]) -> None:
            with contextlib.suppress(InvalidStateError):
                if made.cancelled():  # shut down
                    out.cancel()
                elif made.exception() is not None:
                    out.set_exception(made.exception())
                elif not out.done():
                    out.set_result(made.result())

        asked.add_done_callback(take)
        timer = threading.Timer(grace, here)
        timer.daemon = True
        timer.start()
        return out

    def _make_here(self, key: str, text: str) -> Analysis:
        self.made_in_server += 1
        analysis = (text, outline_of(text))
        with self._cond:
            self._latest[key] = analysis
            if self._here.get(key, ("", None))[0] is text:
                del self._here[key]
        return analysis

    def start_ahead(self) -> None:
        """Start the worker now, before the first text (see the module docstring)."""
        with self._cond:
            if not self._closed:
                self._serving()

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
            wanted.due = 0.0
            wanted.futures.append(future)
            self._serving()
            self._cond.notify()
        return future

    def typed(self, key: str, text: str) -> None:
        """The document's text is now ``text``: outline it once the document is quiet (see
        the module docstring); a document's first text at once."""
        now = time.monotonic()
        with self._cond:
            if self._closed:
                return
            done = self._latest.get(key)
            running = self._running
            if (done is not None and done[0] == text) or (
                running is not None and running.key == key and running.text == text
            ):
                return
            wanted = self._queue.get(key)
            if wanted is None:
                first = done is None and (running is None or running.key != key)
                wanted = self._queue[key] = _Wanted(key, text, since=now)
                wanted.due = 0.0 if first else now + self._quiet
            elif not wanted.futures and wanted.due > 0:
                wanted.due = min(wanted.since + self._longest_wait, now + self._quiet)
            wanted.text = text
            self._serving()
            self._cond.notify()

    def _serving(self) -> None:
        """Start the serving thread unless it runs. Called with the lock held."""
        if self._thread is None:
            self._thread = threading.Thread(target=self._serve, name="reks-outlines", daemon=True)
            self._thread.start()

    def _serve(self) -> None:
        try:
            process = self._start()  # before the first text: see ``start_ahead``
        except OSError as exc:  # tried again for the first text, which fails if it fails
            log.warning("cannot start the outline worker: %s", exc)
        else:
            with self._cond:
                closed = self._closed
                if not closed:
                    self._process = process
            if closed:
                process.close(grace=0)
                return
        while True:
            with self._cond:
                wanted = self._running = self._next_due()
            if wanted is None:
                return
            key = wanted.key
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

    def _next_due(self) -> _Wanted | None:
        """The shortest text due, once one is (None when closed). Called with the lock held."""
        while not self._closed:
            now = time.monotonic()
            due = [key for key, wanted in self._queue.items() if wanted.due <= now]
            if due:
                return self._queue.pop(min(due, key=lambda k: len(self._queue[k].text)))
            soonest = min((wanted.due for wanted in self._queue.values()), default=None)
            self._cond.wait(None if soonest is None else soonest - now)
        return None

    def _ask(self, text: str) -> Outline | None:
        for attempt in (1, 2):
            process = self._process
            if process is None:
                process = self._process = self._start()
            try:
                call_id = next(self._ids)
                self.made += 1
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
        self._here_thread.shutdown(wait=False, cancel_futures=True)
        process = self._process
        if process is not None:
            process.close(grace=1)
