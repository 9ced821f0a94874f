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

from lsp_server.sandbox.process import PACKAGE_PARENT, SandboxProcess

IN_PROCESS_ENV = "REKS_ROPE_IN_PROCESS"
"""Set to 1, the server runs rope on a thread of its own process (benchmarks compare)."""

_early: SandboxProcess | None = None


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


def take_early() -> SandboxProcess | None:
    """The worker ``start_early`` started, once; None when there is none."""
    global _early
    taken, _early = _early, None
    return taken
