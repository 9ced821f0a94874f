"""Test selection replayed on real commit histories: reks against pytest-testmon.

For each repository (a git directory given on the command line; this script never fetches)
the last ``--commits`` commits of the first-parent chain are checked out one after the
other, as a developer would pull them. At the oldest one's parent both tools record the
whole suite (``--reks-all``; testmon's first run), timed against a plain run (recording
overhead). Then at each commit: ``pytest --reks``, ``pytest --testmon`` (each runs what it
selects and records it) and the full suite. A test whose outcome differs from the one at
the parent, or that fails, and that a tool did not run is a violation of that tool, unless
it is flaky: every such test is run once more at the parent and at the commit, and one
whose outcome flips there too (a wall-time assertion under load) is named and excluded.

``--only SHA,...`` replays just those commits, each on its own: both tools record at the
commit's parent afresh, then select at the commit (to diagnose or re-measure a few
commits). ``--pip PKG`` adds a test dependency to the venv (itsdangerous needs
freezegun). ``--pytest-arg ARG`` is given to every pytest run (``-o addopts=`` where
a project's addopts start xdist or coverage). ``--log FILE`` appends one JSON line per
commit. ``--keep PATTERN`` keeps untracked files through every checkout: a version module
a build would generate (hatch-vcs), written once into the clone under ``--work``.

    python bench/rts_history.py --work /tmp/history --commits 20 \\
        /work/.mirror/pytoolz+toolz/repo /work/.mirror/more-itertools+more-itertools/repo

The venv (pytest, pytest-testmon 2.2.0, reks) is made once under ``--work`` (reks installed
again when it is another checkout's); the clone there too, each run replaying the source's
head (or ``--until`` REV) whatever commit a stopped run left the clone on. Projects run
from their checkout (``PYTHONPATH``), so only pure-Python projects without build steps fit;
a checkout with a ``pyproject.toml`` or ``setup.py`` is also installed into the venv
(``pip install -e``, its dependencies with it) once, before the first recording, for the
project's own metadata (click reads its version from it) and its dependencies (jinja's
markupsafe); ``--no-install`` runs from the checkout alone. Prints one line per commit and
a summary per project.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from reks_bytecode import compile_reks
from rts_project import REPO, TOOLS, Project, Run


@dataclass
class Totals:
    commits: int = 0
    source_commits: int = 0
    reks_run: int = 0
    testmon_run: int = 0
    reks_not_more: int = 0
    violations: dict[str, int] = field(default_factory=lambda: {"reks": 0, "testmon": 0})
    flaky: set[str] = field(default_factory=set)


def _git(repo: Path, *args: str) -> str:
    return subprocess.run(
        ["git", *args], cwd=repo, check=True, capture_output=True, text=True
    ).stdout


def _venv(work: Path, extra: list[str]) -> Path:
    venv = work / "venv"
    python = venv / "bin" / "python"
    pip = [str(python), "-m", "pip", "install", "-q"]
    if not python.exists():
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        subprocess.run([*pip, *TOOLS], check=True)
    if _installed_reks(python) != REPO:
        # A venv kept under --work from another checkout (or snapshot) of reks would replay
        # that one.
        subprocess.run([*pip, "--no-deps", "-e", str(REPO)], check=True)
    if extra:
        subprocess.run([*pip, *extra], check=True)
    compile_reks(python)
    return python


def _installed_reks(python: Path) -> Path | None:
    """The reks checkout the venv's ``lsp_server`` comes from; None without one."""
    found = subprocess.run(
        [
            str(python),
            "-c",
            "import lsp_server, pathlib; print(pathlib.Path(lsp_server.__file__).parent.parent)",
        ],
        cwd=python.parent,
        capture_output=True,
        text=True,
    )
    return Path(found.stdout.strip()).resolve() if found.returncode == 0 else None


@dataclass
class EditableInstall:
    """The checkout installed into the replay venv once, at the first commit recorded: both
    tools fingerprint the venv's distributions, and the version of a reinstall changes with
    every commit (git describe), so reinstalling where ``setup.py`` changed (toolz 9fef85aa
    added a classifier) reran every test with either tool. A dependency added later in the
    history comes with ``--pip``."""

    enabled: bool
    done: bool = False

    def at(self, project: Project) -> None:
        """Install ``project``'s checkout if it has a build file and is not installed yet."""
        build_files = ("pyproject.toml", "setup.py")
        if self.done or not self.enabled:
            return
        if not any((project.root / name).exists() for name in build_files):
            return
        # With its dependencies, as a developer installs it: pip leaves those already there
        # (pytest, the ``--pip`` ones) as they are when they satisfy it.
        pip = [str(project.python), "-m", "pip", "install", "-q", "-e", "."]
        subprocess.run(pip, cwd=project.root, check=True)
        self.done = True


def _checkout(project: Project, commit: str) -> None:
    _git(project.root, "checkout", "-q", "-f", commit)
    patterns = (arg for kept in project.kept for arg in ("-e", kept))
    _git(project.root, "clean", "-q", "-fdx", *patterns)


def _touches_source(root: Path, commit: str) -> bool:
    names = _git(root, "diff", "--name-only", f"{commit}^", commit).split()
    return any(n.endswith(".py") and "test" not in n for n in names)


def _outcomes(run: Run) -> dict[str, bool]:
    return {**dict.fromkeys(run.passed, True), **dict.fromkeys(run.failed, False)}


def _rerun(project: Project, files: list[str]) -> dict[str, bool]:
    """The outcomes of the test files of the checkout that exist (a file new at a commit
    is none at its parent; pytest given a missing file runs nothing)."""
    present = [name for name in files if (project.root / name).exists()]
    return _outcomes(project.pytest(*present)) if present else {}


def _flaky(
    project: Project,
    parent: str,
    commit: str,
    tests: set[str],
    before: dict[str, bool],
    after: dict[str, bool],
) -> set[str]:
    """The ``tests`` whose outcome flips with no change: run once more at the commit
    and at its parent, a test that does not repeat both first outcomes is flaky. Ends
    with the commit checked out (the tools' stores are untouched: plain runs).

    Their files run, not their ids: an id parametrized by the clock (marshmallow's
    ``[20:17:49 2026-11-29]``) names no test in a later run, and pytest given it runs
    nothing; such a test comes back under no id and is flaky."""
    if not tests:
        return set()
    files = sorted({test.split("::")[0] for test in tests})
    again_after = _rerun(project, files)
    _checkout(project, parent)
    again_before = _rerun(project, files)
    _checkout(project, commit)
    return {
        t
        for t in tests
        if again_after.get(t) != after.get(t) or again_before.get(t) != before.get(t)
    }


def _step(
    project: Project, parent: str, commit: str, before: dict[str, bool], totals: Totals
) -> tuple[dict[str, bool], dict[str, object]]:
    """Select with both tools at ``commit`` (checked out), run the full suite, count."""
    by_tool = {"reks": project.pytest("--reks"), "testmon": project.pytest("--testmon")}
    after = _outcomes(project.pytest())
    must = {t for t, ok in after.items() if not ok or before.get(t) != ok}
    missed_any = set().union(*(must - run.ran for run in by_tool.values()))
    flaky = _flaky(project, parent, commit, missed_any, before, after)
    totals.flaky |= flaky
    source = _touches_source(project.root, commit)
    counts = {tool: len(run.ran) for tool, run in by_tool.items()}
    missed = {tool: sorted(must - run.ran - flaky) for tool, run in by_tool.items()}
    totals.commits += 1
    totals.source_commits += source
    for tool in by_tool:
        totals.violations[tool] += len(missed[tool])
    totals.reks_run += counts["reks"]
    totals.testmon_run += counts["testmon"]
    totals.reks_not_more += counts["reks"] <= counts["testmon"]
    print(
        f"  {commit[:10]} {'src ' if source else 'other'} suite {len(after):5d}"
        f"  reks {counts['reks']:5d}  testmon {counts['testmon']:5d}"
        f"  must {len(must):3d}  missed reks {missed['reks'][:3]}"
        f" testmon {missed['testmon'][:3]}" + (f"  flaky {sorted(flaky)[:3]}" if flaky else ""),
        flush=True,
    )
    record = {
        "commit": commit,
        "source": source,
        "suite": len(after),
        **counts,
        "must": len(must),
        "missed": missed,
        "flaky": sorted(flaky),
        "reks_only": sorted(by_tool["reks"].ran - by_tool["testmon"].ran)[:20],
    }
    return after, record


def _record_at(project: Project, commit: str, install: EditableInstall) -> dict[str, bool]:
    """Both tools record the whole suite at ``commit``; its outcomes."""
    project.reset_stores()
    _checkout(project, commit)
    install.at(project)
    project.pytest("--reks-all", listing=False)
    project.pytest("--testmon", listing=False)
    return _outcomes(project.pytest())


def replay(
    source: Path,
    work: Path,
    python: Path,
    commits: int,
    only: list[str],
    log: Path | None,
    pytest_args: list[str],
    keep: list[str],
    until: str = "HEAD",
    install: bool = True,
) -> Totals:
    name = source.parent.name if source.name in ("repo", ".git") else source.name
    root = work / name
    if not root.exists():
        subprocess.run(["git", "clone", "-q", "--shared", str(source), str(root)], check=True)
    # The source's commit, not the clone's head: a stopped run leaves the clone elsewhere.
    head = _git(source, "rev-parse", until).strip()
    chain = _git(root, "rev-list", "--first-parent", f"-n{commits + 1}", head).split()[::-1]
    paths = [str(root / "src"), str(root)] if (root / "src").is_dir() else [str(root)]
    os.environ["PYTHONPATH"] = os.pathsep.join(paths)
    project = Project(name, root, python, pytest_args)
    project.kept += tuple(keep)
    installed = EditableInstall(install)
    totals = Totals()

    def logged(record: dict[str, object]) -> None:
        # Each commit's line as soon as it is known: a time-boxed run that is stopped keeps
        # the commits it replayed.
        if log is not None:
            with log.open("a") as out:
                out.write(json.dumps({"project": name, **record}) + "\n")

    if only:
        for short in only:
            commit = _git(root, "rev-parse", short).strip()
            parent = _git(root, "rev-parse", f"{commit}^").strip()
            before = _record_at(project, parent, installed)
            _checkout(project, commit)
            installed.at(project)
            logged(_step(project, parent, commit, before, totals)[1])
    else:
        project.reset_stores()
        _checkout(project, chain[0])
        installed.at(project)
        plain = project.pytest(listing=False)
        reks = project.pytest("--reks-all", listing=False)
        testmon = project.pytest("--testmon", listing=False)
        print(
            f"{name}: {plain.count} tests; recording overhead (wall, CPU) reks"
            f" {reks.wall / plain.wall:.2f}x {reks.cpu / plain.cpu:.2f}x, testmon"
            f" {testmon.wall / plain.wall:.2f}x {testmon.cpu / plain.cpu:.2f}x"
            f" (plain {plain.wall:.1f} s, {plain.cpu:.1f} s CPU)",
            flush=True,
        )
        before = _outcomes(project.pytest())
        for parent, commit in itertools.pairwise(chain):
            _checkout(project, commit)
            installed.at(project)
            before, record = _step(project, parent, commit, before, totals)
            logged(record)
    print(
        f"{name}: {totals.commits} commits ({totals.source_commits} touch source);"
        f" tests run reks {totals.reks_run}, testmon {totals.testmon_run};"
        f" reks <= testmon on {totals.reks_not_more}/{totals.commits} commits;"
        f" violations reks {totals.violations['reks']}, testmon {totals.violations['testmon']};"
        f" flaky (excluded) {sorted(totals.flaky) or 'none'}; load {_load()}",
        flush=True,
    )
    return totals


def _load() -> str:
    try:
        return Path("/proc/loadavg").read_text().split()[0]
    except OSError:
        return "?"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("repos", nargs="+", type=Path, help="git directories to replay")
    parser.add_argument("--work", type=Path, default=Path("/tmp/rts-history"))
    parser.add_argument("--commits", type=int, default=30)
    parser.add_argument("--only", default="", help="comma-separated commits, each on its own")
    parser.add_argument("--pip", action="append", default=[], help="extra test dependency")
    parser.add_argument("--log", type=Path, help="append one JSON line per commit here")
    parser.add_argument(
        "--keep",
        action="append",
        default=[],
        help="untracked files every checkout keeps (a pattern, as git clean -e takes): what a"
        " build generates, e.g. hatch-vcs's src/*/_version.py, written once in the clone",
    )
    parser.add_argument(
        "--no-install",
        action="store_true",
        help="do not install the checkout into the venv (pip install -e .): run it from"
        " PYTHONPATH alone",
    )
    parser.add_argument(
        "--until",
        default="HEAD",
        help="the last commit replayed (default: the source's head), e.g. an older window"
        " whose test dependencies still install",
    )
    parser.add_argument(
        "--pytest-arg",
        action="append",
        default=[],
        help="given to every pytest run (plain and both tools), e.g. --pytest-arg=-o"
        " --pytest-arg=addopts= where a project's addopts start xdist or coverage",
    )
    args = parser.parse_args()
    args.work.mkdir(parents=True, exist_ok=True)
    python = _venv(args.work, args.pip)
    only = [c for c in args.only.split(",") if c]
    for repo in args.repos:
        replay(
            repo.resolve(),
            args.work,
            python,
            args.commits,
            only,
            args.log,
            args.pytest_arg,
            args.keep,
            args.until,
            not args.no_install,
        )


if __name__ == "__main__":
    main()
