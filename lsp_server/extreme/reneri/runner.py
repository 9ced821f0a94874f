"""The parent side of a Reneri run: one pytest subprocess per transformation.

The subprocess collects the covering tests once and forks every run from there (see
``plugin``); this module starts it, bounds its time, and reads back what the runs wrote.
Nothing on disk is modified: the code is swapped in memory, pytest's cache is disabled,
and temporary files live in a directory of our own.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import lsp_server
from lsp_server.extreme.model import Transformation
from lsp_server.jobs import Cancelled, Job

from . import plugin

COLLECTION_BUDGET = 120.0
"""Seconds allowed for starting Python and collecting the tests."""


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
    """Run ``tests`` ``runs`` times on each side of ``transformation`` and observe them.

    Raises ``Cancelled`` (after killing the subprocess and its runs) when ``job`` is."""
    if runs < 1:
        raise ValueError("runs must be at least 1")
    if not tests:
        return Observations(error="no covering tests")
    with tempfile.TemporaryDirectory(prefix="reks-reneri-") as scratch:
        output = Path(scratch, "out")
        output.mkdir()
        config = {
            "file": str((root / transformation.path).resolve()),
            "qualname": transformation.function,
            "line": transformation.line,
            "body": transformation.body,
            "runs": runs,
            "timeout": timeout,
            "output": str(output),
        }
        config_path = Path(scratch, "config.json")
        config_path.write_text(json.dumps(config), encoding="utf-8")
        command = [
            python or sys.executable,
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
        log_path = Path(scratch, "log.txt")
        budget = COLLECTION_BUDGET + 2 * runs * timeout
        with log_path.open("wb") as log:
            process = subprocess.Popen(
                command,
                cwd=root,
                env=_environment(config_path, root),
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,  # so that a kill reaches the forked runs too
            )
            _wait(process, budget, job)
        log_text = log_path.read_text(encoding="utf-8", errors="replace")[-4000:]
        return _read(output, log_text)


def _wait(process: subprocess.Popen[bytes], budget: float, job: Job | None) -> None:
    """Wait for the subprocess; kill its whole session on timeout or cancellation."""
    deadline = time.monotonic() + budget
    while True:
        try:
            process.wait(timeout=0.1)
            return
        except subprocess.TimeoutExpired:
            pass
        cancelled = job is not None and job.cancelled
        if cancelled or time.monotonic() > deadline:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)
            process.wait()
            if cancelled:
                raise Cancelled()
            return


def _environment(config_path: Path, root: Path) -> dict[str, str]:
    env = dict(os.environ)
    env[plugin.CONFIG_ENV] = str(config_path)
    # The same hash seed on both sides: set iteration order must not differ for no reason.
    env["PYTHONHASHSEED"] = "0"
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    package_parent = str(Path(lsp_server.__file__).resolve().parent.parent)
    paths = [package_parent]
    if (root / "src").is_dir():
        # An uninstalled src-layout project imports from src/ (harmless when installed).
        paths.insert(0, str((root / "src").resolve()))
    env["PYTHONPATH"] = os.pathsep.join([*paths, *filter(None, [env.get("PYTHONPATH")])])
    return env


def _read(output: Path, log: str) -> Observations:
    meta_path = output / "meta.json"
    if not meta_path.exists():
        return Observations(error="the test subprocess did not finish", log=log)
    meta = json.loads(meta_path.read_text(encoding="utf-8"))
    observations = Observations(meta=meta, log=log, error=meta.get("error") or "")
    for side, runs in meta.get("runs", {}).items():
        for number, name in enumerate(runs):
            if name.startswith("!"):
                observations.failed_runs.append(f"{side}-{number}: {name[1:]}")
                continue
            data = json.loads((output / name).read_text(encoding="utf-8"))
            getattr(observations, side).append(data)
    return observations
