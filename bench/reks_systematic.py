"""The REKS paper's systematic experiment (its Figure 12) on a pure-Python project.

For each refactoring kind, apply it at every applicable element (up to ``--per-file`` per
file) of the project's non-test code, one task at a time, each on the recorded project
(files and dependency store restored after every task). Per task:

* S_ref: the share of the available tests that plain dependency selection would run
  because of the task and that REKS skips (after the rules, ``select_affected_tests`` on
  the store);
* the REKS rule time (``TaskOutcome.seconds``; goal < 50 ms);
* whether trust-but-verify turned the task into a hand edit, and why;
* engine bugs: the result does not compile, or (within ``--test-budget`` seconds of test
  runs) the project's tests fail after it.

The project comes from PyPI as a source distribution that ships its tests (default
``toolz``). Everything runs in-process with this interpreter (reks installed) except the
project's test runs. Prints a table per kind and the overall figures.

    python bench/reks_systematic.py [--package toolz==1.2.0] [--per-file 5]
"""

from __future__ import annotations

import argparse
import ast
import os
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from sdist import fetch_sdist

from lsp_server.refactor.engine import RefactorEngine
from lsp_server.refactor.model import RefactoringError, RefactorRequest
from lsp_server.rts.select import select_affected_tests
from lsp_server.rts.store import DependencyStore, store_path
from lsp_server.trust import known_failures
from lsp_server.trust.checks import check_compiles
from lsp_server.trust.task_listener import install

PYTEST_FLAGS = ["-q", "-p", "no:cacheprovider", "-p", "no:asyncio", "-p", "no:randomly"]


@dataclass
class Task:
    kind: str
    path: str  # root-relative
    element: str
    offset: int
    end: int | None = None
    args: dict[str, object] = field(default_factory=dict)


@dataclass
class Result:
    task: Task
    error: str | None = None
    s_ref: float = 0.0
    plain: int = 0
    reks: int = 0
    rule_ms: float = 0.0
    fallback: str | None = None
    compiles: bool = True
    tests_pass: bool | None = None  # None: not run (budget)


def is_test(rel: str) -> bool:
    parts = rel.split("/")
    return any(p in ("tests", "test", "testing") for p in parts) or parts[-1].startswith(
        ("test_", "conftest")
    )


def sources(root: Path) -> list[str]:
    out = []
    for path in sorted(root.rglob("*.py")):
        rel = path.relative_to(root).as_posix()
        if is_test(rel) or rel.startswith((".", "build/", "docs/")) or "/." in rel:
            continue
        if rel.endswith("__init__.py"):
            continue
        out.append(rel)
    return out


def _offset(lines: list[str], line: int, col: int) -> int:
    return sum(len(x) for x in lines[: line - 1]) + col


def tasks_for(root: Path, rel: str, per_file: int) -> Iterator[Task]:
    text = (root / rel).read_text(encoding="utf-8")
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return
    lines = text.splitlines(keepends=True)
    functions = [n for n in tree.body if isinstance(n, ast.FunctionDef)]
    methods = [
        m
        for c in tree.body
        if isinstance(c, ast.ClassDef)
        for m in c.body
        if isinstance(m, ast.FunctionDef) and not m.name.startswith("__")
    ]
    modules = [s for s in sources(root) if s != rel and Path(s).parent == Path(rel).parent]

    def name_at(node: ast.FunctionDef) -> int:
        return _offset(lines, node.lineno, lines[node.lineno - 1].index("def ") + 4)

    for node in functions[:per_file]:
        yield Task("rename", rel, node.name, name_at(node), args={"new_name": node.name + "_r"})
    for node in methods[:per_file]:
        yield Task(
            "rename-method", rel, node.name, name_at(node), args={"new_name": node.name + "_r"}
        )
    locals_: list[tuple[ast.FunctionDef, ast.Name]] = []
    for node in functions:
        for stmt in node.body:
            if isinstance(stmt, ast.Assign) and isinstance(stmt.targets[0], ast.Name):
                locals_.append((node, stmt.targets[0]))
                break
    for node, target in locals_[:per_file]:
        at = _offset(lines, target.lineno, target.col_offset)
        yield Task(
            "rename-local", rel, f"{node.name}.{target.id}", at, args={"new_name": target.id + "_r"}
        )
    bodies = [n for n in functions if len(n.body) >= 2 and not isinstance(n.body[0], ast.Expr)]
    for node in bodies[:per_file]:
        stmt = node.body[0]
        start = _offset(lines, stmt.lineno, 0)
        end = _offset(
            lines, stmt.end_lineno or stmt.lineno, len(lines[(stmt.end_lineno or stmt.lineno) - 1])
        )
        yield Task("extract-method", rel, node.name, start, end, {"name": f"_{node.name}_part"})
    returns = [
        (n, s)
        for n in functions
        for s in n.body
        if isinstance(s, ast.Return) and isinstance(s.value, (ast.Call, ast.BinOp))
    ]
    for node, stmt in returns[:per_file]:
        value = stmt.value
        assert value is not None
        start = _offset(lines, value.lineno, value.col_offset)
        end = _offset(lines, value.end_lineno or value.lineno, value.end_col_offset or 0)
        yield Task("extract-variable", rel, node.name, start, end, {"name": "result_r"})
    for node in functions[:per_file]:
        yield Task("inline", rel, node.name, name_at(node))
    if modules:
        for node in functions[:per_file]:
            yield Task("move", rel, node.name, name_at(node), args={"destination": modules[0]})
    yield Task("organize-imports", rel, "<module>", 0)


ACTION = {"rename-method": "rename", "rename-local": "rename"}


class Bench:
    def __init__(self, root: Path, test_budget: float) -> None:
        self.root = root
        self.base = root.parent / (root.name + "-base")
        self.engine = RefactorEngine()
        self.engine.add_root(str(root))
        self.listener = install(self.engine, report=None)
        self.test_budget = test_budget
        self.test_seconds = 0.0
        self.total = 0

    def pytest(self, *args: str) -> subprocess.CompletedProcess[str]:
        env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
        env.pop("PYTEST_ADDOPTS", None)
        return subprocess.run(
            ["nice", "-n", "10", sys.executable, "-m", "pytest", *PYTEST_FLAGS, *args],
            cwd=self.root,
            capture_output=True,
            text=True,
            env=env,
        )

    def record(self) -> None:
        done = self.pytest("--reks-all")
        if done.returncode != 0:
            sys.exit(
                f"the project's suite does not pass before refactoring:\n{done.stdout[-3000:]}"
            )
        with DependencyStore(self.root, create=False) as store:
            self.total = len(store.test_records())
        shutil.rmtree(self.base, ignore_errors=True)
        shutil.copytree(self.root, self.base)

    def restore(self, touched: set[str]) -> None:
        for rel in touched:
            original, current = self.base / rel, self.root / rel
            if original.exists():
                current.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(original, current)
            elif current.exists():
                current.unlink()
            self.engine.mark_changed(str(current))
        store = store_path(self.root)
        for suffix in ("-wal", "-shm"):
            store.with_name(store.name + suffix).unlink(missing_ok=True)
        shutil.copyfile(store_path(self.base), store)

    def run(self, task: Task) -> Result:
        result = Result(task)
        request = RefactorRequest(
            ACTION.get(task.kind, task.kind),
            str(self.root / task.path),
            task.offset,
            task.end,
            dict(task.args),
        )
        try:
            refactoring = self.engine.compute(request)
        except RefactoringError as exc:
            result.error = str(exc)
            return result
        prov = refactoring.provenance
        touched = {*prov.files_before, *prov.files_after}
        try:
            self.engine.apply(refactoring, str(self.root))
            outcome = self.listener.last
            if outcome is None:
                result.error = "no outcome"
                return result
            result.rule_ms = outcome.seconds * 1000
            result.fallback = outcome.fallback
            plain = set(outcome.skipped_tests) | set(outcome.affected_tests)
            with DependencyStore(self.root, create=False) as store:
                selected = set(select_affected_tests(self.root, store).selected)
            result.plain = len(plain)
            result.reks = len(selected & plain)
            result.s_ref = len(plain - selected) / max(self.total, 1)
            result.compiles = check_compiles(prov) is None
            if result.compiles and self.test_seconds < self.test_budget:
                start = time.perf_counter()
                result.tests_pass = self.pytest("-x").returncode == 0
                self.test_seconds += time.perf_counter() - start
            elif not result.compiles:
                result.tests_pass = False
        except RefactoringError as exc:
            result.error = str(exc)
        finally:
            self.restore(touched)
        return result


def report(results: list[Result], total: int) -> None:
    applied = [r for r in results if r.error is None]
    kinds = sorted({r.task.kind for r in results})
    print(f"\n{'kind':18} {'tried':>5} {'applied':>7} {'S_ref mean':>10} {'max':>5}"
          f" {'rules ms mean':>13} {'max':>6} {'distrusted':>10} {'broken':>9}"
          f" {'trusted&broken':>14}")  # fmt: skip
    for kind in [*kinds, "ALL"]:
        tried = [r for r in results if kind in ("ALL", r.task.kind)]
        done = [r for r in applied if kind in ("ALL", r.task.kind)]
        if not done:
            print(f"{kind:18} {len(tried):5} {0:7}")
            continue
        s_ref = [r.s_ref for r in done]
        ms = [r.rule_ms for r in done]
        distrusted = sum(r.fallback is not None for r in done)
        checked = [r for r in done if r.tests_pass is not None]
        broken = sum(not r.tests_pass for r in checked)
        # The unsafe case: REKS trusted the task (skipped its tests) and tests fail.
        missed = sum(not r.tests_pass and r.fallback is None for r in checked)
        print(
            f"{kind:18} {len(tried):5} {len(done):7} {100 * statistics.mean(s_ref):9.1f}%"
            f" {100 * max(s_ref):4.0f}% {statistics.mean(ms):13.1f} {max(ms):6.1f}"
            f" {distrusted:10} {broken:4}/{len(checked):<4} {missed:14}"
        )
    slow = [r for r in applied if r.rule_ms >= 50]
    print(f"\n{len(applied)} tasks applied of {len(results)} tried; {total} tests available;"
          f" rule time >= 50 ms in {len(slow)} tasks")  # fmt: skip
    for r in applied:
        if r.fallback or r.tests_pass is False:
            broke = "tests fail" if r.compiles else "does not compile"
            if r.tests_pass is not False:
                broke = "tests pass" if r.tests_pass else "tests not run"
            why = f"distrusted: {r.fallback}" if r.fallback else "trusted"
            print(f"  {r.task.kind} {r.task.path}:{r.task.element}: {broke}; {why}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--package", default="toolz==1.2.0")
    parser.add_argument("--workdir", type=Path, default=Path("/tmp/reks-bench-systematic"))
    parser.add_argument("--per-file", type=int, default=5)
    parser.add_argument("--max-files", type=int, default=8)
    parser.add_argument("--test-budget", type=float, default=180.0, help="seconds of test runs")
    parser.add_argument(
        "--with-known-failures",
        action="store_true",
        help="let trust-but-verify use the learnt known-failing shapes (default: off, so that"
        " S_ref measures the rules, not the shapes)",
    )
    args = parser.parse_args()
    if not args.with_known_failures:
        known_failures.DATA_PATH = str(args.workdir / "no-known-failures.json")
    args.workdir.mkdir(parents=True, exist_ok=True)
    source = fetch_sdist(args.package, args.workdir)
    root = args.workdir / "project"
    shutil.rmtree(root, ignore_errors=True)
    shutil.copytree(source, root)
    bench = Bench(root, args.test_budget)
    start = time.perf_counter()
    bench.record()
    print(f"{args.package}: {bench.total} tests recorded in {time.perf_counter() - start:.1f} s")
    files = sources(root)[: args.max_files]
    results: list[Result] = []
    try:
        for rel in files:
            for task in tasks_for(root, rel, args.per_file):
                results.append(bench.run(task))
    finally:
        bench.engine.close()
    report(results, bench.total)
    print(f"test runs: {bench.test_seconds:.0f} s; files: {', '.join(files)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
