"""Recording overhead and selection of reks against pytest-testmon on real projects.

For each project (PyPI sdist with its tests, in a temp venv, editable install):
plain pytest, ``pytest --reks`` recording on an empty store, ``pytest --testmon``
recording on an empty database (CPU seconds, wall seconds, ratio to plain); then a
no-change run and several one-function edits (a statement inserted at the start of a
function body): tests each tool selects, the wall time of that run, and reks's own
selection time measured through the Python API.

    nice python bench/rts_overhead.py --projects click --edits 3

Projects can also run from a git checkout (``--checkout DIR``: copied under
``--workdir``, run with the copy on ``PYTHONPATH``, in the venv ``--venv``, which needs
pytest, pytest-testmon and reks); ``--before-venv`` adds a recording run with another
venv's reks (the code before a change) to the same interleaved runs, and ``--edits 0``
skips the selection part. The load average is printed before and after each project.
Each recording on an empty store (first session) is followed by ``--reks-all`` over it
(second session: every test re-recorded).

    python bench/rts_overhead.py --projects --edits 0 --repeat 1 --venv /tmp/v/venv \
        --before-venv /tmp/main/venv --checkout /work/.mirror/pytoolz+toolz/repo
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from reks_bytecode import compile_reks
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


def _load() -> str:
    return (
        Path("/proc/loadavg").read_text().split(" ", 1)[0]
        if os.path.exists("/proc/loadavg")
        else "?"
    )


def from_checkout(source: Path, workdir: Path, venv: Path) -> Project:
    """A fresh copy of the git checkout ``source`` run with ``venv``'s python, the copy
    (its ``src/`` if it has one) on ``PYTHONPATH``."""
    name = source.parent.name if source.name in ("repo", ".git") else source.name
    root = workdir / "checkouts" / name
    if root.exists():
        shutil.rmtree(root)
    root.parent.mkdir(parents=True, exist_ok=True)
    subprocess.run(["git", "clone", "-q", "--shared", str(source), str(root)], check=True)
    paths = [str(root / "src"), str(root)] if (root / "src").is_dir() else [str(root)]
    os.environ["PYTHONPATH"] = os.pathsep.join(paths)
    return Project(name, root, venv / "bin" / "python")


def bench(project: Project, edits: int, seed: int, repeat: int, before: Path | None) -> None:
    """Long because it prints one table and the selection rows after it."""
    name = project.name
    project.reset_stores()
    print(f"\n== {name} ({project.root}) extra pytest args: {project.extra_args}")
    print(f"load before: {_load()}")
    peer = None if before is None else dataclasses.replace(project, python=before / "bin/python")
    for runner in (project, peer):
        if runner is not None:
            compile_reks(runner.python)
    # Timed runs go without -rA: listing every test costs seconds on a large suite and
    # would dilute the ratios. Best of --repeat runs each, interleaved.
    project.pytest(listing=False)  # warm the file system caches and pytest's own cache
    plains, rekses, testmons, befores = [], [], [], []
    # The second session re-records every test over the first one's store (--reks-all).
    rekses2, befores2 = [], []
    # Each reks records on a store of its own (``reset_stores`` also drops the analysis
    # cache): its second session reads only its own first session's entries. Which of the
    # two goes first alternates, so neither always follows plain pytest.
    pairs = [(rekses, rekses2, project)]
    if peer is not None:
        pairs.append((befores, befores2, peer))
    for round_ in range(repeat):
        plains.append(project.pytest(listing=False))
        for firsts, seconds, runner in pairs[:: -1 if round_ % 2 else 1]:
            project.reset_stores()
            firsts.append(runner.pytest("--reks", listing=False))
            seconds.append(runner.pytest("--reks-all", listing=False))
        testmons.append(project.pytest("--testmon", listing=False))
    plain, reks, testmon = (min(runs, key=lambda r: r.cpu) for runs in (plains, rekses, testmons))
    total = plain.count
    print(f"tests: {total} (plain rc={plain.returncode}); best of {repeat} runs each, CPU seconds")
    print(f"{'run':24} {'cpu s':>8} {'wall s':>8} {'cpu x':>7} {'tests':>6}")
    rows = [
        ("plain pytest", plain),
        ("pytest --reks (record)", reks),
        ("--reks-all, 2nd session", min(rekses2, key=lambda r: r.cpu)),
        ("pytest --testmon (rec.)", testmon),
    ]
    if befores:
        rows.insert(1, ("--reks, --before-venv", min(befores, key=lambda r: r.cpu)))
        rows.insert(3, ("2nd session, --before", min(befores2, key=lambda r: r.cpu)))
    for label, run in rows:
        print(
            f"{label:24} {run.cpu:8.2f} {run.wall:8.2f} {run.cpu / plain.cpu:7.2f} {run.count:6d}"
        )
    print(f"reks / testmon recording cpu: {reks.cpu / testmon.cpu:.2f}; load after: {_load()}")
    if not edits:
        return
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
    parser.add_argument("--projects", nargs="*", default=["click"], choices=["click", "attrs"])
    parser.add_argument("--checkout", type=Path, action="append", default=[])
    parser.add_argument("--venv", type=Path, help="venv for --checkout projects")
    parser.add_argument("--before-venv", type=Path, help="another reks to record with too")
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
    # Temporary folders of their own: pytest prunes old ones under the shared
    # /tmp/pytest-of-<user> at each start, which other test runs on the machine fill.
    tmp = args.workdir / "tmp"
    tmp.mkdir(parents=True, exist_ok=True)
    os.environ["TMPDIR"] = str(tmp)
    for name in args.projects:
        project = prepare(name, args.workdir)
        if args.as_shipped:
            project.extra_args = []
        bench(project, args.edits, args.seed, args.repeat, args.before_venv)
    for source in args.checkout:
        if args.venv is None:
            parser.error("--checkout needs --venv")
        project = from_checkout(source, args.workdir, args.venv)
        bench(project, args.edits, args.seed, args.repeat, args.before_venv)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
