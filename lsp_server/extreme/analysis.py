"""The extreme analysis of a project: discover, observe, transform, run, remember.

``analyse`` is the one entry point used by the CLI, the server and the benchmark. It is
incremental: a function keeps its previous verdicts when its own unit, every unit its
covering tests executed, and the set of tests (the module part of every test file) are
unchanged; those functions need no worker at all.
"""

from __future__ import annotations

import json
import os
import sqlite3
import time
from collections.abc import Sequence
from contextlib import suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import xxhash

from lsp_server.extreme.constants import bodies_for_kinds
from lsp_server.extreme.discover import FunctionInfo, discover, is_test_file, source_files
from lsp_server.extreme.model import Transformation, TransformationResult, Verdict
from lsp_server.extreme.pool import WorkerPool
from lsp_server.jobs import Job
from lsp_server.project import load_config, python_files
from lsp_server.rts.store import DependencyStore, StoreError
from lsp_server.rts.units import MODULE, FileUnits, SourceError, path_units

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

    def by_function(self) -> dict[str, list[TransformationResult]]:
        out: dict[str, list[TransformationResult]] = {}
        for result in self.results:
            t = result.transformation
            out.setdefault(f"{t.path}::{t.function}", []).append(result)
        return out


def config_patterns(root: Path) -> list[str]:
    """``[tool.reks.extreme] exclude = [...]`` from the project's pyproject.toml."""
    return load_config(root).strings("extreme", "exclude")


class _Checksums:
    """Current unit checksums, parsed once per file."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.files: dict[str, FileUnits | None] = {}

    def get(self, key: str) -> str | None:
        path, _, name = key.partition("::")
        if path not in self.files:
            try:
                self.files[path] = path_units(self.root, Path(path))
            except (OSError, SourceError, ValueError):
                self.files[path] = None
        units = self.files[path]
        return None if units is None else units.checksums.get(name or MODULE)


def _tests_fingerprint(root: Path, checksums: _Checksums) -> str:
    """Hash of the module part of every test file: a new or removed test changes it."""
    digest = xxhash.xxh3_64()
    for path in python_files(root):
        rel = path.relative_to(root).as_posix()
        if is_test_file(rel):
            digest.update(f"{rel}={checksums.get(rel + '::' + MODULE)}\0".encode())
    return digest.hexdigest()


def _load_state(root: Path, context: str) -> dict[str, Any]:
    """The entries saved by the last analysis under ``context``, by function key. The
    store is a cache here: one that cannot be used means no entries."""
    try:
        with DependencyStore(root) as store:
            return store.extreme_verdicts(context)
    except (StoreError, OSError, sqlite3.Error, ValueError):
        return {}


def _save_state(root: Path, context: str, entries: dict[str, Any]) -> None:
    # A store that cannot be used (corrupt, another reks's schema) is reported by test
    # selection; the analysis just runs everything again next time.
    with suppress(StoreError, OSError, sqlite3.Error), DependencyStore(root) as store:
        store.save_extreme_verdicts(context, entries)


def _result_to_state(result: TransformationResult) -> dict[str, Any]:
    return {
        "body": result.transformation.body,
        "verdict": result.verdict.value,
        "tests": result.tests,
        "reason": result.reason,
        "detected_by": result.detected_by,
        "duration": result.duration,
    }


def _result_from_state(function: FunctionInfo, row: dict[str, Any]) -> TransformationResult:
    return TransformationResult(
        transformation=Transformation(function.path, function.qualname, function.line, row["body"]),
        verdict=Verdict(row["verdict"]),
        tests=list(row.get("tests", [])),
        reason=row.get("reason", ""),
        detected_by=row.get("detected_by"),
        duration=float(row.get("duration", 0.0)),
    )


def _skipped(function: FunctionInfo, reason: str) -> TransformationResult:
    return TransformationResult(
        Transformation(function.path, function.qualname, function.line, ANY_BODY),
        Verdict.SKIPPED,
        reason=reason,
    )


def analyse(root: Path, options: Options | None = None, job: Job | None = None) -> Analysis:
    """Run the extreme analysis of the project at ``root``; see the module docstring."""
    options = options or Options()
    job = job or Job()
    started = time.perf_counter()
    root = root.resolve()
    analysis = Analysis(root=root)
    patterns = [*config_patterns(root), *options.patterns]
    files = source_files(root, options.paths)
    functions, analysis.errors = discover(root, files, patterns)
    analysis.functions = {f.key: f for f in functions}

    checksums = _Checksums(root)
    tests_print = _tests_fingerprint(root, checksums)
    settings = json.dumps([patterns, options.timeout_factor, options.timeout_base])
    context = json.dumps([tests_print, settings])
    previous = _load_state(root, context) if options.incremental else {}

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
            and entry.get("line") == function.line
            and all(checksums.get(unit) == value for unit, value in entry["deps"].items())
        ):
            results[function.key] = [_result_from_state(function, r) for r in entry["results"]]
            analysis.covering[function.key] = list(entry.get("tests", []))
            analysis.reused.add(function.key)
            entries[function.key] = entry
        else:
            todo.append(function)

    if todo:
        _run(root, options, job, analysis, todo, checksums, results, entries)

    analysis.results = [r for f in functions for r in results.get(f.key, [])]
    _save_state(root, context, {**_untouched(previous, analysis), **entries})
    analysis.elapsed = time.perf_counter() - started
    return analysis


def _untouched(previous: dict[str, Any], analysis: Analysis) -> dict[str, Any]:
    """State entries of functions outside this run's paths are kept for later runs."""
    return {
        key: entry
        for key, entry in previous.items()
        if key not in analysis.functions and (analysis.root / key.partition("::")[0]).exists()
    }


def _run(
    root: Path,
    options: Options,
    job: Job,
    analysis: Analysis,
    todo: list[FunctionInfo],
    checksums: _Checksums,
    results: dict[str, list[TransformationResult]],
    entries: dict[str, Any],
) -> None:
    size = options.jobs or os.cpu_count() or 1
    job.report(0, None, "collecting tests")
    with WorkerPool(root, size, options.python, options.pytest_args) as pool:
        try:
            observed = _observe(pool, root, job, analysis, todo)
            planned = _plan(options, analysis, todo, observed, checksums, results, entries)
            done = _run_planned(pool, planned, job)
            analysis.run_count = len(done)
        except BaseException:
            pool.terminate()
            raise
    for result in done:
        t = result.transformation
        results.setdefault(f"{t.path}::{t.function}", []).append(result)
    for function in todo:
        entry = entries.get(function.key)
        if entry is not None:
            entry["results"] = [_result_to_state(r) for r in results.get(function.key, [])]
            entry["tests"] = analysis.covering.get(function.key, [])


def _observe(
    pool: WorkerPool, root: Path, job: Job, analysis: Analysis, todo: list[FunctionInfo]
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
    subset = tests_to_observe(root, pool.nodeids, todo)
    analysis.coverage_source = "observation" if subset is None else "store"
    observed: dict[str, Any] = pool.observe(subset)
    analysis.observed_tests = len(observed["tests"])
    analysis.observation = time.perf_counter() - observe_start
    return observed


def _plan(
    options: Options,
    analysis: Analysis,
    todo: list[FunctionInfo],
    observed: dict[str, Any],
    checksums: _Checksums,
    results: dict[str, list[TransformationResult]],
    entries: dict[str, Any],
) -> dict[int, tuple[Transformation, dict[str, Any]]]:
    """The transformations to run, each with its worker request; functions no passing test
    executes get their skipped result here."""
    tests: dict[str, dict[str, Any]] = observed["tests"]
    returns: dict[str, list[str]] = observed["returns"]
    setup = float(observed.get("setup", 0.0))
    executed_by: dict[str, list[str]] = {}
    for nodeid, info in tests.items():
        for unit in info["units"]:
            executed_by.setdefault(unit, []).append(nodeid)
    planned: dict[int, tuple[Transformation, dict[str, Any]]] = {}
    for function in todo:
        runners = executed_by.get(function.key, [])
        passing = sorted(
            (t for t in runners if tests[t]["outcome"] == "passed"),
            key=lambda t: (tests[t]["duration"], t),
        )
        analysis.covering[function.key] = passing
        entries[function.key] = _entry(function, runners, tests, checksums)
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
            request = {
                "op": "run",
                "id": ident,
                "path": function.path,
                "function": function.qualname,
                "line": function.line,
                "first_line": function.first_line,
                "body": body,
                "tests": passing,
                "timeout": timeout,
            }
            planned[ident] = (transformation, request)
    return planned


def _run_planned(
    pool: WorkerPool, planned: dict[int, tuple[Transformation, dict[str, Any]]], job: Job
) -> list[TransformationResult]:
    """Run every planned transformation on the workers; the results in planned order."""
    done: dict[int, TransformationResult] = {}
    job.report(0, len(planned), "running transformations")
    for reply in pool.run_all([request for _, request in planned.values()], job):
        t = planned[reply["id"]][0]
        done[reply["id"]] = TransformationResult(
            transformation=t,
            verdict=Verdict(reply["verdict"]),
            tests=list(reply.get("tests", [])),
            reason=reply.get("reason", ""),
            detected_by=reply.get("detected_by"),
            duration=float(reply.get("duration", 0.0)),
        )
        job.report(len(done), len(planned), f"{t.function}: {t.body}")
    return [done[ident] for ident in sorted(done)]


def tests_to_observe(
    root: Path, collected: list[str], functions: list[FunctionInfo]
) -> list[str] | None:
    """The tests that may execute ``functions``, from the dependency store of test
    selection; None (observe every test) when there is no usable store.

    A test whose recorded dependencies are all unchanged executes exactly the units
    recorded for it, so it is observed only if one of them is a target; every other test
    (new, changed, failed, stale) is observed, since what it executes now is unknown."""
    from lsp_server.rts.select import select_affected_tests
    from lsp_server.rts.store import DependencyStore, StoreError, store_path
    from lsp_server.rts.units import Unit

    if not store_path(root).exists():
        return None
    try:
        with DependencyStore(root, create=False) as store:
            if not store.test_records():
                return None
            selection = select_affected_tests(root, store, collected)
            covering = store.tests_depending_on_any([Unit(f.path, f.qualname) for f in functions])
    except (StoreError, OSError, sqlite3.Error):
        return None
    return [t for t in collected if t in selection.selected or t in covering]


def _entry(
    function: FunctionInfo,
    runners: list[str],
    tests: dict[str, dict[str, Any]],
    checksums: _Checksums,
) -> dict[str, Any]:
    """What must stay the same for the function's verdicts to hold."""
    deps: set[str] = set()
    for nodeid in runners:
        for unit in tests[nodeid]["units"]:
            deps.add(unit)
            deps.add(unit.partition("::")[0] + "::" + MODULE)
        deps.add(nodeid.split("::", 1)[0] + "::" + MODULE)
    deps.add(function.key)
    return {
        "checksum": function.checksum,
        "line": function.line,
        "deps": {unit: checksums.get(unit) for unit in sorted(deps)},
        "results": [],
        "tests": [],
    }
