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

from lsp_server.extreme.constants import bodies_for_kinds
from lsp_server.extreme.discover import FunctionInfo, discover, source_files
from lsp_server.extreme.model import Transformation, TransformationResult, Verdict
from lsp_server.extreme.observation import ImportTimeTests, StoreView, store_view, test_timeouts
from lsp_server.extreme.on_disk import PrivateCopy
from lsp_server.extreme.pool import WorkerPool
from lsp_server.extreme.requests import run_planned, run_request
from lsp_server.extreme.runners import runner_for
from lsp_server.extreme.state import (
    Checksums,
    entry,
    has_state,
    load_state,
    previous_runners,
    result_from_state,
    result_to_state,
    save_state,
    tests_fingerprint,
    untouched,
)
from lsp_server.extreme.warm import WarmPools
from lsp_server.jobs import Job
from lsp_server.project import load_config

IMPORT_TIME = (
    "it ran while the project was imported (a decorator, a class body, a module-level call "
    "or a cached value), which swapping its code afterwards cannot change"
)
DISK_TIMEOUT_BASE = 60.0
"""Seconds a plain pytest run may take beyond the in-place timeout (start, collection)."""
DISK_TIMEOUT_CAP = 600.0

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
    on_disk: bool = True  # check import-time functions on disk (else: not analysable)
    verify: int = 0  # undetected verdicts to check again on disk (``--verify N``)
    scheduler: str | None = None  # a Dask scheduler's address (default: local workers)


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
    run_count: int = 0  # transformations actually run this time
    coverage_source: str = ""  # "store": the dependency store narrowed the observation run
    observed_tests: int = 0  # tests run by the observation run
    hung_tests: list[str] = field(default_factory=list)  # stopped at their timeout, excluded
    import_time: set[str] = field(default_factory=set)  # function keys that ran at import
    checked_on_disk: int = 0  # transformations run the plain way (import time, --verify)
    defects: list[str] = field(default_factory=list)  # verdicts the plain way contradicted

    def by_function(self) -> dict[str, list[TransformationResult]]:
        out: dict[str, list[TransformationResult]] = {}
        for result in self.results:
            t = result.transformation
            out.setdefault(f"{t.path}::{t.function}", []).append(result)
        return out


def config_patterns(root: Path) -> list[str]:
    """``[tool.reks.extreme] exclude = [...]`` from the project's pyproject.toml."""
    return load_config(root).strings("extreme", "exclude")


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
    # Nothing to reuse: the workers start importing and collecting right away, while this
    # process discovers the functions and hashes the tests.
    early = None
    if warm is None and not options.scheduler and not (options.incremental and has_state(root)):
        early = WorkerPool(
            root,
            _pool_size(options),
            options.python,
            options.pytest_args,
            collect_timeout=options.collect_timeout,
        )
        early.spawn()
    try:
        _analyse(root, options, job, analysis, warm, early)
    finally:
        if early is not None and early.workers:
            early.terminate()
    analysis.elapsed = time.perf_counter() - started
    return analysis


def _pool_size(options: Options) -> int:
    # With a cluster the local workers only observe: one is enough.
    return 1 if options.scheduler else options.jobs or os.cpu_count() or 1


def _analyse(
    root: Path,
    options: Options,
    job: Job,
    analysis: Analysis,
    warm: WarmPools | None,
    early: WorkerPool | None,
) -> None:
    """``analyse`` with the workers ``early`` (already spawned, or None)."""
    patterns = [*config_patterns(root), *options.patterns]
    files = source_files(root, options.paths)
    functions, analysis.errors = discover(root, files, patterns)
    analysis.functions = {f.key: f for f in functions}

    checksums = Checksums(root)
    tests_print = tests_fingerprint(root, checksums)
    settings = json.dumps([patterns, options.timeout_factor, options.timeout_base])
    context = json.dumps([tests_print, settings])
    previous = load_state(root, context) if options.incremental else {}

    results: dict[str, list[TransformationResult]] = {}
    entries: dict[str, Any] = {}  # new state entries
    todo: list[FunctionInfo] = []
    for function in functions:
        if function.skip:
            results[function.key] = [_skipped(function, function.skip)]
            continue
        entry = previous.get(function.key)
        if (
            entry is not None
            and entry.get("checksum") == function.checksum
            and all(checksums.get(unit) == value for unit, value in entry["deps"].items())
        ):
            results[function.key] = [result_from_state(function, r) for r in entry["results"]]
            analysis.covering[function.key] = list(entry.get("tests", []))
            analysis.reused.add(function.key)
            entries[function.key] = entry
        else:
            todo.append(function)

    if todo:
        known = previous_runners(previous, todo, checksums)
        _run(root, options, job, analysis, todo, checksums, results, entries, known, warm, early)

    analysis.results = [r for f in functions for r in results.get(f.key, [])]
    save_state(root, context, {**untouched(previous, root, analysis.functions), **entries})


def check_on_disk(
    root: Path,
    options: Options,
    analysis: Analysis,
    planned: dict[int, tuple[Transformation, dict[str, Any]]],
    done: list[TransformationResult],
    job: Job,
) -> list[TransformationResult]:
    """The undetected verdicts of import-time functions (and ``options.verify`` others)
    checked the plain way: the file rewritten in a private copy, the tests run afresh.
    An import-time function takes that verdict; any other disagreement is a defect."""
    import_time = [
        r for r in done if r.verdict is Verdict.UNDETECTED and _key(r) in analysis.import_time
    ]
    sample = [
        r for r in done if r.verdict is Verdict.UNDETECTED and _key(r) not in analysis.import_time
    ][: max(0, options.verify)]
    if not options.on_disk:
        for result in import_time:
            result.verdict = Verdict.SKIPPED
            result.reason = f"not analysable in place: {IMPORT_TIME}"
        import_time = []
    if not import_time and not sample:
        return done
    timeouts = {planned[i][0]: float(request["timeout"]) for i, (_, request) in planned.items()}
    job.report(0, len(import_time) + len(sample), "checking on disk")
    with PrivateCopy(root, options.python, options.pytest_args) as copy:
        for count, result in enumerate([*import_time, *sample], 1):
            job.check()
            t = result.transformation
            timeout = min(DISK_TIMEOUT_CAP, DISK_TIMEOUT_BASE + timeouts.get(t, 0.0))
            checked = copy.run(t, result.tests, timeout)
            analysis.checked_on_disk += 1
            job.report(count, len(import_time) + len(sample), f"{t.function}: {t.body} on disk")
            if result in import_time:
                result.verdict = checked.verdict
                result.reason = f"{IMPORT_TIME}; checked on disk: {checked.detail}"
            elif checked.verdict is not Verdict.UNDETECTED:
                analysis.defects.append(
                    f"{t.path}::{t.function} -> {t.body}: undetected in place but "
                    f"{checked.verdict.value} on disk ({checked.detail})"
                )
                result.verdict = checked.verdict
                result.reason = f"checked on disk: {checked.detail}"
    return done


def _key(result: TransformationResult) -> str:
    return f"{result.transformation.path}::{result.transformation.function}"


def _run(
    root: Path,
    options: Options,
    job: Job,
    analysis: Analysis,
    todo: list[FunctionInfo],
    checksums: Checksums,
    results: dict[str, list[TransformationResult]],
    entries: dict[str, Any],
    known: list[str] | None = None,
    warm: WarmPools | None = None,
    early: WorkerPool | None = None,
) -> None:
    job.report(0, None, "collecting tests")
    warm = None if options.scheduler else warm
    args = (root, _pool_size(options), options.python, options.pytest_args)
    if early is not None:
        pool = early
    elif warm is not None:
        pool = warm.take(*args, job, collect_timeout=options.collect_timeout)
    else:
        pool = WorkerPool(*args, collect_timeout=options.collect_timeout)
    try:
        observed = _observe(pool, root, job, analysis, todo, options, known)
        planned = _plan(options, analysis, todo, observed, checksums, results, entries)
        files = sorted({f.path for f in todo})
        run_all = runner_for(options.scheduler, pool, options.python, options.pytest_args, files)
        done = run_planned(run_all, planned, job)
        analysis.run_count = len(done)
    except BaseException:
        pool.terminate()
        raise
    if warm is not None:
        warm.give_back(pool)
    else:
        pool.close()
    done = check_on_disk(root, options, analysis, planned, done, job)
    for result in done:
        t = result.transformation
        results.setdefault(f"{t.path}::{t.function}", []).append(result)
    for function in todo:
        entry = entries.get(function.key)
        if entry is not None:
            entry["results"] = [result_to_state(r) for r in results.get(function.key, [])]
            entry["tests"] = analysis.covering.get(function.key, [])


def _observe(
    pool: WorkerPool,
    root: Path,
    job: Job,
    analysis: Analysis,
    todo: list[FunctionInfo],
    options: Options,
    known: list[str] | None = None,
) -> dict[str, Any]:
    """Start the workers and run the covering tests once on the original code: which tests
    execute which function, how long each takes, what each function returns."""
    observe_start = time.perf_counter()
    pool.start(job)
    if pool.collection_errors:
        analysis.errors["(tests)"] = (
            f"{pool.collection_errors} error(s) while collecting the tests; "
            "the tests of those modules were not used (run pytest to see them)"
        )
    pool.prepare(sorted({f.path for f in todo}))
    job.report(0, None, "observing the tests")
    analysis.import_time = pool.import_time & {f.key for f in todo}
    view = store_view(root, pool.nodeids, todo, frozenset(analysis.import_time))
    subset = view.subset
    if known is not None and not analysis.import_time:
        # Only their bodies changed: no other test can reach them now.
        subset = [t for t in (subset or pool.nodeids) if t in set(known)]
    if view.subset is None:
        analysis.coverage_source = "observation"
    else:
        analysis.coverage_source = "store" if subset else "store only"
    cap = options.test_timeout
    if subset == []:
        observed: dict[str, Any] = {"tests": {}, "returns": {}, "setup": view.setup}
    else:
        observed = pool.observe(subset, cap, test_timeouts(subset, view.durations, cap))
    analysis.observed_tests = len(observed["tests"])
    analysis.hung_tests = sorted(n for n, t in observed["tests"].items() if t["outcome"] == "hung")
    observed["tests"] = {**view.known_tests, **observed["tests"]}
    observed["store"] = view
    for unit, kinds in [*view.returns.items(), *pool.import_returns.items()]:
        observed["returns"][unit] = sorted({*observed["returns"].get(unit, []), *kinds})
    analysis.observation = time.perf_counter() - observe_start
    return observed


def _plan(
    options: Options,
    analysis: Analysis,
    todo: list[FunctionInfo],
    observed: dict[str, Any],
    checksums: Checksums,
    results: dict[str, list[TransformationResult]],
    entries: dict[str, Any],
) -> dict[int, tuple[Transformation, dict[str, Any]]]:
    """The transformations to run, each with its worker request; functions no passing test
    executes get their skipped result here."""
    tests: dict[str, dict[str, Any]] = observed["tests"]
    returns: dict[str, list[str]] = observed["returns"]
    setup = float(observed.get("setup", 0.0))
    import_tests = ImportTimeTests(analysis.root, tests, observed.get("store") or StoreView())
    executed_by: dict[str, list[str]] = {}
    for nodeid, info in tests.items():
        for unit in info["units"]:
            executed_by.setdefault(unit, []).append(nodeid)
    planned: dict[int, tuple[Transformation, dict[str, Any]]] = {}
    for function in todo:
        runners = executed_by.get(function.key, [])
        if function.key in analysis.import_time:
            # What it computed at import reaches the tests through its file's other code.
            runners = sorted({*runners, *import_tests.of(function)})
        passing = sorted(
            (t for t in runners if tests[t]["outcome"] == "passed"),
            key=lambda t: (tests[t]["duration"], t),
        )
        analysis.covering[function.key] = passing
        entries[function.key] = entry(function, runners, tests, checksums)
        if not runners and function.key in analysis.import_time:
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
        total = sum(tests[t]["duration"] for t in passing) + setup
        timeout = options.timeout_base + options.timeout_factor * total
        for body in bodies:
            ident = len(planned)
            transformation = Transformation(function.path, function.qualname, function.line, body)
            planned[ident] = (transformation, run_request(ident, function, body, passing, timeout))
    return planned
