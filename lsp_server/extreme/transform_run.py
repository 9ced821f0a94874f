"""One transformation's run in a child forked by the pytest worker, and the control run
that tells a hang of the transformed code from tests that overrun their deadlines anyway.

A timeout counts as a detection (the transformation made a test hang) only when the
original code's tests took well within the limit that stopped the run (``timeout_rule``),
and when it repeats. When
the same tests, run the same way on the original code, also pass a deadline (a fixture
heavier than the margin, a test slower than when it was measured, a loaded machine), the
timeout says nothing about the transformation: both run once more with more room, and if
the original code overruns again the verdict is ``error`` ("inconclusive"), never
detected.

A run that used more CPU time than its tests' budget (``factor`` times what they took on
the original code, plus ``CPU_SLACK``) is a timeout at once: it did that much more work,
and a loaded machine slows a run without adding to its CPU time. This stops a busy loop
without waiting for two wall-clock deadlines. Only a single-threaded child is judged so
(threads add up CPU time faster than the clock); any other keeps the wall-clock rule.

A hang ends a run, but a test after the hanging one can fail: the tests after it run in a
fresh child, past each further hang, and any failure is a detection (``_past_hangs``). So
the verdict does not depend on the order of the tests, which changes with their measured
durations and with what detected the transformations before; it is a timeout only when
no covering test fails.
"""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import pytest

from lsp_server.extreme import code_swap as swapping
from lsp_server.extreme.doc_reads import doc_reads
from lsp_server.extreme.kept_child import kept_outcome, not_adopted
from lsp_server.extreme.running_test import RUNNING
from lsp_server.extreme.test_order import deadlines
from lsp_server.extreme.timeout_rule import CPU_SLACK, RETRY_SCALE, beyond_doubt, cpu_budgets
from lsp_server.extreme.worker_guard import kill_adopted
from lsp_server.sandbox import EXITED, TIMEOUT

if TYPE_CHECKING:
    from lsp_server.extreme.pytest_worker import WorkerPlugin

HUNG_EXIT = 124
"""Exit status of a transformation's child that ran past a test's deadline (``deadlines``
of the request): it exits at once, without running that test's teardown."""
CPU_EXIT = 125
"""Exit status of a transformation's child that used up its tests' CPU budget."""
IMPORT_HUNG_EXIT = 126
"""Exit status of a pre-import worker's child whose import and collection of the project ran
past their deadline (``pre_import``), before any test had one."""

PROBE_SLACK = 0.02
"""CPU seconds beyond its tests' budget a child may use while it looks past a hang for a
failing test (``_past_hangs``): each hang passed cost ``CPU_SLACK`` and more, most of
cachetools' and tomlkit's analyses. A fresh child's first fast test uses ~5 ms."""

INCONCLUSIVE = "inconclusive: the original code also ran past the deadline"
"""The start of the reason of a timeout that the control run repeated."""
PAST_HANGS = "detected past a hang:"
"""The start of the reason of a detection by a test after one that hung (``_past_hangs``)."""
CONTROL_SLACK = 0.5
"""Seconds the control run may go on past the moment the transformed run was stopped: alive
then, it met the deadline the transformed run missed."""


def stopping_the_run(work: Callable[[], dict[str, Any]]) -> Callable[[], dict[str, Any]]:
    """``work``, with a stop of the whole test run (raised through pytest by the
    transformed code) turned into a detection."""

    def run() -> dict[str, Any]:
        try:
            return work()
        except (KeyboardInterrupt, SystemExit, pytest.exit.Exception) as exc:
            return {"verdict": "detected", "reason": f"{type(exc).__name__}: {exc}"}

    return run


def run_transformation(worker: WorkerPlugin, request: dict[str, Any]) -> dict[str, Any]:
    """The worker's reply to a ``run`` request: the verdict and what the run executed. A
    timeout that a later test's failure does not turn into a detection (``_past_hangs``)
    counts only when it repeats (``_repeated``)."""
    started = time.perf_counter()
    units: set[str] = set()  # what any of the transformed runs executed
    outcome = kept_outcome(worker, request, units, _kept_run)
    if outcome is None:
        worker.compiled = compiled_swap(worker, request)
        try:
            outcome = _decided(worker, request, units)
        finally:
            worker.compiled = None
    reply: dict[str, Any] = {"op": "result", "id": request["id"], **outcome}
    if worker.run_log is not None:
        docs = doc_reads(worker.root).units(units)  # read without a call (``doc_reads``)
        reply["units"] = sorted(units | at_import(worker, units) | docs)
    reply["duration"] = time.perf_counter() - started
    return reply


def _kept_run(
    worker: WorkerPlugin, request: dict[str, Any]
) -> tuple[dict[str, Any], swapping.Replacements]:
    """In the kept child: the transformed run, as a forked child runs it, and the code to
    put back after it."""
    pairs = _replacements(worker, request)
    worker.compiled = pairs
    originals: swapping.Replacements = [(function, function.__code__) for function, _ in pairs]
    return stopping_the_run(lambda: _run_tests(worker, request, True))(), originals


def _decided(worker: WorkerPlugin, request: dict[str, Any], units: set[str]) -> dict[str, Any]:
    """The outcome of the request's runs: see ``run_transformation``."""
    outcome = _transformed(worker, request, units)
    if outcome["verdict"] == "timeout":
        request, outcome = beyond_doubt(
            request,
            outcome,
            lambda again: _transformed(worker, again, units),
            lambda again, timed_out: _past_hangs(worker, again, timed_out, units),
        )
    if outcome["verdict"] == "timeout":
        conclusive = bool(outcome.get("conclusive"))
        later = _past_hangs(worker, request, outcome, units)
        if later is not None:
            outcome = later
        elif not conclusive:
            outcome = _repeated(worker, request, units)
        outcome.pop("at", None)
        outcome.pop("conclusive", None)
    return outcome


def _repeated(worker: WorkerPlugin, request: dict[str, Any], units: set[str]) -> dict[str, Any]:
    """The outcome of the run again after a wall-clock timeout (a loaded machine can stop a
    run that does not hang); a timeout that the original code repeats too
    (``_original_overruns``) is tried once more with ``RETRY_SCALE`` times the room, and is
    inconclusive if it repeats again."""
    again_started = time.perf_counter()
    outcome = _transformed(worker, request, units)
    if outcome["verdict"] == "timeout" and _original_overruns(worker, request, again_started):
        roomier = {
            **request,
            "timeout": float(request["timeout"]) * RETRY_SCALE,
            "deadlines": [d * RETRY_SCALE for d in request.get("deadlines") or []],
        }
        last_started = time.perf_counter()
        outcome = _transformed(worker, roomier, units)
        if outcome["verdict"] == "timeout" and _original_overruns(worker, roomier, last_started):
            outcome = {"verdict": "error", "reason": f"{INCONCLUSIVE} ({outcome['reason']})"}
    return outcome


def at_import(worker: WorkerPlugin, units: set[str]) -> set[str]:
    """The functions that ran at import in the files whose code the run executed: what they
    computed then (a constant, a registry) reached the run though it never called them, and
    an edit of one changes it."""
    files = {unit.partition("::")[0] for unit in units}
    return {u for u in worker.import_time_units if u.partition("::")[0] in files}


def _past_hangs(
    worker: WorkerPlugin, request: dict[str, Any], outcome: dict[str, Any], units: set[str]
) -> dict[str, Any] | None:
    """After the timeout ``outcome``, the detection by a test after the one that hung, if
    any: the tests after it run in a fresh child, past each further hang (see the module
    docstring). A failure further on is a detection however the hangs before it were
    stopped, so they are first passed on ``PROBE_SLACK``; only when that found no failure
    and stopped a test at its short budget (it may have been only slow) are they passed
    again on ``CPU_SLACK``, as the first run's tests were."""
    found, cut = _look_past(worker, request, outcome, units, PROBE_SLACK)
    if found is not None or not cut:
        return found
    return _look_past(worker, request, outcome, units, CPU_SLACK)[0]


def _look_past(
    worker: WorkerPlugin,
    request: dict[str, Any],
    outcome: dict[str, Any],
    units: set[str],
    slack: float,
) -> tuple[dict[str, Any] | None, bool]:
    """``_past_hangs`` with ``slack`` in the CPU budgets of the runs after each hang; and
    whether one of those runs was stopped at its CPU budget. The hangs passed may have, in
    all, the request's whole timeout of what they can cost, counted as planned, not as
    measured, so that neither the load nor ``slack`` changes how far it looks: a busy one
    its CPU budget (``_cpu_budget``, with ``CPU_SLACK``), a wait (stopped by the clock: it
    used less CPU time than its budget) the deadline its run had (``_wall_share``). A
    later timeout is not repeated: it only moves on."""
    ran: list[str] = []
    allowance = float(request["timeout"])
    cut = False
    while outcome["verdict"] == "timeout":
        tests: list[str] = request["tests"]
        at = outcome.get("at")
        if at is None or at + 1 >= len(tests):
            return None, cut
        busy = bool(outcome.get("conclusive"))
        allowance -= _cpu_budget(request, tests[at]) if busy else _wall_share(request, at)
        if allowance < 0:
            return None, cut
        ran += tests[: at + 1]
        request = {**_after(request, at), "cpu_slack": slack}
        outcome = _transformed(worker, request, units)
        cut = cut or bool(outcome.get("conclusive"))
    if outcome["verdict"] != "detected":
        return None, cut
    reason = f"{PAST_HANGS} {len(ran)} test(s) hung first, the first {ran[0]}"
    if outcome.get("reason"):
        reason += f"; then {outcome['reason']}"
    return {**outcome, "tests": [*ran, *outcome.get("tests", [])], "reason": reason}, cut


def _cpu_budget(request: dict[str, Any], test: str) -> float:
    """The CPU budget of ``test`` alone (see ``_cpu_budgets``); the whole timeout when its
    duration is unknown."""
    basis = request.get("basis")
    if not basis or test not in basis["durations"]:
        return float(request["timeout"])
    factor = float(basis["timing"][1])
    return factor * (float(basis["margin"]) + float(basis["durations"][test])) + CPU_SLACK


def _wall_share(request: dict[str, Any], at: int) -> float:
    """The wall-clock seconds a run stopped by the clock at its test ``at`` lasted: that
    test's deadline (the whole timeout when the run had none)."""
    deadlines: list[float] = request.get("deadlines") or []
    return float(deadlines[at]) if at < len(deadlines) else float(request["timeout"])


def _after(request: dict[str, Any], at: int) -> dict[str, Any]:
    """The request of the tests after the one at ``at``, with their deadlines from the
    start of their own run (none when the request had none)."""
    rest = {**request, "tests": request["tests"][at + 1 :], "deadlines": []}
    basis = request.get("basis")
    if basis and request.get("deadlines"):
        base, factor = basis["timing"]
        durations, margin, timeout = basis["durations"], basis["margin"], request["timeout"]
        rest["deadlines"] = deadlines(rest["tests"], durations, margin, base, factor, timeout)
    return rest


def _transformed(worker: WorkerPlugin, request: dict[str, Any], units: set[str]) -> dict[str, Any]:
    """One run of the transformed code; what it executed is added to ``units``."""
    outcome = run_child(worker, request)
    outcome.pop("limit", None)
    if worker.run_log is not None:
        units.update(worker.run_log.take())
    return outcome


def _original_overruns(worker: WorkerPlugin, request: dict[str, Any], started: float) -> bool:
    """The control run: whether the request's tests on the original code also overrun, in
    a run that needs to go on only until it passed the point where the transformed run
    (begun at ``started``) was stopped."""
    whole = float(request["timeout"])
    limit = min(whole, time.perf_counter() - started + CONTROL_SLACK)
    control = run_child(worker, request, transformed=False, limit=limit)
    outlived = bool(control.get("limit")) and limit < whole
    return control["verdict"] == "timeout" and not outlived


def run_child(
    worker: WorkerPlugin,
    request: dict[str, Any],
    transformed: bool = True,
    limit: float | None = None,
) -> dict[str, Any]:
    """Run the request's tests in a fresh child, on the transformed code or the original,
    for at most ``limit`` seconds (default: the request's timeout; ``limit`` is true in the
    reply when the child was stopped there, not at a test's deadline)."""
    work = stopping_the_run(lambda: _run_tests(worker, request, transformed))
    RUNNING.reset()
    child = worker.forker.run(work, float(request["timeout"]) if limit is None else limit)
    reply: dict[str, Any]
    if child.status == TIMEOUT:
        reply = {"verdict": "timeout", "reason": child.detail, "limit": True}
    elif child.status == EXITED and child.detail == f"exit status {HUNG_EXIT}":
        reply = {"verdict": "timeout", "reason": "a test ran past its deadline"}
    elif child.status == EXITED and child.detail == f"exit status {IMPORT_HUNG_EXIT}":
        reason = "the run ran past its deadline while importing the project"
        reply = {"verdict": "timeout", "reason": reason}
    elif child.status == EXITED and child.detail == f"exit status {CPU_EXIT}":
        reason = "a test used more CPU time than its budget (busy without end)"
        reply = {"verdict": "timeout", "reason": reason, "conclusive": True}
    elif not child.ok or child.value is None:
        reply = {"verdict": "detected", "reason": f"test process crashed: {child.detail}"}
    else:
        reply = dict(child.value)
    if reply["verdict"] == "timeout":
        reply["at"] = RUNNING.index()  # the test that hung (``_past_hangs``)
    kill_adopted(keep=not_adopted(worker))
    return reply


def compiled_swap(worker: WorkerPlugin, request: dict[str, Any]) -> swapping.Replacements | None:
    """In the worker, before it forks the request's children: the live functions and their
    transformed code, so each child only swaps it in (``install``). None when it cannot
    be built: the child builds it again and replies why, as without this step."""
    try:
        return _replacements(worker, request)
    except (swapping.SwapError, SyntaxError, OSError):
        return None


def install(worker: WorkerPlugin, request: dict[str, Any]) -> None:
    """In the child: the transformation swapped into the live function."""
    compiled = worker.compiled
    swapping.apply(compiled if compiled is not None else _replacements(worker, request))


def _replacements(worker: WorkerPlugin, request: dict[str, Any]) -> swapping.Replacements:
    path = os.path.realpath(os.path.join(worker.root, request["path"]))
    name = request["function"].rsplit(".", 1)[-1]
    node = worker.defs.get(path, {}).get((request["line"], name))
    if node is None:
        raise swapping.SwapError(f"no def of {name} at line {request['line']} of {path}")
    targets = swapping.find_targets(
        worker.index, path, name, request["first_line"], request["line"]
    )
    return swapping.replacements(targets, node, request["body"])


def _run_tests(worker: WorkerPlugin, request: dict[str, Any], transformed: bool) -> dict[str, Any]:
    """In the child: install the transformation (unless a control run), then run the tests
    in order, each by its deadline; the first failure is a detection."""
    early = worker.set_up_child(request, transformed)
    if early is not None:
        return {"tests": [], **early}
    started = time.perf_counter()  # the deadlines are the tests' (after a collection)
    ran: list[str] = []
    tests: list[str] = request["tests"]
    deadlines: list[float] = request.get("deadlines") or []
    budgets = cpu_budgets(request) if transformed else []
    signal.signal(signal.SIGALRM, lambda signum, frame: os._exit(HUNG_EXIT))
    signal.signal(signal.SIGPROF, _over_budget)
    cpu_start = time.process_time()
    for i, nodeid in enumerate(tests):
        item = worker.items.get(nodeid)
        if item is None:
            continue
        if i < len(deadlines):  # the worker's ``timeout`` stays the limit of the whole
            left = deadlines[i] - (time.perf_counter() - started)
            signal.setitimer(signal.ITIMER_REAL, max(left, 0.001))
        if i < len(budgets):
            left = budgets[i] - (time.process_time() - cpu_start)
            signal.setitimer(signal.ITIMER_PROF, max(left, 0.001))
        nxt = worker.items.get(tests[i + 1]) if i + 1 < len(tests) else None
        ran.append(nodeid)
        RUNNING.mark(i)
        if worker.run_item(item, nxt):
            _disarm()
            reason = _noted(request, f"{nodeid} failed in {worker.failure.text}")
            return {"verdict": "detected", "tests": ran, "detected_by": nodeid, "reason": reason}
    _disarm()
    note = _noted(request, "")
    return {"verdict": "undetected", "tests": ran, **({"reason": note} if note else {})}


def _noted(request: dict[str, Any], reason: str) -> str:
    """``reason`` after the request's ``note`` (what set-up changed in the run: tests run
    under new ids, ``pre_import``), if any."""
    note = str(request.get("note") or "")
    return f"{note}; {reason}" if note and reason else note or reason


def _over_budget(signum: int, frame: object) -> None:
    if _single_threaded():
        os._exit(CPU_EXIT)
    signal.setitimer(signal.ITIMER_PROF, 0)  # the wall-clock deadline decides


def _single_threaded() -> bool:
    try:
        return len(os.listdir("/proc/self/task")) == 1
    except OSError:
        return False  # unknown: the wall-clock rule


def _disarm() -> None:
    signal.setitimer(signal.ITIMER_REAL, 0)
    signal.setitimer(signal.ITIMER_PROF, 0)
