"""The requests of an analysis's transformations and running them on the workers."""

from __future__ import annotations

from typing import Any

from lsp_server.extreme.discover import FunctionInfo
from lsp_server.extreme.model import Transformation, TransformationResult, Verdict
from lsp_server.extreme.runners import Runner
from lsp_server.jobs import Job


def run_request(
    ident: int, function: FunctionInfo, body: str, tests: list[str], timeout: float
) -> dict[str, Any]:
    """A worker's request to run one transformation."""
    return {
        "op": "run",
        "id": ident,
        "path": function.path,
        "function": function.qualname,
        "line": function.line,
        "first_line": function.first_line,
        "body": body,
        "tests": tests,
        "timeout": timeout,
    }


def run_planned(
    run_all: Runner, planned: dict[int, tuple[Transformation, dict[str, Any]]], job: Job
) -> list[TransformationResult]:
    """Run every planned transformation on the workers; the results in planned order."""
    done: dict[int, TransformationResult] = {}
    job.report(0, len(planned), "running transformations")
    for reply in run_all([request for _, request in planned.values()], job):
        t = planned[reply["id"]][0]
        done[reply["id"]] = TransformationResult(
            transformation=t,
            verdict=Verdict(reply["verdict"]),
            tests=list(reply.get("tests", [])),
            reason=reply.get("reason", ""),
            detected_by=reply.get("detected_by"),
            duration=float(reply.get("duration", 0.0)),
            units=reply.get("units"),
        )
        job.report(len(done), len(planned), f"{t.function}: {t.body}")
    return [done[ident] for ident in sorted(done)]
