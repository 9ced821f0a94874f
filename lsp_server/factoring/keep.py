"""Whether a factored test is worth keeping: timed side by side with its system test.

A factored test that is slower than its system test is worse than none (it runs first under
``--reks-factored``), so it is kept only on clear evidence. Both tests run in one pytest
session in interleaved rounds (``side_by_side``): the first round is a warm-up (imports,
caches, the session's fixtures) and is not counted. The factored test is kept when

- it passed in every round (and the system test did: a test that fails when repeated gives
  no timing to trust);
- it was faster in *every* counted round: a sign test, so a loaded machine that makes the
  pair's order of finishing a coin toss gives a refusal, not a guess;
- its median saving is clear of the noise (the spread of the system test's own times) and
  large (``MIN_SPEEDUP`` times, or ``MIN_SAVING_S``);
- where the replay used more CPU than the system test (its saving is waiting: sleeps, disk,
  a child process), it was ``MIN_SPEEDUP`` times faster in every round.
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
first session by ``CLEAR_SPEEDUP`` is kept; any other gets a second session, and is judged
on the 5 counted rounds of both (all won by chance once in 32 when the two are equally
fast). Most factored tests that are worth keeping win by far more, and each round runs the
slow system test again."""
CLEAR_SPEEDUP = 3.0
MIN_SPEEDUP = 1.5
MIN_SAVING_S = 0.05
"""Kept when the median replay is at least ``MIN_SPEEDUP`` times or this much faster."""


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
    project: Project, pairs: dict[str, str], calls: dict[str, int], job: Job | None = None
) -> tuple[dict[str, Any], dict[str, Timings]]:
    """Each test's outcome entry and each pair's timings: a second session for the pairs
    the first would keep but not by far (``calls``: recorded calls per system test, for
    the reasons). A refusal after the first session stands: more rounds could only add
    rounds the replay lost."""
    entries, timings = side_by_side(project, pairs, FIRST_ROUNDS, job)
    unsure = {
        system: factored
        for system, factored in pairs.items()
        if entries.get(factored, {}).get("outcome") == "passed"
        and _unsure(timings[system], entries.get(system, {}), calls.get(system, 0))
    }
    if unsure:
        more_entries, more = side_by_side(project, unsure, MORE_ROUNDS, job)
        for nodeid, entry in more_entries.items():
            if entry.get("outcome") != "passed" or nodeid not in entries:
                entries[nodeid] = entry
        for system, extra in more.items():
            timings[system] = timings[system].extended(extra)
    return entries, timings


def _unsure(timings: Timings, system_entry: dict[str, Any], calls: int) -> bool:
    """Kept on the first session's rounds, but not by ``CLEAR_SPEEDUP`` in each."""
    pairs = zip(timings.system_wall, timings.factored_wall, strict=True)
    clear = all(s >= CLEAR_SPEEDUP * f for s, f in pairs)
    return not clear and rejection(timings, system_entry, calls) == ""


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


def rejection(timings: Timings, system_entry: dict[str, Any], calls: int = 0) -> str:
    """Why the factored test is not kept ("" when it is), from its side-by-side timings."""
    if system_entry.get("outcome") != "passed":
        return "the system test does not pass when run again beside its factored test"
    rounds = len(timings.system_wall)
    if rounds == 0:
        return "the pair was not timed side by side"
    pairs = list(zip(timings.system_wall, timings.factored_wall, strict=True))
    slower = sum(1 for system, factored in pairs if factored >= system)
    system, factored = timings.system_s, timings.factored_s
    said = (
        f"timed side by side in {rounds} rounds, the system test takes {system * 1000:.1f} ms "
        f"and its replay {factored * 1000:.1f} ms ({calls} recorded calls; medians; "
        f"load {_load()})"
    )
    if slower:
        return f"replay is not faster: {said}, and the replay was not faster in {slower} round(s)"
    saving = system - factored
    noise = statistics.median(abs(s - system) for s in timings.system_wall)
    if saving <= 2 * noise:
        within = f"a saving within the noise (±{noise * 1000:.1f} ms)"
        return f"replay is not clearly faster: {said}: {within}"
    if system < MIN_SPEEDUP * factored and saving < MIN_SAVING_S:
        return (
            f"replay is not clearly faster: {said}, under {MIN_SPEEDUP}x and "
            f"{MIN_SAVING_S * 1000:.0f} ms"
        )
    more_cpu = statistics.median(timings.factored_cpu) > statistics.median(timings.system_cpu)
    if more_cpu and any(s < MIN_SPEEDUP * f for s, f in pairs):
        return (
            f"replay is not clearly faster: {said}; it uses more CPU than the system test "
            f"and was under {MIN_SPEEDUP}x in some round"
        )
    return ""


def _load() -> str:
    try:
        return f"{os.getloadavg()[0]:.1f} on {os.cpu_count()} cores"
    except OSError:
        return "unknown"
