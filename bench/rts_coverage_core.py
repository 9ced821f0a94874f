"""Test->file links and selection under coverage's two cores: reks against pytest-testmon.

pytest-testmon records through coverage.py; under coverage's ``sys.monitoring`` core
(``COVERAGE_CORE=sysmon``, the default from Python 3.14) a line event is disabled after
its first hit, so every test after the first that runs a line loses it. reks records
through its own ``sys.monitoring`` tool and runs here with ``--cov`` measuring the same
session. For each core: record from an empty store, count the distinct (test, source
file) links each tool stored, then apply the same one-function edits and count the tests
each selects.

    nice python bench/rts_coverage_core.py --projects click --edits 4   # Python 3.12+
"""

from __future__ import annotations

import argparse
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from rts_project import Project, edit_targets, insert_statement, prepare

from lsp_server.rts.store import DependencyStore

CORES = ("ctrace", "sysmon")


def testmon_links(root: Path) -> int:
    db = sqlite3.connect(f"file:{root / '.testmondata'}?mode=ro", uri=True)
    try:
        (count,) = db.execute(
            "SELECT COUNT(*) FROM (SELECT DISTINCT te.test_name, fp.filename"
            " FROM test_execution te"
            " JOIN test_execution_file_fp tf ON tf.test_execution_id = te.id"
            " JOIN file_fp fp ON fp.id = tf.fingerprint_id"
            " WHERE fp.filename LIKE 'src/%')"
        ).fetchone()
    finally:
        db.close()
    return int(count)


def reks_links(root: Path) -> int:
    with DependencyStore(root) as store:
        return sum(
            len({unit.path for unit in store.dependencies_of(nodeid) if unit.path[:4] == "src/"})
            for nodeid in store.test_records()
        )


def bench(name: str, workdir: Path, edits: int, seed: int) -> None:
    project = prepare(name, workdir)
    pip = [str(project.python), "-m", "pip", "install", "-q", "pytest-cov"]
    subprocess.run(pip, check=True, stdout=subprocess.DEVNULL)
    package = next(p.name for p in (project.root / "src").iterdir() if p.is_dir())
    # Line coverage only (3.12's sysmon core cannot measure branches and would fall back to
    # ctrace), and coverage's warnings about its own limits must not fail a project that
    # turns warnings into errors: testmon's lost contexts are what is measured here.
    rcfile = workdir / "coveragerc-lines"
    rcfile.write_text("[run]\nbranch = False\n")
    quiet = ["-W", "ignore::coverage.exceptions.CoverageWarning"]
    cov = [*quiet, "-p", "pytest_cov", f"--cov={package}", f"--cov-config={rcfile}"]
    cov.append("--cov-report=")
    chosen = edit_targets(project, edits, seed)
    print(f"\n== {name}: links = distinct (test, src file) pairs stored")
    print(f"{'core':8} {'reks links':>11} {'testmon links':>14} {'reks sel':>9} {'tm sel':>7}")
    for core in CORES:
        os.environ["COVERAGE_CORE"] = core
        project.reset_stores()
        recorded = _record(project, cov, quiet)
        links = (reks_links(project.root), testmon_links(project.root))
        selected = [0, 0]
        for path, _qualname, line, indent in chosen:
            old = insert_statement(path, line, indent)
            try:
                selected[0] += len(project.pytest("--reks", *cov).ran)
                selected[1] += len(project.pytest("--testmon", *quiet).ran)
            finally:
                path.write_text(old)
            project.pytest("--reks", *cov, listing=False)
            project.pytest("--testmon", *quiet, listing=False)
        print(f"{core:8} {links[0]:11d} {links[1]:14d} {selected[0]:9d} {selected[1]:7d}{recorded}")
    os.environ.pop("COVERAGE_CORE", None)


def _record(project: Project, cov: list[str], quiet: list[str]) -> str:
    reks = project.pytest("--reks", *cov, listing=False)
    testmon = project.pytest("--testmon", *quiet, listing=False)
    if reks.returncode not in (0, 1) or testmon.returncode not in (0, 1):
        return f"  (recording failed: reks rc={reks.returncode}, testmon rc={testmon.returncode})"
    return ""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--projects", nargs="+", default=["click"], choices=["click", "attrs"])
    parser.add_argument("--workdir", type=Path, default=Path("/tmp/reks-rts-bench"))
    parser.add_argument("--edits", type=int, default=4)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    if sys.version_info < (3, 12):
        parser.error("coverage's sys.monitoring core needs Python 3.12+")
    print(f"python {sys.version.split()[0]}")
    for name in args.projects:
        bench(name, args.workdir, args.edits, args.seed)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
