"""The first rope worker, started before the language server imports its own code.

``reks serve`` calls ``start_early`` first thing: the worker imports rope and the
refactoring operations while the server imports pygls and lsprotocol, so on two cores the
two halves of the start overlap instead of adding up (process start to the first rename,
issue 15). ``ProcessEngine`` takes it (``take_early``) as its spare; a worker nobody takes
ends at its end of input when the server exits.
"""

from __future__ import annotations

import os
import sys
import threading

from lsp_server.sandbox.process import PACKAGE_PARENT, SandboxProcess
from lsp_server.sandbox.wire import ChannelError

IN_PROCESS_ENV = "REKS_ROPE_IN_PROCESS"
"""Set to 1, the server runs rope on a thread of its own process (benchmarks compare)."""

_early: SandboxProcess | None = None
_early_root: str | None = None
_lock = threading.Lock()


def start_worker() -> SandboxProcess:
    """A rope worker process, not yet bound to a root (its first message names it). It
    runs in the folder that holds ``lsp_server``: ``-m`` puts the working directory first
    on the path, and the server's (a workspace folder) may hold modules named like the
    standard library's."""
    return SandboxProcess(
        sys.executable,
        ["-m", "lsp_server.refactor.rope_process"],
        cwd=PACKAGE_PARENT,
        new_session=True,
    )


def start_early() -> None:
    """Start the spare worker now (once; never when rope runs in the server's process)."""
    global _early
    if _early is None and os.environ.get(IN_PROCESS_ENV) != "1":
        _early = start_worker()


def bind_early(root: str) -> None:
    """Tell the early worker its root now (``{"root": path}``, its first message), before
    the server has imported its code: it opens the project and reads its files while the
    server starts (``lsp.first_message`` finds the root in the client's ``initialize``)."""
    global _early_root
    with _lock:
        if _early is None or _early_root is not None:
            return
        try:
            _early.send({"root": root})
        except ChannelError:
            return  # dead already: whoever takes it starts another
        _early_root = root


def take_early() -> tuple[SandboxProcess | None, str | None]:
    """The worker ``start_early`` started and the root it was told (None: none yet),
    once; (None, None) when there is none."""
    global _early, _early_root
    with _lock:
        taken, _early = _early, None
        root, _early_root = _early_root, None
    return taken, root
