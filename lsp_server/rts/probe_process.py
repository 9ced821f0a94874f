"""A probe run in a fresh process of the interpreter that runs the tests: what an installed
library does once imported (``rts.library_imports``) or binds (``rts.library_names``),
seen where no module of this process can change it."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Mapping

PROBE_SECONDS = 60.0


def probe_answer(script: str, spec: Mapping[str, object], cwd: str | None = None) -> object | None:
    """The JSON value the last line ``script`` prints, run with ``spec`` (as JSON) for its
    argument; None when it failed, printed nothing or printed no JSON."""
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
