"""Factor one test: capture it across a boundary, emit the factored test, check it.

``factor_test`` is the entry point for the CLI and the editor ("Factor this test"): it runs
the system test once plainly (its time) and once under capture, writes the transcript and the
factored test, runs the factored test once (it must pass: a divergence on unchanged code
means T is non-deterministic or the capture is incomplete), and keeps the factored test only
when its replay is faster than the system test.
"""

from __future__ import annotations

import os
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from lsp_server.factoring import emit, transcript
from lsp_server.factoring.runner import RunError, run_pytest
from lsp_server.jobs import Job
from lsp_server.project import Project


@dataclass
class FactorResult:
    """What factoring one test with one boundary gave."""

    test: str
    boundaries: list[str]
    status: str = "refused"
    """``factored``, or ``refused`` (``reason`` says why)."""
    reason: str = ""
    factored_test: str | None = None
    """Node id of the factored test."""
    transcript: str | None = None
    calls: int = 0
    transcript_bytes: int = 0
    system_s: float = 0.0
    capture_s: float = 0.0
    replay_s: float = 0.0
    divergence: str | None = None
    details: dict[str, Any] = field(default_factory=dict)

    @property
    def speedup(self) -> float:
        return self.system_s / self.replay_s if self.replay_s > 0 else 0.0

    def to_json(self) -> dict[str, Any]:
        return {**asdict(self), "speedup": round(self.speedup, 2)}


def factor_test(
    root: str | Path,
    nodeid: str,
    boundaries: list[str],
    job: Job | None = None,
    python: str | None = None,
    keep_slower: bool = False,
) -> FactorResult:
    """Factor ``nodeid`` with ``boundaries`` (module or class names) as E."""
    job = job or Job()
    project = Project.at(root, python)
    result = FactorResult(nodeid, list(boundaries))
    try:
        return _factor(project, result, job, keep_slower)
    except RunError as exc:
        result.reason = f"pytest did not run: {exc}"
        return result


def _factor(project: Project, result: FactorResult, job: Job, keep_slower: bool) -> FactorResult:
    nodeid = result.test
    job.report(0, 4, f"running {nodeid}")
    plain = run_pytest(project, [nodeid], {"time": True}, job)["tests"].get(nodeid)
    if plain is None or plain["outcome"] != "passed":
        result.reason = (
            f"the system test does not pass ({(plain or {}).get('outcome', 'not found')})"
        )
        return result
    result.system_s = plain["duration_s"]
    job.report(1, 4, f"capturing {nodeid} across {', '.join(result.boundaries)}")
    captured = run_pytest(
        project, [nodeid], {"capture": True, "test": nodeid, "boundaries": result.boundaries}, job
    )
    summary = captured.get("capture") or {}
    result.capture_s = captured["tests"].get(nodeid, {}).get("duration_s", 0.0)
    if captured["tests"].get(nodeid, {}).get("outcome") != "passed":
        result.reason = "the system test failed under capture: " + captured["tests"].get(
            nodeid, {}
        ).get("message", "")
        return result
    if summary.get("refusal"):
        result.reason = f"boundary refused: {summary['refusal']}"
        return result
    data = summary["transcript"]
    result.calls = len(data["events"])
    if not data["events"]:
        result.reason = (
            f"the test never calls into {', '.join(result.boundaries)}: nothing to factor"
        )
        return result
    job.report(2, 4, "writing the factored test")
    files = _write(project, nodeid, summary, data, result)
    if files is None:
        return result
    job.report(3, 4, "checking the factored test")
    return _verify(project, files, result, keep_slower, job)


def _write(
    project: Project,
    nodeid: str,
    summary: dict[str, Any],
    data: dict[str, Any],
    result: FactorResult,
) -> emit.FactoredFiles | None:
    shape = summary["test"]
    files = emit.paths_for(Path(shape["file"]), shape)
    try:
        text = emit.render(nodeid, shape, files, result.boundaries, result.calls)
    except emit.EmitError as exc:
        result.reason = str(exc)
        return None
    data["root"] = os.path.relpath(project.root, files.transcript.parent)
    transcript.save(files.transcript, data)
    from lsp_server.project.text import write_atomic

    write_atomic(files.test, text)
    result.transcript = project.rel(files.transcript) or str(files.transcript)
    result.transcript_bytes = files.transcript.stat().st_size
    test_rel = project.rel(files.test) or str(files.test)
    result.factored_test = f"{test_rel}::{emit.factored_function(shape)}"
    return files


def _verify(
    project: Project, files: emit.FactoredFiles, result: FactorResult, keep_slower: bool, job: Job
) -> FactorResult:
    assert result.factored_test is not None
    replayed = run_pytest(project, [result.factored_test], {"time": True}, job)
    entry = replayed["tests"].get(result.factored_test, {})
    result.replay_s = entry.get("duration_s", 0.0)
    result.details["replayed_calls"] = entry.get("replayed_calls", 0)
    if entry.get("outcome") != "passed":
        result.divergence = entry.get("divergence")
        why = result.divergence or entry.get("message", "") or "not collected"
        result.reason = (
            f"the factored test does not pass on unchanged code (non-deterministic T?): {why}"
        )
        _remove(files)
        result.factored_test = result.transcript = None
        return result
    if result.replay_s >= result.system_s and not keep_slower:
        result.reason = (
            f"replay is not faster: the system test takes {result.system_s * 1000:.1f} ms, "
            f"its replay {result.replay_s * 1000:.1f} ms ({result.calls} recorded calls): "
            "E is cheaper than the bookkeeping"
        )
        _remove(files)
        result.factored_test = result.transcript = None
        return result
    result.status = "factored"
    return result


def _remove(files: emit.FactoredFiles) -> None:
    for path in (files.test, files.transcript):
        path.unlink(missing_ok=True)
