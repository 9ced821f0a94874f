"""Holding a child process still for as long as a test likes (SIGSTOP), for real.

``kill(pid, SIGSTOP)`` returns before the process is stopped: a thread blocked in a read
is woken to stop, and on its way it still takes what its pipe holds then. On a loaded
machine that way can take long enough for a request the test sends next to be read,
and the test then waits for it in the pipe forever (CI failed on this). A process
stopped in every thread reads nothing more.
"""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path


def thread_states(pid: int) -> list[str]:
    """The scheduler state letter of each thread of ``pid`` (``T``: stopped)."""
    states = []
    for task in Path(f"/proc/{pid}/task").glob("*"):
        try:
            # /proc/PID/task/TID/stat: "tid (comm) state ...", and comm may hold ")".
            states.append((task / "stat").read_text().rsplit(")", 1)[1].split()[0])
        except (OSError, IndexError):
            continue
    return states


def stop_process(pid: int, seconds: float = 60) -> None:
    """SIGSTOP ``pid`` and return once every one of its threads is stopped."""
    os.kill(pid, signal.SIGSTOP)
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        states = thread_states(pid)
        if states and all(state == "T" for state in states):
            return
        time.sleep(0.01)
    raise AssertionError(f"process {pid} did not stop in {seconds} s: {thread_states(pid)}")
