"""Test factoring faithfulness: does a factored test ever pass where its system test fails,
and do factored tests stay valid across refactorings of the code under test?

The projects are the table of ``factoring_projects.py`` (the ones ``factoring_speed.py``
uses, from their sdists). Each project's slowest tests are factored across the boundary reks
suggests. Then:

1. mutants: every function of T that a factored pair executes (traced in-process) gets the
   extreme transformations (the body becomes ``return None``, or ``pass`` when it returns no
   value) and classic mutations (a comparison flipped, ``+``/``-`` swapped, ``and``/``or``
   swapped, an ``if`` condition negated); each mutant is written to disk, the factored tests
   run, and the system test runs where its factored test passed. A **false pass** is a
   factored test that passes where its system test fails (goal: 0);
2. refactorings: a sample of the covered functions is renamed through reks's refactoring
   engine (as REKS would see it) and the factored tests that execute each run again: how
   many stay valid (pass, no divergence) without a new capture (``factoring_renames.py``).

    python bench/factoring_faults.py [--project NAME] [--work DIR] [--tests 20]
        [--mutants 60] [--renames 20] [--seed 1] [--renames-only]
"""

from __future__ import annotations

import argparse
import ast
import copy
import json
import os
import random
import re
import subprocess
import textwrap
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from factoring_projects import BenchProject, factor_slowest, prepare, selected
from factoring_renames import Renamed, rename_validity, sample

from lsp_server.console import ProgressBar
from lsp_server.factoring.children import project_packages
from lsp_server.factoring.runner import environment, run_pytest
from lsp_server.project import Project
from lsp_server.project.files import walk_files

_FLIPPED: dict[type, type] = {
    ast.Eq: ast.NotEq, ast.NotEq: ast.Eq, ast.Lt: ast.GtE, ast.GtE: ast.Lt,
    ast.Gt: ast.LtE, ast.LtE: ast.Gt, ast.In: ast.NotIn, ast.NotIn: ast.In,
    ast.Is: ast.IsNot, ast.IsNot: ast.Is,
}  # fmt: skip

TRACER = """
import json, os, sys, threading
import pytest

_ROOT, _OUT, _SEEN = os.environ["REKS_BENCH_ROOT"], os.environ["REKS_BENCH_CALLS"], {}


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    codes = set()

    def profile(frame, event, arg):
        if event == "call" and frame.f_code.co_filename.startswith(_ROOT):
            codes.add((frame.f_code.co_filename, frame.f_code.co_firstlineno))

    sys.setprofile(profile)
    threading.setprofile(profile)
    try:
        yield
    finally:
        sys.setprofile(None)
        threading.setprofile(None)
        _SEEN[item.nodeid] = sorted(codes)


def pytest_sessionfinish(session):
    with open(_OUT, "w") as sink:
        json.dump(_SEEN, sink)
"""


@dataclass(frozen=True)
class Function:
    path: str  # relative to the root
    qualname: str
    first_line: int  # first decorator or the def line: the code object's co_firstlineno
    node: ast.FunctionDef | ast.AsyncFunctionDef


@dataclass(frozen=True)
class Mutant:
    function: Function
    kind: str
    text: str  # the function from its ``def`` line to its end, mutated


def t_functions(root: Path) -> list[Function]:
    """Functions and methods (not nested ones) of the project's own packages."""
    found = []
    for package in sorted(project_packages(root)):
        base = root / package if (root / package).is_dir() else root / "src" / package
        files = list(walk_files(base, root)) if base.is_dir() else [base.with_suffix(".py")]
        for file in files:
            if file.suffix != ".py" or not file.exists():
                continue
            tree = ast.parse(file.read_text(encoding="utf-8"))
            rel = file.relative_to(root).as_posix()
            for qualname, node in _defs(tree.body, ""):
                first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
                found.append(Function(rel, qualname, first, node))
    return found


def _defs(body: list[ast.stmt], prefix: str) -> list[tuple[str, Any]]:
    out: list[tuple[str, Any]] = []
    for stmt in body:
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
            out.append((prefix + stmt.name, stmt))
        elif isinstance(stmt, ast.ClassDef):
            out += _defs(stmt.body, f"{prefix}{stmt.name}.")
    return out


def mutants_of(function: Function) -> list[Mutant]:
    node = function.node
    own = [n for n in ast.walk(node) if not _nested(n, node)]
    if any(isinstance(n, (ast.Yield, ast.YieldFrom)) for n in own):
        return []
    returns_value = any(isinstance(n, ast.Return) and n.value is not None for n in own)
    out = [_render(function, "extreme", lambda f: _replace_body(f, returns_value))]
    for kind, mutate in (
        ("comparison", _flip_comparison),
        ("arithmetic", _swapper(ast.BinOp)),
        ("boolean", _swapper(ast.BoolOp)),
        ("condition", _negate_condition),
    ):
        mutant = _render(function, kind, mutate)
        if mutant is not None:
            out.append(mutant)
    return [m for m in out if m is not None]


def _nested(candidate: ast.AST, root: ast.AST) -> bool:
    return candidate is not root and isinstance(
        candidate, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)
    )


def _render(function: Function, kind: str, mutate: Any) -> Mutant | None:
    clone = copy.deepcopy(function.node)
    clone.decorator_list = []
    if not mutate(clone):
        return None
    text = textwrap.indent(ast.unparse(clone), " " * function.node.col_offset)
    return Mutant(function, kind, text)


def _replace_body(node: Any, returns_value: bool) -> bool:
    node.body = [ast.Return(ast.Constant(None))] if returns_value else [ast.Pass()]
    return True


def _first(node: ast.AST, kind: type) -> Any:
    return next((n for n in ast.walk(node) if isinstance(n, kind)), None)


def _flip_comparison(node: ast.AST) -> bool:
    compare = _first(node, ast.Compare)
    if compare is None or type(compare.ops[0]) not in _FLIPPED:
        return False
    compare.ops[0] = _FLIPPED[type(compare.ops[0])]()
    return True


_SWAPPED: dict[type, type] = {ast.Add: ast.Sub, ast.Sub: ast.Add, ast.And: ast.Or, ast.Or: ast.And}


def _swapper(kind: type) -> Any:
    """A mutation swapping the operator of the first ``kind`` node (``+``/``-``, and/or)."""

    def swap(node: ast.AST) -> bool:
        found = next(
            (n for n in ast.walk(node) if isinstance(n, kind) and type(n.op) in _SWAPPED), None
        )
        if found is None:
            return False
        found.op = _SWAPPED[type(found.op)]()
        return True

    return swap


def _negate_condition(node: ast.AST) -> bool:
    branch = _first(node, ast.If)
    if branch is None:
        return False
    branch.test = ast.UnaryOp(ast.Not(), branch.test)
    return True


class Applied:
    """A mutant written over its function on disk; the file is restored on exit."""

    def __init__(self, root: Path, mutant: Mutant) -> None:
        self.path = root / mutant.function.path
        self.mutant = mutant

    def __enter__(self) -> None:
        self.original = self.path.read_text(encoding="utf-8")
        lines = self.original.splitlines(keepends=True)
        node = self.mutant.function.node
        replaced = [*lines[: node.lineno - 1], self.mutant.text + "\n", *lines[node.end_lineno :]]
        self.path.write_text("".join(replaced), encoding="utf-8")

    def __exit__(self, *exc: object) -> None:
        self.path.write_text(self.original, encoding="utf-8")


def covered(project: Project, nodeids: list[str], work: Path) -> dict[str, set[tuple[str, int]]]:
    """Test -> (relative path, first line) of the project functions it executed in-process."""
    (work / "reks_bench_calls.py").write_text(TRACER, encoding="utf-8")
    out = work / "calls.json"
    env = environment(project.root)
    env["PYTHONPATH"] = os.pathsep.join([str(work), env["PYTHONPATH"]])
    env.update(REKS_BENCH_ROOT=str(project.root), REKS_BENCH_CALLS=str(out))
    command = [project.python, "-m", "pytest", "-q", "-p", "reks_bench_calls", *nodeids]
    subprocess.run(command, cwd=project.root, env=env, capture_output=True, check=False)
    seen = json.loads(out.read_text(encoding="utf-8"))
    root = str(project.root) + os.sep
    return {
        nodeid: {(f[len(root) :], line) for f, line in codes if f.startswith(root)}
        for nodeid, codes in seen.items()
    }


def classify(
    project: Project, pairs: dict[str, str], notes: list[str] | None = None
) -> Counter[str]:
    """Run the factored tests and their system tests; name each pair's verdict as the paper
    does (section 2.1): accurate, false pass, false failure, or a divergence (the replay
    error after which the system test runs)."""
    factored = run_pytest(project, list(pairs.values()), {})["tests"]
    system = run_pytest(project, list(pairs), {})["tests"] if pairs else {}
    verdicts: Counter[str] = Counter()
    for original, factored_id in pairs.items():
        entry = factored.get(factored_id, {})
        system_passed = system.get(original, {}).get("outcome") == "passed"
        if entry.get("outcome") == "passed":
            verdicts["both pass" if system_passed else "FALSE PASS"] += 1
        elif entry.get("divergence"):
            verdicts["factored diverged"] += 1
        elif system_passed:
            verdicts["FALSE FAILURE"] += 1
        else:
            verdicts["both fail"] += 1
        if notes is not None and entry.get("outcome") != "passed":
            why = entry.get("divergence") or entry.get("message", "")
            notes.append(f"{factored_id} ({entry.get('outcome')}): {why[-400:]}")
    return verdicts


def mutant_faithfulness(
    project: Project, pairs: dict[str, str], cover: dict[str, set], mutants: list[Mutant]
) -> Counter[str]:
    totals: Counter[str] = Counter()
    with ProgressBar("mutants") as bar:
        for done, mutant in enumerate(mutants):
            key = (mutant.function.path, mutant.function.first_line)
            chosen = {
                s: f for s, f in pairs.items() if key in cover.get(s, set()) | cover.get(f, set())
            }
            notes: list[str] = []
            with Applied(project.root, mutant):
                verdicts = classify(project, chosen, notes)
            totals.update(verdicts)
            where = f"{mutant.function.path}::{mutant.function.qualname}"
            for wrong in ("FALSE PASS", "FALSE FAILURE"):
                if verdicts[wrong]:
                    print(f"\n{wrong}: {mutant.kind} of {where}")
            if verdicts["FALSE FAILURE"]:  # which factored test failed, and how
                print("\n".join(f"  {note}" for note in notes))
            bar.update(done + 1, len(mutants), mutant.function.qualname)
    return totals


def still_valid(project: Project, pairs: dict[str, str]) -> dict[str, str]:
    """The pairs whose factored test still passes on unchanged code now, minutes after the
    capture (a test of T that reads the clock can stop passing): the others would count as
    failures of every mutant and rename below."""
    factored = run_pytest(project, list(pairs.values()), {})["tests"]
    kept = {s: f for s, f in pairs.items() if factored.get(f, {}).get("outcome") == "passed"}
    for system, factored_id in pairs.items():
        if system not in kept:
            entry = factored.get(factored_id, {})
            why = entry.get("message", "not run")[-300:]
            print(f"  invalid on unchanged code: {factored_id}: {why}")
    print(f"unchanged code, minutes after capture: {len(kept)} of {len(pairs)} pairs valid")
    return kept


def faithfulness(bench: BenchProject, args: argparse.Namespace) -> None:
    """Factor one project's slowest tests, then its mutants and renames (figures printed)."""
    project = prepare(bench, args.work)
    factored = factor_slowest(project, bench, args.tests)
    pairs = factored.pairs()
    print(f"factored {len(pairs)} of {len(factored.candidates)} slowest tests")
    for r in factored.results:
        if r.status != "factored":
            print(f"  not factored: {r.test}: {r.reason[:140]}")
    for r in factored.results:
        for warning in r.warnings:
            print(f"  warning: {r.test}: {warning[:200]}")
    pairs = still_valid(project, pairs)
    if not pairs:
        return
    cover = covered(project, [*pairs, *pairs.values()], args.work / bench.name)
    reached = set().union(*cover.values())
    functions = [f for f in t_functions(project.root) if (f.path, f.first_line) in reached]
    mutants = [m for f in functions for m in mutants_of(f)]
    if args.renames_only:
        mutants = []
    elif args.mutants and len(mutants) > args.mutants:
        mutants = random.Random(args.seed).sample(mutants, args.mutants)
    print(f"{len(functions)} functions of T executed by the pairs; {len(mutants)} mutants")
    faults = mutant_faithfulness(project, pairs, cover, mutants)
    print("mutants (pair verdicts):", dict(faults))
    caught = faults["factored diverged"] + faults["both fail"] + faults["FALSE FAILURE"]
    share = faults["factored diverged"] / max(1, caught)
    print(f"false passes: {faults['FALSE PASS']} (goal 0), false failures: "
          f"{faults['FALSE FAILURE']}; caught by a divergence: {share:.0%}")  # fmt: skip
    renamable = [
        Renamed(f.path, f.qualname, f.node, _pairs_executing(f, pairs, cover))
        for f in functions
        if not re.fullmatch(r"__\w+__", f.node.name)  # Python calls dunders by name
    ]
    renames = sample(renamable, args.renames, args.seed)
    validity = rename_validity(project, renames)
    valid, invalidated = validity["valid"], validity["INVALIDATED"]
    print(f"renames of {len(renames)} of {len(renamable)} non-dunder covered functions "
          f"(pair verdicts):", dict(validity))  # fmt: skip
    print(f"factored tests still valid after a behaviour-preserving rename: "
          f"{valid}/{valid + invalidated}")  # fmt: skip


def _pairs_executing(
    function: Function, pairs: dict[str, str], cover: dict[str, set]
) -> dict[str, str]:
    key = (function.path, function.first_line)
    return {s: f for s, f in pairs.items() if key in cover.get(s, set()) | cover.get(f, set())}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--project", help="a name from factoring_projects.PROJECTS (default: all)")
    parser.add_argument("--work", default="/tmp/reks-bench-factoring", type=Path)
    parser.add_argument("--tests", type=int, default=20)
    parser.add_argument("--mutants", type=int, default=60, help="sample size (0: all)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--renames-only", action="store_true", help="skip the mutants")
    parser.add_argument("--renames", type=int, default=20, help="sample size (0: all)")
    args = parser.parse_args()
    args.work.mkdir(parents=True, exist_ok=True)
    for bench in selected(args.project):
        print(f"=== {bench.name}", flush=True)
        faithfulness(bench, args)
        print(flush=True)


if __name__ == "__main__":
    main()
