"""When a timeout is evidence that a transformation made its tests hang.

The paper's rule counts a run that hangs as a detection. But a run is stopped by a limit
made from what its tests took on the original code (``test_order.deadlines``, the CPU
budgets below): with a limit tight for those tests anyway (a small ``--timeout-factor``,
durations measured on a quieter machine, a loaded one now), a timeout says nothing about
the transformation, and counting it as detected would hide a pseudo-tested function. So a
timeout counts only when the original code's tests took well within the limit that
stopped the run (``WELL_WITHIN``); otherwise the run is made once more with room
(``roomier``), and a timeout then is ``UNDER_LOAD`` (never detected), with the figures.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

from lsp_server.extreme.test_order import deadlines

CPU_SLACK = 0.1
"""CPU seconds a child may use beyond its tests' budget (installing the transformation,
the recorder, pytest's own work between tests)."""
UNDER_LOAD = "not analysable: timed out under load"
"""The start of the reason of a timeout of tests that did not take well within their limit
on the original code (``_beyond_doubt``), again with more room."""
WELL_WITHIN = 0.5
"""A timeout is a detection only when the original code's tests took at most this share of
the limit that stopped the run."""
RETRY_SCALE = 3.0
"""A timeout the original code repeats is tried once more with this many times the room."""


Outcome = dict[str, Any]
Rerun = Callable[[dict[str, Any]], Outcome]
"""One more run of the transformed code for a request (``transform_run``)."""
LookPast = Callable[[dict[str, Any], Outcome], "Outcome | None"]
"""The detection by a test after the one that hung, if any (``transform_run._past_hangs``)."""


def beyond_doubt(
    request: dict[str, Any], outcome: Outcome, rerun: Rerun, look_past: LookPast
) -> tuple[dict[str, Any], Outcome]:
    """The request and outcome to judge the timeout ``outcome`` of ``request`` by: as they
    are when the original code's tests took well within the limit that stopped the run
    (a CPU budget, a test's deadline, the whole timeout); else the run once more with
    room (``roomier``), whose timeout, unless a test after the hang fails (``look_past``),
    is ``UNDER_LOAD`` with the figures. Without every test's duration this rule cannot
    say: the outcome stays as it is (``transform_run._repeated`` then repeats it)."""
    at = outcome.get("at")
    basis = request.get("basis")
    tests: list[str] = request["tests"]
    if not basis or any(t not in basis["durations"] for t in tests):
        return request, outcome
    upto = tests if at is None else tests[: at + 1]
    took = float(basis["margin"]) + sum(float(basis["durations"][t]) for t in upto)
    limits = (cpu_budgets(request) if outcome.get("conclusive") else []) or request.get("deadlines")
    limit = float(limits[at]) if limits and at is not None and at < len(limits) else None
    limit = float(request["timeout"]) if limit is None else limit
    if took <= WELL_WITHIN * limit:
        return request, outcome
    room = roomier(request)
    again = rerun(room)
    if again["verdict"] != "timeout":
        return room, again
    later = look_past(room, again)
    if later is not None:
        return room, later
    reason = (
        f"{UNDER_LOAD}: its tests took {took:.2f} s on the original code, more than "
        f"{WELL_WITHIN:.0%} of the {limit:.2f} s that stopped the run; with "
        f"{float(room['timeout']):.2f} s it timed out again ({again['reason']}; "
        f"load average {os.getloadavg()[0]:.1f})"
    )
    return room, {"verdict": "error", "reason": reason}


def roomier(request: dict[str, Any]) -> dict[str, Any]:
    """``request`` with the factor of its limits raised to ``RETRY_SCALE`` times its own
    and at least ``1 / WELL_WITHIN``: the original code's tests take well within each."""
    basis = request["basis"]
    base, factor = (float(x) for x in basis["timing"])
    factor = max(factor * RETRY_SCALE, 1.0 / WELL_WITHIN)
    durations, margin, tests = basis["durations"], float(basis["margin"]), request["tests"]
    whole = base + factor * (margin + sum(float(durations[t]) for t in tests))
    timeout = max(float(request["timeout"]) * RETRY_SCALE, whole)
    room = {**request, "timeout": timeout, "basis": {**basis, "timing": [base, factor]}}
    if request.get("deadlines"):
        room["deadlines"] = deadlines(tests, durations, margin, base, factor, timeout)
    return room


def cpu_budgets(request: dict[str, Any]) -> list[float]:
    """Per test, the CPU seconds the run may have used by its end: its deadline without
    the wall-clock allowance (``base``), plus the request's ``cpu_slack`` (default
    ``CPU_SLACK``); none without per-test deadlines."""
    basis = request.get("basis")
    if not basis or not request.get("deadlines"):
        return []
    base = float(basis["timing"][0])
    slack = float(request.get("cpu_slack", CPU_SLACK))
    return [max(0.0, d - base) + slack for d in request["deadlines"]]
