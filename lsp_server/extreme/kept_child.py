"""A child of the pytest worker kept for the next transformation while its tests leave no
state behind: no fork, no pages copied again, per transformation.

A fresh child per transformation costs about as much in forking, exiting and copying the
pages its first test writes (~700 on toolz) as its tests cost; a second run of the same
tests in the same child writes almost none. So the worker keeps the child it forked for a
``run`` request, and sends it the next one, as long as the child's state is still the
state it was forked with, as far as ``state_digest`` reads it: after each run the child
puts the original code back, tears every fixture down, collects garbage, seeds the random
module anew (as a fork does), and compares the state with the worker's ``StateDigest``.
A different state (a cache filled, a global counted up, a module imported, a file of the
project written, a thread or process left running) retires the child: the next request
gets a fresh one.

Which verdicts a kept child gives: its first run starts from exactly the state a fresh
child has, so any outcome is kept. A later run's ``detected`` is kept: the tests ran from
a state read equal to the fresh one. A later ``undetected`` (the verdict a user acts on),
and any other outcome (a timeout, a crash, an error) are not: the child is retired (or
kept, for an ``undetected`` that left no state) and the transformation runs the forked
way (``transform_run``), from the start. A worker whose state is too large to read
(``state_digest.LIMIT``) forks per transformation; so does a pre-import worker. A run
whose tests left state behind makes them suspects (``state_leavers``): a later request
that holds one goes the forked way at once, and the other requests keep their kept child
(humanize's translation tests, freezegun's, left state at each run and used to turn kept
children off for good).
"""

from __future__ import annotations

import contextlib
import gc
import os
import random
import signal
import sys
import unittest
from typing import TYPE_CHECKING, Any

from lsp_server.extreme import code_swap as swapping
from lsp_server.extreme.state_digest import StateDigest
from lsp_server.extreme.state_leavers import StateLeavers
from lsp_server.extreme.worker_guard import children, kill_adopted
from lsp_server.sandbox.forked import Forker, die_with_parent, flush_streams
from lsp_server.sandbox.wire import ChannelError, FrameReader, encode, write_all

if TYPE_CHECKING:
    from collections.abc import Callable

    from lsp_server.extreme.execution_recorder import Recorder
    from lsp_server.extreme.pytest_worker import WorkerPlugin

    KeptRun = Callable[[WorkerPlugin, dict[str, Any]], tuple[dict[str, Any], swapping.Replacements]]
    """The transformed run of a request in the kept child, and the code to put back."""

KEPT_VERDICTS = frozenset({"detected", "undetected"})
_CLEANUP_MARK = "tearDown_exceptions"


def kept_outcome(
    worker: WorkerPlugin, request: dict[str, Any], units: set[str], run_tests: KeptRun
) -> dict[str, Any] | None:
    """In the worker: the outcome of the transformed run of ``request`` in its kept child,
    with what the run executed added to ``units``; or None, and the forked way decides
    (what the kept run executed is then not its record)."""
    if worker.kept.off or worker.kept.leavers.forks(request["tests"]):
        return None
    outcome = worker.kept.outcome(worker, request, run_tests)
    ran = worker.run_log.take() if worker.run_log is not None else []
    kill_adopted(keep=not_adopted(worker))
    if outcome is not None:
        units.update(ran)
    return outcome


def not_adopted(worker: WorkerPlugin) -> set[int]:
    """The worker's own children, which ``kill_adopted`` must leave alive."""
    kept = worker.kept.keep()
    return worker.forker.exiting | worker.own_children | worker.sibling_pids | kept


class KeptChild:
    """The worker's side: at most one kept child at a time."""

    def __init__(self, forker: Forker) -> None:
        self.forker = forker  # reaps a retired child later (its exit costs milliseconds)
        self.pid: int | None = None
        self._requests = -1  # the worker writes requests here
        self._replies: FrameReader | None = None
        self.off = False  # a child per transformation (the state is too large to read)
        self.digest: StateDigest | None = None  # the worker's state (a fresh child's)
        self.import_recorder: Recorder | None = None  # the worker's, of its collection
        self.leavers = StateLeavers()  # the tests whose runs go the forked way at once

    def outcome(
        self,
        worker: WorkerPlugin,
        request: dict[str, Any],
        run_tests: KeptRun,
    ) -> dict[str, Any] | None:
        """The outcome of the transformed run of ``request`` in the kept child (forked now
        if there is none), or None: then the forked way decides, from the start."""
        if self.pid is None:
            if self.digest is None:
                self.take(worker.root)
            if self.digest is None:
                return None
            self._start(worker, run_tests)
        assert self._replies is not None
        try:
            write_all(self._requests, encode(request))
            reply = self._replies.read(float(request["timeout"]))
        except (ChannelError, OSError, ValueError, TypeError):
            self.retire()
            return None
        outcome = reply.get("outcome")
        self.leavers.note(request["tests"], outcome, left_state=not reply.get("keep"))
        if not reply.get("keep"):
            self.retire(ending=True)
        return outcome if reply.get("trusted") else None

    def take(self, root: str) -> None:
        """The fresh state, taken in the worker (when it prepared its files, before it forks
        its siblings: they share it); a state too large to read turns kept children off."""
        self.retire()
        if not self.off:
            self.digest = StateDigest.take(root)
            self.off = self.digest is None

    def forget(self) -> None:
        """The worker's state changed (an edit followed, files prepared): end the kept
        child, and take the fresh state again for the next one."""
        self.retire()
        self.digest = None

    def retire(self, ending: bool = False) -> None:
        """End the kept child (the next request forks another; no-op without one); one
        ``ending`` on its own is left to exit, any other is killed, and both are reaped
        with the forker's children."""
        pid, self.pid = self.pid, None
        if pid is None:
            return
        with contextlib.suppress(OSError):
            os.close(self._requests)
        if self._replies is not None:
            with contextlib.suppress(OSError):
                os.close(self._replies.fd)
        if not ending:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
        self.forker.exiting.add(pid)
        self._requests, self._replies = -1, None

    def keep(self) -> set[int]:
        """The pids the worker must not kill as adopted processes."""
        return {self.pid} if self.pid is not None else set()

    def _start(
        self,
        worker: WorkerPlugin,
        run_tests: KeptRun,
    ) -> None:
        request_read, request_write = os.pipe()
        reply_read, reply_write = os.pipe()
        flush_streams()
        pid = os.fork()
        if pid == 0:
            os.close(request_write)
            os.close(reply_read)
            _serve(worker, request_read, reply_write, run_tests)
        os.close(request_read)
        os.close(reply_write)
        self.pid, self._requests, self._replies = pid, request_write, FrameReader(reply_read)


def _serve(
    worker: WorkerPlugin,
    requests: int,
    replies: int,
    run_tests: KeptRun,
) -> None:
    """The kept child: one request at a time, until its state differs or the worker
    closes the pipe; never returns."""
    status = 0
    try:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        die_with_parent()
        assert worker.kept.digest is not None
        session = _ChildSession(worker, run_tests, worker.kept.digest)
        reader = FrameReader(requests)
        while True:
            try:
                request = reader.read(None)
            except ChannelError:
                break
            reply = session.run(request)
            write_all(replies, encode(reply))
            if not reply["keep"]:
                break
    except BaseException:
        status = 70
    finally:
        os._exit(status)


class _ChildSession:
    """The kept child's runs, and the state they must find."""

    def __init__(
        self,
        worker: WorkerPlugin,
        run_tests: KeptRun,
        fresh: StateDigest,
    ) -> None:
        self.worker = worker
        self.run_tests = run_tests
        self.fresh = fresh  # the state a fresh child starts from
        fresh.settle()
        imported = worker.kept.import_recorder
        if worker.run_log is not None and imported is not None:
            # A forked child's run log never sees the code that ran at collection: the
            # worker's recorder disabled its events. A kept child enables them again
            # after its first run (to see the next run's), so it mutes that code.
            worker.run_log.recorder.mute(imported)
        self.handlers = {s: signal.getsignal(s) for s in (signal.SIGALRM, signal.SIGPROF)}
        self.runs = 0
        # ``unittest`` notes a class's cleanup errors in a class attribute it makes at the
        # first run (``doClassCleanups``) and never reads before making it anew.
        cases = {getattr(item, "cls", None) for item in worker.items.values()}
        self.unmarked_cases = [
            case
            for case in cases
            if isinstance(case, type)
            and issubclass(case, unittest.TestCase)
            and _CLEANUP_MARK not in vars(case)
        ]

    def run(self, request: dict[str, Any]) -> dict[str, Any]:
        """The reply to one request: ``outcome``, whether it is ``trusted``, whether the
        child can ``keep`` serving."""
        first = self.runs == 0
        self.runs += 1
        if not first and hasattr(sys, "monitoring"):
            sys.monitoring.restart_events()  # the run log's tool saw each code once
        worker = self.worker
        interrupted = False
        originals: swapping.Replacements = []
        try:
            outcome, originals = self.run_tests(worker, request)
        except (swapping.SwapError, SyntaxError, OSError):
            return {"outcome": None, "trusted": False, "keep": True}  # nothing ran
        except BaseException:  # a stop of the run: the forked way decides
            outcome, interrupted = {"verdict": "error"}, True
        wrote = worker.writes.noted_any()
        keep = not interrupted and self._clean(originals) and not wrote
        verdict = outcome.get("verdict")
        trusted = verdict in KEPT_VERDICTS and (first or verdict == "detected")
        return {"outcome": outcome, "trusted": trusted, "keep": keep}

    def _clean(self, originals: swapping.Replacements) -> bool:
        """Put back what the run changed on purpose; whether the state is the fresh one."""
        worker = self.worker
        if worker.run_log is not None:
            worker.run_log.recorder.stop()  # before anything else runs: not the run's
        swapping.apply(originals)
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.setitimer(signal.ITIMER_PROF, 0)
        for signum, handler in self.handlers.items():
            signal.signal(signum, handler)
        try:
            some = next(iter(worker.items.values()))
            some.session._setupstate.teardown_exact(None)
        except StopIteration:
            pass
        except BaseException:
            return False
        for case in self.unmarked_cases:
            if _CLEANUP_MARK in vars(case):
                delattr(case, _CLEANUP_MARK)
        gc.collect()
        random.seed()  # as ``random`` does in each forked child
        if children(os.getpid()):
            return False
        return not self.fresh.changed()
