"""What a warm pool's restart costs (an edit the live workers cannot follow: a function that
ran at import, a module's top level): from nothing, against from the spare ``warm`` keeps
(``WarmPools._keep_spare``), interleaved in the same run.

The spare of a project whose conftest imports the project waits before pytest starts
(``pool.BEFORE_PYTEST_VARIABLE``); the others wait to collect. Each figure is the time from
the restart until the workers collected the tests and imported the target (``prepare``),
the spare already waiting.

    python bench/spare_restart.py --project PATH=src/pkg/m.py [--rounds 4] [--spare collect]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

from extreme_speed import QUIET, import_root, load

from lsp_server.extreme.pool import WorkerPool
from lsp_server.jobs import Job


def restarted(root: Path, target: str, jobs: int, spare: str) -> float:
    """Seconds to a collected, prepared pool: from nothing (``spare`` ""), or from a spare
    waiting to collect ("collect") or before pytest ("before pytest") spawned beforehand."""
    scoped, early = spare != "", spare == "before pytest"
    pool = WorkerPool(root, jobs, None, QUIET, scoped=scoped, before_pytest=early)
    try:
        if scoped:
            pool.spawn()
            pool.waiting()  # the spare is ready, as one spawned at the last give-back is
        started = time.perf_counter()
        if scoped:
            pool.scope([])
        pool.start(Job())
        pool.prepare([target])
        return time.perf_counter() - started
    finally:
        pool.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--project", required=True, help="PATH=target.py")
    parser.add_argument("--rounds", type=int, default=4)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument(
        "--spare",
        choices=["collect", "before pytest"],
        default="before pytest",
        help="the kind of spare measured against starting from nothing",
    )
    args = parser.parse_args()
    path, _, target = args.project.partition("=")
    root = Path(path).resolve()
    os.environ["PYTHONPATH"] = str(import_root(root))
    waits = "before pytest" if args.spare == "before pytest" else "to collect"
    ways = {"from nothing": "", f"from a spare waiting {waits}": args.spare}
    times: dict[str, list[float]] = {label: [] for label in ways}
    for round_ in range(args.rounds):
        for label, spare in ways.items():  # taking turns
            seconds = restarted(root, target, args.jobs, spare)
            times[label].append(seconds)
            print(f"  round {round_ + 1}: {label}: {seconds:.2f} s {load()}", flush=True)
    medians = {label: statistics.median(values) for label, values in times.items()}
    (nothing, spare_label) = list(medians)
    print(
        f"== {root.name}: restart to collected and prepared, median of {args.rounds}: "
        + ", ".join(f"{label} {m:.2f} s" for label, m in medians.items())
        + f"; ratio {medians[nothing] / medians[spare_label]:.2f}x {load()}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
