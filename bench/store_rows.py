"""Whether two reks versions record the same dependencies, and how many rows each stores.

A change to how the store keeps dependencies (``rts/store/depsets.py``) must leave every
test's units as they were; it may only store fewer rows. Each ``--checkout`` is recorded
with ``pytest --reks`` on an empty store by ``--venv``'s reks and by ``--before-venv``'s,
``--rounds`` times each (a test whose units differ between two rounds of the same reks,
say a thread left running by the test before it, is reported as unsteady, not as a
difference between the versions).

    python bench/store_rows.py --venv /tmp/after/venv --before-venv /tmp/base/venv \
        --checkout /work/.mirror/agronholm+typeguard/repo
"""

from __future__ import annotations

import argparse
import dataclasses
import sqlite3
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from rts_overhead import _load
from rts_project import Project
from tracer_floor import checkout_arguments, checkout_projects

from lsp_server.rts.store import DependencyStore, store_path

Recording = dict[str, frozenset[str]]


@dataclasses.dataclass
class Rows:
    """What one recording stored: rows of unit sets, links of tests to sets."""

    kept: int
    links: int


def record(project: Project, warm: bool = False) -> tuple[Recording, Rows, float]:
    """Each test's dependencies (``path::name``) after ``pytest --reks`` on an empty store
    (``warm``: then ``pytest --reks-all`` on the store that run left, with what it kept),
    the rows stored, and the (last) run's CPU seconds."""
    project.reset_stores()
    run = project.pytest("--reks", listing=False)
    if warm:
        run = project.pytest("--reks-all", listing=False)
    with DependencyStore(project.root) as store:
        deps = store.dependency_keys(store.test_records())
    conn = sqlite3.connect(store_path(project.root))
    try:
        kept = conn.execute("SELECT count(*) FROM depset_units").fetchone()[0]
        links = conn.execute("SELECT count(*) FROM test_depsets").fetchone()[0]
    finally:
        conn.close()
    return {test: frozenset(units) for test, units in deps.items()}, Rows(kept, links), run.cpu


def compare(project: Project, before: Path, rounds: int, warm: bool = False) -> int:
    """Prints both versions' rows and CPU; the number of tests whose units differ between
    the versions in every round (0 when the recordings are the same)."""
    print(f"\n== {project.name}{' (warm)' if warm else ''}; load {_load()}")
    peer = dataclasses.replace(project, python=before / "bin" / "python")
    after_runs: list[Recording] = []
    before_runs: list[Recording] = []
    for _ in range(rounds):
        for label, runner, runs in (("after", project, after_runs), ("before", peer, before_runs)):
            deps, rows, cpu = record(runner, warm)
            runs.append(deps)
            total = sum(map(len, deps.values()))
            print(
                f"  {label:6}: {len(deps)} tests, {total} dependencies,"
                f" {rows.kept} set rows + {rows.links} links, cpu {cpu:.2f} s"
            )
    tests = set().union(*after_runs, *before_runs)
    unsteady = {t for t in tests if len({run.get(t) for run in after_runs + before_runs}) > 1}
    differ = {
        t
        for t in unsteady
        if not {run.get(t) for run in after_runs} & {run.get(t) for run in before_runs}
    }
    print(f"tests whose units vary between runs: {len(unsteady)}; differ by version: {len(differ)}")
    for test in sorted(differ)[:10]:
        print(f"  {test}")
    _print_unit_changes(differ, after_runs[0], before_runs[0])
    return len(differ)


def _print_unit_changes(differ: set[str], after: Recording, before: Recording) -> None:
    """The units the differing tests gained and lost (first round of each), most
    frequent first: a difference is judged by what it is (a strict superset is sound)."""
    gained: Counter[str] = Counter()
    lost: Counter[str] = Counter()
    for test in differ:
        now, then = after.get(test, frozenset()), before.get(test, frozenset())
        gained.update(now - then)
        lost.update(then - now)
    for label, changes in (("gained", gained), ("lost", lost)):
        print(f"units {label} ({sum(changes.values())} in all):")
        for unit, count in changes.most_common(10):
            print(f"  {count:6d} tests  {unit}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    checkout_arguments(parser, Path("/tmp/reks-store-rows"))
    parser.add_argument("--before-venv", type=Path, required=True)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument(
        "--warm", action="store_true", help="compare a second run (--reks-all) on each store"
    )
    args = parser.parse_args()
    projects = checkout_projects(args)
    differ = sum(compare(p, args.before_venv, args.rounds, args.warm) for p in projects)
    return 1 if differ else 0


if __name__ == "__main__":
    raise SystemExit(main())
