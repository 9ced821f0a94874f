"""Speed of the extreme runner against the naive way and mutmut, on real projects.

For each project (a PyPI sdist that ships its tests) and its target files:

(a) reks: ``lsp_server.extreme.analyse`` (warm forked workers, code swapped in memory);
(b) naive: for a sample of the same transformations, rewrite the file on a copy of the
    project and run the covering tests (same order, ``-x``) in a fresh pytest process;
    verdicts are compared with reks';
(c) mutmut (``pip install mutmut`` into a temp venv) on the same files, for a fixed time
    budget. mutmut cannot run extreme transformations nor be limited to a given list of
    them, so its rate is per mutant of its own (operator mutations) on the same files.

Prints transformations per second, total time (wall and CPU), median ms per
transformation, the ratios, and the pseudo-tested share per project. The interpreter that
runs it needs each project's test dependencies (itsdangerous: freezegun): a test file that
fails to collect leaves its tests out of the store, and the analysis observes them again
("coverage from observation"). Run with ``nice`` on a quiet machine:

    nice python bench/extreme_speed.py [--naive-sample 12] [--mutmut-seconds 60] [--jobs 2]
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import resource
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from extreme_phases import PHASE_SECONDS, clock_phases, print_phases
from reks_bytecode import compile_reks
from sdist import fetch_sdist

from lsp_server.extreme.analysis import Analysis, Options, analyse
from lsp_server.extreme.model import Transformation, TransformationResult, Verdict
from lsp_server.extreme.on_disk import rewrite_body
from lsp_server.extreme.report import summarize
from lsp_server.extreme.transform_run import PAST_HANGS
from lsp_server.extreme.warm import WarmPools

WORK = Path(tempfile.gettempdir()) / "reks-bench-extreme"
QUIET = ["-W", "ignore::pytest.PytestDeprecationWarning", "-p", "no:cacheprovider"]


@dataclass
class Project:
    requirement: str  # pip requirement of the sdist
    targets: list[str]  # files whose functions are transformed
    tests: str  # test directory (for mutmut)
    source: str  # package directory (for mutmut)
    root: Path = field(default=Path())


PROJECTS = [
    Project("more-itertools==10.5.0", ["more_itertools/recipes.py"], "tests/", "more_itertools/"),
    Project("toolz==1.2.0", ["toolz/itertoolz.py", "toolz/dicttoolz.py"], "toolz/tests/", "toolz/"),
    Project(
        "boltons==26.2.0",
        ["boltons/strutils.py", "boltons/setutils.py"],
        "tests/",
        "boltons/",
    ),
    Project(
        "humanize==4.17.0",
        [f"src/humanize/{name}.py" for name in ("number", "time", "filesize", "lists", "i18n")],
        "tests/",
        "src/humanize/",
    ),
    Project("parse==1.22.4", ["parse/__init__.py"], "tests/", "parse/"),
]


def load() -> str:
    """The machine's load (1-minute average), printed with each figure: it is shared."""
    return f"[load {os.getloadavg()[0]:.1f}]"


def pytest_plugins() -> str:
    """The pytest plugins installed in this interpreter, printed with the figures: each
    naive run loads them all, reks's workers once. reks's own ``dev`` extra holds
    pytest-lsp, which imports ``lsprotocol`` at once: in such a venv each naive run of
    humanize took 1.04-1.15 s of CPU, in a venv of reks without it and the project's test
    dependencies 0.39-0.46 s. A user's ratio is measured in the latter."""
    from importlib.metadata import entry_points

    return ", ".join(sorted({entry.name for entry in entry_points(group="pytest11")}))


def cpu_seconds() -> float:
    """CPU time of this process and of every child it waited for (the workers, and theirs):
    beside wall seconds, since a shared machine's load stretches the wall time."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def import_root(root: Path) -> Path:
    """Where the project's packages are imported from: ``src/`` in a src layout."""
    src = root / "src"
    return src if src.is_dir() and any(src.glob("*/__init__.py")) else root


def fetch(project: Project) -> Path:
    """Download and unpack the sdist (once)."""
    return fetch_sdist(project.requirement, WORK / "src")


def fresh_copy(root: Path, label: str) -> Path:
    copy = WORK / label / root.name
    if copy.exists():
        shutil.rmtree(copy)
    shutil.copytree(root, copy, ignore=shutil.ignore_patterns(".reks", "__pycache__", "mutants"))
    return copy


# -- (a) reks ------------------------------------------------------------------------------


def run_reks(root: Path, project: Project, jobs: int) -> Analysis:
    # The workers import the project from its sources.
    os.environ["PYTHONPATH"] = str(import_root(root))
    return analyse(
        root,
        Options(
            paths=[root / t for t in project.targets],
            jobs=jobs,
            incremental=False,
            pytest_args=QUIET,
        ),
    )


# -- (b) naive -----------------------------------------------------------------------------


_NOT_RUN = (3, 4, 5)
"""pytest's exit codes that say it did not run the tests (a collection error, 2, is a
transformation's effect at import: detected)."""


def run_naive(copy: Path, result: TransformationResult) -> tuple[float, float, bool]:
    """Seconds, CPU seconds and whether some test failed, rewriting the file and running
    pytest afresh."""
    t = result.transformation
    path = copy / t.path
    original = path.read_bytes()
    text = rewrite_body(original.decode(), t.line, t.function.rsplit(".", 1)[-1], t.body)
    path.write_text(text, encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": str(import_root(copy)), "PYTHONDONTWRITEBYTECODE": "1"}
    started, cpu_started = time.perf_counter(), cpu_seconds()
    try:
        done = subprocess.run(
            [sys.executable, "-m", "pytest", "-x", "-q", *QUIET, *result.tests],
            cwd=copy,
            env=env,
            capture_output=True,
            timeout=120,
        )
        if done.returncode in _NOT_RUN:  # a usage or internal error, or no such tests
            tail = done.stderr.decode(errors="replace")[-400:]
            raise SystemExit(f"the naive pytest ran no test (exit {done.returncode}): {tail}")
        failed = done.returncode != 0
    except subprocess.TimeoutExpired:
        failed = True
    finally:
        path.write_bytes(original)
    return time.perf_counter() - started, cpu_seconds() - cpu_started, failed


# -- (c) mutmut ----------------------------------------------------------------------------


def mutmut_python() -> Path:
    venv = WORK / "mutmut-venv"
    python = venv / "bin" / "python"
    if not (venv / "bin" / "mutmut").exists():
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        subprocess.run([str(python), "-m", "pip", "install", "-q", "mutmut", "pytest"], check=True)
    return python


def mutmut_config(project: Project, deselect: list[str]) -> str:
    args = [arg for test in deselect for arg in ("--deselect", test)] + QUIET
    return (
        "\n[tool.mutmut]\n"
        f"source_paths = [{project.source!r}]\n"
        f"only_mutate = {json.dumps(project.targets)}\n"
        f"pytest_add_cli_args_test_selection = [{project.tests!r}]\n"
        f"pytest_add_cli_args = {json.dumps(args)}\n"
    )


def failing_in_mutants(copy: Path, python: Path, project: Project) -> list[str]:
    """The tests that fail on the original code in mutmut's ``mutants/`` copy (which holds
    ``source_paths`` only, and no installed distribution): mutmut's stats phase stops at
    the first one (``-x``) and then runs no mutant at all."""
    out = subprocess.run(
        [str(python), "-m", "pytest", "-q", "-rfE", *QUIET, project.tests],
        cwd=copy / "mutants",
        env={**os.environ, "MUTANT_UNDER_TEST": ""},  # the trampolines' clean run
        capture_output=True,
        text=True,
    ).stdout
    return [
        line.split()[1]
        for line in out.splitlines()
        if line.startswith(("FAILED ", "ERROR ")) and "::" in line
    ]


def mutmut_for(copy: Path, python: Path, jobs: int, seconds: float) -> float:
    """Run ``mutmut run`` in ``copy`` until it ends or for ``seconds``; seconds it ran."""
    started = time.perf_counter()
    process = subprocess.Popen(
        [str(python.parent / "mutmut"), "run", "--max-children", str(jobs)],
        cwd=copy,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        process.wait(timeout=seconds)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGINT)  # lets mutmut save what it finished
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
    return time.perf_counter() - started


def run_mutmut(root: Path, project: Project, seconds: float, jobs: int) -> dict[str, float]:
    """mutmut for ``seconds`` on a copy. A first short run makes its ``mutants/`` copy; the
    tests failing there are deselected (as reks leaves out tests failing on the original
    code), or mutmut would run none of its mutants."""
    copy = fresh_copy(root, "mutmut")
    python = mutmut_python()
    pyproject = copy / "pyproject.toml"
    original = pyproject.read_text() if pyproject.exists() else ""
    pyproject.write_text(original + mutmut_config(project, []))
    mutmut_for(copy, python, jobs, min(seconds, 45.0))  # makes mutants/, or fails in stats
    deselected = failing_in_mutants(copy, python, project) if (copy / "mutants").is_dir() else []
    if deselected:
        print(f"    mutmut: {len(deselected)} tests fail in its copy, deselected: {deselected}")
    pyproject.write_text(original + mutmut_config(project, deselected))
    shutil.rmtree(copy / "mutants", ignore_errors=True)
    elapsed = mutmut_for(copy, python, jobs, seconds)
    done: list[float] = []
    total = 0
    for meta in (copy / "mutants").rglob("*.meta"):
        try:
            data = json.loads(meta.read_text())
        except ValueError:  # cut off while writing
            continue
        codes = data.get("exit_code_by_key", {})
        total += len(codes)
        durations = data.get("durations_by_key", {})
        done += [float(durations[k]) for k, v in codes.items() if v is not None and k in durations]
    return {
        "mutants": float(total),
        "done": float(len(done)),
        "seconds": elapsed,
        "rate": len(done) / elapsed if elapsed else 0.0,
        "median_ms": statistics.median(done) * 1000 if done else float("nan"),
    }


# -- end to end, incremental, Dask --------------------------------------------------------


def first_body_line(source: str, def_line: int) -> int:
    """Line of the first statement of the function defined at ``def_line`` (a signature can
    span lines: inserting right after the ``def`` line would break it)."""
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.lineno == def_line:
            return node.body[0].lineno
    raise ValueError(f"no def at line {def_line}")


def _edited_twice(
    root: Path, t: Transformation, options: Options
) -> list[tuple[float, int, int, int, int]]:
    """Add a statement to the body of ``t``'s function and analyse, twice, on warm workers
    kept from the first time (the first analysis starts them): (seconds, transformations
    run, functions reused, tests observed, transformations checked before import or on
    disk) of each."""
    path = root / t.path
    original = path.read_text(encoding="utf-8")
    lines = original.splitlines(keepends=True)
    at = first_body_line(original, t.line) - 1  # before its first statement
    indent = lines[at][: len(lines[at]) - len(lines[at].lstrip())]
    warm = WarmPools()
    timings = []
    try:
        for edit in range(2):
            edited = [*lines[:at], f"{indent}_reks_edit = {edit}\n", *lines[at:]]
            path.write_text("".join(edited), encoding="utf-8")
            again = analyse(root, options, warm=warm)
            timings.append(
                (
                    again.elapsed,
                    again.run_count,
                    len(again.reused),
                    again.observed_tests,
                    again.checked_on_disk,
                )
            )
    finally:
        warm.close()
        path.write_text(original, encoding="utf-8")
        analyse(root, options)  # the state of the original code again, for the next case
    return timings


def incremental(root: Path, project: Project, jobs: int, analysis: Analysis) -> None:
    """Edit one analysed function (a statement added to its body) and analyse again: the
    whole target files from the command line (workers started afresh), then as the editor
    does (warm workers kept from the previous analysis, a second edit); then only the
    edited function (``Options.only``), for a function of middling coverage and for the
    most covered one (the central function: hundreds of covering tests)."""
    ran = [r for r in analysis.results if r.verdict is not Verdict.SKIPPED and r.tests]
    if not ran:
        return
    middling = ran[len(ran) // 2].transformation
    covering = analysis.covering
    central = max(ran, key=lambda r: len(covering.get(_key(r.transformation), []))).transformation
    paths = [root / x for x in project.targets]
    whole = Options(paths=paths, jobs=jobs, pytest_args=QUIET)
    (cold, runs, reused, _, _), (hot, hot_runs, _, _, _) = _edited_twice(root, middling, whole)
    print(
        f"(d) re-analysis of the files after editing {middling.function}: {cold:.2f} s with "
        f"new workers (CLI), {hot:.2f} s on warm workers (editor); {runs}/{hot_runs} "
        f"transformations run, {reused} functions reused {load()}"
    )
    cases = [("middling", middling), ("central", central)]
    at_import = [r for r in ran if _key(r.transformation) in analysis.import_time]
    if at_import:  # checked by the pre-import worker
        cases.append(("ran at import", at_import[0].transformation))
    for label, t in cases:
        only = Options(paths=paths, jobs=jobs, pytest_args=QUIET, only=[_key(t)])
        _, (hot, hot_runs, _, observed, checked) = _edited_twice(root, t, only)
        print(
            f"    edited function only ({label}: {t.function}, "
            f"{len(covering.get(_key(t), []))} covering tests): {hot:.2f} s on warm workers; "
            f"{hot_runs} transformations run, {observed} tests observed, {checked} checked "
            f"before import or on disk {load()}"
        )


def _key(t: Transformation) -> str:
    return f"{t.path}::{t.function}"


def dask_throughput(root: Path, project: Project, counts: list[int], local_rate: float) -> None:
    """Transformations per second on a LocalCluster of 1, 2, 4 workers vs the local pool."""
    from distributed import LocalCluster

    for workers in counts:
        with LocalCluster(
            n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=":0"
        ) as cluster:
            a = analyse(
                root,
                Options(
                    paths=[root / x for x in project.targets],
                    incremental=False,
                    pytest_args=QUIET,
                    scheduler=cluster.scheduler_address,
                ),
            )
        run = a.elapsed - a.observation
        rate = a.run_count / run if run > 0 else 0.0
        print(
            f"(e) dask {workers} worker(s): {a.run_count} transformations, "
            f"{rate:.1f}/s after observation ({a.elapsed:.1f} s end to end); local pool "
            f"{local_rate:.1f}/s; ratio {rate / local_rate if local_rate else 0:.2f}x"
        )


def record_store(root: Path) -> None:
    """``pytest --reks`` in ``root``: the dependency store the analysis then reuses."""
    env = {**os.environ, "PYTHONPATH": str(import_root(root))}
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "--reks", "-q", *QUIET],
        cwd=root,
        env=env,
        capture_output=True,
        timeout=1800,
    )
    seconds = time.perf_counter() - started
    if done.returncode not in (0, 1):  # a project whose pytest cannot start (parse's --cov)
        tail = done.stderr.decode(errors="replace")[-400:]
        raise SystemExit(f"pytest --reks recorded no store (exit {done.returncode}): {tail}")
    print(f"    (store recorded by pytest --reks in {seconds:.1f} s)")


def naive_sample(ran: list[TransformationResult], size: int) -> list[TransformationResult]:
    """Undetected verdicts and the others (detections, mostly) in equal shares, as many
    as there are up to ``size`` (one kind's unused share goes to the other), the others
    spread over the run: a wrong detection hides a pseudo-tested function as a wrong
    undetected verdict makes a false alarm. No timeout nor detection past a hang (run the
    naive way, a hang lasts until the subprocess's cap: they cost
    ``naive_timeout_seconds``)."""
    usable = [r for r in ran if r.verdict is not Verdict.ERROR and r.tests and not waits_naive(r)]
    undetected = [r for r in usable if r.verdict is Verdict.UNDETECTED]
    others = [r for r in usable if r.verdict is not Verdict.UNDETECTED]
    undetected = undetected[: max(size // 2, size - len(others))]
    wanted = max(0, size - len(undetected))
    step = max(1, len(others) // max(1, wanted))
    return undetected + others[::step][:wanted]


@dataclass
class Agreement:
    """Of a naive sample, how many verdicts the naive way repeated, by kind, and each one
    it did not."""

    agree: int = 0
    undetected: int = 0
    agree_undetected: int = 0
    detected: int = 0
    agree_detected: int = 0
    disagreements: list[str] = field(default_factory=list)


def naive_agreement(sample: list[TransformationResult], failed: list[bool]) -> Agreement:
    """reks's verdicts against whether the naive run of each failed (``failed``)."""
    agreement = Agreement()
    for result, naive_failed in zip(sample, failed, strict=True):
        caught = result.verdict in (Verdict.DETECTED, Verdict.TIMEOUT)
        same = caught == naive_failed
        agreement.agree += same
        if result.verdict is Verdict.UNDETECTED:
            agreement.undetected += 1
            agreement.agree_undetected += same
        elif result.verdict is Verdict.DETECTED:
            agreement.detected += 1
            agreement.agree_detected += same
        if not same:
            t = result.transformation
            naive = "failed" if naive_failed else "passed"
            agreement.disagreements.append(
                f"{t.path}::{t.function} -> {t.body}: {result.verdict.value} by reks "
                f"({result.reason or 'no reason'}), the naive run {naive}"
            )
    return agreement


def naive_timeout_seconds(result: TransformationResult, median_naive: float) -> float:
    """What the naive way pays for a transformation that reks stopped as a timeout: a
    pytest start and its tests (the sampled median) plus one wait as long as reks's. Both
    ways pay the deadline: reks runs a transformation that overran its deadline a second
    time (half its time is one wait), and stops one that used up its CPU budget at once.

    A detection past a hang costs the naive way a wait too: run in reks's order, its first
    test hangs on disk as well (tomlkit's ``Source.inc -> return True`` ran until killed),
    and ``-x`` ends at that timeout. reks ran one child per hang passed and one more: the
    wait charged is reks's time shared among them (the first run's budget is the larger,
    so this charges the naive way less than it pays).

    The wait is never charged above the least deadline reks gives a test
    (``Options.timeout_base``): reks's time for a timeout also holds its look past every
    hang, up to its allowance, for a failing test (jmespath's parser transformations: ~200
    s each at load 28), which the naive way stopping at its first hang does not pay."""
    if result.reason.startswith(PAST_HANGS):
        runs = int(result.reason[len(PAST_HANGS) :].split()[0]) + 1
    else:
        runs = 1 if "CPU time" in result.reason else 2
    return median_naive + min(result.duration / runs, Options().timeout_base)


def waits_naive(result: TransformationResult) -> bool:
    """Whether the naive way waits for a hang in this transformation (a timeout, or a
    detection by a test after one that hung): ``naive_timeout_seconds``, not the median."""
    return result.verdict is Verdict.TIMEOUT or result.reason.startswith(PAST_HANGS)


def naive_seconds(
    ran: list[TransformationResult],
    measured: list[tuple[TransformationResult, float]],
    waiting: bool = True,
) -> tuple[float, float, int]:
    """The naive way's extrapolated cost for every transformation reks ran, from the
    ``measured`` sample (result, cost): a sampled one costs what it measured; the others
    the median of the sampled ones of their kind (``_naive_kind``: an undetected verdict
    runs every covering test, a detection often one, so one median over both charged the
    undetected ones a detection's cost); each that hangs ``naive_timeout_seconds`` over the
    median of the detections (only that median when not ``waiting``: CPU time, which
    a wait does not use). Also, of the total, the seconds of those that hang and their
    number."""
    by_kind: dict[bool, list[float]] = {}
    for result, cost in measured:
        by_kind.setdefault(_naive_kind(result), []).append(cost)
    every = [cost for _, cost in measured]
    median = {kind: statistics.median(costs) for kind, costs in by_kind.items()}
    overall = statistics.median(every) if every else 0.0
    sampled = {id(result): cost for result, cost in measured}
    hanging = [r for r in ran if waits_naive(r)]
    caught = median.get(False, overall)
    waits = sum(naive_timeout_seconds(r, caught) for r in hanging) if waiting else 0.0
    total = 0.0 if waiting else caught * len(hanging)
    ended = [r for r in ran if not waits_naive(r)]
    total += sum(sampled.get(id(r), median.get(_naive_kind(r), overall)) for r in ended)
    return total + waits, waits, len(hanging)


def _naive_kind(result: TransformationResult) -> bool:
    """Whether the naive way runs every covering test of ``result`` (undetected)."""
    return result.verdict is Verdict.UNDETECTED


def compare_naive(
    root: Path, analysis: Analysis, ran: list[TransformationResult], size: int, cpu: float
) -> None:
    """The naive way on a sample, extrapolated to every transformation reks ran (``ran``):
    ``naive_seconds``; wall and CPU seconds (``cpu``: reks's) end to end."""
    sample = naive_sample(ran, size)
    naive_copy = fresh_copy(root, "naive")
    naive_times: list[float] = []
    naive_cpu: list[float] = []
    naive_failed: list[bool] = []
    for result in sample:
        seconds, cpu_used, failed = run_naive(naive_copy, result)
        naive_times.append(seconds)
        naive_cpu.append(cpu_used)
        naive_failed.append(failed)
    if not naive_times:
        return
    agreement = naive_agreement(sample, naive_failed)
    median_naive = statistics.median(naive_times)
    naive_total, waits, hanging = naive_seconds(ran, list(zip(sample, naive_times, strict=True)))
    cpu_sample = list(zip(sample, naive_cpu, strict=True))
    naive_cpu_total = naive_seconds(ran, cpu_sample, waiting=False)[0]  # a wait: no CPU
    print(
        f"(b) naive     {len(sample)} of them: median {median_naive * 1000:.0f} ms per "
        f"transformation; extrapolated {naive_total:.0f} s for all {len(ran)} (undetected "
        f"ones and the others each from their own sample; {waits:.1f} s of it for {hanging} "
        f"timeouts and detections past a hang: the median plus one wait as long as reks's, "
        f"each); verdicts agree {agreement.agree}/{len(sample)} (undetected ones "
        f"{agreement.agree_undetected}/{agreement.undetected}, detected ones "
        f"{agreement.agree_detected}/{agreement.detected})"
    )
    for line in agreement.disagreements:
        print(f"    DISAGREEMENT {line}")
    reks_same = statistics.median([r.duration for r in sample])
    print(
        f"    per transformation (same sample, medians) naive/reks {median_naive / reks_same:.1f}x;"
        f" END TO END naive {naive_total:.0f} s / reks {analysis.elapsed:.2f} s = "
        f"{naive_total / analysis.elapsed:.1f}x; CPU naive {naive_cpu_total:.1f} s / reks "
        f"{cpu:.2f} s = {naive_cpu_total / cpu:.1f}x {load()}"
    )


def again(root: Path, project: Project, jobs: int) -> None:
    """The same analysis once more (nothing reused): what the first one paid for compiling
    the project and rewriting its test modules' asserts (the workers' bytecode cache was
    empty, as in a new checkout; the naive way above compiles everything every time)."""
    PHASE_SECONDS.clear()
    cpu_started = cpu_seconds()
    second = run_reks(root, project, jobs)
    cpu = cpu_seconds() - cpu_started
    print(
        f"(a2) reks again with the workers' bytecode cached: {second.elapsed:.2f} s end to end "
        f"({cpu:.2f} s CPU; collection+observation {second.observation:.2f} s) {load()}"
    )
    print_phases(second.elapsed)


# -- main ----------------------------------------------------------------------------------


def projects_from(args: argparse.Namespace) -> list[Project]:
    """``--project PATH=target,target`` (tests and sources for mutmut guessed), else the
    known projects, from ``--src DIR/<name>`` when there, else from PyPI."""
    if args.project:
        chosen = []
        for spec in args.project:
            path, _, targets = spec.partition("=")
            root = Path(path).resolve()
            chosen.append(Project(root.name, targets.split(","), "tests/", "", root))
        return chosen
    chosen = []
    for project in PROJECTS:
        if args.only and args.only not in project.requirement:
            continue
        name = project.requirement.split("==")[0]
        local = Path(args.src, name) if args.src else None
        project.root = local if local is not None and local.exists() else fetch(project)
        chosen.append(project)
    return chosen


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--naive-sample", type=int, default=12)
    parser.add_argument("--mutmut-seconds", type=float, default=60.0)
    parser.add_argument("--no-mutmut", action="store_true")
    parser.add_argument("--only", help="run only projects whose requirement contains this")
    parser.add_argument("--src", help="folder with checkouts named like the known projects")
    parser.add_argument("--project", action="append", help="PATH=target.py,... (repeatable)")
    parser.add_argument(
        "--with-store",
        action="store_true",
        help="record the dependency store first (pytest --reks, not timed), as a user would",
    )
    parser.add_argument("--dask", default="", help="Dask worker counts, e.g. 1,2,4 (default: none)")
    parser.add_argument(
        "--end-to-end-only",
        action="store_true",
        help="stop after the comparison with the naive way (no second run, no re-analysis)",
    )
    args = parser.parse_args()
    compile_reks()  # the naive runs' pytest loads reks's plugin: both sides from bytecode
    clock_phases()
    print(f"pytest plugins of this interpreter (each naive run loads them): {pytest_plugins()}")

    for project in projects_from(args):
        root = project.root
        print(f"== {project.requirement}: {', '.join(project.targets)}")
        reks_root = fresh_copy(root, "reks")
        if args.with_store:
            record_store(reks_root)
        PHASE_SECONDS.clear()
        cpu_started = cpu_seconds()
        analysis = run_reks(reks_root, project, args.jobs)
        cpu = cpu_seconds() - cpu_started
        phases = dict(PHASE_SECONDS)
        ran = [r for r in analysis.results if r.verdict is not Verdict.SKIPPED]
        durations = [r.duration for r in ran]
        summary = summarize(analysis)
        median_reks = statistics.median(durations) * 1000 if durations else float("nan")
        print(
            f"(a) reks      {len(ran)} transformations in {analysis.elapsed:.2f} s end to end "
            f"({cpu:.2f} s CPU; {len(ran) / analysis.elapsed:.1f}/s overall; "
            f"collection+observation {analysis.observation:.2f} s of it, "
            f"coverage from {analysis.coverage_source}); "
            f"median {median_reks:.1f} ms per transformation; verdicts {summary.verdicts}; "
            f"{analysis.checked_on_disk} checked on disk (import time); "
            f"{analysis.observed_tests} tests observed, "
            f"{len(analysis.uncollected_files)} test files not collected, "
            f"{analysis.uncollected_tests} tests of the others {load()}"
        )
        print(
            f"    pseudo-tested {summary.pseudo_tested}/{summary.analysed} analysed functions "
            f"({100 * summary.pseudo_tested_share:.1f}%), partially tested "
            f"{summary.partially_tested}, skipped {summary.skipped} of {summary.functions}"
        )
        PHASE_SECONDS.clear()
        PHASE_SECONDS.update(phases)
        print_phases(analysis.elapsed)
        compare_naive(root, analysis, ran, args.naive_sample, cpu)
        if args.end_to_end_only:
            continue
        again(reks_root, project, args.jobs)
        incremental(reks_root, project, args.jobs, analysis)
        if args.dask:
            run_seconds = analysis.elapsed - analysis.observation
            local_rate = analysis.run_count / run_seconds if run_seconds > 0 else 0.0
            counts = [int(c) for c in args.dask.split(",")]
            dask_throughput(reks_root, project, counts, local_rate)
        if not args.no_mutmut and project.source:
            m = run_mutmut(root, project, args.mutmut_seconds, args.jobs)
            print(
                f"(c) mutmut    {int(m['done'])} of {int(m['mutants'])} of its own mutants in "
                f"{m['seconds']:.0f} s ({m['rate']:.2f}/s overall, stats phase included); "
                f"median {m['median_ms']:.0f} ms per mutant"
            )
        print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
