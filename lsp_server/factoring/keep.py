"""Whether a factored test is worth keeping: timed side by side with its system test.

A factored test that is slower than its system test is worse than none (it runs first under
``--reks-factored``), so it is kept only on clear evidence. Both tests run in one pytest
session in interleaved rounds (``side_by_side``): the first round is a warm-up (imports,
caches, the session's fixtures) and is not counted. The factored test is kept when

- it passed in every round (and the system test did: a test that fails when repeated gives
  no timing to trust);
- its best round is clearly faster than the system test's best round (``MIN_SPEEDUP`` times,
  or ``MIN_SAVING_S``), and saves at least ``MIN_WORTH_S``: load only ever adds time, so the
  best of N rounds is each test's least disturbed time (on a loaded machine the medians and
  their spread are the load's);
- it was faster in every counted round but one in ``LOST_ROUND_PER`` (a sign test: two
  tests equally fast win all of 5 rounds but one by chance 6 times in 32, and then
  their bests are rarely ``MIN_SPEEDUP`` apart); a single round lost to a burst of load
  beside clearly faster rounds is not evidence of a slower replay;
- where the replay used more CPU than the system test (its saving is waiting: sleeps, disk,
  a child process), its best round was ``MIN_SPEEDUP`` times faster.
"""

from __future__ import annotations

import os
import statistics
from dataclasses import dataclass
from typing import Any

from lsp_server.factoring.runner import run_pytest
from lsp_server.jobs import Job
from lsp_server.project import Project

FIRST_ROUNDS = 3
MORE_ROUNDS = 4
"""Rounds per session, the warm-up included. A pair that won both counted rounds of the
first session by ``CLEAR_SPEEDUP`` is kept; any other whose best round was faster gets a
second session, and is judged on the 5 counted rounds of both. Most factored tests that
are worth keeping win by far more, and each round runs the slow system test again."""
CLEAR_SPEEDUP = 3.0
MIN_SPEEDUP = 1.5
MIN_SAVING_S = 0.05
"""Kept when the best replay is at least ``MIN_SPEEDUP`` times or this much faster."""
MIN_WORTH_S = 0.005
"""A replay saving less than this (best rounds) is not worth a factored test, whatever the
ratio: a test of a millisecond or two is timed mostly by pytest and the load (dunamai's
1.4 ms archival tests won two rounds 3x and lost all six rounds of a later check)."""


@dataclass(frozen=True)
class Timings:
    """One pair's counted rounds: wall and CPU seconds of each test, round by round."""

    system_wall: list[float]
    factored_wall: list[float]
    system_cpu: list[float]
    factored_cpu: list[float]

    @property
    def system_s(self) -> float:
        return statistics.median(self.system_wall)

    @property
    def factored_s(self) -> float:
        return statistics.median(self.factored_wall)

    def extended(self, more: Timings) -> Timings:
        return Timings(
            self.system_wall + more.system_wall,
            self.factored_wall + more.factored_wall,
            self.system_cpu + more.system_cpu,
            self.factored_cpu + more.factored_cpu,
        )

    def to_json(self) -> dict[str, Any]:
        return {k: [round(x, 6) for x in v] for k, v in vars(self).items()}


def timed(
    project: Project, pairs: dict[str, str], job: Job | None = None
) -> tuple[dict[str, Any], dict[str, Timings]]:
    """Each test's outcome entry and each pair's timings: a second session for the pairs
    the first neither keeps by far nor refuses outright."""
    entries, timings = side_by_side(project, pairs, FIRST_ROUNDS, job)
    unsure = {
        system: factored
        for system, factored in pairs.items()
        if entries.get(factored, {}).get("outcome") == "passed"
        and _unsure(timings[system], entries.get(system, {}))
    }
    if unsure:
        more_entries, more = side_by_side(project, unsure, MORE_ROUNDS, job)
        for nodeid, entry in more_entries.items():
            if entry.get("outcome") != "passed" or nodeid not in entries:
                entries[nodeid] = entry
        for system, extra in more.items():
            timings[system] = timings[system].extended(extra)
    return entries, timings


def _unsure(timings: Timings, system_entry: dict[str, Any]) -> bool:
    """Not won by ``CLEAR_SPEEDUP`` in each of the first session's rounds, but the replay's
    best round was faster: more rounds decide (a round lost to a burst of load is allowed
    only among more rounds)."""
    if system_entry.get("outcome") != "passed" or not timings.system_wall:
        return False
    pairs = zip(timings.system_wall, timings.factored_wall, strict=True)
    clear = all(s >= CLEAR_SPEEDUP * f for s, f in pairs)
    return not clear and min(timings.factored_wall) < min(timings.system_wall)


def side_by_side(
    project: Project, pairs: dict[str, str], rounds: int, job: Job | None = None
) -> tuple[dict[str, Any], dict[str, Timings]]:
    """Run each system test -> factored test pair in ``rounds`` interleaved rounds in one
    pytest session: each test's outcome entry, and each pair's counted timings."""
    request = {"time": True, "pairs": [list(p) for p in pairs.items()], "rounds": rounds}
    output = run_pytest(project, [n for p in pairs.items() for n in p], request, job)
    runs = output.get("runs", {})
    timings = {}
    for system, factored in pairs.items():
        ours, theirs = runs.get(system, [])[1:], runs.get(factored, [])[1:]
        counted = min(len(ours), len(theirs))
        timings[system] = Timings(
            [r["wall_s"] for r in ours[:counted]],
            [r["wall_s"] for r in theirs[:counted]],
            [r["cpu_s"] for r in ours[:counted]],
            [r["cpu_s"] for r in theirs[:counted]],
        )
    return output["tests"], timings


LOST_ROUND_PER = 4
"""One counted round in this many (rounded down) may be lost: none of 2 or 3, one of 5."""


def rejection(timings: Timings, system_entry: dict[str, Any], calls: int = 0) -> str:
    """Why the factored test is not kept ("" when it is), from its side-by-side timings."""
    if system_entry.get("outcome") != "passed":
        return "the system test does not pass when run again beside its factored test"
    rounds = len(timings.system_wall)
    if rounds == 0:
        return "the pair was not timed side by side"
    pairs = list(zip(timings.system_wall, timings.factored_wall, strict=True))
    lost = sum(1 for system, factored in pairs if factored >= system)
    system, factored = min(timings.system_wall), min(timings.factored_wall)
    said = (
        f"timed side by side in {rounds} rounds, the system test takes {system * 1000:.1f} ms "
        f"and its replay {factored * 1000:.1f} ms ({calls} recorded calls; best rounds; "
        f"load {_load()})"
    )
    if factored >= system or lost > rounds // LOST_ROUND_PER:
        return f"replay is not faster: {said}, and the replay was not faster in {lost} round(s)"
    if system - factored < MIN_WORTH_S:
        return f"replay saves too little to be worth a factored test: {said}"
    if system < MIN_SPEEDUP * factored and system - factored < MIN_SAVING_S:
        return (
            f"replay is not clearly faster: {said}, under {MIN_SPEEDUP}x and "
            f"{MIN_SAVING_S * 1000:.0f} ms"
        )
    more_cpu = statistics.median(timings.factored_cpu) > statistics.median(timings.system_cpu)
    if more_cpu and system < MIN_SPEEDUP * factored:
        return (
            f"replay is not clearly faster: {said}; it uses more CPU than the system test "
            f"and is under {MIN_SPEEDUP}x"
        )
    return ""


def _load() -> str:
    try:
        return f"{os.getloadavg()[0]:.1f} on {os.cpu_count()} cores"
    except OSError:
        return "unknown"
