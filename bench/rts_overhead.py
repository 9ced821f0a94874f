"""Recording overhead and selection of reks against pytest-testmon on real projects.

For each project (PyPI sdist with its tests, in a temp venv, editable install):
plain pytest, ``pytest --reks`` recording on an empty store, ``pytest --testmon``
recording on an empty database (CPU seconds, wall seconds, ratio to plain); then a
no-change run and several one-function edits (a statement inserted at the start of a
function body): tests each tool selects, the wall time of that run, and reks's own
selection time measured through the Python API.

    nice python bench/rts_overhead.py --projects click --edits 3
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from rts_project import (
    Project,
    edit_targets,
    insert_statement,
    prepare,
)

from lsp_server.rts.select import select_affected_tests
from lsp_server.rts.store import DependencyStore


def selection_ms(project: Project, repeat: int = 5) -> tuple[float, int]:
    """Best-of-``repeat`` time of ``select_affected_tests`` over every recorded test."""
    best = float("inf")
    count = 0
    with DependencyStore(project.root) as store:
        for _ in range(repeat):
            start = time.perf_counter()
            selection = select_affected_tests(project.root, store, None)
            best = min(best, time.perf_counter() - start)
            count = len(selection.selected) + len(selection.unaffected)
    return best * 1000, count


def bench(name: str, workdir: Path, edits: int, seed: int, as_shipped: bool, repeat: int) -> None:
    project = prepare(name, workdir)
    if as_shipped:
        project.extra_args = []
    project.reset_stores()
    print(f"\n== {name} ({project.root}) extra pytest args: {project.extra_args}")
    # Timed runs go without -rA: listing every test costs seconds on a large suite and
    # would dilute the ratios. Best of --repeat runs each, interleaved.
    project.pytest(listing=False)  # warm the file system caches and pytest's own cache
    plains, rekses, testmons = [], [], []
    for _ in range(repeat):
        plains.append(project.pytest(listing=False))
        project.reset_stores()
        rekses.append(project.pytest("--reks", listing=False))
        testmons.append(project.pytest("--testmon", listing=False))
    plain, reks, testmon = (min(runs, key=lambda r: r.cpu) for runs in (plains, rekses, testmons))
    total = plain.count
    print(f"tests: {total} (plain rc={plain.returncode}); best of {repeat} runs each, CPU seconds")
    print(f"{'run':24} {'cpu s':>8} {'wall s':>8} {'cpu x':>7} {'tests':>6}")
    for label, run in (
        ("plain pytest", plain),
        ("pytest --reks (record)", reks),
        ("pytest --testmon (rec.)", testmon),
    ):
        print(
            f"{label:24} {run.cpu:8.2f} {run.wall:8.2f} {run.cpu / plain.cpu:7.2f} {run.count:6d}"
        )
    print(f"reks / testmon recording cpu: {reks.cpu / testmon.cpu:.2f}")
    ms, recorded = selection_ms(project)
    print(
        f"reks selection (API, no change): {ms:.1f} ms for {recorded} tests"
        f" = {ms * 1000 / max(recorded, 1):.1f} ms per 1,000 tests"
    )
    # No change: both should select nothing.
    r, t = project.pytest("--reks"), project.pytest("--testmon")
    print(
        f"no change: reks ran {len(r.ran)} ({r.wall:.2f} s), testmon ran {len(t.ran)}"
        f" ({t.wall:.2f} s)"
    )
    print(
        f"{'edited function':52} {'reks':>6} {'testmon':>8} {'reks s':>7} {'tm s':>6} {'sel ms':>7}"
    )
    sums = [0, 0]
    for path, qualname, line, indent in edit_targets(project, edits, seed):
        old = insert_statement(path, line, indent)
        try:
            ms, _ = selection_ms(project, repeat=3)
            r = project.pytest("--reks")
            t = project.pytest("--testmon")
        finally:
            path.write_text(old)
        label = f"{path.relative_to(project.root)}::{qualname}"
        print(
            f"{label[:52]:52} {len(r.ran):6d} {len(t.ran):8d} {r.wall:7.2f} {t.wall:6.2f} {ms:7.1f}"
        )
        sums[0] += len(r.ran)
        sums[1] += len(t.ran)
        # Back to the original code: both tools re-run what the edit touched.
        project.pytest("--reks")
        project.pytest("--testmon")
    print(f"tests selected over {edits} edits: reks {sums[0]}, testmon {sums[1]}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--projects", nargs="+", default=["click"], choices=["click", "attrs"])
    parser.add_argument("--workdir", type=Path, default=Path("/tmp/reks-rts-bench"))
    parser.add_argument("--edits", type=int, default=3)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--repeat", type=int, default=3, help="timed runs of each kind")
    parser.add_argument(
        "--as-shipped",
        action="store_true",
        help="keep the project's addopts (click's -m 'not stress' disables testmon's selection)",
    )
    args = parser.parse_args()
    print(f"python {sys.version.split()[0]}")
    for name in args.projects:
        bench(name, args.workdir, args.edits, args.seed, args.as_shipped, args.repeat)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
