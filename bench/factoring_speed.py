"""Test factoring on a real project: how much faster are factored tests than their system
tests, what does capture cost, how big are the transcripts, and what would the same replay
cost through ``unittest.mock``.

The projects are the table of ``factoring_projects.py`` (installed from their sdists):
real projects whose slow tests spend their time in ``sqlite3``, ``git`` child processes or
``time.sleep``. For each project's 20 slowest passing tests, reks suggests a boundary from
a profile of the test; the tests with a useful one are factored, and the factored and
original tests then run in one pytest session so that both sides are timed under the same
load.

    python bench/factoring_speed.py [--project NAME] [--work DIR] [--tests 20]

Figures printed: per test the system and replay time and speed-up; per project the median
and total speed-up, capture overhead (capture run / plain run), transcript sizes, the share
of tests with a useful boundary, and the per-call cost of our stubs against
``unittest.mock`` (and against a plain function call).
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path
from typing import Any

from factoring_projects import BenchProject, Factored, factor_slowest, prepare, selected

from lsp_server.factoring.factor import FactorResult
from lsp_server.factoring.runner import run_pytest
from lsp_server.project import Project


def same_session_times(project: Project, results: list[FactorResult]) -> dict[str, Any]:
    factored = [r for r in results if r.status == "factored" and r.factored_test]
    nodeids = [n for r in factored for n in (r.test, r.factored_test or "")]
    return run_pytest(project, nodeids, {"time": True})["tests"] if nodeids else {}


def stub_against_mock(calls: int = 20000) -> dict[str, float]:
    """Per-call cost of answering a recorded call: our stub vs unittest.mock vs a function."""
    import unittest.mock
    from types import ModuleType

    from lsp_server.factoring.boundary import Boundary
    from lsp_server.factoring.replay import FunctionStub, Replayer

    module = ModuleType("bench_env")
    events = [
        {"kind": "call", "target": "bench_env.f", "args": [i], "result": i + 1}
        for i in range(calls)
    ]
    replayer = Replayer({"events": events, "test": "bench"}, Path("/"), [Boundary("m", module)])
    stub = FunctionStub(replayer, "bench_env.f", None)
    mock = unittest.mock.Mock(side_effect=[i + 1 for i in range(calls)])

    def real(x: int) -> int:
        return x + 1

    timings = {}
    for name, fn in (("reks stub", stub), ("unittest.mock", mock), ("plain function", real)):
        started = time.perf_counter()
        for i in range(calls):
            fn(i)
        timings[name] = (time.perf_counter() - started) / calls
    return timings


def report(bench: BenchProject, factored: Factored, times: dict[str, Any]) -> None:
    candidates, chosen, results = factored.candidates, factored.chosen, factored.results
    print(f"{'test':<62} {'boundary':<9} {'system':>9} {'replay':>9} {'speed-up':>8} {'bytes':>7}")
    speedups, system_total, replay_total, overheads = [], 0.0, 0.0, []
    for result in results:
        shown = "+".join(result.boundaries)
        if result.status != "factored":
            print(f"{result.test:<62} {shown:<9} refused: {result.reason[:160]}")
            continue
        system = times.get(result.test, {}).get("duration_s", result.system_s)
        replay = times.get(result.factored_test or "", {}).get("duration_s", result.replay_s)
        speedups.append(system / replay if replay else 0.0)
        system_total, replay_total = system_total + system, replay_total + replay
        overheads.append(result.capture_s / result.system_s if result.system_s else 0.0)
        print(
            f"{result.test:<62} {shown:<9} {system * 1000:>7.1f}ms "
            f"{replay * 1000:>7.1f}ms {speedups[-1]:>7.1f}x {result.transcript_bytes:>7}"
        )
    suggested = sum(1 for b in chosen.values() if b)
    print()
    print(f"project: {bench.requirement}, {len(candidates)} slowest passing tests")
    print(f"boundary suggested: {suggested}/{len(candidates)}; useful (factored, faster, valid "
          f"on unchanged code): {len(speedups)}/{len(candidates)}")  # fmt: skip
    if speedups:
        print(f"median speed-up {statistics.median(speedups):.1f}x, total "
              f"{system_total / replay_total:.1f}x ({system_total:.2f} s -> {replay_total:.2f} s), "
              f"slower than the system test: {sum(1 for s in speedups if s < 1)}")  # fmt: skip
        overhead = statistics.median(overheads)
        print(f"capture overhead (capture run / plain run): median {overhead:.2f}x")
        sizes = [r.transcript_bytes for r in results if r.status == "factored"]
        print(f"transcript size: median {statistics.median(sizes)} B, max {max(sizes)} B")


def report_mock(mock: dict[str, float]) -> None:
    stub, mocked, plain = mock["reks stub"], mock["unittest.mock"], mock["plain function"]
    print(f"per answered call: reks stub {stub * 1e6:.2f} us, unittest.mock {mocked * 1e6:.2f} us "
          f"({mocked / stub:.1f}x the stub), plain function {plain * 1e6:.3f} us")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--project", help="a name from factoring_projects.PROJECTS (default: all)")
    parser.add_argument("--work", default="/tmp/reks-bench-factoring", type=Path)
    parser.add_argument("--tests", type=int, default=20)
    args = parser.parse_args()
    args.work.mkdir(parents=True, exist_ok=True)
    for bench in selected(args.project):
        print(f"=== {bench.name}", flush=True)
        project = prepare(bench, args.work)
        factored = factor_slowest(project, bench, args.tests)
        report(bench, factored, same_session_times(project, factored.results))
        print(flush=True)
    report_mock(stub_against_mock())


if __name__ == "__main__":
    main()
