"""A probe run in a fresh process of the interpreter that runs the tests: what an installed
library does once imported (``rts.library_imports``) or binds (``rts.library_names``),
seen where no module of this process can change it.

The probe is this interpreter on this process's import path: right in a test session, not
in the language server when the project's tests run in another environment (the server's
libraries, or none of the project's). There ``probing_for`` turns probes off, and what one
would prove stays unproved (a name of a library counts as a statement that may raise).
What a probe proved is kept per mode (``probing``): an analysis made without probes is
never taken for one made with them, nor the other way."""

from __future__ import annotations

import contextlib
import json
import subprocess
import sys
from collections.abc import Iterator, Mapping
from contextvars import ContextVar

from lsp_server.project.interpreter import is_this_interpreter

PROBE_SECONDS = 60.0
# Per thread: the server reads the status of each project on a thread of its own.
_PROBING: ContextVar[bool] = ContextVar("reks_probing", default=True)


def probing() -> bool:
    """Whether probes run (in a test session, or where the tests run in this interpreter)."""
    return _PROBING.get()


@contextlib.contextmanager
def probing_for(python: str) -> Iterator[None]:
    """Probes on while the body runs only when ``python``, the interpreter the project's
    tests run in, is this one."""
    token = _PROBING.set(is_this_interpreter(python))
    try:
        yield
    finally:
        _PROBING.reset(token)


def probe_answer(script: str, spec: Mapping[str, object], cwd: str | None = None) -> object | None:
    """The JSON value the last line ``script`` prints, run with ``spec`` (as JSON) for its
    argument; None when it failed, printed nothing or printed no JSON, or probes are off."""
    if not probing():
        return None
    try:
        done = subprocess.run(
            [sys.executable, "-c", script, json.dumps(spec)],
            cwd=cwd,
            capture_output=True,
            text=True,
            timeout=PROBE_SECONDS,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    lines = done.stdout.strip().splitlines()
    if done.returncode != 0 or not lines:
        return None
    try:
        return json.loads(lines[-1])
    except ValueError:
        return None
