"""Server-side times of each request, for benchmarks (issue 15).

A client's latency mixes three waits: its message waiting in the pipe for the server to
read it, the server working on it, and the answer waiting for the client to read it. On
a loaded machine each can be a wait for a CPU rather than a block in the server. With
``REKS_REQUEST_TIMES`` naming a file, the server appends one JSON line per answered
request: its id and method, when its bytes were read off standard input (``received``),
when the message loop handled it (``read``) and when the answer was ready to be
written (``answered``), all ``time.monotonic()`` (the clock of a client's ``time.perf_counter()``
on Linux), the CPU seconds the server's process (``cpu``) and its message loop's thread
(``loop_cpu``) used meanwhile, and the seconds its threads spent runnable but waiting for
a CPU meanwhile (``cpu_wait``, summed over the threads, from Linux's schedstat; 0 where
there is none). Without the variable nothing is recorded.
"""

from __future__ import annotations

import json
import os
import threading
import time
from dataclasses import dataclass
from typing import IO, Any

ENV = "REKS_REQUEST_TIMES"


def run_queue_waits() -> dict[str, int]:
    """Nanoseconds each thread of this process has waited for a CPU while runnable (the
    second field of its ``/proc/self/task/*/schedstat``), by thread id."""
    waits: dict[str, int] = {}
    try:
        tasks = os.listdir("/proc/self/task")
    except OSError:
        return waits
    for task in tasks:
        try:
            with open(f"/proc/self/task/{task}/schedstat", encoding="ascii") as stat:
                waits[task] = int(stat.read().split()[1])
        except (OSError, IndexError, ValueError):  # a thread that ended meanwhile
            continue
    return waits


def waited_since(before: dict[str, int]) -> float:
    """Seconds the threads waited for a CPU since ``before`` (a thread started since
    counts whole; one that ended is not counted)."""
    waited = 0
    for task, wait in run_queue_waits().items():
        earlier = before.get(task, 0)
        waited += wait if wait < earlier else wait - earlier  # less: the id of a new thread
    return waited / 1e9


@dataclass
class _Handled:
    method: str
    received: float
    read: float
    cpu: float
    loop_cpu: float
    waits: dict[str, int]


class RequestTimes:
    """The times of the requests in hand, written out as each is answered."""

    def __init__(self, out: IO[str]) -> None:
        self._out = out
        self._lock = threading.Lock()
        self._handled: dict[Any, _Handled] = {}

    @classmethod
    def from_environment(cls) -> RequestTimes | None:
        path = os.environ.get(ENV)
        if not path:
            return None
        return cls(open(path, "a", encoding="utf-8"))

    def read(self, msg_id: Any, method: str, received: float | None) -> None:
        """The loop handles request ``msg_id`` now; its bytes came at ``received``."""
        now = time.monotonic()
        handled = _Handled(
            method,
            now if received is None else received,
            now,
            time.process_time(),
            time.thread_time(),
            run_queue_waits(),
        )
        with self._lock:
            self._handled[msg_id] = handled

    def answered(self, msg_id: Any, now: float) -> None:
        """The answer to ``msg_id`` was ready at ``now`` (before it was written)."""
        cpu, loop_cpu = time.process_time(), time.thread_time()
        with self._lock:
            handled = self._handled.pop(msg_id, None)
            if handled is None:
                return
            record = {
                "id": msg_id,
                "method": handled.method,
                "received": handled.received,
                "read": handled.read,
                "answered": now,
                "cpu": cpu - handled.cpu,
                "loop_cpu": loop_cpu - handled.loop_cpu,
                "cpu_wait": waited_since(handled.waits),
            }
            self._out.write(json.dumps(record) + "\n")
            self._out.flush()
