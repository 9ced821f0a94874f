"""Which remembered verdicts still hold after an edit.

A verdict is what the covering tests did with the function's body replaced, so it depends
on the code that transformed run executed, not on the code the original run executed: the
transformed run can stop before an edit the original reached, or reach code the original
never ran. Each result remembers the units its run executed (``TransformationResult.units``)
with their checksums; a result holds while all of them are unchanged and it would be run
with the same tests:

- the function's own code changed: all its transformations run again;
- its covering tests' original runs are unchanged (so the same tests cover it, with the same
  return kinds, so the same bodies): each result holds unless its run reached an edit; the
  others run again with the remembered tests and timeout, without observing any test;
- its covering tests' original runs reached an edit: which tests cover it may have changed,
  but a detection (or timeout) whose own run reached no edit is witnessed by that same run,
  which fails again; when every result is such a detection, nothing is run or observed.
  Otherwise the tests are observed again and each planned transformation keeps its result
  when its run reached no edit and its tests are the same (an undetected verdict needs
  every covering test, so exactly the same tests).

Results remembered without units (skipped functions, swap errors, and state written by an
older reks) follow the rule of the original runs only.

A verdict taken from the plain run on disk (an import-time function's) remembers what that
run executed (import and collection included) and follows the same rules; its stale rows
run in place again and are checked on disk again.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from lsp_server.extreme.discover import FunctionInfo
from lsp_server.extreme.disk_check import ON_DISK
from lsp_server.extreme.model import Transformation, TransformationResult, Verdict
from lsp_server.extreme.requests import entry_request
from lsp_server.extreme.state import (
    TOP_LEVEL,
    Checksums,
    previous_runners,
    result_from_state,
    result_to_state,
)
from lsp_server.rts.unit_names import MODULE


@dataclass
class Rerun:
    """A function whose covering tests are unchanged but some of whose transformations ran
    into an edit: those run again, the others keep their results."""

    function: FunctionInfo
    entry: dict[str, Any]
    kept: list[dict[str, Any]] = field(default_factory=list)
    stale: list[dict[str, Any]] = field(default_factory=list)
    edited: bool = False  # its own code changed (see ``edited_rerun``)
    # Its detections must stand again, or it is analysed in full (see ``reached_rerun``).
    provisional: bool = False


def row_holds(row: dict[str, Any], checksums: Checksums) -> bool:
    """Nothing the remembered run executed changed (unknown: it does not hold, nor does a
    verdict from disk whose units are not those of its run on disk)."""
    deps = row.get("deps")
    if ON_DISK in row.get("reason", "") and not row.get("on_disk"):
        return False
    return isinstance(deps, dict) and all(checksums.get(u) == v for u, v in deps.items())


def _covered_the_same(entry: dict[str, Any], checksums: Checksums) -> bool:
    return all(checksums.get(unit) == value for unit, value in entry["deps"].items())


def _witnessed(row: dict[str, Any], checksums: Checksums) -> bool:
    """A detection (or timeout) whose run executed no edited unit: that very run of the
    same tests still fails (or hangs), whatever else the edit changed in the coverage."""
    return row.get("verdict") in ("detected", "timeout") and row_holds(row, checksums)


def _disk_rows_recorded(entry: dict[str, Any]) -> bool:
    """Every verdict taken on disk remembers what its run on disk executed."""
    return all(
        row.get("on_disk") or ON_DISK not in row.get("reason", "") for row in entry["results"]
    )


def classify(
    function: FunctionInfo, entry: dict[str, Any] | None, checksums: Checksums
) -> tuple[str, Rerun | None]:
    """ "reuse" (every result holds), "rerun" (see ``Rerun``), "replan" (observe, then keep
    what holds) or "run" (nothing is kept)."""
    if entry is None or entry.get("checksum") != function.checksum:
        return "run", None
    if not _covered_the_same(entry, checksums):
        if entry["results"] and all(_witnessed(row, checksums) for row in entry["results"]):
            return "reuse", None
        recorded = not entry.get("import_time") or _disk_rows_recorded(entry)
        return ("replan" if recorded else "run"), None
    rerun = Rerun(function, entry)
    for row in entry["results"]:
        recorded = "deps" in row
        (rerun.kept if not recorded or row_holds(row, checksums) else rerun.stale).append(row)
    if not rerun.stale:
        return "reuse", None
    if "timeout" not in entry or (entry.get("import_time") and not _disk_rows_recorded(entry)):
        return "run", None  # remembered by an older reks
    return "rerun", rerun


def held(
    function: FunctionInfo,
    entry: dict[str, Any] | None,
    body: str,
    passing: list[str],
    checksums: Checksums,
) -> TransformationResult | None:
    """The remembered result of ``body`` when it holds for the covering tests ``passing``
    observed now (the "replan" case of ``classify``)."""
    if entry is None:
        return None
    row = next((r for r in entry["results"] if r.get("body") == body), None)
    if row is None or not row_holds(row, checksums):
        return None
    if row["verdict"] == "detected":
        same_tests = row.get("detected_by") in passing
    else:
        same_tests = row["verdict"] in ("undetected", "timeout") and sorted(passing) == sorted(
            entry.get("tests", [])
        )
    return result_from_state(function, row) if same_tests else None


@dataclass
class Work:
    """What an analysis runs, and where it puts the results and state entries."""

    todo: list[FunctionInfo]  # observed, then planned
    reruns: list[Rerun]  # stale results run again without observing (see ``reuse``)
    replan: dict[str, dict[str, Any]]  # previous entries of todo functions (see ``reuse``)
    checksums: Checksums
    results: dict[str, list[TransformationResult]]
    entries: dict[str, Any]
    known: list[str] | None = None  # the only tests that may cover ``todo`` (None: any)
    # Of edited functions (whose verdicts all go): each body's last detector, run first.
    detectors: dict[str, dict[str, str | None]] = field(default_factory=dict)


def plan_reruns(
    reruns: list[Rerun],
    planned: dict[int, tuple[Transformation, dict[str, Any]]],
    timing: tuple[float, float],
) -> None:
    """Add the stale transformations of ``reruns`` to ``planned``, with the remembered
    covering tests and timeouts (``timing``: the analysis's base and factor)."""
    for rerun in reruns:
        function, entry = rerun.function, rerun.entry
        for row in rerun.stale:
            ident = len(planned)
            body = row["body"]
            transformation = Transformation(function.path, function.qualname, function.line, body)
            detector = row.get("detected_by")
            planned[ident] = (
                transformation,
                entry_request(ident, function, body, entry, detector, timing),
            )


def plan_bodies(
    function: FunctionInfo,
    bodies: Sequence[str],
    new: dict[str, Any],
    timing: tuple[float, float],
    before: dict[str, Any] | None,
    work: Work,
    planned: dict[int, tuple[Transformation, dict[str, Any]]],
) -> bool:
    """Plan the function's transformations (covering tests and timeouts of its new state
    entry ``new``), keeping the results of ``before`` (its previous entry) that hold; True
    when every one held."""
    kept = 0
    rows = {row.get("body"): row for row in (before or {}).get("results", [])}
    for body in bodies:
        still = held(function, before, body, new["tests"], work.checksums)
        if still is not None:
            work.results.setdefault(function.key, []).append(still)
            kept += 1
            continue
        ident = len(planned)
        transformation = Transformation(function.path, function.qualname, function.line, body)
        detector = rows.get(body, {}).get("detected_by") or work.detectors.get(
            function.key, {}
        ).get(body)
        request = entry_request(ident, function, body, new, detector, timing)
        planned[ident] = (transformation, request)
    return bool(bodies) and kept == len(bodies)


def edited_rerun(
    function: FunctionInfo, entry: dict[str, Any] | None, checksums: Checksums
) -> Rerun | None:
    """The editor's quick re-analysis of a function whose own body was edited (and nothing
    else, see ``Options.only``): its transformations run again with the remembered tests,
    timeouts and bodies, each with its last detector first, and no test is observed first
    (a central function's hundreds of tests). A detection then stands only if its test
    passes on the edited code (``confirm_detections``); an undetected verdict stands as is
    (a test failing on the edited code would only leave the covering tests), or, for a
    function that ran at import, is checked on disk as any other of its verdicts. A function
    some of whose covering tests did not pass is analysed in full (they may pass now). The entry
    keeps its old checksum, so the next whole analysis analyses the function afresh. A
    function that ran at import and was not edited is re-analysed so too when its runs
    reached only edited function bodies (``_bodies_at_import``)."""
    if entry is None or "timeout" not in entry:
        return None
    if entry.get("import_time") and not _disk_rows_recorded(entry):
        return None  # remembered by an older reks
    deps = entry.get("deps", {})
    changed = [u for u, v in deps.items() if u != function.key and checksums.get(u) != v]
    if changed and not _bodies_at_import(entry, changed):
        return None  # more than its body changed: its tests may be others now
    rows = entry["results"]
    if not rows or any(row.get("verdict") in ("skipped", "error") for row in rows):
        return None
    if set(entry.get("runners", ())) != set(entry.get("tests", ())):
        # A covering test that failed (or hung) before may pass on the edited code and
        # detect what the others did not: they are observed again.
        return None
    return Rerun(function, entry, stale=list(rows), edited=True)


def reached_rerun(
    function: FunctionInfo, entry: dict[str, Any] | None, checksums: Checksums
) -> Rerun | None:
    """The editor's quick re-analysis of a function whose covering tests' runs reached an
    edit (a function it did not edit whose transformed runs did, or one edited with code
    its tests run), when every remembered verdict is a detection: the transformations
    whose runs reached an edit (all, when its own code changed) run again with the
    remembered tests, timeouts and bodies, detector first, and no test is observed first.
    A detection whose test passes on the edited code (``confirm_detections``) stands
    whatever else the edit changed in the coverage; any other outcome needs every covering
    test, so the function is then observed and analysed in full (``unsettled``)."""
    if entry is None or "timeout" not in entry or entry.get("import_time"):
        return None
    rows = entry["results"]
    if not rows or any(row.get("verdict") != "detected" for row in rows):
        return None
    own = entry.get("checksum") == function.checksum  # else each row ran the old code
    rerun = Rerun(function, entry, edited=True, provisional=True)
    for row in rows:
        (rerun.kept if own and _witnessed(row, checksums) else rerun.stale).append(row)
    return rerun


def quick_rerun(
    function: FunctionInfo, entry: dict[str, Any] | None, checksums: Checksums, provisional: bool
) -> Rerun | None:
    """The editor's quick re-analysis of a function left to run or replan: ``edited_rerun``,
    else (``provisional``: on warm workers, which a second round reuses) ``reached_rerun``."""
    rerun = edited_rerun(function, entry, checksums)
    if rerun is None and provisional:
        rerun = reached_rerun(function, entry, checksums)
    return rerun


def settle(work: Work, previous: dict[str, Any], analyse_in_full: Callable[[Work], None]) -> None:
    """After ``work`` ran: its functions that ``unsettled`` leaves, analysed in full,
    observing only the tests whose runs may reach them now (``state.previous_runners`` of
    the ``previous`` state entries), as any other re-analysed function."""
    again = unsettled(work)
    if again is not None:
        again.known = previous_runners(previous, again.todo, work.checksums)
        analyse_in_full(again)


def unsettled(work: Work) -> Work | None:
    """The functions of ``work``'s provisional reruns (``reached_rerun``) some result of
    which is not a detection that stands, their results and entries dropped: the work of
    analysing them in full (observed, then planned keeping what holds); None if none."""
    again = [
        rerun
        for rerun in work.reruns
        if rerun.provisional
        and any(r.verdict is not Verdict.DETECTED for r in work.results.get(rerun.function.key, []))
    ]
    if not again:
        return None
    for rerun in again:
        work.results.pop(rerun.function.key, None)
        work.entries.pop(rerun.function.key, None)
    replan = {rerun.function.key: rerun.entry for rerun in again}
    todo = [rerun.function for rerun in again]
    return Work(todo, [], replan, work.checksums, work.results, work.entries)


def _bodies_at_import(entry: dict[str, Any], changed: list[str]) -> bool:
    """A function that ran at import, whose runs reached edits of other functions' bodies
    (the import runs them all): its covering tests, those of its file's code, are the
    same; its transformations run again, confirmed as an edited function's are."""
    return bool(entry.get("import_time")) and all(
        not u.endswith("::" + TOP_LEVEL) and not u.endswith("::" + MODULE) for u in changed
    )


def confirm_detections(
    reruns: list[Rerun],
    done: list[TransformationResult],
    observe: Callable[[list[str]], dict[str, Any]],
) -> int:
    """Run the tests that detected transformations of edited functions on the edited code
    (``observe``: the observation run of some tests); a detection by a test that does not
    pass there is no verdict. The number of tests run."""
    edited = {r.function.key for r in reruns if r.edited}
    mine = [r for r in done if _key(r) in edited and r.verdict is Verdict.DETECTED]
    detectors = sorted({r.detected_by for r in mine if r.detected_by})
    if not detectors:
        return 0
    outcomes = observe(detectors)["tests"]
    for result in mine:
        if outcomes.get(result.detected_by, {}).get("outcome") != "passed":
            result.verdict = Verdict.ERROR
            result.reason = f"{result.detected_by} does not pass on the edited code"
    return len(detectors)


def _key(result: TransformationResult) -> str:
    return f"{result.transformation.path}::{result.transformation.function}"


def record_results(
    covering: dict[str, list[str]], work: Work, done: list[TransformationResult]
) -> None:
    """Results and state entries of the functions run, results in their bodies' order;
    ``covering``: the analysis' covering tests by function key."""
    results, entries = work.results, work.entries
    for rerun in work.reruns:
        key = rerun.function.key
        results[key] = [result_from_state(rerun.function, row) for row in rerun.kept]
        entries[key] = dict(rerun.entry)
        covering[key] = list(rerun.entry.get("tests", []))
    for result in done:
        t = result.transformation
        results.setdefault(f"{t.path}::{t.function}", []).append(result)
    for function in [*work.todo, *(r.function for r in work.reruns)]:
        entry = entries.get(function.key)
        if entry is None:
            continue
        order = {body: i for i, body in enumerate(entry.get("bodies", []))}
        mine = results.get(function.key, [])
        mine.sort(key=lambda r: order.get(r.transformation.body, len(order)))
        entry["results"] = [result_to_state(r, work.checksums) for r in mine]
        entry["tests"] = covering.get(function.key, [])
