"""Run generated programs fast: a zygote process forks one child per program.

This is the parent side; the zygote is ``program_zygote``, started as a
``lsp_server.sandbox`` process (one channel, length-prefixed JSON).

Starting Python per program costs ~20 ms; forking a small single-threaded zygote costs
~1 ms. The zygote imports only the standard library and never starts threads, so forking
it is safe (the checking process itself may run rope's worker thread and must not fork).
Each child serves the program's modules from memory (a meta path finder), runs ``main.py``
as ``__main__`` with stdout captured, and reports stdout and the exception, if any.
A child that outlives the time limit is killed and reported as timed out.

``fork=False`` (the default, ~10x faster) runs each program inside the zygote itself, with
an interval timer for the time limit and the program's modules removed afterwards; a
program that kills the zygote is reported as a ``RunnerError`` and the zygote restarted.
Generated programs only print and compute, so this isolation is enough for them;
``fork=True`` gives each program its own process.
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass

from lsp_server.sandbox import PACKAGE_PARENT, ChannelError, SandboxProcess

DEFAULT_TIMEOUT = 2.0


@dataclass(frozen=True)
class RunResult:
    """What a program did: its stdout and how it ended."""

    stdout: str
    error: str | None = None
    """``ExceptionType: message`` of an uncaught exception, or None."""
    timed_out: bool = False

    @property
    def error_type(self) -> str | None:
        return None if self.error is None else self.error.split(":", 1)[0]

    def same_behaviour(self, other: RunResult) -> bool:
        # Messages may name things that were renamed; the exception type is the behaviour.
        return (self.stdout, self.error_type, self.timed_out) == (
            other.stdout,
            other.error_type,
            other.timed_out,
        )

    def describe(self) -> str:
        if self.timed_out:
            return "timed out"
        return self.error or "ok"


# -I -S keep the zygote small (no site-packages, no user environment); it imports only the
# standard library and the sandbox, from the directory that holds this package.
_BOOT = (
    f"import sys; sys.path.insert(0, {PACKAGE_PARENT!r}); "
    "from lsp_server.astgen.program_zygote import serve; serve()"
)


class Runner:
    """A zygote subprocess; ``run(files)`` executes ``main.py`` of ``files`` in a fork."""

    def __init__(self, timeout: float = DEFAULT_TIMEOUT, fork: bool = False) -> None:
        self.timeout = timeout
        self.fork = fork
        self._proc: SandboxProcess | None = None

    def _start(self) -> SandboxProcess:
        if self._proc is None or not self._proc.alive():
            self.close()
            env = dict(os.environ, PYTHONHASHSEED="0", PYTHONDONTWRITEBYTECODE="1")
            self._proc = SandboxProcess(sys.executable, ["-I", "-S", "-c", _BOOT], env=env)
        return self._proc

    def run(self, files: dict[str, str]) -> RunResult:
        proc = self._start()
        try:
            proc.send([files, self.timeout, self.fork])
            stdout, error, timed_out = proc.receive()
        except (ChannelError, OSError) as exc:
            self.close()
            return RunResult("", f"RunnerError: {str(exc).splitlines()[0]}")
        return RunResult(stdout, error, timed_out)

    def close(self) -> None:
        if self._proc is not None:
            self._proc.close(grace=5.0)
            self._proc = None

    def __enter__(self) -> Runner:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
