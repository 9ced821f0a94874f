"""``python -m module args...`` started as a fork of this process instead of a new
interpreter: what this process imported already (pytest and reks, about 450 ms of a test
worker's 650 ms of CPU to start) is not imported again.

The child is made to look like the new process it replaces: its own session, stdin from
``/dev/null``, stdout and stderr where asked, no other file descriptor of this process, the
given folder and environment, the import path a new interpreter would build from them, the
bytecode settings that environment asks for, default signal handlers, none of this
process's exit handlers, and the module run as ``__main__``. Whether that is faithful
enough for a given use (no module of the child's project imported here, no interpreter
setting that differs) is the caller's decision (``extreme.fork_safety``).
"""

from __future__ import annotations

import atexit
import contextlib
import gc
import importlib
import os
import runpy
import signal
import subprocess
import sys
import time
import traceback
import warnings
from collections.abc import Mapping, Sequence

STARTUP_PATH = list(sys.path)
"""The import path when the sandbox was first imported (reks imports it early)."""
STARTUP_PYTHONPATH = [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
"""The ``PYTHONPATH`` this interpreter most likely started with (its entries follow the
script's folder in ``STARTUP_PATH``)."""
STARTUP_SETTINGS = {k: v for k, v in os.environ.items() if k.startswith("PYTHON")}
"""The interpreter's settings from the environment, as far as they can still be seen."""
REBUILT_SETTINGS = frozenset({"PYTHONPATH", "PYTHONDONTWRITEBYTECODE", "PYTHONPYCACHEPREFIX"})
"""The settings a fork follows from the environment it is given (``_become_new_process``);
any other that differs needs a new interpreter."""


def base_path() -> list[str] | None:
    """This interpreter's import path from the standard library on: what a new interpreter
    puts after the script's folder and ``PYTHONPATH``; None when ``STARTUP_PATH`` holds
    anything else before it (a folder some code added), since a fork could not tell it
    from what a new interpreter would have."""
    version = f"python{sys.version_info[0]}{sys.version_info[1]}.zip"
    stdlib = next((i for i, p in enumerate(STARTUP_PATH) if p.endswith(os.sep + version)), None)
    if stdlib is None:
        return None
    given = [os.path.abspath(p) for p in STARTUP_PATH[1:stdlib]]
    if given != [os.path.abspath(p) for p in STARTUP_PYTHONPATH]:
        return None
    return STARTUP_PATH[stdlib:]


class ForkedChild:
    """The part of ``subprocess.Popen`` a ``SandboxProcess`` uses, for a forked child."""

    def __init__(self, pid: int, args: Sequence[str]) -> None:
        self.pid = pid
        self.args = list(args)
        self.returncode: int | None = None

    def poll(self) -> int | None:
        if self.returncode is None:
            with contextlib.suppress(ChildProcessError):
                pid, status = os.waitpid(self.pid, os.WNOHANG)
                if pid == 0:
                    return None
                self.returncode = os.waitstatus_to_exitcode(status)
        return self.returncode

    def wait(self, timeout: float | None = None) -> int:
        deadline = None if timeout is None else time.monotonic() + timeout
        while self.poll() is None:
            if deadline is not None and time.monotonic() >= deadline:
                raise subprocess.TimeoutExpired(self.args, timeout or 0.0)
            time.sleep(0.005)
        return self.returncode or 0

    def send_signal(self, signum: int) -> None:
        if self.poll() is None:
            with contextlib.suppress(OSError):
                os.kill(self.pid, signum)


def start_forked(
    args: Sequence[str],
    *,
    cwd: str,
    env: Mapping[str, str],
    stdout: int,
    stderr: int,
    keep_fds: Sequence[int],
    new_session: bool,
) -> ForkedChild:
    """Fork a child that runs ``args`` (``["-m", module, *argv]``) as described above."""
    if len(args) < 2 or args[0] != "-m":
        raise ValueError("a forked start runs a module: ['-m', module, ...]")
    base = base_path()
    if base is None:
        raise ValueError("this interpreter's import path cannot be rebuilt in a fork")
    # Garbage is freed before the fork, while every descriptor is still this process's;
    # what is left is frozen across it: the child's collector never walks (and so never
    # copies) this process's heap, and no object of it ever closes a number the child
    # reuses. This process's collector goes on as before.
    gc.collect()
    gc.freeze()
    pid = os.fork()
    if pid:
        gc.unfreeze()
        return ForkedChild(pid, args)
    try:  # the child: it never returns from here
        _become_new_process(cwd, env, stdout, stderr, keep_fds, new_session, base)
        sys.argv = [args[1], *args[2:]]
        runpy.run_module(args[1], run_name="__main__", alter_sys=True)
        status = 0
    except SystemExit as exc:
        status = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    except BaseException:
        with contextlib.suppress(Exception):
            traceback.print_exc()
        status = 1
    with contextlib.suppress(Exception):
        sys.stdout.flush()
        sys.stderr.flush()
    os._exit(status)


def _become_new_process(
    cwd: str,
    env: Mapping[str, str],
    stdout: int,
    stderr: int,
    keep_fds: Sequence[int],
    new_session: bool,
    base: list[str],
) -> None:
    if new_session:
        os.setsid()
    atexit._clear()  # this process's exit handlers are not the child's
    for signum in signal.valid_signals():
        with contextlib.suppress(OSError, ValueError, TypeError):
            handler = signal.getsignal(signum)
            if callable(handler) and handler is not signal.default_int_handler:
                signal.signal(signum, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    null = os.open(os.devnull, os.O_RDWR)
    os.dup2(null, 0)
    os.dup2(stdout if stdout >= 0 else null, 1)
    os.dup2(stderr, 2)
    keep = sorted({0, 1, 2, *keep_fds})
    for low, high in zip(keep, [*keep[1:], os.sysconf("SC_OPEN_MAX")], strict=True):
        os.closerange(low + 1, high)
    sys.stdin = open(0, closefd=False)  # noqa: SIM115 - the process's own
    sys.stdout = open(1, "w", closefd=False)  # noqa: SIM115
    sys.stderr = open(2, "w", closefd=False, errors="backslashreplace")  # noqa: SIM115
    os.chdir(cwd)
    os.environ.clear()
    os.environ.update(env)
    pythonpath = [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p]
    sys.path[:] = [os.getcwd(), *pythonpath, *base]  # what ``python -m`` in ``cwd`` gets
    sys.dont_write_bytecode = bool(env.get("PYTHONDONTWRITEBYTECODE"))
    sys.pycache_prefix = env.get("PYTHONPYCACHEPREFIX") or None
    importlib.invalidate_caches()
    _default_warning_filters()


def _default_warning_filters() -> None:
    """The warning filters a new interpreter starts with (no ``-W``, no
    ``PYTHONWARNINGS``, not in development mode: the caller checks): reks's process
    changed its own (``cli`` ignores ``SyntaxWarning``), which a test could tell."""
    warnings.resetwarnings()
    warnings.filterwarnings("default", category=DeprecationWarning, module="__main__")
    for category in (DeprecationWarning, PendingDeprecationWarning, ImportWarning, ResourceWarning):
        warnings.simplefilter("ignore", category, append=True)
