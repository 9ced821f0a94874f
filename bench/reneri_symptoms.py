"""Share of Reneri symptoms on real projects (PyPI sdists with tests), and the run time.

    nice python bench/reneri_symptoms.py [--projects toolz==1.2.0 cachetools==8.0.1]
                                         [--limit 30] [--runs 5]

For each project: download the sdist, find which tests execute which functions and what
they return (one profiled pytest run), derive extreme transformations from that (``pass``
for functions returning only None, otherwise the constants of issue 5 for the observed
return types), run each transformation's covering tests once to keep the undetected ones
(a small self-contained discovery standing in for the extreme runner of issue 5), then
diagnose every undetected one with ``lsp_server.extreme.reneri.diagnose`` and print the
share of each symptom next to the paper's split (Vera-Perez et al., 312 undetected
transformations in 15 Java projects: 37% no-infection, 37% no-propagation, 27% weak-oracle).
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import TypeVar

from sdist import fetch_sdist

from lsp_server.extreme.model import Transformation, TransformationResult, Verdict
from lsp_server.extreme.reneri import diagnose
from lsp_server.extreme.reneri.assertion_check import verify_assertion
from lsp_server.extreme.reneri.observation_runs import run_observations
from lsp_server.extreme.reneri.report import shares

T = TypeVar("T")

PAPER = {"no-infection": 0.37, "no-propagation": 0.37, "weak-oracle": 0.27}
WORK = Path(tempfile.gettempdir(), "reks-bench-reneri")

PROFILER = r"""
import json, os, sys
import pytest

SRC = os.environ["BENCH_SRC"]
OUT = os.environ["BENCH_OUT"]
_data = {}
_current = [None]


def _skip(filename):
    base = os.path.basename(filename)
    return (not filename.startswith(SRC) or base.startswith("test_") or base == "conftest.py"
            or os.sep + "tests" + os.sep in filename)


def _profile(frame, event, arg):
    if event not in ("call", "return"):
        return
    code = frame.f_code
    if code.co_flags & 0x2A0 or _skip(code.co_filename):  # generators, coroutines
        return
    key = f"{code.co_filename}::{code.co_qualname}"
    entry = _data.setdefault(key, {"tests": [], "returns": []})
    if event == "call":
        if not entry["tests"] or entry["tests"][-1] != _current[0]:
            entry["tests"].append(_current[0])
    else:
        name = type(arg).__name__
        if name not in entry["returns"]:
            entry["returns"].append(name)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    _current[0] = item.nodeid
    sys.setprofile(_profile)
    try:
        yield
    finally:
        sys.setprofile(None)


def pytest_sessionfinish(session):
    with open(OUT, "w") as handle:
        json.dump(_data, handle)
"""

CONSTANTS = {
    "bool": ["return True", "return False"],
    "int": ["return 0", "return 1"],
    "float": ["return 0.0", "return 0.1"],
    "str": ['return ""', 'return "A"'],
    "list": ["return []"],
    "dict": ["return {}"],
    "tuple": ["return ()"],
    "set": ["return set()"],
}


def project_python() -> str:
    """A clean venv with pytest only: the projects' tests must not see our dev plugins."""
    venv = WORK / "venv"
    python = venv / "bin" / "python"
    if not python.exists():
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        # xxhash: the extreme runner's workers checksum units in this interpreter too.
        subprocess.run([str(python), "-m", "pip", "install", "-q", "pytest", "xxhash"], check=True)
    return str(python)


def source_root(project: Path) -> Path:
    return project / "src" if (project / "src").is_dir() else project


def discover(project: Path) -> dict[str, dict[str, list[str]]]:
    """Per function (``file::qualname``): the tests that execute it and its return types."""
    with tempfile.TemporaryDirectory() as scratch:
        Path(scratch, "reneri_bench_profiler.py").write_text(PROFILER, encoding="utf-8")
        out = Path(scratch, "coverage.json")
        env = dict(os.environ)
        env.update(
            BENCH_SRC=str(source_root(project).resolve()),
            BENCH_OUT=str(out),
            PYTHONPATH=os.pathsep.join([scratch, str(source_root(project))]),
            PYTHONDONTWRITEBYTECODE="1",
        )
        subprocess.run(
            [
                project_python(),
                "-m",
                "pytest",
                "-q",
                "-p",
                "reneri_bench_profiler",
                "-p",
                "no:cacheprovider",
                "-o",
                "addopts=",
                "--no-header",
                "-q",
            ],
            cwd=project,
            env=env,
            capture_output=True,
            timeout=900,
        )
        return json.loads(out.read_text(encoding="utf-8"))


def definitions(file: Path) -> dict[str, ast.FunctionDef]:
    """Top-level functions and methods of ``file`` by qualified name."""
    tree = ast.parse(file.read_text(encoding="utf-8"))
    found: dict[str, ast.FunctionDef] = {}

    def walk(body: list[ast.stmt], prefix: str) -> None:
        for node in body:
            if isinstance(node, ast.FunctionDef):
                found[prefix + node.name] = node
            elif isinstance(node, ast.ClassDef):
                walk(node.body, f"{prefix}{node.name}.")

    walk(tree.body, "")
    return found


def trivial(node: ast.FunctionDef) -> bool:
    """Bodies developers do not test directly (issue 5's skip list, roughly)."""
    body = [
        s for s in node.body if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))
    ]
    if node.name in ("__repr__", "__str__") or not body:
        return True
    if len(body) == 1:
        only = body[0]
        if isinstance(only, ast.Pass) or (
            isinstance(only, ast.Raise) and "NotImplementedError" in ast.unparse(only)
        ):
            return True
        if isinstance(only, ast.Return) and isinstance(
            only.value, (ast.Name, ast.Attribute, ast.Constant, type(None))
        ):
            return True
    return False


def transformations(
    project: Path, coverage: dict[str, dict[str, list[str]]]
) -> Iterator[tuple[Transformation, list[str]]]:
    root = project.resolve()
    cache: dict[str, dict[str, ast.FunctionDef]] = {}
    for key in sorted(coverage):
        file, qualname = key.rsplit("::", 1)
        if "<" in qualname:
            continue  # nested functions and lambdas are not units
        if file not in cache:
            cache[file] = definitions(Path(file))
        node = cache[file].get(qualname)
        if node is None or trivial(node):
            continue
        returns = set(coverage[key]["returns"])
        tests = [t for t in coverage[key]["tests"] if t][:50]
        if not tests:
            continue
        bodies = ["pass"] if returns <= {"NoneType"} else []
        for name in sorted(returns - {"NoneType"}):
            bodies += CONSTANTS.get(name, ["return None"])
        path = Path(file).resolve().relative_to(root).as_posix()
        for body in dict.fromkeys(bodies):
            yield Transformation(path, qualname, node.lineno, body), tests


def verdict(project: Path, transformation: Transformation, tests: list[str]) -> Verdict | None:
    """One run of the covering tests on each side; None when the original fails itself."""
    observed = run_observations(
        project, transformation, tests, runs=1, timeout=30, python=project_python()
    )
    if observed.error or not observed.original:
        return None
    if any(record["failed"] for record in observed.original[0].values()):
        return None
    if not observed.transformed:
        return Verdict.DETECTED  # timeout or crash of the child
    if any(record["failed"] for record in observed.transformed[0].values()):
        return Verdict.DETECTED
    return Verdict.UNDETECTED


def spread(items: list[T], limit: int) -> list[T]:
    """At most ``limit`` items, evenly spread over ``items`` (deterministic)."""
    if len(items) <= limit:
        return items
    step = len(items) / limit
    return [items[int(i * step)] for i in range(limit)]


def with_runner(project: Path) -> tuple[int, int, list[TransformationResult]]:
    """Functions analysed, transformations run, and the undetected ones, by issue 5's runner."""
    from lsp_server.extreme.analysis import Options, analyse

    analysis = analyse(project, Options(python=project_python(), incremental=False, jobs=1))
    ran = [r for r in analysis.results if r.verdict is not Verdict.SKIPPED]
    undetected = [r for r in ran if r.verdict is Verdict.UNDETECTED]
    return len(analysis.functions), len(ran), undetected


def with_own_discovery(project: Path, limit: int) -> tuple[int, int, list[TransformationResult]]:
    coverage = discover(project)
    candidates = spread(list(transformations(project, coverage)), limit)
    undetected = []
    for transformation, tests in candidates:
        if verdict(project, transformation, tests) == Verdict.UNDETECTED:
            undetected.append(TransformationResult(transformation, Verdict.UNDETECTED, tests))
    return len(coverage), len(candidates), undetected


def bench(requirement: str, limit: int, runs: int, discovery: str) -> dict[str, object]:
    project = fetch_sdist(requirement, WORK)
    repository = Path(__file__).resolve().parent.parent
    os.environ["PYTHONPATH"] = os.pathsep.join([str(source_root(project)), str(repository)])
    started = time.monotonic()
    if discovery == "runner":
        try:
            functions, transformation_count, undetected = with_runner(project)
        except Exception as exc:  # say so, and fall back to the own discovery
            print(f"  extreme runner failed ({type(exc).__name__}: {exc}); own discovery")
            discovery = "self"
    if discovery == "self":
        functions, transformation_count, undetected = with_own_discovery(project, limit)
    undetected_count = len(undetected)
    undetected = spread(undetected, limit)
    verdicts = time.monotonic() - started
    # The diagnosis finds a src/ layout itself and must import the project from wherever
    # it runs (a copy, to verify the suggested assertions): only reks stays on the path.
    os.environ["PYTHONPATH"] = str(repository)
    started = time.monotonic()
    diagnoses = diagnose(project, undetected, runs=runs, python=project_python())
    diagnosis_time = time.monotonic() - started
    started = time.monotonic()
    verified = [
        verify_assertion(project, d, python=project_python())
        for d in diagnoses
        if d.assertion is not None
    ]
    verification_time = time.monotonic() - started
    share = shares(diagnoses)
    durations = [d.duration for d in diagnoses]
    row: dict[str, object] = {
        "project": project.name,
        "discovery": discovery,
        "functions": functions,
        "transformations": transformation_count,
        "undetected": undetected_count,
        "undetected_diagnosed": len(undetected),
        "unknown": sum(d.symptom == "unknown" for d in diagnoses),
        "shares": share,
        "with_assertion": sum(d.assertion is not None for d in diagnoses),
        "assertions_pass_on_original": sum(v.passes_on_original for v in verified),
        "assertions_detect_transformation": sum(v.ok for v in verified),
        "verification_s": round(verification_time, 1),
        "discovery_and_verdicts_s": round(verdicts, 1),
        "diagnosis_s": round(diagnosis_time, 1),
        "median_diagnosis_s": round(statistics.median(durations), 2) if durations else None,
        "runs": runs,
    }
    for d in diagnoses:
        t = d.transformation
        print(f"  {t.path}:{t.line} {t.function} -> {t.body}: {d.symptom}", flush=True)
    return row


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--projects", nargs="+", default=["toolz==1.2.0", "cachetools==8.0.1"])
    parser.add_argument(
        "--limit",
        type=int,
        default=30,
        help="at most this many diagnoses (and own transformations)",
    )
    parser.add_argument("--runs", type=int, default=5, help="runs per side")
    parser.add_argument(
        "--discovery",
        choices=("runner", "self"),
        default="runner",
        help="transformations from issue 5's runner, or from this script's own discovery",
    )
    args = parser.parse_args()
    rows = []
    for requirement in args.projects:
        print(f"== {requirement}", flush=True)
        row = bench(requirement, args.limit, args.runs, args.discovery)
        print(json.dumps(row), flush=True)
        rows.append(row)
    total = {s: 0.0 for s in PAPER}
    diagnosed = 0
    for row in rows:
        counted = int(row["undetected_diagnosed"]) - int(row["unknown"])  # type: ignore[call-overload]
        diagnosed += counted
        for symptom in PAPER:
            total[symptom] += row["shares"][symptom] * counted  # type: ignore[index]
    print(f"\nsymptom shares over {diagnosed} diagnosed undetected transformations:")
    for symptom, paper in PAPER.items():
        ours = total[symptom] / diagnosed if diagnosed else 0.0
        print(f"  {symptom:<15} reks {ours:6.1%}   paper {paper:6.1%}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
