"""The requests of an analysis's transformations and running them on the workers."""

from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping
from itertools import chain
from typing import Any

from lsp_server.extreme.discover import FunctionInfo
from lsp_server.extreme.model import Transformation, TransformationResult, Verdict
from lsp_server.extreme.runners import Runner
from lsp_server.extreme.test_order import (
    DetectingTests,
    deadlines,
    first_detector,
    taking_turns,
)
from lsp_server.jobs import Job
from lsp_server.rts.setup_clock import SHARED_SCOPES, scope_node

SharedSetups = dict[tuple[str, str], float]
"""(scope, node) -> the longest set-up a shared fixture instance there took (see
``slowest_setups``)."""


def slowest_setups(setups: Mapping[str, Mapping[str, float]]) -> SharedSetups:
    """From each test's set-up times by scope (``rts.setup_clock``): per instance of a
    shared fixture (a scope and the node it is set up for), the most any test paid."""
    slowest: SharedSetups = {}
    for nodeid, times in setups.items():
        for scope, seconds in times.items():
            key = (scope, scope_node(nodeid, scope))
            slowest[key] = max(slowest.get(key, 0.0), float(seconds))
    return slowest


def setup_margin(tests: Iterable[str], slowest: SharedSetups) -> float:
    """Seconds of shared-fixture set-up a fresh run of ``tests`` may pay, in any order: each
    shared fixture instance they need, once, whichever test paid for it on the original
    run (maybe one outside ``tests``)."""
    needed = set(chain.from_iterable(map(_shared_instances, tests)))
    return sum(slowest.get(key, 0.0) for key in needed)


@functools.lru_cache(maxsize=1 << 16)
def _shared_instances(nodeid: str) -> tuple[tuple[str, str], ...]:
    """The (scope, node) of each shared fixture instance the test may need, widest first:
    found once per test, not once per function it covers (humanize's 30 functions have
    ~360 covering tests each: 43,000 ``scope_node`` calls, 25 ms of planning)."""
    return tuple((scope, scope_node(nodeid, scope)) for scope in SHARED_SCOPES)


def time_entry(
    new: dict[str, Any],
    passing: list[str],
    tests: dict[str, dict[str, Any]],
    setups: tuple[float, SharedSetups],
    timing: tuple[float, float],
) -> None:
    """The covering tests of a function's new state entry, their durations, the margin of
    shared-fixture set-up their run may pay (when every one's set-up times are known) and
    the timeout of the whole run. ``setups``: the first observed test's duration and the
    slowest set-up of each shared fixture instance; ``timing``: base and factor."""
    setup, slowest = setups
    durations = [tests[t]["duration"] for t in passing]
    new.update(tests=passing, setup=setup, durations=durations)
    if all(tests[t].get("setup") is not None for t in passing):
        new["margin"] = setup_margin(passing, slowest)
    base, factor = timing
    new["timeout"] = base + factor * (sum(durations) + new.get("margin", setup))


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
    request: dict[str, Any] = {}
    if len(durations) == len(tests):  # else remembered by an older reks: one timeout
        base, factor = timing
        margin = entry.get("margin")
        if margin is None:  # set-up times unknown: the longest test may have paid for them
            margin = float(entry.get("setup", 0)) + max(durations.values(), default=0.0)
        per_test = deadlines(tests, durations, float(margin), base, factor, timeout)
        # What the deadlines come from, for another order of the tests (``test_order``).
        request["basis"] = {"durations": durations, "margin": margin, "timing": [base, factor]}
    request.update(run_request(ident, function, body, tests, timeout, per_test))
    request["pinned"] = detected_by is not None and tests[:1] == [detected_by]
    return request


def run_planned(
    run_all: Runner, planned: dict[int, tuple[Transformation, dict[str, Any]]], job: Job
) -> list[TransformationResult]:
    """Run every planned transformation on the workers; the results in planned order."""
    done: dict[int, TransformationResult] = {}
    job.report(0, len(planned), "running transformations")
    detecting = DetectingTests()
    requests = taking_turns([request for _, request in planned.values()])
    for reply in run_all(detecting.ordered(requests), job):
        t = planned[reply["id"]][0]
        detecting.record(reply, f"{t.path}::{t.function}")
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
