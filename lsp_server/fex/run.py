"""Generating a suite for a class of a project, importing its code in the project's
interpreter (the CLI and the editor call ``generate_for_project``)."""

from __future__ import annotations

import json
import os
import subprocess
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

import lsp_server
from lsp_server.fex import emit, heap, korat
from lsp_server.fex.model import INVARIANT_NAME, FexError, Model
from lsp_server.fex.suite import Suite
from lsp_server.fex.worker import PROGRESS
from lsp_server.jobs import Cancelled, Job
from lsp_server.project import Project
from lsp_server.project.text import write_atomic


@dataclass(frozen=True)
class Request:
    """What to generate: ``target`` is ``module:Class`` or ``path/to/file.py:Class``."""

    target: str
    scope: int
    route: str = "auto"
    methods: tuple[str, ...] = ()
    budget: int = korat.DEFAULT_BUDGET
    seconds: float | None = None


def module_name(root: Path, module: str) -> str:
    """``pkg/mod.py`` or ``src/pkg/mod.py`` (relative to root or absolute) -> ``pkg.mod``."""
    if not module.endswith(".py"):
        return module
    path = Path(module)
    path = path.resolve().relative_to(root) if path.is_absolute() else path
    parts = list(path.with_suffix("").parts)
    if parts and parts[0] == "src" and (root / "src").is_dir():
        parts = parts[1:]
    if parts and parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def _environment(root: Path) -> dict[str, str]:
    env = dict(os.environ)
    paths = [str(root), str(Path(lsp_server.__file__).resolve().parent.parent)]
    if (root / "src").is_dir():
        paths.insert(0, str(root / "src"))
    env["PYTHONPATH"] = os.pathsep.join([*paths, *filter(None, [env.get("PYTHONPATH")])])
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    return env


def _forward_progress(stream: IO[str], job: Job, tail: list[str]) -> None:
    for line in stream:
        if line.startswith(PROGRESS):
            _, done, total, *message = line.rstrip("\n").split(" ", 3)
            job.report(int(done), None if total == "-" else int(total), " ".join(message))
        else:
            tail.append(line)
            del tail[:-40]


def _call_worker(project: Project, request: dict[str, Any], job: Job) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="reks-fex-") as scratch:
        request = {**request, "result": os.path.join(scratch, "result.json")}
        process = subprocess.Popen(
            [project.python, "-m", "lsp_server.fex.worker"],
            cwd=project.root,
            env=_environment(project.root),
            stdin=subprocess.PIPE,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        assert process.stdin is not None and process.stderr is not None
        tail: list[str] = []
        reader = threading.Thread(
            target=_forward_progress, args=(process.stderr, job, tail), daemon=True
        )
        reader.start()
        process.stdin.write(json.dumps(request))
        process.stdin.close()
        while process.poll() is None:
            if job.cancelled:
                process.kill()
                process.wait()
                raise Cancelled()
            time.sleep(0.05)
        reader.join(timeout=5)
        if not os.path.exists(request["result"]):
            raise FexError(f"the generation process failed:\n{''.join(tail)}")
        with open(request["result"], encoding="utf-8") as answer:
            data: dict[str, Any] = json.load(answer)
            return data


def generate_for_project(
    root: str | Path, request: Request, job: Job | None = None, python: str | None = None
) -> Suite:
    """The suite for ``request.target`` of the project at ``root``; raises ``FexError`` with
    the reason (no rep_ok, an invariant that raises, a scope too large, ...) and
    ``Cancelled`` when the job is cancelled."""
    job = job or Job()
    project = Project.at(root, python)
    module, _, cls = request.target.rpartition(":")
    if not module or not cls:
        raise FexError(f"expected MODULE:CLASS, got {request.target!r}")
    config = project.config.section("fex")
    payload: dict[str, Any] = {
        "module": module_name(project.root, module),
        "cls": cls,
        "scope": request.scope,
        "route": request.route,
        "methods": list(request.methods),
        "invariant": str(config.get("invariant", INVARIANT_NAME)),
        "budget": int(config.get("budget", request.budget)),
        "seconds_budget": request.seconds,
    }
    answer = _call_worker(project, payload, job)
    if "need_sat" in answer:
        from lsp_server.fex import sat

        solved = sat.solve(Model.from_json(answer["need_sat"]), job)
        payload.update(
            instances=[heap.instance_to_json(i) for i in solved.selected],
            feasible=len(solved.feasible),
            seconds=solved.seconds,
            stats={
                "solver_calls": solved.solver_calls,
                "criterion_inputs": solved.criterion_inputs,
                "infeasible": len(solved.infeasible),
            },
        )
        answer = _call_worker(project, payload, job)
    if "error" in answer:
        raise FexError(answer["error"])
    return Suite.from_json(answer["suite"])


def write_suite(suite: Suite, out: str | Path) -> Path:
    """Write the pytest module; returns its path."""
    path = Path(out)
    write_atomic(str(path), emit.to_pytest(suite))
    return path


def summary(suite: Suite) -> str:
    return (
        f"{suite.cls} scope {suite.model.scope} ({suite.route}): {len(suite.instances)} inputs "
        f"cover {suite.feasible} feasible field values (bound #F*n^2 = {suite.size_bound}) "
        f"in {suite.seconds:.3f}s"
    )
