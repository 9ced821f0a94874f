"""Where a batch analysis's fixed cost goes, seen from its first pytest worker (issue 17).

For each project (``--project PATH=target.py,...``) a fresh copy (its ``.reks`` store kept,
as ``pytest --reks`` left it; the workers' bytecode cache dropped) is analysed ``--runs``
times as ``extreme_speed.py`` does, and each worker message is timed as it arrives: the
worker waits for its scope (Python, pytest and reks started), has collected, has imported
the targets and forked. Printed per run: wall milliseconds since the analysis began and the
worker's own CPU milliseconds (``/proc``) at each message; then the medians. The main
process works meanwhile: it is on the critical path only where it sends the scope late.

    TMPDIR=/some/dir python bench/worker_timeline.py --project PATH=pkg/m.py --runs 5
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import time
from pathlib import Path
from typing import Any

from extreme_speed import QUIET, WORK, import_root, load

from lsp_server.extreme import pool as pool_module
from lsp_server.extreme.analysis import Options, analyse

MARKS = ("waiting", "ready", "prepared")
"""The worker's replies on the way to its first transformation, in order."""


def cpu_ms(pid: int) -> float:
    """CPU milliseconds (user and system) ``pid`` used so far; NaN once it is gone."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return float("nan")
    return (int(fields[11]) + int(fields[12])) * 1000 / os.sysconf("SC_CLK_TCK")


def timeline(root: Path, targets: list[str]) -> tuple[dict[str, tuple[float, float]], float, int]:
    """One analysis of ``targets``: (wall ms since it began, worker CPU ms) at the first
    arrival of each of ``MARKS``, its seconds end to end, and the tests a worker collected."""
    seen: dict[str, tuple[float, float]] = {}
    collected: list[int] = []
    started = time.perf_counter()
    receive = pool_module.Worker.receive

    def timed(worker: pool_module.Worker, *args: Any, **kwargs: Any) -> dict[str, Any]:
        message = receive(worker, *args, **kwargs)
        op = str(message.get("op"))
        if op in MARKS and op not in seen:
            wall = (time.perf_counter() - started) * 1000
            seen[op] = (wall, cpu_ms(worker.process.pid))
            if op == "ready":
                collected.append(int(message.get("tests", 0)))
        return message

    pool_module.Worker.receive = timed  # type: ignore[method-assign]
    try:
        os.environ["PYTHONPATH"] = str(import_root(root))
        options = Options(
            paths=[root / t for t in targets], jobs=2, incremental=False, pytest_args=QUIET
        )
        analysis = analyse(root, options)
    finally:
        pool_module.Worker.receive = receive  # type: ignore[method-assign]
    return seen, analysis.elapsed, collected[0] if collected else 0


def fresh(source: Path) -> Path:
    """A copy of ``source`` with its store, without the workers' bytecode cache."""
    copy = WORK / "timeline" / source.name
    shutil.rmtree(copy, ignore_errors=True)
    shutil.copytree(source, copy, ignore=shutil.ignore_patterns("__pycache__", "pycache"))
    return copy


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--project", action="append", required=True, help="PATH=target.py,...")
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    for spec in args.project:
        path, _, targets = spec.partition("=")
        rows: list[dict[str, tuple[float, float]]] = []
        print(f"== {path}: {targets}")
        for run in range(args.runs):
            seen, elapsed, tests = timeline(fresh(Path(path).resolve()), targets.split(","))
            rows.append(seen)
            marks = ", ".join(f"{op} {w:.0f} ms (CPU {c:.0f})" for op, (w, c) in seen.items())
            print(
                f"  run {run + 1}: {marks}; {tests} tests collected; end to end {elapsed:.2f} s "
                f"{load()}"
            )
        medians = [
            f"{op} {statistics.median(r[op][0] for r in rows):.0f} ms "
            f"(CPU {statistics.median(r[op][1] for r in rows):.0f})"
            for op in MARKS
            if all(op in r for r in rows)
        ]
        print(f"  medians: {', '.join(medians)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
