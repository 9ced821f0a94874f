"""Speed of the extreme runner against the naive way and mutmut, on real projects.

For each project (a PyPI sdist that ships its tests) and its target files:

(a) reks: ``lsp_server.extreme.analyse`` (warm forked workers, code swapped in memory);
(b) naive: for a sample of the same transformations, rewrite the file on a copy of the
    project and run the covering tests (same order, ``-x``) in a fresh pytest process;
    verdicts are compared with reks';
(c) mutmut (``pip install mutmut`` into a temp venv) on the same files, for a fixed time
    budget. mutmut cannot run extreme transformations nor be limited to a given list of
    them, so its rate is per mutant of its own (operator mutations) on the same files.

Prints transformations per second, total time, median ms per transformation, the ratios,
and the pseudo-tested share per project. Run with ``nice`` on a quiet machine:

    nice python bench/extreme_speed.py [--naive-sample 12] [--mutmut-seconds 60] [--jobs 2]
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from sdist import fetch_sdist

from lsp_server.extreme.analysis import Analysis, Options, analyse
from lsp_server.extreme.model import TransformationResult, Verdict
from lsp_server.extreme.report import summarize

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
]


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
    os.environ["PYTHONPATH"] = str(root)  # the workers import the project from its sources
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


def rewrite(source: bytes, line: int, name: str, body: str) -> bytes:
    """The file with the body of the ``def`` at ``line`` replaced (byte offsets, as ast)."""
    tree = ast.parse(source)
    node = next(
        n
        for n in ast.walk(tree)
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
        and n.lineno == line
        and n.name == name
    )
    starts = [0]
    for raw in source.splitlines(keepends=True):
        starts.append(starts[-1] + len(raw))
    first, last = node.body[0], node.body[-1]
    begin = starts[first.lineno - 1] + first.col_offset
    end = starts[(last.end_lineno or last.lineno) - 1] + (last.end_col_offset or 0)
    return source[:begin] + body.encode() + source[end:]


def run_naive(copy: Path, result: TransformationResult) -> tuple[float, bool]:
    """Seconds and whether some test failed, rewriting the file and running pytest afresh."""
    t = result.transformation
    path = copy / t.path
    original = path.read_bytes()
    path.write_bytes(rewrite(original, t.line, t.function.rsplit(".", 1)[-1], t.body))
    env = {**os.environ, "PYTHONPATH": str(copy), "PYTHONDONTWRITEBYTECODE": "1"}
    started = time.perf_counter()
    try:
        done = subprocess.run(
            [sys.executable, "-m", "pytest", "-x", "-q", *QUIET, *result.tests],
            cwd=copy,
            env=env,
            capture_output=True,
            timeout=120,
        )
        failed = done.returncode != 0
    except subprocess.TimeoutExpired:
        failed = True
    finally:
        path.write_bytes(original)
    return time.perf_counter() - started, failed


# -- (c) mutmut ----------------------------------------------------------------------------


def mutmut_python() -> Path:
    venv = WORK / "mutmut-venv"
    python = venv / "bin" / "python"
    if not (venv / "bin" / "mutmut").exists():
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        subprocess.run([str(python), "-m", "pip", "install", "-q", "mutmut", "pytest"], check=True)
    return python


def run_mutmut(root: Path, project: Project, seconds: float, jobs: int) -> dict[str, float]:
    copy = fresh_copy(root, "mutmut")
    python = mutmut_python()
    config = (
        "\n[tool.mutmut]\n"
        f"source_paths = [{project.source!r}]\n"
        f"only_mutate = {json.dumps(project.targets)}\n"
        f"pytest_add_cli_args_test_selection = [{project.tests!r}]\n"
        f"pytest_add_cli_args = {json.dumps(QUIET)}\n"
    )
    pyproject = copy / "pyproject.toml"
    pyproject.write_text(pyproject.read_text() + config if pyproject.exists() else config)
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
    elapsed = time.perf_counter() - started
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


# -- main ----------------------------------------------------------------------------------


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--naive-sample", type=int, default=12)
    parser.add_argument("--mutmut-seconds", type=float, default=60.0)
    parser.add_argument("--no-mutmut", action="store_true")
    parser.add_argument("--only", help="run only projects whose requirement contains this")
    args = parser.parse_args()

    for project in PROJECTS:
        if args.only and args.only not in project.requirement:
            continue
        root = fetch(project)
        print(f"== {project.requirement}: {', '.join(project.targets)}")
        reks_root = fresh_copy(root, "reks")
        analysis = run_reks(reks_root, project, args.jobs)
        ran = [r for r in analysis.results if r.verdict is not Verdict.SKIPPED]
        durations = [r.duration for r in ran]
        summary = summarize(analysis)
        median_reks = statistics.median(durations) * 1000 if durations else float("nan")
        print(
            f"(a) reks      {len(ran)} transformations in {analysis.elapsed:.2f} s "
            f"({len(ran) / analysis.elapsed:.1f}/s overall; collection+observation "
            f"{analysis.observation:.2f} s of it); median {median_reks:.1f} ms per "
            f"transformation; verdicts {summary.verdicts}"
        )
        print(
            f"    pseudo-tested {summary.pseudo_tested}/{summary.analysed} analysed functions "
            f"({100 * summary.pseudo_tested_share:.1f}%), partially tested "
            f"{summary.partially_tested}, skipped {summary.skipped} of {summary.functions}"
        )

        sample_pool = [r for r in ran if r.verdict is not Verdict.ERROR and r.tests]
        step = max(1, len(sample_pool) // max(1, args.naive_sample))
        sample = sample_pool[::step][: args.naive_sample]
        naive_copy = fresh_copy(root, "naive")
        naive_times: list[float] = []
        agree = 0
        for result in sample:
            seconds, failed = run_naive(naive_copy, result)
            naive_times.append(seconds)
            caught = result.verdict in (Verdict.DETECTED, Verdict.TIMEOUT)
            agree += caught == failed
        if naive_times:
            median_naive = statistics.median(naive_times) * 1000
            reks_same = [r.duration for r in sample]
            print(
                f"(b) naive     {len(sample)} of them: median {median_naive:.0f} ms per "
                f"transformation ({1000 / median_naive:.2f}/s on one core); extrapolated "
                f"{median_naive * len(ran) / 1000:.0f} s for all; verdicts agree "
                f"{agree}/{len(sample)}"
            )
            print(
                f"    ratio naive/reks per transformation (same sample, medians): "
                f"{median_naive / (statistics.median(reks_same) * 1000):.1f}x"
            )
        if not args.no_mutmut:
            m = run_mutmut(root, project, args.mutmut_seconds, args.jobs)
            print(
                f"(c) mutmut    {int(m['done'])} of {int(m['mutants'])} of its own mutants in "
                f"{m['seconds']:.0f} s ({m['rate']:.2f}/s overall, stats phase included); "
                f"median {m['median_ms']:.0f} ms per mutant"
            )
            if durations:
                print(
                    f"    ratio mutmut/reks: per transformation (medians) "
                    f"{m['median_ms'] / median_reks:.1f}x; overall rate "
                    f"{(len(ran) / analysis.elapsed) / m['rate']:.1f}x"
                    if m["rate"]
                    else "    mutmut finished no mutant in the budget"
                )
        print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
