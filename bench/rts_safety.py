"""Safety of test selection: reks and pytest-testmon against the full suite.

For each of N small semantic mutations of the project's source (flip a comparison, change
an integer constant, swap True/False or and/or), applied one at a time inside a function
body: run the full suite, then ``pytest --reks`` and ``pytest --testmon``. A test that
fails in the full run but was not run by a tool is a safety violation of that tool. After
each mutation the source is restored and both tools run once more so their stores are
in sync with the original code again.

    nice python bench/rts_safety.py --projects click --mutations 20
"""

from __future__ import annotations

import argparse
import ast
import io
import random
import sys
import tokenize
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from rts_project import Project, prepare

_SWAPS = {
    "==": "!=",
    "!=": "==",
    "<": ">=",
    ">=": "<",
    ">": "<=",
    "<=": ">",
    "True": "False",
    "False": "True",
    "and": "or",
    "or": "and",
    "is": "is not",
}


@dataclass(frozen=True)
class Mutation:
    path: Path
    line: int
    col: int
    old: str
    new: str

    def label(self, root: Path) -> str:
        return f"{self.path.relative_to(root)}:{self.line}: {self.old} -> {self.new}"

    def apply(self) -> str:
        text = self.path.read_text()
        lines = text.splitlines(keepends=True)
        row = lines[self.line - 1]
        assert row[self.col : self.col + len(self.old)] == self.old
        lines[self.line - 1] = row[: self.col] + self.new + row[self.col + len(self.old) :]
        self.path.write_text("".join(lines))
        return text


def _body_lines(tree: ast.Module) -> set[int]:
    lines: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for stmt in node.body:
                lines.update(range(stmt.lineno, (stmt.end_lineno or stmt.lineno) + 1))
    return lines


def mutations_of(path: Path) -> list[Mutation]:
    text = path.read_text()
    body = _body_lines(ast.parse(text))
    out: list[Mutation] = []
    for tok in tokenize.generate_tokens(io.StringIO(text).readline):
        line, col = tok.start
        if line not in body or tok.start[0] != tok.end[0]:
            continue
        if tok.string in _SWAPS and tok.type in (tokenize.OP, tokenize.NAME):
            out.append(Mutation(path, line, col, tok.string, _SWAPS[tok.string]))
        elif tok.type == tokenize.NUMBER and tok.string.isdigit():
            out.append(Mutation(path, line, col, tok.string, str(int(tok.string) + 1)))
    return out


def _compiles(path: Path) -> bool:
    try:
        compile(path.read_text(), str(path), "exec")
    except SyntaxError:
        return False
    return True


def bench(name: str, workdir: Path, count: int, seed: int, as_shipped: bool) -> None:
    project: Project = prepare(name, workdir, shrink_stress=True)
    if as_shipped:
        project.extra_args = []
    project.reset_stores()
    print(f"\n== {name}: {count} mutations, extra pytest args {project.extra_args}")
    base = project.pytest()
    reks = project.pytest("--reks")
    testmon = project.pytest("--testmon")
    print(
        f"baseline: {len(base.ran)} tests, {len(base.failed)} failing; recorded "
        f"reks {len(reks.ran)}, testmon {len(testmon.ran)}"
    )
    candidates = [m for f in project.source_files() for m in mutations_of(f)]
    rng = random.Random(seed)
    rng.shuffle(candidates)
    done = killed = 0
    violations = {"reks": 0, "testmon": 0}
    selected = {"reks": 0, "testmon": 0}
    header = f"{'mutation':56} {'fail':>5} {'reks':>5} {'tm':>5} {'miss r':>6} {'miss t':>6}"
    print(header)
    for mutation in candidates:
        if done >= count:
            break
        original = mutation.apply()
        try:
            if not _compiles(mutation.path):
                continue
            try:
                full = project.pytest()
            except RuntimeError:
                # The mutation breaks loading a conftest (attrs' class decorators run at
                # import): pytest runs nothing, with or without a tool.
                print(f"{mutation.label(project.root)[:56]:56} suite does not load: skipped")
                continue
            done += 1
            failing = full.failed - base.failed
            r = project.pytest("--reks")
            t = project.pytest("--testmon")
        finally:
            mutation.path.write_text(original)
        missed_r = failing - r.ran
        missed_t = failing - t.ran
        killed += bool(failing)
        violations["reks"] += len(missed_r)
        violations["testmon"] += len(missed_t)
        selected["reks"] += len(r.ran)
        selected["testmon"] += len(t.ran)
        label = mutation.label(project.root)
        print(
            f"{label[:56]:56} {len(failing):5d} {len(r.ran):5d} {len(t.ran):5d}"
            f" {len(missed_r):6d} {len(missed_t):6d}"
        )
        for nodeid in sorted(missed_r):
            print(f"    reks missed {nodeid}")
        for nodeid in sorted(missed_t)[:5]:
            print(f"    testmon missed {nodeid}")
        project.pytest("--reks")
        project.pytest("--testmon")
    print(f"mutations: {done}, detected by the full suite: {killed}")
    for tool in ("reks", "testmon"):
        print(
            f"{tool:8} safety violations: {violations[tool]}"
            f"   tests run over all mutations: {selected[tool]}"
        )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--projects", nargs="+", default=["click"], choices=["click", "attrs"])
    parser.add_argument("--workdir", type=Path, default=Path("/tmp/reks-rts-bench"))
    parser.add_argument("--mutations", type=int, default=20)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--as-shipped", action="store_true", help="keep the project's addopts")
    args = parser.parse_args()
    print(f"python {sys.version.split()[0]}")
    for name in args.projects:
        bench(name, args.workdir, args.mutations, args.seed, args.as_shipped)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
