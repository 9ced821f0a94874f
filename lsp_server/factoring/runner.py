"""Run pytest in the project's interpreter with the factoring plugin, and read what it wrote."""

from __future__ import annotations

import json
import os
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

import lsp_server
from lsp_server.factoring.plugin import REQUEST_OPTION
from lsp_server.jobs import Job
from lsp_server.project import Project

PLUGIN = "lsp_server.factoring.plugin"
SESSION_GUARD = "lsp_server.factoring.session_guard"
"""Puts back the project files the run's session wrote (its ``addopts`` reports)."""


class RunError(RuntimeError):
    """pytest did not run to the end (the message holds its output)."""


def environment(root: Path) -> dict[str, str]:
    env = dict(os.environ)
    paths = [str(Path(lsp_server.__file__).resolve().parent.parent)]
    if (root / "src").is_dir():
        paths.insert(0, str((root / "src").resolve()))
    env["PYTHONPATH"] = os.pathsep.join([*paths, *filter(None, [env.get("PYTHONPATH")])])
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    return env


def run_pytest(
    project: Project, nodeids: list[str], request: dict[str, Any], job: Job | None = None
) -> dict[str, Any]:
    """Run ``nodeids`` under the plugin with ``request`` (``capture``, ``profile``, ...); the
    plugin's output: ``{"tests": {nodeid: {"outcome", "duration_s", ...}}, ...}``."""
    job = job or Job()
    with tempfile.TemporaryDirectory(prefix="reks-factoring-") as scratch:
        request_path = Path(scratch) / "request.json"
        output = Path(scratch) / "output.json"
        request_path.write_text(
            json.dumps({**request, "root": str(project.root), "output": str(output)}),
            encoding="utf-8",
        )
        env = environment(project.root)
        command = [
            project.python, "-m", "pytest", "-p", PLUGIN, "-p", SESSION_GUARD,
            "-p", "no:cacheprovider",
            "-p", "no:randomly", "-q", "--rootdir", str(project.root),
            f"{REQUEST_OPTION}={request_path}", *nodeids,
        ]  # fmt: skip
        log = Path(scratch) / "log.txt"
        with log.open("wb") as sink:
            process = subprocess.Popen(
                command, cwd=project.root, env=env, stdout=sink, stderr=subprocess.STDOUT
            )
            _wait(process, job)
        if not output.exists():
            text = log.read_text(encoding="utf-8", errors="replace")
            raise RunError(f"pytest wrote no results (exit {process.returncode}):\n{text[-3000:]}")
        result: dict[str, Any] = json.loads(output.read_text(encoding="utf-8"))
        result["log"] = log.read_text(encoding="utf-8", errors="replace")[-4000:]
        return result


def _wait(process: subprocess.Popen, job: Job) -> None:
    """Wait for pytest, killing it when the job is cancelled."""
    while process.poll() is None:
        if job.cancelled:
            process.kill()
            process.wait()
            job.check()
        time.sleep(0.02)
