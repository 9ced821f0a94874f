"""Test selection replayed on real commit histories: reks against pytest-testmon.

For each repository (a git directory given on the command line; this script never fetches)
the last ``--commits`` commits of the first-parent chain are checked out one after the
other, as a developer would pull them. At the oldest one's parent both tools record the
whole suite (``--reks-all``; testmon's first run), timed against a plain run (recording
overhead). Then at each commit: ``pytest --reks``, ``pytest --testmon`` (each runs what it
selects and records it) and the full suite. A test whose outcome differs from the one at
the parent, or that fails, and that a tool did not run is a violation of that tool.

    python bench/rts_history.py --work /tmp/history --commits 20 \\
        /work/.mirror/pytoolz+toolz/repo /work/.mirror/more-itertools+more-itertools/repo

The venv (pytest, pytest-testmon 2.2.0, reks) is made once under ``--work``; projects run
from their checkout (``PYTHONPATH``), so only pure-Python projects without install steps
fit. Prints one line per commit and a summary per project.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from rts_project import REPO, TOOLS, Project, Run


@dataclass
class Totals:
    commits: int = 0
    source_commits: int = 0
    reks_run: int = 0
    testmon_run: int = 0
    reks_not_more: int = 0
    violations: dict[str, int] = field(default_factory=lambda: {"reks": 0, "testmon": 0})


def _git(repo: Path, *args: str) -> str:
    return subprocess.run(
        ["git", *args], cwd=repo, check=True, capture_output=True, text=True
    ).stdout


def _venv(work: Path) -> Path:
    venv = work / "venv"
    python = venv / "bin" / "python"
    if not python.exists():
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        pip = [str(python), "-m", "pip", "install", "-q"]
        subprocess.run([*pip, *TOOLS], check=True)
        subprocess.run([*pip, "--no-deps", "-e", str(REPO)], check=True)
    return python


def _checkout(root: Path, commit: str) -> None:
    _git(root, "checkout", "-q", "-f", commit)
    _git(root, "clean", "-q", "-fdx", "-e", ".reks", "-e", ".testmondata*")


def _touches_source(root: Path, commit: str) -> bool:
    names = _git(root, "diff", "--name-only", f"{commit}^", commit).split()
    return any(n.endswith(".py") and "test" not in n for n in names)


def _outcomes(run: Run) -> dict[str, bool]:
    return {**dict.fromkeys(run.passed, True), **dict.fromkeys(run.failed, False)}


def replay(source: Path, work: Path, python: Path, commits: int) -> Totals:
    name = source.parent.name if source.name in ("repo", ".git") else source.name
    root = work / name
    if not root.exists():
        subprocess.run(["git", "clone", "-q", "--shared", str(source), str(root)], check=True)
    chain = _git(root, "rev-list", "--first-parent", f"-n{commits + 1}", "HEAD").split()[::-1]
    paths = [str(root / "src"), str(root)] if (root / "src").is_dir() else [str(root)]
    os.environ["PYTHONPATH"] = os.pathsep.join(paths)
    project = Project(name, root, python)
    project.reset_stores()
    _checkout(root, chain[0])
    plain = project.pytest(listing=False)
    reks = project.pytest("--reks-all", listing=False)
    testmon = project.pytest("--testmon", listing=False)
    print(
        f"{name}: {plain.count} tests; recording overhead reks {reks.wall / plain.wall:.2f}x,"
        f" testmon {testmon.wall / plain.wall:.2f}x (plain {plain.wall:.1f} s)"
    )
    before = _outcomes(project.pytest())
    totals = Totals()
    for commit in chain[1:]:
        _checkout(root, commit)
        by_tool = {"reks": project.pytest("--reks"), "testmon": project.pytest("--testmon")}
        full = project.pytest()
        after = _outcomes(full)
        must = {t for t, ok in after.items() if not ok or before.get(t) != ok}
        source = _touches_source(root, commit)
        totals.commits += 1
        totals.source_commits += source
        counts = {tool: len(run.ran) for tool, run in by_tool.items()}
        missed = {tool: sorted(must - run.ran) for tool, run in by_tool.items()}
        for tool in by_tool:
            totals.violations[tool] += len(missed[tool])
        totals.reks_run += counts["reks"]
        totals.testmon_run += counts["testmon"]
        totals.reks_not_more += counts["reks"] <= counts["testmon"]
        print(
            f"  {commit[:10]} {'src ' if source else 'other'} suite {len(after):5d}"
            f"  reks {counts['reks']:5d}  testmon {counts['testmon']:5d}"
            f"  must {len(must):3d}  missed reks {missed['reks'][:3]}"
            f" testmon {missed['testmon'][:3]}"
        )
        before = after
    print(
        f"{name}: {totals.commits} commits ({totals.source_commits} touch source);"
        f" tests run reks {totals.reks_run}, testmon {totals.testmon_run};"
        f" reks <= testmon on {totals.reks_not_more}/{totals.commits} commits;"
        f" violations reks {totals.violations['reks']}, testmon {totals.violations['testmon']}"
    )
    return totals


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("repos", nargs="+", type=Path, help="git directories to replay")
    parser.add_argument("--work", type=Path, default=Path("/tmp/rts-history"))
    parser.add_argument("--commits", type=int, default=30)
    args = parser.parse_args()
    args.work.mkdir(parents=True, exist_ok=True)
    python = _venv(args.work)
    for repo in args.repos:
        replay(repo.resolve(), args.work, python, args.commits)


if __name__ == "__main__":
    main()
