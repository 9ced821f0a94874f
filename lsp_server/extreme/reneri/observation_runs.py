"""The parent side of a Reneri run: one pytest process per transformation.

The process collects the covering tests once and forks every run from there (see
``plugin``); this module starts it as a ``lsp_server.sandbox`` process in the interpreter
it is given, sends it the configuration, bounds its time, and collects what the runs
observed, one frame per run. Nothing on disk is modified: the code is swapped in memory,
pytest's cache is disabled, and pytest's temporary files live in a directory of our own.
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lsp_server.extreme.model import Transformation
from lsp_server.jobs import Cancelled, Job
from lsp_server.sandbox import ChannelError, ChannelTimeout, SandboxProcess

from . import plugin

COLLECTION_BUDGET = 120.0
"""Seconds allowed for starting Python and collecting the tests."""

_LOG_TAIL = 4000


@dataclass
class Observations:
    """What the runs of both sides observed, and how the tests are instrumented."""

    meta: dict[str, Any] = field(default_factory=dict)
    original: list[dict[str, Any]] = field(default_factory=list)
    transformed: list[dict[str, Any]] = field(default_factory=list)
    failed_runs: list[str] = field(default_factory=list)  # "original-3: timeout", ...
    error: str = ""
    log: str = ""


def run_observations(
    root: Path,
    transformation: Transformation,
    tests: Sequence[str],
    *,
    runs: int,
    timeout: float,
    python: str | None = None,
    job: Job | None = None,
) -> Observations:
    """Run ``tests`` ``runs`` times on each side of ``transformation`` and observe them,
    in ``python`` (default: this interpreter).

    Raises ``Cancelled`` (after killing the process and its runs) when ``job`` is."""
    if runs < 1:
        raise ValueError("runs must be at least 1")
    if not tests:
        return Observations(error="no covering tests")
    config = {
        "file": str((root / transformation.path).resolve()),
        "qualname": transformation.function,
        "line": transformation.line,
        "body": transformation.body,
        "runs": runs,
        "timeout": timeout,
    }
    with tempfile.TemporaryDirectory(prefix="reks-reneri-") as scratch:
        args = [
            "-m",
            "pytest",
            "-p",
            plugin.__name__,
            "-p",
            "no:cacheprovider",
            "-p",
            "no:randomly",
            "-p",
            "no:xdist",
            "-o",
            "addopts=",
            "-q",
            f"--basetemp={Path(scratch, 'basetemp')}",
            *tests,
        ]
        with SandboxProcess(
            python or sys.executable,
            args,
            cwd=root,
            env=_environment(root),
            new_session=True,  # so that a kill reaches the forked runs too
        ) as process:
            process.send(config)
            observations = _collect(process, COLLECTION_BUDGET + 2 * runs * timeout, job)
            observations.log = process.log_tail(_LOG_TAIL)
        return observations


def _collect(process: SandboxProcess, budget: float, job: Job | None) -> Observations:
    """Read one frame per run, then the metadata; the process is killed on timeout or
    cancellation, and one that ends early did not finish."""
    deadline = time.monotonic() + budget
    observations = Observations()
    while True:
        cancelled = job is not None and job.cancelled
        left = deadline - time.monotonic()
        if cancelled or left <= 0:
            process.kill()
            if cancelled:
                raise Cancelled()
            return Observations(error="the test subprocess did not finish")
        try:
            message = process.receive(timeout=min(0.1, left))
        except ChannelTimeout:
            continue
        except ChannelError:
            return Observations(error="the test subprocess did not finish")
        if "meta" not in message:
            side, number, outcome = message["side"], message["number"], message["outcome"]
            if outcome == "ok":
                getattr(observations, side).append(message["records"])
            else:
                observations.failed_runs.append(f"{side}-{number}: {outcome}")
            continue
        observations.meta = message["meta"]
        observations.error = observations.meta.get("error") or ""
        return observations


def _environment(root: Path) -> dict[str, str]:
    env = dict(os.environ)
    # The same hash seed on both sides: set iteration order must not differ for no reason.
    env["PYTHONHASHSEED"] = "0"
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    if (root / "src").is_dir():
        # An uninstalled src-layout project imports from src/ (harmless when installed).
        src = str((root / "src").resolve())
        env["PYTHONPATH"] = os.pathsep.join([src, *filter(None, [env.get("PYTHONPATH")])])
    return env
