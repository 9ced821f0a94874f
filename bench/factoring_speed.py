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
import os
import statistics
import time
from collections import Counter
from pathlib import Path

from factoring_projects import (
    BenchProject,
    Factored,
    factor_slowest,
    prepare,
    refusal_kind,
    selected,
)

from lsp_server.factoring import keep
from lsp_server.factoring.factor import FactorResult
from lsp_server.factoring.keep import Timings
from lsp_server.project import Project


def same_session_times(project: Project, results: list[FactorResult]) -> dict[str, Timings]:
    """Each kept pair timed again, independently of the tool's own decision, the same way:
    interleaved rounds in one pytest session (the first a warm-up)."""
    pairs = {r.test: r.factored_test for r in results if r.status == "factored" and r.factored_test}
    return keep.side_by_side(project, pairs, CHECK_ROUNDS)[1] if pairs else {}


CHECK_ROUNDS = 6


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


def report(bench: BenchProject, factored: Factored, times: dict[str, Timings]) -> None:
    """Per test and per project. The times are the bench's own side-by-side check (medians
    of ``CHECK_ROUNDS - 1`` rounds); ``tool`` is the speed-up the keep decision saw."""
    candidates, chosen, results = factored.candidates, factored.chosen, factored.results
    print(f"{'test':<62} {'boundary':<9} {'system':>9} {'replay':>9} {'speed-up':>8} "
          f"{'lost':>4} {'tool':>6} {'bytes':>7}")  # fmt: skip
    speedups, system_total, replay_total, overheads, losers = [], 0.0, 0.0, [], 0
    for result in results:
        shown = "+".join(result.boundaries)
        if result.status != "factored":
            print(f"{result.test:<62} {shown:<9} refused: {result.reason[:300]}")
            continue
        timed = times[result.test]
        system, replay = timed.system_s, timed.factored_s
        speedups.append(system / replay if replay else 0.0)
        pairs = zip(timed.system_wall, timed.factored_wall, strict=True)
        lost = sum(1 for s, f in pairs if f >= s)
        losers += lost > 0
        system_total, replay_total = system_total + system, replay_total + replay
        plain = result.details.get("plain_run_s", result.system_s)
        overheads.append(result.capture_s / plain if plain else 0.0)
        print(
            f"{result.test:<62} {shown:<9} {system * 1000:>7.1f}ms {replay * 1000:>7.1f}ms "
            f"{speedups[-1]:>7.1f}x {lost:>4} {result.speedup:>5.1f}x {result.transcript_bytes:>7}"
        )
    for nodeid, why in factored.unsuggested.items():
        print(f"{nodeid:<62} {'-':<9} no boundary: {why[:300]}")
    suggested = sum(1 for b in chosen.values() if b)
    print()
    tally = Counter(refusal_kind(r.reason) for r in results if r.status != "factored")
    tally.update(
        {"no boundary suggested": len(factored.unsuggested)} if factored.unsuggested else {}
    )
    print("refusals: " + (", ".join(f"{kind} {n}" for kind, n in tally.most_common()) or "none"))
    print(f"project: {bench.requirement}, {len(candidates)} slowest passing tests, load "
          f"{' '.join(f'{x:.1f}' for x in os.getloadavg())}")  # fmt: skip
    print(f"boundary suggested: {suggested}/{len(candidates)}; useful (factored, faster, valid "
          f"on unchanged code): {len(speedups)}/{len(candidates)}")  # fmt: skip
    if speedups:
        print(f"median speed-up {statistics.median(speedups):.1f}x, total "
              f"{system_total / replay_total:.1f}x ({system_total:.2f} s -> {replay_total:.2f} s), "
              f"slower than the system test (medians): {sum(1 for s in speedups if s <= 1)}, "
              f"slower in some round: {losers}")  # fmt: skip
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
    parser.add_argument(
        "--clock-in-e",
        action="store_true",
        help="factor as `reks factor --clock-in-e` (T's clock replayed from the capture's moment)",
    )
    args = parser.parse_args()
    args.work.mkdir(parents=True, exist_ok=True)
    for bench in selected(args.project):
        print(f"=== {bench.name}", flush=True)
        project = prepare(bench, args.work)
        factored = factor_slowest(project, bench, args.tests, args.clock_in_e)
        report(bench, factored, same_session_times(project, factored.results))
        print(flush=True)
    report_mock(stub_against_mock())


if __name__ == "__main__":
    main()
