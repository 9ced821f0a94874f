"""Running a function in a forked child: its result comes back over a pipe as one frame.

Whatever the child does, the parent gets an ``Outcome``: the value it returned, the
exception it raised, its exit (``os._exit``, ``sys.exit``), the signal that killed it (a
segfault), or a timeout, after which it is killed. Nothing is written to disk.

A child that sent its result is left to tear itself down while the caller goes on (its
exit costs milliseconds on a large heap) and is reaped at the next ``run``. On Linux a
child dies with the process that forked it, so no child outlives reks.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from lsp_server.sandbox.wire import (
    ChannelClosed,
    ChannelError,
    ChannelTimeout,
    FrameReader,
    encode,
    write_all,
)

OK = "ok"
RAISED = "raised"  # the function raised; ``detail`` is the last line of the traceback
EXITED = "exited"  # the child exited without a result
CRASHED = "crashed"  # killed by a signal, or sent something unreadable
TIMEOUT = "timeout"


@dataclass(frozen=True)
class Outcome:
    """How a forked run ended: ``value`` is the result (OK) or the traceback (RAISED)."""

    status: str
    value: Any = None
    detail: str = ""

    @property
    def ok(self) -> bool:
        return self.status == OK


def _load_prctl() -> Callable[..., int] | None:
    if not sys.platform.startswith("linux"):
        return None
    try:
        import ctypes

        prctl: Callable[..., int] = ctypes.CDLL(None).prctl
        return prctl
    except (OSError, AttributeError):
        return None


_PRCTL = _load_prctl()  # loaded once: doing it in every child cost ~2.5 ms per fork


def die_with_parent() -> None:
    """In a forked child: be killed when the process that forked it dies (Linux)."""
    if _PRCTL is not None:
        _PRCTL(1, signal.SIGKILL)  # PR_SET_PDEATHSIG


def flush_streams() -> None:
    """Before a fork: or the child would print what is buffered again."""
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()


def _child(work: Callable[[], Any], write_end: int) -> None:
    """The child's side: run ``work``, send its outcome, exit without cleaning up."""
    status = 0
    try:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        die_with_parent()
        try:
            frame = encode([OK, work()])
        except SystemExit as exc:
            status = exc.code if isinstance(exc.code, int) else 1
            frame = b""
        except BaseException:
            frame = encode([RAISED, traceback.format_exc()])
        write_all(write_end, frame)
    except BaseException:
        status = 70
        traceback.print_exc()
    finally:
        os._exit(status)


class Forker:
    """Forks one child per ``run``; remembers its children so a signal handler of the
    forking process can kill them all (``kill_all``)."""

    def __init__(self) -> None:
        self.running: int | None = None
        self.exiting: set[int] = set()

    def run(self, work: Callable[[], Any], timeout: float | None = None) -> Outcome:
        """``work()`` in a forked child, killed after ``timeout`` seconds (None: no limit).
        Its return value must be JSON data."""
        self.reap()
        flush_streams()
        read_end, write_end = os.pipe()
        pid = os.fork()
        if pid == 0:
            os.close(read_end)
            _child(work, write_end)
        os.close(write_end)
        self.running = pid
        try:
            return self._collect(pid, FrameReader(read_end), timeout)
        finally:
            os.close(read_end)
            self.running = None

    def _collect(self, pid: int, reader: FrameReader, timeout: float | None) -> Outcome:
        try:
            status, value = reader.read(timeout)
        except ChannelTimeout:
            _kill(pid)
            return Outcome(TIMEOUT, None, f"no result after {timeout:.2f} s")
        except ChannelClosed:
            return _ended(os.waitpid(pid, 0)[1])
        except (ChannelError, ValueError, TypeError):
            _kill(pid)
            return Outcome(CRASHED, None, "unreadable result")
        self.exiting.add(pid)  # reaped later: see the module docstring
        if status == RAISED:
            return Outcome(RAISED, value, value.strip().splitlines()[-1])
        return Outcome(OK, value)

    def reap(self) -> None:
        """Collect children that sent their result and were left to exit on their own."""
        for pid in list(self.exiting):
            with contextlib.suppress(ChildProcessError):
                if os.waitpid(pid, os.WNOHANG)[0] == 0:
                    continue
            self.exiting.discard(pid)

    def wait_all(self) -> None:
        """Wait for every exiting child (before the forking process exits)."""
        for pid in self.exiting:
            with contextlib.suppress(ChildProcessError):
                os.waitpid(pid, 0)
        self.exiting.clear()

    def kill_all(self) -> None:
        """Kill the running child and every exiting one (from a signal handler too)."""
        pids = {*self.exiting, *([self.running] if self.running else [])}
        for pid in pids:
            with contextlib.suppress(OSError):
                _kill(pid)
        self.exiting.clear()


def _kill(pid: int) -> None:
    os.kill(pid, signal.SIGKILL)
    os.waitpid(pid, 0)


def _ended(wait_status: int) -> Outcome:
    if os.WIFSIGNALED(wait_status):
        name = signal.Signals(os.WTERMSIG(wait_status)).name
        return Outcome(CRASHED, None, f"killed by {name}")
    return Outcome(EXITED, None, f"exit status {os.WEXITSTATUS(wait_status)}")
