"""Where the CPU time of an extreme analysis goes (issue 17): the analysis's own process,
the pytest worker's start, collection and preparation, and each transformation's share in
the worker, in its forked child, and in forking and ending that child; a transformation
run by the worker's kept child (``kept_child``) is counted apart: its run and, of it, the
check of the state after it.

The end-to-end ratio against the naive way (``extreme_speed.py``) is CPU time over CPU
time; this breaks reks's side down. Workers forked from this process (``fork_safety``)
inherit wrappers set here before the analysis starts: each wrapped step appends what it
used (``resource.getrusage``) to a file of its process, read at the end. A worker that is
a new interpreter reports only its milestones (read from ``/proc``).

    TMPDIR=/some/dir python bench/extreme_cpu.py --only humanize --runs 3
    TMPDIR=/some/dir python bench/extreme_cpu.py --project PATH=pkg/m.py
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import resource
import shutil
import statistics
import tempfile
import time
import types
from collections.abc import Callable
from pathlib import Path
from typing import Any

import _pytest.runner
from extreme_speed import PROJECTS, QUIET, WORK, fetch, import_root, load, record_store
from worker_timeline import MARKS, cpu_ms

from lsp_server.extreme import kept_child, run_log, state_digest, transform_run
from lsp_server.extreme import pool as pool_module
from lsp_server.extreme.analysis import Analysis, Options, analyse
from lsp_server.sandbox import forked

STEPS_VARIABLE = "REKS_BENCH_CPU_STEPS"
"""The folder where each process appends its steps (one JSON line per step)."""
_TRANSFORMING = [False]
"""Set while a worker forks a transformation's child (``run_child``): a child forked then
is a transformation's (the others are observation runs)."""


def _usage(who: int) -> tuple[float, int]:
    """CPU seconds (user and system) and minor page faults of ``who`` so far."""
    usage = resource.getrusage(who)
    return usage.ru_utime + usage.ru_stime, usage.ru_minflt


def _note(step: str, cpu: float, faults: int, children: float = 0.0) -> None:
    folder = os.environ.get(STEPS_VARIABLE)
    if folder:
        line = json.dumps({"step": step, "cpu": cpu, "faults": faults, "children": children})
        with open(Path(folder) / f"{os.getpid()}.jsonl", "a", encoding="utf-8") as out:
            out.write(line + "\n")


def _timed(owner: Any, name: str, step: str) -> None:
    """Wrap ``owner.name`` to note the CPU its calls use, and their reaped children's."""
    original = getattr(owner, name)

    @functools.wraps(original)
    def run(*args: Any, **kwargs: Any) -> Any:
        cpu, faults = _usage(resource.RUSAGE_SELF)
        children = _usage(resource.RUSAGE_CHILDREN)[0]
        try:
            return original(*args, **kwargs)
        finally:
            after, faulted = _usage(resource.RUSAGE_SELF)
            reaped = _usage(resource.RUSAGE_CHILDREN)[0] - children
            _note(step, after - cpu, faulted - faults, reaped)

    setattr(owner, name, run)


def _in_child(original: Callable[..., None]) -> Callable[..., None]:
    """``forked._child`` noting what its work used (the child's end is not counted)."""

    def child(work: Callable[[], Any], write_end: int) -> None:
        cpu, faults = _usage(resource.RUSAGE_SELF)
        step = "child" if _TRANSFORMING[0] else "observation child"

        def noted() -> Any:
            try:
                return work()
            finally:
                after, faulted = _usage(resource.RUSAGE_SELF)
                _note(step, after - cpu, faulted - faults)

        original(noted, write_end)

    return child


def wrap_steps() -> None:
    """Wrap the steps counted (once, before any analysis)."""
    _timed(transform_run, "run_transformation", "request")
    _timed(transform_run, "compiled_swap", "compile")
    _timed(forked.Forker, "run", "fork and wait")
    _timed(run_log.RunLog, "start", "run log start")
    _timed(_pytest.runner, "runtestprotocol", "test")
    _timed(kept_child._ChildSession, "run", "kept run")
    _timed(kept_child._ChildSession, "_clean", "kept clean")
    # The kept child's own collections only (the worker's before it forks are not a run's).
    kept_child.gc = types.SimpleNamespace(collect=kept_child.gc.collect)  # type: ignore[assignment]
    _timed(kept_child.gc, "collect", "collect garbage")
    _timed(state_digest.StateDigest, "changed", "state check")
    _timed(kept_child.KeptChild, "_start", "kept fork")
    forked._child = _in_child(forked._child)  # type: ignore[assignment]
    run_child = transform_run.run_child

    @functools.wraps(run_child)
    def transforming(*args: Any, **kwargs: Any) -> dict[str, Any]:
        _TRANSFORMING[0] = True
        try:
            return run_child(*args, **kwargs)
        finally:
            _TRANSFORMING[0] = False

    transform_run.run_child = transforming  # type: ignore[assignment]


def analysed(root: Path, targets: list[str], steps: Path) -> tuple[Analysis, dict[str, Any]]:
    """One analysis of ``targets`` as ``extreme_speed.py`` runs it: the analysis, and its
    CPU seconds by part."""
    milestones: dict[str, float] = {}
    receive = pool_module.Worker.receive

    def timed(worker: pool_module.Worker, *args: Any, **kwargs: Any) -> dict[str, Any]:
        message = receive(worker, *args, **kwargs)
        op = str(message.get("op"))
        if op in MARKS and op not in milestones:
            milestones[op] = cpu_ms(worker.process.pid) / 1000
        return message

    os.environ["PYTHONPATH"] = str(import_root(root))
    os.environ[STEPS_VARIABLE] = str(steps)
    paths = [root / t for t in targets]
    options = Options(paths=paths, jobs=2, incremental=False, pytest_args=QUIET)
    pool_module.Worker.receive = timed  # type: ignore[method-assign]
    own, children = _usage(resource.RUSAGE_SELF)[0], _usage(resource.RUSAGE_CHILDREN)[0]
    try:
        analysis = analyse(root, options)
    finally:
        pool_module.Worker.receive = receive  # type: ignore[method-assign]
        del os.environ[STEPS_VARIABLE]
    parts = {
        "analysis process": _usage(resource.RUSAGE_SELF)[0] - own,
        "workers and their children": _usage(resource.RUSAGE_CHILDREN)[0] - children,
        "milestones": milestones,
    }
    return analysis, parts


def _steps(folder: Path) -> dict[str, list[dict[str, float]]]:
    by_step: dict[str, list[dict[str, float]]] = {}
    for path in folder.glob("*.jsonl"):
        for line in path.read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            by_step.setdefault(row.pop("step"), []).append(row)
    return by_step


def _total(rows: list[dict[str, float]], key: str = "cpu") -> float:
    return sum(row[key] for row in rows)


def breakdown(parts: dict[str, Any], by_step: dict[str, list[dict[str, float]]]) -> list[str]:
    """The lines printed for one analysis (CPU seconds, per transformation milliseconds)."""
    requests = by_step.get("request", [])
    children = by_step.get("child", [])
    count = max(1, len(requests))
    marks = parts["milestones"]
    own, workers = parts["analysis process"], parts["workers and their children"]
    start, collected = marks.get("waiting", 0.0), marks.get("ready", 0.0)
    prepared = marks.get("prepared", 0.0)
    in_worker = _total(requests)
    reaped = _total(requests, "children")
    in_child = _total(children)
    ms = 1000 / count
    per = (in_worker + reaped) * ms
    fork_wait = _total(by_step.get("fork and wait", [])) * ms
    tests = by_step.get("test", [])
    return [
        f"reks CPU {own + workers:.2f} s: analysis process {own:.2f} s; first worker up to "
        f"waiting for its scope (Python, pytest, plugins) {start:.2f} s, collection "
        f"{max(0.0, collected - start):.2f} s, importing the targets and forking "
        f"{max(0.0, prepared - collected):.2f} s",
        f"    {len(requests)} transformations: {per:.1f} ms each, {per * count / 1000:.2f} s in "
        f"all: in the worker {in_worker * ms:.1f} ms (of it compile "
        f"{_total(by_step.get('compile', [])) * ms:.1f}, fork and wait {fork_wait:.1f}); "
        f"the child's own {in_child * ms:.1f} ms ({len(tests) / count:.2f} tests "
        f"{_total(tests) * ms:.1f} ms, run log start "
        f"{_total(by_step.get('run log start', [])) * ms:.1f} ms, "
        f"{statistics.median(r['faults'] for r in children) if children else 0:.0f} page "
        f"faults median); forking and ending it {(reaped - in_child) * ms:.1f} ms",
        *_kept_lines(by_step, count),
        f"    the rest (observation runs {len(by_step.get('observation child', []))}, the "
        f"other workers, ends, kept children reaped after their request) "
        f"{workers - prepared - in_worker - reaped:.2f} s {load()}",
    ]


def _kept_lines(by_step: dict[str, list[dict[str, float]]], count: int) -> list[str]:
    """What the kept children used: their runs (each a transformation's, or the start of
    one the forked way redid), of it the state check, and the worker's forks of them."""
    runs = by_step.get("kept run", [])
    if not runs:
        return []
    forks = by_step.get("kept fork", [])
    ms = 1000 / max(1, len(runs))
    return [
        f"    kept children: {len(runs)} runs of {count} requests, {len(forks)} children; "
        f"{_total(runs) * ms:.1f} ms a run (of it putting back and checking the state "
        f"{_total(by_step.get('kept clean', [])) * ms:.1f} ms: collecting garbage "
        f"{_total(by_step.get('collect garbage', [])) * ms:.1f} ms, reading the state "
        f"{_total(by_step.get('state check', [])) * ms:.1f} ms), "
        f"{_total(runs):.2f} s in all; forking them {_total(forks):.2f} s in the worker"
    ]


def project_roots(args: argparse.Namespace) -> list[tuple[Path, list[str]]]:
    """(recorded copy, targets) of each project asked for: ``--project PATH=t.py,...`` or
    the known projects of ``extreme_speed.py`` (``--only``), their store recorded once."""
    chosen = []
    for spec in args.project or []:
        path, _, targets = spec.partition("=")
        chosen.append((Path(path).resolve(), targets.split(",")))
    for project in PROJECTS if not args.project else []:
        if args.only and args.only not in project.requirement:
            continue
        recorded = WORK / "cpu-recorded" / project.requirement.split("==")[0]
        if not (recorded / ".reks").exists():
            shutil.rmtree(recorded, ignore_errors=True)
            shutil.copytree(fetch(project), recorded)
            record_store(recorded)
        chosen.append((recorded, project.targets))
    return chosen


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", help="known projects whose requirement contains this")
    parser.add_argument("--project", action="append", help="PATH=target.py,... (its store)")
    parser.add_argument("--runs", type=int, default=1)
    args = parser.parse_args()
    wrap_steps()
    for recorded, targets in project_roots(args):
        print(f"== {recorded.name}: {', '.join(targets)}")
        for _ in range(args.runs):
            copy = WORK / "cpu" / recorded.name  # the workers' bytecode cache dropped
            shutil.rmtree(copy, ignore_errors=True)
            shutil.copytree(recorded, copy, ignore=shutil.ignore_patterns("pycache"))
            with tempfile.TemporaryDirectory() as folder:
                started = time.perf_counter()
                analysis, parts = analysed(copy, targets, Path(folder))
                wall = time.perf_counter() - started
                lines = breakdown(parts, _steps(Path(folder)))
            print(f"  {analysis.run_count} transformations, {wall:.2f} s wall; {lines[0]}")
            print("\n".join(lines[1:]))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
