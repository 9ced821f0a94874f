"""Run generated programs fast: a zygote process forks one child per program.

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
import pickle
import struct
import subprocess
import sys
from dataclasses import dataclass
from typing import Any, BinaryIO

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


def _send(stream: BinaryIO, obj: Any) -> None:
    data = pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL)
    stream.write(struct.pack("<I", len(data)) + data)
    stream.flush()


def _receive(stream: BinaryIO) -> Any:
    head = stream.read(4)
    if len(head) < 4:
        raise EOFError("runner closed")
    (size,) = struct.unpack("<I", head)
    return pickle.loads(stream.read(size))


class Runner:
    """A zygote subprocess; ``run(files)`` executes ``main.py`` of ``files`` in a fork."""

    def __init__(self, timeout: float = DEFAULT_TIMEOUT, fork: bool = False) -> None:
        self.timeout = timeout
        self.fork = fork
        self._proc: subprocess.Popen[bytes] | None = None

    def _start(self) -> subprocess.Popen[bytes]:
        if self._proc is None or self._proc.poll() is not None:
            env = dict(os.environ, PYTHONHASHSEED="0", PYTHONDONTWRITEBYTECODE="1")
            self._proc = subprocess.Popen(
                [sys.executable, "-I", "-S", "-c", _ZYGOTE],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                env=env,
            )
        return self._proc

    def run(self, files: dict[str, str]) -> RunResult:
        proc = self._start()
        assert proc.stdin is not None and proc.stdout is not None
        try:
            _send(proc.stdin, (files, self.timeout, self.fork))  # type: ignore[arg-type]
            stdout, error, timed_out = _receive(proc.stdout)  # type: ignore[arg-type]
        except (EOFError, BrokenPipeError, OSError) as exc:
            self.close()
            return RunResult("", f"RunnerError: {exc}")
        return RunResult(stdout, error, timed_out)

    def close(self) -> None:
        if self._proc is not None:
            try:
                if self._proc.stdin:
                    self._proc.stdin.close()
                self._proc.wait(timeout=5)
            except (OSError, subprocess.TimeoutExpired):
                self._proc.kill()
                self._proc.wait()
            self._proc = None

    def __enter__(self) -> Runner:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


# The zygote's source: standard library only, started with -I -S so it stays small.
_ZYGOTE = r'''
import io, os, pickle, select, signal, struct, sys, time, traceback
import importlib.abc, importlib.util

def receive(stream):
    head = stream.read(4)
    if len(head) < 4:
        return None
    (size,) = struct.unpack("<I", head)
    return pickle.loads(stream.read(size))

def send(stream, obj):
    data = pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL)
    stream.write(struct.pack("<I", len(data)) + data)
    stream.flush()

class Memory(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def __init__(self, files):
        self.modules = {}
        for path, text in files.items():
            if not path.endswith(".py"):
                continue
            parts = path[:-3].split("/")
            if parts[-1] == "__init__":
                self.modules[".".join(parts[:-1])] = (path, text, True)
            else:
                self.modules[".".join(parts)] = (path, text, False)

    def find_spec(self, name, path=None, target=None):
        entry = self.modules.get(name)
        if entry is None:
            return None
        return importlib.util.spec_from_loader(name, self, origin=entry[0], is_package=entry[2])

    def create_module(self, spec):
        return None

    def exec_module(self, module):
        path, text, _ = self.modules[module.__name__]
        module.__file__ = path
        exec(compile(text, path, "exec"), module.__dict__)

class TimeLimit(BaseException):
    pass

def on_alarm(signum, frame):
    raise TimeLimit()

def execute(files, timeout):
    """Run main.py of files; (stdout, error, timed_out). Leaves no module behind."""
    buffer = io.StringIO()
    saved_stdout, saved_path, saved_modules = sys.stdout, list(sys.meta_path), set(sys.modules)
    saved_recursion = sys.getrecursionlimit()
    sys.stdout = buffer
    error = None
    timed_out = False
    finder = Memory(files)
    try:
        sys.meta_path.insert(0, finder)
        signal.setitimer(signal.ITIMER_REAL, timeout)
        main = files.get("main.py", "")
        namespace = {"__name__": "__main__", "__file__": "main.py", "__builtins__": __builtins__}
        exec(compile(main, "main.py", "exec"), namespace)
    except TimeLimit:
        timed_out = True
    except BaseException as exc:
        error = "%s: %s" % (type(exc).__name__, exc)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        sys.stdout = saved_stdout
        sys.meta_path[:] = saved_path
        sys.setrecursionlimit(saved_recursion)
        for name in set(sys.modules) - saved_modules:
            del sys.modules[name]
    return buffer.getvalue(), error, timed_out

def child(files, out):
    try:
        data = pickle.dumps(execute(files, 3600))
    except Exception as exc:
        data = pickle.dumps(("", "PickleError: %s" % exc, False))
    view = memoryview(data)
    while view:
        written = os.write(out, view)
        view = view[written:]
    os.close(out)

def serve():
    stdin = sys.stdin.buffer
    stdout = sys.stdout.buffer
    while True:
        request = receive(stdin)
        if request is None:
            return
        files, timeout, fork = request
        if not fork:
            try:
                result = execute(files, timeout)
                pickle.dumps(result)
            except Exception as exc:
                result = ("", "RunnerError: %s" % exc, False)
            send(stdout, result)
            continue
        read_end, write_end = os.pipe()
        pid = os.fork()
        if pid == 0:
            os.close(read_end)
            try:
                child(files, write_end)
            finally:
                os._exit(0)
        os.close(write_end)
        chunks = []
        deadline = time.monotonic() + timeout
        timed_out = False
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                timed_out = True
                break
            ready, _, _ = select.select([read_end], [], [], left)
            if not ready:
                continue
            chunk = os.read(read_end, 65536)
            if not chunk:
                break
            chunks.append(chunk)
        os.close(read_end)
        if timed_out:
            os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        if timed_out:
            send(stdout, ("", None, True))
            continue
        try:
            send(stdout, pickle.loads(b"".join(chunks)))
        except Exception as exc:
            send(stdout, ("", "RunnerError: child died (%s)" % exc, False))

signal.signal(signal.SIGALRM, on_alarm)
serve()
'''
