"""Keeping a pytest worker's tests in bounds: a per-test deadline in the observation run,
and no process a test started outliving it; and the worker's own quick end. Standard
library only (runs in the worker)."""

from __future__ import annotations

import atexit
import contextlib
import os
import signal
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import NoReturn


class TestHung(Exception):
    """Raised into a test that ran past its timeout on the original code (so pytest records
    a failure and runs its teardown)."""


def set_subreaper() -> None:
    """Orphans of the tests (a test's children whose parent exited) become children of this
    worker, in its process group, instead of the init process: reks kills the group."""
    if sys.platform.startswith("linux"):
        with contextlib.suppress(OSError, AttributeError):
            import ctypes

            ctypes.CDLL(None).prctl(36, 1)  # PR_SET_CHILD_SUBREAPER


def exit_at_once(status: int) -> NoReturn:
    """End the worker: the exit handlers run (what the project registered to clean up),
    the interpreter's teardown does not. Freeing every module and collected test of its
    heap took 50-100 ms, and the analysis waits for its workers to end."""
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()
    os._exit(status)


def kill_adopted(keep: set[int] | frozenset[int] = frozenset()) -> None:
    """Kill the processes this worker adopted as a subreaper (what a test started and left
    behind, in a process group of its own too), except ``keep``; their own orphans come
    back to it and are killed in the next round."""
    me = os.getpid()
    for _ in range(10):
        adopted = [pid for pid in children(me) if pid not in keep]
        if not adopted:
            return
        for pid in adopted:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
            with contextlib.suppress(ChildProcessError, OSError):
                os.waitpid(pid, 0)


def children(pid: int) -> list[int]:
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return []
    found: list[int] = []
    for task in tasks:
        with contextlib.suppress(OSError, ValueError):
            text = Path(f"/proc/{pid}/task/{task}/children").read_text()
            found += [int(part) for part in text.split()]
    return found


class Alarm:
    """A per-test deadline in the observation child: ``SIGALRM`` raises ``TestHung`` into
    the test (and again every second, so a hanging teardown is stopped too)."""

    def __init__(self) -> None:
        self.fired = False

    def _ring(self, signum: int, frame: object) -> None:
        self.fired = True
        signal.setitimer(signal.ITIMER_REAL, 1.0)
        raise TestHung("the test ran past its timeout on the original code")

    @contextlib.contextmanager
    def armed(self, seconds: float) -> Iterator[None]:
        self.fired = False
        previous = signal.signal(signal.SIGALRM, self._ring)
        signal.setitimer(signal.ITIMER_REAL, max(seconds, 0.01))
        try:
            yield
        except TestHung:
            pass
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, previous)
