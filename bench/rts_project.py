"""Shared setup for the rts benchmarks: a real PyPI project with its tests in a temp venv
that has pytest, pytest-testmon and reks, and a way to run pytest there and read back
which tests ran and which failed."""

from __future__ import annotations

import ast
import json
import os
import random
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from sdist import fetch_sdist

REPO = Path(__file__).resolve().parent.parent

# name -> (requirement, extra test dependencies, pytest args for a fair comparison)
PROJECTS: dict[str, tuple[str, list[str], list[str]]] = {
    # click's addopts = -m 'not stress' silently switches testmon's selection off; the same
    # tests are deselected by the rts_nostress plugin instead.
    "click": ("click==8.5.1", [], ["-o", "addopts=", "-p", "rts_nostress"]),
    "attrs": ("attrs==26.1.0", ["hypothesis", "pympler", "cloudpickle"], []),
}
TOOLS = ["pytest", "pytest-testmon==2.2.0", "xxhash"]

_RAN_NOTHING = (3, 4)
"""pytest's exit codes for an internal error and a usage error (a conftest that fails to
import is one): no test ran, whatever the tools would have selected."""

_COUNT = re.compile(r"(\d+) (?:passed|failed|errors?|xpassed|xfailed)\b")


@dataclass
class Run:
    args: list[str]
    returncode: int
    wall: float
    cpu: float
    passed: set[str] = field(default_factory=set)
    failed: set[str] = field(default_factory=set)
    output: str = ""
    count: int = 0
    """Tests that ran (passed, failed or errored), from the summary line."""

    @property
    def ran(self) -> set[str]:
        return self.passed | self.failed


@dataclass
class Project:
    name: str
    root: Path
    python: Path
    extra_args: list[str] = field(default_factory=list)
    """Given to every pytest run (plain and both tools)."""
    kept: tuple[str, ...] = (".reks", ".testmondata*")
    """Untracked files a checkout keeps (``git clean -e`` patterns): the tools' stores, and
    what a build generates (``rts_history --keep``)."""

    def pytest(self, *args: str, timeout: float = 1800, listing: bool = True) -> Run:
        """Run pytest in the project's venv. ``listing``: read every test that ran
        (``passed``/``failed``) from the ``rts_outcomes`` plugin; runs that are timed go
        without it and read only the counts."""
        # --color=no: a project's addopts may force colour. The plugin is named in every run
        # (it writes only when asked): the tools compare the options of a recording and a
        # selecting run, and a plugin named in one of them only reran every test.
        # --continue-on-collection-errors: a file that fails to collect (click 398f9154 reads
        # the project's metadata, absent when it runs from its checkout) fails its own tests
        # (``rts_outcomes`` lists it), not the whole suite at that commit.
        cmd = [str(self.python), "-m", "pytest", "-q", "-p", "no:randomly", "--color=no"]
        cmd += ["--continue-on-collection-errors"]
        cmd += ["-p", "rts_outcomes"]
        cmd += [*self.extra_args, *args]
        env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
        # rts_nostress (a plugin some benchmarks pass with -p) lives next to this file.
        env["PYTHONPATH"] = os.pathsep.join(
            p for p in (str(Path(__file__).resolve().parent), env.get("PYTHONPATH")) if p
        )
        env.pop("PYTEST_ADDOPTS", None)
        outcomes = Path(tempfile.mkstemp(prefix="reks-bench-", suffix=".jsonl")[1])
        if listing:
            env["REKS_BENCH_OUTCOMES"] = str(outcomes)
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        proc = subprocess.run(
            cmd, cwd=self.root, env=env, capture_output=True, text=True, timeout=timeout
        )
        wall = time.perf_counter() - start
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        run = Run(list(args), proc.returncode, wall, cpu, output=proc.stdout + proc.stderr)
        summary = proc.stdout.strip().splitlines()[-1:] or [""]
        run.count = sum(int(n) for n in _COUNT.findall(summary[0]))
        for line in outcomes.read_text(encoding="utf-8").splitlines():
            nodeid, outcome = json.loads(line)
            (run.failed if outcome == "failed" else run.passed).add(nodeid)
        outcomes.unlink()
        if proc.returncode in _RAN_NOTHING:
            # A conftest that cannot import (a test dependency no ``--pip`` named): the
            # suite never ran, and counting its 0 tests at every commit read as a replay
            # with no violations.
            tail = "\n".join(run.output.strip().splitlines()[-15:])
            raise RuntimeError(f"{self.name}: pytest ran nothing (exit {proc.returncode})\n{tail}")
        if listing and run.count and not run.ran:
            # Collection errors, a missing test dependency (``--pip``): pytest's own words.
            tail = "\n".join(run.output.strip().splitlines()[-15:])
            raise RuntimeError(
                f"{self.name}: {run.count} tests ran but none was listed: {cmd}\n{tail}"
            )
        return run

    def reset_stores(self) -> None:
        shutil.rmtree(self.root / ".reks", ignore_errors=True)
        for name in (".testmondata", ".testmondata-shm", ".testmondata-wal"):
            (self.root / name).unlink(missing_ok=True)

    def source_files(self) -> list[Path]:
        src = self.root / "src"
        return sorted(p for p in src.rglob("*.py") if "__pycache__" not in p.parts)


def _sh(*cmd: str, cwd: Path | None = None) -> None:
    subprocess.run(cmd, cwd=cwd, check=True, stdout=subprocess.DEVNULL)


def prepare(
    name: str, workdir: Path, python: str = sys.executable, *, shrink_stress: bool = False
) -> Project:
    """Download the sdist, extract it and build the venv once; reused on later runs.
    ``shrink_stress``: parametrize click's deselected stress tests once instead of 31,000
    times (collection time only; the selected tests are the same)."""
    requirement, extras, fair_args = PROJECTS[name]
    base = workdir / name
    base.mkdir(parents=True, exist_ok=True)
    venv = base / "venv"
    pristine = fetch_sdist(requirement, base, python)
    root = base / "project"
    if root.exists():
        shutil.rmtree(root)
    shutil.copytree(pristine, root)
    if shrink_stress:
        _shrink_stress_tests(root)
    if not venv.exists():
        _sh(python, "-m", "venv", str(venv))
        pip = [str(venv / "bin" / "python"), "-m", "pip", "install", "-q"]
        _sh(*pip, *TOOLS, *extras)
        _sh(*pip, "--no-deps", "-e", str(REPO))
    # Editable install of the project copy so its src/ is what the tests import.
    _sh(str(venv / "bin" / "python"), "-m", "pip", "install", "-q", "--no-deps", "-e", str(root))
    return Project(name, root, venv / "bin" / "python", list(fair_args))


def _shrink_stress_tests(root: Path) -> None:
    """click parametrizes its (deselected) stress tests 31,000 times; collecting them
    dominates every run. One case each keeps the same tests selected in less time."""
    pattern = re.compile(
        r"(@pytest\.mark\.stress\n(?:@[^\n]*\n)*?@pytest\.mark\.parametrize\(\"_\", )"
        r"range\([\d_]+\)"
    )
    for path in (root / "tests").rglob("*.py"):
        text = path.read_text()
        new = pattern.sub(r"\1range(1)", text)
        if new != text:
            path.write_text(new)


def function_bodies(path: Path) -> list[tuple[str, int, int]]:
    """(qualified name, first body line, indentation) of every function with a body
    statement after its docstring."""
    tree = ast.parse(path.read_text())
    out: list[tuple[str, int, int]] = []

    def visit(body: list[ast.stmt], prefix: str) -> None:
        for node in body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                stmts = node.body
                first = stmts[0]
                if (
                    isinstance(first, ast.Expr)
                    and isinstance(first.value, ast.Constant)
                    and isinstance(first.value.value, str)
                ):
                    if len(stmts) < 2:
                        continue
                    first = stmts[1]
                out.append((prefix + node.name, first.lineno, first.col_offset))
            elif isinstance(node, ast.ClassDef):
                visit(node.body, f"{prefix}{node.name}.")

    visit(tree.body, "")
    return out


def edit_targets(project: Project, count: int, seed: int) -> list[tuple[Path, str, int, int]]:
    """``count`` functions of the project's source, chosen at random with ``seed``:
    (file, qualified name, first body line, indentation), for ``insert_statement``."""
    rng = random.Random(seed)
    candidates = [(f, *b) for f in project.source_files() for b in function_bodies(f)]
    rng.shuffle(candidates)
    return candidates[:count]


def insert_statement(path: Path, line: int, indent: int) -> str:
    """A one-function edit: a new statement at the start of a body. Returns the old text."""
    old = path.read_text()
    lines = old.splitlines(keepends=True)
    lines.insert(line - 1, " " * indent + "_bench_edit = 0\n")
    path.write_text("".join(lines))
    return old
