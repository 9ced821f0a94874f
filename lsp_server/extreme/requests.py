"""The requests of an analysis's transformations and running them on the workers."""

from __future__ import annotations

from typing import Any

from lsp_server.extreme.discover import FunctionInfo
from lsp_server.extreme.model import Transformation, TransformationResult, Verdict
from lsp_server.extreme.runners import Runner
from lsp_server.jobs import Job


def deadlines(
    tests: list[str],
    durations: dict[str, float],
    setup: float,
    base: float,
    factor: float,
    timeout: float,
) -> list[float]:
    """Per test, seconds from the start of a transformation's run by which it must have
    finished: ``factor`` times what the tests up to it took on the original code, plus the
    longest of them (the fixture set-up a test ran first in its module paid there may fall
    to an earlier test here), the first test's set-up and ``base``; never beyond
    ``timeout``. A run that hangs in its first, fast test is stopped after that test's
    share instead of the whole ``timeout``."""
    longest = max((durations.get(t, 0.0) for t in tests), default=0.0)
    out: list[float] = []
    elapsed = setup + longest
    for test in tests:
        elapsed += durations.get(test, 0.0)
        out.append(min(timeout, base + factor * elapsed))
    return out


def first_detector(tests: list[str], detected_by: str | None) -> list[str]:
    """``tests`` with the one that detected the transformation last time first: a detection
    is one failing test, whichever order they run in, so it comes at once again."""
    if detected_by is None or detected_by not in tests:
        return tests
    return [detected_by, *(t for t in tests if t != detected_by)]


def run_request(
    ident: int,
    function: FunctionInfo,
    body: str,
    tests: list[str],
    timeout: float,
    test_deadlines: list[float] | None = None,
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
        "deadlines": test_deadlines or [],
    }


def entry_request(
    ident: int,
    function: FunctionInfo,
    body: str,
    entry: dict[str, Any],
    detected_by: str | None,
    timing: tuple[float, float],
) -> dict[str, Any]:
    """The request of ``body`` with the covering tests, their durations and the timeout of
    the function's state ``entry``; ``timing``: the analysis's base and factor."""
    tests = first_detector(list(entry["tests"]), detected_by)
    durations = dict(zip(entry["tests"], entry.get("durations", []), strict=False))
    timeout = float(entry["timeout"])
    per_test = None
    if len(durations) == len(tests):  # else remembered by an older reks: one timeout
        base, factor = timing
        per_test = deadlines(tests, durations, float(entry.get("setup", 0)), base, factor, timeout)
    return run_request(ident, function, body, tests, timeout, per_test)


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
