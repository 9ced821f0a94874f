"""The extreme analysis of a project: discover, observe, transform, run, remember.

``analyse`` is the one entry point used by the CLI, the server and the benchmark. It is
incremental: a function keeps its previous verdicts when its own unit, every unit its
covering tests executed, and the set of tests (the module part of every test file) are
unchanged; those functions need no worker at all.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lsp_server.extreme.collection_scope import ignoring, out_of_reach
from lsp_server.extreme.constants import bodies_for_kinds
from lsp_server.extreme.discover import FunctionInfo, config_patterns, discover, source_files
from lsp_server.extreme.disk_check import IMPORT_TIME, check_on_disk, spawn_pre_import
from lsp_server.extreme.import_time_edit import edited_at_import, run_before_import
from lsp_server.extreme.model import Transformation, TransformationResult, Verdict
from lsp_server.extreme.observation import ImportTimeTests, StoreView
from lsp_server.extreme.observation_run import observe
from lsp_server.extreme.pool import WorkerPool
from lsp_server.extreme.project_originals import ORIGINALS_LEFT, Originals
from lsp_server.extreme.requests import run_planned, slowest_setups, time_entry
from lsp_server.extreme.reuse import (
    Rerun,
    Work,
    classify,
    confirm_detections,
    plan_bodies,
    plan_reruns,
    quick_rerun,
    record_results,
    settle,
)
from lsp_server.extreme.runners import runner_for
from lsp_server.extreme.state import (
    Checksums,
    UnitSets,
    entry,
    has_state,
    load_state,
    previous_runners,
    result_from_state,
    run_checksums,
    save_state,
    tests_fingerprint,
    untouched,
)
from lsp_server.extreme.test_order import detection_order
from lsp_server.extreme.warm import WarmPools, lent
from lsp_server.jobs import Job

ANY_BODY = "(any)"
"""``Transformation.body`` of a row that stands for a whole skipped function."""


@dataclass
class Options:
    paths: Sequence[Path] = ()
    jobs: int = 0  # 0: one worker per core
    patterns: Sequence[str] = ()  # extra qualified-name patterns to skip
    python: str | None = None  # interpreter of the workers (default: this one)
    timeout_factor: float = 3.0
    timeout_base: float = 1.0  # seconds added to every timeout (fork, fixture setup)
    incremental: bool = True
    pytest_args: Sequence[str] = ()
    test_timeout: float = 120.0  # cap on one test of the observation run (hung beyond it)
    collect_timeout: float = 600.0  # cap on starting a worker (imports, collection)
    # Seconds a plain run on disk (or before import) may take beyond the in-place timeout:
    # generous, so that a timeout that repeats there is no machine's slowness.
    disk_timeout_base: float = 60.0
    on_disk: bool = True  # check import-time functions on disk (else: not analysable)
    verify: int = 0  # undetected verdicts to check again on disk (``--verify N``)
    scheduler: str | None = None  # a Dask scheduler's address (default: local workers)
    only: Sequence[str] = ()  # the only functions to analyse: keys (path::qualname) or qualnames


@dataclass
class Analysis:
    root: Path
    results: list[TransformationResult] = field(default_factory=list)
    functions: dict[str, FunctionInfo] = field(default_factory=dict)
    covering: dict[str, list[str]] = field(default_factory=dict)  # function key -> tests
    reused: set[str] = field(default_factory=set)  # function keys whose verdicts were kept
    errors: dict[str, str] = field(default_factory=dict)  # file -> why it was not analysed
    elapsed: float = 0.0
    observation: float = 0.0  # seconds to start workers, collect, and run the observation
    uncollected_files: list[str] = field(default_factory=list)  # see ``collection_scope``
    uncollected_tests: int = 0  # tests left out of the files that were collected (same)
    # Found with the scope, for ``observation.read_store`` (finding it is most of its cost).
    selected_without_environment: set[str] | None = None
    run_count: int = 0  # transformations actually run this time
    coverage_source: str = ""  # "store": the dependency store narrowed the observation run
    observed_tests: int = 0  # tests run by the observation run
    hung_tests: list[str] = field(default_factory=list)  # stopped at their timeout, excluded
    import_time: set[str] = field(default_factory=set)  # function keys that ran at import
    checked_on_disk: int = 0  # transformations run the plain way (import time, --verify)
    defects: list[str] = field(default_factory=list)  # verdicts the plain way contradicted
    restored: list[str] = field(default_factory=list)  # files a stopped run left changed
    # Checksum of each unit the results' runs depend on, as analysed (see ``quick``).
    unit_checksums: dict[str, str | None] = field(default_factory=dict)

    def by_function(self) -> dict[str, list[TransformationResult]]:
        out: dict[str, list[TransformationResult]] = {}
        for result in self.results:
            t = result.transformation
            out.setdefault(f"{t.path}::{t.function}", []).append(result)
        return out


def _skipped(function: FunctionInfo, reason: str) -> TransformationResult:
    return TransformationResult(
        Transformation(function.path, function.qualname, function.line, ANY_BODY),
        Verdict.SKIPPED,
        reason=reason,
    )


def analyse(
    root: Path,
    options: Options | None = None,
    job: Job | None = None,
    warm: WarmPools | None = None,
) -> Analysis:
    """Run the extreme analysis of the project at ``root``; see the module docstring.
    ``warm``: keep the workers for the next analysis (the editor's)."""
    options = options or Options()
    job = job or Job()
    started = time.perf_counter()
    root = root.resolve()
    analysis = Analysis(root=root)
    originals = Originals(root)  # what the tests write is put back (``project_originals``)
    left = originals.begin()
    # Nothing to reuse: the workers start Python and pytest right away, and collect the
    # tests (those that can reach the functions) while this process hashes the tests.
    early = None
    if warm is None and not options.scheduler and not (options.incremental and has_state(root)):
        early = _new_pool(root, options)
    try:
        _analyse(root, options, job, analysis, warm, early)
    finally:
        if early is not None and early.workers:
            if early.ending:  # told to quit after its runs: it ended while the state was saved
                early.close()
            else:
                early.terminate()
        analysis.restored = originals.finish()
        if left is not None:  # after ``_analyse``, which sets the errors of its files
            analysis.errors["(originals)"] = f"{ORIGINALS_LEFT} {left}"
    analysis.elapsed = time.perf_counter() - started
    return analysis


def _pool_size(options: Options) -> int:
    # With a cluster the local workers only observe: one is enough.
    return 1 if options.scheduler else options.jobs or os.cpu_count() or 1


def _new_pool(root: Path, options: Options) -> WorkerPool:
    """Workers started at once, that wait for ``_scope`` before they collect."""
    size, python, args = _pool_size(options), options.python, options.pytest_args
    pool = WorkerPool(root, size, python, args, options.collect_timeout, scoped=True)
    pool.spawn()
    return pool


def _scope(
    pool: WorkerPool, options: Options, analysis: Analysis, functions: list[FunctionInfo]
) -> None:
    """Let ``pool`` collect only the tests that can reach ``functions``."""
    scope = out_of_reach(analysis.root, functions, options.python)
    analysis.uncollected_files, analysis.uncollected_tests = scope.files, scope.left_out
    analysis.selected_without_environment = scope.selected_without_environment
    pool.scope([str(analysis.root / rel) for rel in scope.files], scope.wanted())


def _functions(
    root: Path, options: Options, analysis: Analysis, patterns: list[str]
) -> list[FunctionInfo]:
    """The functions to analyse (``options.paths``, ``options.only``), kept in ``analysis``."""
    functions, analysis.errors = discover(root, source_files(root, options.paths), patterns)
    if options.only:  # the others keep their remembered state untouched
        functions = [f for f in functions if f.key in options.only or f.qualname in options.only]
    analysis.functions = {f.key: f for f in functions}
    return functions


def _analyse(
    root: Path,
    options: Options,
    job: Job,
    analysis: Analysis,
    warm: WarmPools | None,
    early: WorkerPool | None,
) -> None:
    """``analyse`` with the workers ``early`` (spawned already, or None)."""
    patterns = [*config_patterns(root), *options.patterns]
    functions = _functions(root, options, analysis, patterns)
    if early is not None:
        _scope(early, options, analysis, [f for f in functions if not f.skip])

    checksums = Checksums(root)
    tests_print = tests_fingerprint(root, checksums)
    settings = json.dumps([patterns, options.timeout_factor, options.timeout_base])
    context = json.dumps([tests_print, settings])
    previous = load_state(root, context) if options.incremental else {}

    results: dict[str, list[TransformationResult]] = {}
    entries: dict[str, Any] = {}  # new state entries
    todo: list[FunctionInfo] = []
    reruns: list[Rerun] = []
    replan: dict[str, dict[str, Any]] = {}  # function key -> entry whose results may hold
    detectors: dict[str, dict[str, str | None]] = {}  # key -> body -> its last detector
    for function in functions:
        if function.skip:
            results[function.key] = [_skipped(function, function.skip)]
            continue
        entry = previous.get(function.key)
        how, rerun = classify(function, entry, checksums)
        if how in ("run", "replan") and options.only:  # every function left is one of them
            rerun = quick_rerun(function, entry, checksums, provisional=warm is not None)
        if how == "reuse" and entry is not None:
            results[function.key] = [result_from_state(function, r) for r in entry["results"]]
            analysis.covering[function.key] = list(entry.get("tests", []))
            analysis.reused.add(function.key)
            entries[function.key] = entry
        elif rerun is not None:
            reruns.append(rerun)
        else:
            todo.append(function)
            if how == "replan" and entry is not None:
                replan[function.key] = entry
            elif entry is not None:  # edited: who detected what comes first again
                detectors[function.key] = {
                    r["body"]: r.get("detected_by") for r in entry["results"]
                }

    if todo or reruns:
        known = previous_runners(previous, todo, checksums)
        work = Work(todo, reruns, replan, checksums, results, entries, known, detectors)
        _run(root, options, job, analysis, work, warm, early)
        settle(work, previous, lambda again: _run(root, options, job, analysis, again, warm))

    analysis.results = [r for f in functions for r in results.get(f.key, [])]
    analysis.unit_checksums = run_checksums(analysis.results, checksums)
    kept = untouched(previous, root, analysis.functions)
    save_state(root, context, {**kept, **entries}, previous)


def _run(
    root: Path,
    options: Options,
    job: Job,
    analysis: Analysis,
    work: Work,
    warm: WarmPools | None = None,
    early: WorkerPool | None = None,
) -> None:
    if edited_at_import(options, work) and run_before_import(
        root, options, job, analysis, work, warm
    ):
        return  # the quick path: nothing collected
    job.report(0, None, "collecting tests")
    warm = None if options.scheduler else warm
    args = (root, _pool_size(options), options.python, options.pytest_args)
    functions = [*work.todo, *(r.function for r in work.reruns)]
    if early is not None:
        pool = early
    elif warm is not None:
        pool = warm.take(*args, job, collect_timeout=options.collect_timeout)
    else:
        pool = _new_pool(root, options)
        _scope(pool, options, analysis, functions)
    files = sorted({f.path for f in functions})
    pre = None
    try:
        with lent(pool, warm, wait=pool is not early):
            planned: dict[int, tuple[Transformation, dict[str, Any]]] = {}
            if work.todo:
                observed = observe(pool, root, job, analysis, work.todo, options, work.known)
                planned = _plan(options, analysis, observed, work)
            # Stale verdicts of import-time functions run in place, then on disk again.
            analysis.import_time |= {
                r.function.key for r in work.reruns if r.entry.get("import_time")
            }
            pool.start(job)
            pool.prepare(files)
            pre = spawn_pre_import(root, options, analysis, warm)
            plan_reruns(work.reruns, planned, (options.timeout_base, options.timeout_factor))
            # A cluster's workers leave the same test files out.
            pytest_args = [*options.pytest_args, *ignoring(root, analysis.uncollected_files)]
            run_all = runner_for(options.scheduler, pool, options.python, pytest_args, files)
            done = run_planned(run_all, planned, job)
            analysis.run_count += len(done)
            cap = options.test_timeout
            analysis.observed_tests += confirm_detections(
                work.reruns, done, lambda tests: pool.observe(tests, cap)
            )
    except BaseException:
        if pre is not None:
            pre.terminate()
        raise
    done = check_on_disk(root, options, analysis, planned, done, job, (pre, warm))
    record_results(analysis.covering, work, done)


def _plan(
    options: Options,
    analysis: Analysis,
    observed: dict[str, Any],
    work: Work,
) -> dict[int, tuple[Transformation, dict[str, Any]]]:
    """The transformations to run, each with its worker request; functions no passing test
    executes get their skipped result here, and results that hold (see ``reuse``) are kept."""
    results, checksums = work.results, work.checksums
    tests: dict[str, dict[str, Any]] = observed["tests"]
    returns: dict[str, list[str]] = observed["returns"]
    setup = float(observed.get("setup", 0.0))
    view = observed.get("store") or StoreView()
    import_tests = ImportTimeTests(analysis.root, tests, view)
    measured = {t: info["setup"] for t, info in tests.items() if info.get("setup") is not None}
    slowest = slowest_setups({**view.setups, **measured})
    durations = {t: info["duration"] for t, info in tests.items()}
    executed_by: dict[str, list[str]] = {}
    wanted = {function.key for function in work.todo}  # not every unit of every test
    for nodeid, info in tests.items():
        for unit in wanted.intersection(info["units"]):
            executed_by.setdefault(unit, []).append(nodeid)
    planned: dict[int, tuple[Transformation, dict[str, Any]]] = {}
    test_units = UnitSets()
    for function in work.todo:
        runners = executed_by.get(function.key, [])
        import_time = function.key in analysis.import_time
        if import_time:
            # What it computed at import reaches the tests through its file's other code.
            runners = sorted({*runners, *import_tests.of(function)})
        passed = [t for t in runners if tests[t]["outcome"] == "passed"]
        passing = detection_order(function.qualname, passed, durations)
        analysis.covering[function.key] = passing
        new = entry(function, runners, tests, checksums, test_units)
        work.entries[function.key] = new
        new["import_time"] = import_time
        if not runners and import_time:
            reason = f"{IMPORT_TIME}; no test executes code of its file"
            results[function.key] = [_skipped(function, reason)]
            continue
        if not runners:
            results[function.key] = [_skipped(function, "not executed by any test")]
            continue
        if not passing:
            results[function.key] = [_skipped(function, "executed only by tests that fail already")]
            continue
        bodies = function.annotated_bodies
        if bodies is None:
            bodies = tuple(bodies_for_kinds(set(returns.get(function.key, []))))
        new["bodies"] = list(bodies)
        time_entry(
            new, passing, tests, (setup, slowest), (options.timeout_base, options.timeout_factor)
        )
        before = work.replan.get(function.key)
        if before is not None and bool(before.get("import_time")) != import_time:
            before = None  # verdicts of the other model (in place / on disk) do not carry over
        timing = (options.timeout_base, options.timeout_factor)
        if plan_bodies(function, bodies, new, timing, before, work, planned):
            analysis.reused.add(function.key)
    return planned
