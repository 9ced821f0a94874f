"""Checks per second per core of ``reks engine-test`` for rename and extract method, with
every oracle on (crash, compile, undefined names, run-and-compare, structural, inverse,
differential, refusal).

A check is one engine performing one refactoring on one generated program and every
oracle applied to the result. The figure per core is checks / CPU seconds of the process
doing the checks (rope, jedi and the oracles run in it; generated programs run in a zygote
subprocess whose CPU time is added), so it does not depend on how loaded the machine is;
wall-clock rates are printed too. Goal: >= 100 checks/s/core (ASTGen checked ~100 programs a
minute; a throwaway sketch of this tool reached 44/s).

    nice python bench/astgen_rate.py [--bound 2] [--cases 300] [--engines reks,jedi]
"""

from __future__ import annotations

import argparse
import os
import resource
import time

from lsp_server.astgen.check import Checker
from lsp_server.astgen.engines import make_engine
from lsp_server.astgen.generators import cases
from lsp_server.astgen.program_runner import Runner


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def measure(refactoring: str, engines: list[str], bound: int, limit: int) -> None:
    selected = cases(bound, None, [refactoring])
    # Spread the sample over the generators: every n-th case.
    step = max(1, len(selected) // limit)
    sample = selected[::step][:limit]
    for engine in engines:
        runner = Runner()
        checker = Checker([make_engine(engine)], runner)
        # Warm up (jedi's first call loads its caches; rope imports lazily).
        _, first = sample[0]
        checker.check(-1, first.value, first.labels)
        checker.clear_cache()
        cpu, wall = time.process_time(), time.perf_counter()
        children = _children_cpu()
        checks = 0
        for index, (_, item) in enumerate(sample):
            checks += sum(
                1 for r in checker.check(index, item.value, item.labels) if r.engine == engine
            )
        runner.close()  # reap the zygote so its CPU time is counted
        cpu_s = time.process_time() - cpu + _children_cpu() - children
        wall_s = time.perf_counter() - wall
        checker.close()
        print(
            f"{refactoring:15} {engine:5} {checks:5} checks  "
            f"{checks / cpu_s:7.1f} checks/s/core (CPU {cpu_s:6.2f}s)  "
            f"{checks / wall_s:7.1f} checks/s wall"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bound", type=int, default=2)
    parser.add_argument("--cases", type=int, default=300, help="cases per refactoring")
    parser.add_argument("--engines", default="reks,rope,jedi")
    args = parser.parse_args()
    print(f"pid {os.getpid()}, load average {os.getloadavg()[0]:.2f}, bound {args.bound}")
    for refactoring in ("rename", "extract-method"):
        measure(refactoring, args.engines.split(","), args.bound, args.cases)


if __name__ == "__main__":
    main()
