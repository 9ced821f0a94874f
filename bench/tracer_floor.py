"""The floor of each way to record which code a test ran before Python 3.12: an empty
recorder of each design (``tracer_floor_plugin``) against plain pytest, interleaved runs on
the same checkout, CPU seconds of the pytest process.

    python bench/tracer_floor.py --venv /tmp/v311 --repeat 3 \
        --checkout /work/.mirror/pytoolz+toolz/repo \
        --checkout /work/.mirror/andialbrecht+sqlparse/repo

``--venv`` is a plain venv (pytest, coverage, reks; no pytest-lsp: its plugin costs ~0.9 s
per pytest start) of the Python to measure. ``--reks`` adds ``pytest --reks`` (a full
recording on an empty store) to the same interleaved runs. The load average is printed
before and after each project.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Iterator
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from rts_overhead import _load, from_checkout
from rts_project import Project, Run

FLOORS = ("profile", "markers", "coverage")
"""The empty recorders of ``tracer_floor_plugin``, besides plain pytest ("none")."""


def timed(project: Project, kind: str, extra: list[str]) -> Run:
    os.environ["REKS_FLOOR"] = kind
    try:
        return project.pytest("-p", "tracer_floor_plugin", *extra, listing=False)
    finally:
        os.environ.pop("REKS_FLOOR", None)


def bench(project: Project, repeat: int, kinds: list[str], reks: bool) -> None:
    print(f"\n== {project.name} ({project.root}); load before: {_load()}")
    project.reset_stores()
    timed(project, "none", [])  # warm the file system caches
    runs: dict[str, list[Run]] = {kind: [] for kind in ["none", *kinds]}
    if reks:
        runs["reks"] = []
    for _ in range(repeat):
        for kind in runs:
            if kind == "reks":
                project.reset_stores()
                runs[kind].append(timed(project, "none", ["--reks"]))
            else:
                runs[kind].append(timed(project, kind, []))
    best = {kind: min(found, key=lambda r: r.cpu) for kind, found in runs.items()}
    plain = best["none"]
    print(f"tests: {plain.count}; best of {repeat} interleaved runs, CPU seconds")
    print(f"{'recorder':12} {'cpu s':>8} {'wall s':>8} {'cpu x':>7} {'tests':>6} {'rc':>3}")
    for kind, run in best.items():
        label = "plain" if kind == "none" else kind
        print(
            f"{label:12} {run.cpu:8.2f} {run.wall:8.2f} {run.cpu / plain.cpu:7.2f}"
            f" {run.count:6d} {run.returncode:3d}"
        )
    print(f"load after: {_load()}")


def checkout_arguments(parser: argparse.ArgumentParser, workdir: Path) -> None:
    """The options of a bench over git checkouts run in one venv."""
    parser.add_argument("--checkout", type=Path, action="append", required=True)
    parser.add_argument("--venv", type=Path, required=True)
    parser.add_argument("--workdir", type=Path, default=workdir)
    parser.add_argument(
        "--pytest-arg", action="append", default=[], help="given to every pytest run"
    )


def checkout_projects(args: argparse.Namespace) -> Iterator[Project]:
    """Each ``--checkout`` copied under ``--workdir``, one after the other; pytest's
    temporary folders under the work folder (pytest prunes the shared ones at each start)."""
    tmp = args.workdir / "tmp"
    tmp.mkdir(parents=True, exist_ok=True)
    os.environ["TMPDIR"] = str(tmp)
    for source in args.checkout:
        project = from_checkout(source, args.workdir, args.venv)
        project.extra_args = list(args.pytest_arg)
        yield project


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    checkout_arguments(parser, Path("/tmp/reks-tracer-floor"))
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--floors", nargs="*", default=list(FLOORS), choices=FLOORS)
    parser.add_argument("--reks", action="store_true", help="time pytest --reks as well")
    args = parser.parse_args()
    for project in checkout_projects(args):
        bench(project, args.repeat, args.floors, args.reks)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
