"""The zygote of ``program_runner``: runs generated programs on request, in itself or in a
forked child (``lsp_server.sandbox.Forker``).

Started with ``-I -S``, it imports only the standard library and the sandbox and never
starts threads, so forking it is safe. A program's modules are served from memory (a meta
path finder), ``main.py`` runs as ``__main__`` with stdout captured, and the reply is
``[stdout, "ExceptionType: message" or None, timed_out]``.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import importlib.util
import io
import signal
import sys
import types
from typing import Any

from lsp_server.sandbox import TIMEOUT, ChannelClosed, Forker, inherited_channel

Reply = list[Any]


class _Memory(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Imports the program's modules from ``files`` (path -> text)."""

    def __init__(self, files: dict[str, str]) -> None:
        self.modules: dict[str, tuple[str, str, bool]] = {}
        for path, text in files.items():
            if not path.endswith(".py"):
                continue
            parts = path[:-3].split("/")
            if parts[-1] == "__init__":
                self.modules[".".join(parts[:-1])] = (path, text, True)
            else:
                self.modules[".".join(parts)] = (path, text, False)

    def find_spec(
        self, name: str, path: Any = None, target: Any = None
    ) -> importlib.machinery.ModuleSpec | None:
        entry = self.modules.get(name)
        if entry is None:
            return None
        return importlib.util.spec_from_loader(name, self, origin=entry[0], is_package=entry[2])

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> None:
        return None

    def exec_module(self, module: types.ModuleType) -> None:
        path, text, _ = self.modules[module.__name__]
        module.__file__ = path
        exec(compile(text, path, "exec"), module.__dict__)


class _TimeLimit(BaseException):
    pass


def _on_alarm(signum: int, frame: object) -> None:
    raise _TimeLimit()


def execute(files: dict[str, str], timeout: float) -> Reply:
    """Run main.py of ``files`` here; leaves no module of the program behind."""
    buffer = io.StringIO()
    saved_stdout, saved_path, saved_modules = sys.stdout, list(sys.meta_path), set(sys.modules)
    saved_recursion = sys.getrecursionlimit()
    sys.stdout = buffer
    error = None
    timed_out = False
    try:
        sys.meta_path.insert(0, _Memory(files))
        signal.setitimer(signal.ITIMER_REAL, timeout)
        namespace = {"__name__": "__main__", "__file__": "main.py", "__builtins__": __builtins__}
        exec(compile(files.get("main.py", ""), "main.py", "exec"), namespace)
    except _TimeLimit:
        timed_out = True
    except BaseException as exc:
        error = f"{type(exc).__name__}: {exc}"
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        sys.stdout = saved_stdout
        sys.meta_path[:] = saved_path
        sys.setrecursionlimit(saved_recursion)
        for name in set(sys.modules) - saved_modules:
            del sys.modules[name]
    return [buffer.getvalue(), error, timed_out]


def _forked(forker: Forker, files: dict[str, str], timeout: float) -> Reply:
    outcome = forker.run(lambda: execute(files, 3600), timeout)
    if outcome.ok:
        reply: Reply = outcome.value
        return reply
    if outcome.status == TIMEOUT:
        return ["", None, True]
    return ["", f"RunnerError: child died ({outcome.detail})", False]


def serve() -> None:
    """Answer requests ``[files, timeout, fork]`` until the runner closes the channel."""
    channel = inherited_channel()
    if channel is None:
        raise SystemExit("the program zygote runs only inside a reks sandbox process")
    signal.signal(signal.SIGALRM, _on_alarm)
    forker = Forker()
    while True:
        try:
            files, timeout, fork = channel.receive()
        except ChannelClosed:
            return
        if fork:
            reply = _forked(forker, files, timeout)
        else:
            try:
                reply = execute(files, timeout)
            except Exception as exc:
                reply = ["", f"RunnerError: {exc}", False]
        channel.send(reply)
